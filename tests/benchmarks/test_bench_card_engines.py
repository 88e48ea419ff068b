"""bench_card_engines: its budgets, its base commit, and one-line errors for bad names."""

import subprocess
import sys

import pytest

from benchmarks import bench_card_engines
from benchmarks.run_all import ROOT


def test_budgets_are_the_demo_and_reproduce_presets_and_the_papers():
    budgets = bench_card_engines.budgets()
    assert list(budgets) == ["demo", "reproduce", "paper"]
    assert budgets["demo"]["sea_salt_paper"] == (15, 10) and budgets["demo"]["cant_stop"] == (20, 10)
    assert budgets["reproduce"]["dominion"] == (15, 10) and set(budgets["paper"].values()) == {(1000, 100)}
    assert bench_card_engines.BASE_COMMIT == "4412511"


def test_settings_with_one_budget_are_measured_once_and_self_play_skips_the_paper_budget():
    per_setting = {"demo": {"dominion": (15, 10)}, "reproduce": {"dominion": (15, 10)},
                   "paper": {"dominion": (1000, 100)}}
    measure = bench_card_engines._budgets_to_measure
    assert measure(per_setting, "dominion", None, "decisions") == [
        ("demo, reproduce", (15, 10), "demo"), ("paper", (1000, 100), "paper")]
    assert measure(per_setting, "dominion", None, "selfplay") == [("demo, reproduce", (15, 10), "demo")]
    assert measure(per_setting, "dominion", ("reproduce",), "selfplay") == [("reproduce", (15, 10), "reproduce")]


def test_the_self_play_worker_plays_whole_games_and_counts_them():
    result = bench_card_engines.selfplay_worker("cant_stop", 20, 10, 1)
    assert result["per_s"] > 0 and result["engines"].endswith("engines")


def test_the_self_play_records_hash_the_same_seeds_alike_and_other_budgets_apart():
    first, again = (bench_card_engines.selfplay_worker("cant_stop", 3, 2, 1)["records"] for _ in range(2))
    other = bench_card_engines.selfplay_worker("cant_stop", 4, 2, 1)["records"]
    assert first == again != other
    bench_card_engines.check_records({"records": first}, {"records": again}, "cant_stop", 3, 2)
    with pytest.raises(RuntimeError, match="cant_stop self-play records .* differ from those of 4412511"):
        bench_card_engines.check_records({"records": first}, {"records": other}, "cant_stop", 3, 2)


@pytest.mark.parametrize("games, settings, kinds", [(("chess",), None, ("selfplay",)),
                                                   (("dominion",), ("quick",), ("selfplay",)),
                                                   (("dominion",), None, ("games",))])
def test_an_unknown_game_setting_or_kind_fails_before_measuring(games, settings, kinds, monkeypatch):
    monkeypatch.setattr(bench_card_engines, "extract_base", lambda *a: pytest.fail("measured anyway"))
    with pytest.raises(ValueError, match=r"unknown game\(s\) or setting\(s\) \['(chess|quick|games)'\]"):
        bench_card_engines.run(1, games, settings, kinds)


@pytest.mark.parametrize("args", [["x"], ["1", "chess"]])
def test_the_command_line_says_a_bad_argument_in_one_line(args):
    done = subprocess.run([sys.executable, "benchmarks/bench_card_engines.py", *args], cwd=ROOT,
                          capture_output=True, text=True)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("bench_card_engines: ")
