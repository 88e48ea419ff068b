"""bench_card_engines: its budgets, its base commit, and one-line errors for bad names."""

import subprocess
import sys

import pytest

from benchmarks import bench_card_engines
from benchmarks.run_all import ROOT


def test_budgets_are_the_demo_presets_reproduces_and_the_papers():
    budgets = bench_card_engines.budgets()
    assert list(budgets) == ["demo", "reproduce", "paper"]
    assert budgets["demo"]["sea_salt_paper"] == (15, 10) and budgets["demo"]["cant_stop"] == (20, 10)
    assert set(budgets["reproduce"].values()) == {(40, 10)} and set(budgets["paper"].values()) == {(1000, 100)}
    assert bench_card_engines.BASE_COMMIT == "4412511"


@pytest.mark.parametrize("games, settings", [(("chess",), None), (("dominion",), ("quick",))])
def test_an_unknown_game_or_setting_fails_before_measuring(games, settings, monkeypatch):
    monkeypatch.setattr(bench_card_engines, "extract_base", lambda *a: pytest.fail("measured anyway"))
    with pytest.raises(ValueError, match=r"unknown game\(s\) or setting\(s\) \['(chess|quick)'\]"):
        bench_card_engines.run(1, games, settings)


@pytest.mark.parametrize("args", [["x"], ["1", "chess"]])
def test_the_command_line_says_a_bad_argument_in_one_line(args):
    done = subprocess.run([sys.executable, "benchmarks/bench_card_engines.py", *args], cwd=ROOT,
                          capture_output=True, text=True)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("bench_card_engines: ")
