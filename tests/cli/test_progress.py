"""What `jbag run` shows: plain lines when stdout is not a terminal, bars cut to the terminal's width when it is,
an ETA from the measured rate, and the summary table."""

from __future__ import annotations

import io
import re

import pytest
from rich.console import Console

import jbag_pipeline.cli as cli
from benchmarks.bench_pipeline import STEP_DONE
from jbag_pipeline.cli.progress import (LiveProgress, PlainProgress, StepResult, eta_seconds, format_eta,
                                        run_eta_seconds, summarize, summary_table)

CONTROL = re.compile(r"[\x00-\x09\x0b-\x1f\x7f]")  # anything but a newline


def test_eta_is_the_rest_at_the_rate_measured_so_far():
    assert eta_seconds(0, 10, 5.0) is None and eta_seconds(3, 10, 0.0) is None  # no rate yet
    assert eta_seconds(2, 10, 6.0) == pytest.approx(24.0)  # 3 s per unit, 8 to go
    assert eta_seconds(2.5, 10, 5.0) == pytest.approx(15.0)  # a step counted by its share of games done
    assert eta_seconds(10, 10, 7.0) == 0.0 and eta_seconds(11, 10, 7.0) == 0.0
    assert [format_eta(s) for s in (None, 42.4, 185, 7620)] == ["ETA unknown", "ETA 42s", "ETA 3m05s", "ETA 2h07m"]


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def test_run_eta_takes_each_step_at_the_measured_mean_of_its_assets():
    a, b = ("selfplay_games", "selfplay_states"), ("catalog",)
    assert run_eta_seconds({}, [a, b]) is None and run_eta_seconds({}, [b], a, 5.0, 0, 10) is None
    assert run_eta_seconds({}, [a, b], a, 10.0, 5, 10) == pytest.approx(10 + 20 + 20)  # half the games in 10 s
    assert run_eta_seconds({a: [20.0, 10.0]}, [a, b]) == pytest.approx(15 + 15)  # b not measured: the mean of all
    assert run_eta_seconds({a: [20.0], b: [2.0]}, [b, b], a, 5.0) == pytest.approx(15 + 2 + 2)  # no games: mean - elapsed
    assert run_eta_seconds({a: [20.0], b: [2.0]}, [b], a, 30.0) == pytest.approx(2)  # late, not negative
    assert run_eta_seconds({a: [20.0]}, [], a, 5.0, 9, 10) == pytest.approx(15)  # the step, not just its games
    assert run_eta_seconds({a: [4.0]}, []) == 0.0


def test_plain_progress_is_one_line_per_step_with_the_run_eta():
    lines, clock = [], Clock()
    a = ["selfplay_games", "selfplay_states"]
    display = PlainProgress(lines.append, clock)
    display.run_started([a, a, ["catalog"]], "3 Dagster runs")
    display.step_started(1, a, "connect4")
    assert display.run_eta() is None
    display.games(1, 0, 10)
    clock.now += 10
    display.games(1, 5, 0)
    assert display.run_eta() == pytest.approx(50.0)  # this step 10 s more; 2 more steps of its projected 20 s
    display.games(1, 5, 0)
    clock.now += 10
    display.step_done(1, StepResult(a, "connect4", 20.0, {"selfplay_games": 10}, games=10))
    display.step_started(2, a, "tictactoe")
    clock.now += 5
    assert display.run_eta() == pytest.approx(15.0 + 20.0)
    clock.now += 5
    display.step_done(2, StepResult(a, "tictactoe", 10.0, {}, games=10))
    display.step_started(3, ["catalog"], None)
    display.step_done(3, StepResult(["catalog"], None, 3.0, {}))
    assert lines == ["3 Dagster runs",
                     "[1/3] selfplay_games, selfplay_states  (connect4, 2 assets): done in 20.0s; games: 10; "
                     "run ETA 40s",
                     "[2/3] selfplay_games, selfplay_states  (tictactoe, 2 assets): done in 10.0s; games: 10; "
                     "run ETA 15s",
                     "[3/3] catalog: done in 3.0s; run ETA 0s"]
    assert [float(s) for s in STEP_DONE.findall("\n".join(lines))] == [20.0, 10.0, 3.0]  # bench_pipeline reads them


def test_plain_progress_lines_name_the_groups_and_fit_160_characters():
    lines = []
    assets = [f"asset_number_{i}" for i in range(40)]
    groups = {asset: ("selfplay", "model", "evaluation")[i % 3] for i, asset in enumerate(assets)}
    display = PlainProgress(lines.append, Clock(), groups=groups)
    long_partition = "games rebuilt: " + ", ".join(f"game_{i}" for i in range(50))
    display.run_started([assets, assets, ["catalog"], assets[:1]], "x" * 300)
    display.step_done(1, StepResult(assets, "connect4", 20.0, {a: 10**9 for a in assets}, games=400))
    display.step_done(2, StepResult(assets, long_partition, 2.0, {}))
    display.step_done(3, StepResult(["catalog"], None, 1.0, {"catalog": 12}))
    display.step_done(4, StepResult(assets[:1], None, 1.0, {}))
    assert all(len(line) <= 160 for line in lines), [len(line) for line in lines]
    assert re.fullmatch(r"\[1/4\] selfplay, model, evaluation  \(connect4, 40 assets\): done in 20\.0s; "
                        r"games: 400; run ETA \S+", lines[1]), lines[1]
    assert re.fullmatch(r"\[2/4\] selfplay, model, evaluation  \(games rebuilt: game_0, .*\.\.\., 40 assets\): "
                        r"done in 2\.0s; run ETA \S+", lines[2]), lines[2]
    assert lines[3].startswith("[3/4] catalog: done in 1.0s; run ETA ") and lines[4].startswith("[4/4] selfplay: ")
    assert lines[0].endswith("...") and "rows" not in "".join(lines)  # the rows are in the summary table


def test_live_progress_lines_fit_the_terminal():
    out = io.StringIO()
    display = LiveProgress(Console(file=out, force_terminal=True, width=60))
    assets = [f"asset_number_{i}" for i in range(12)]
    display.run_started([assets, ["catalog"]], "2 Dagster runs, tagged jbag/run_id=" + "x" * 80)
    display.step_started(1, assets, "connect4")
    assert display.bars.tasks[0].fields["count"] == "steps 0/2"
    display.games(1, 0, 8)
    display.games(1, 3, 0)
    assert display.bars.tasks[1].fields["count"] == "games 3/8" and display.bars.tasks[0].completed == 3 / 8
    display.games(1, 5, 0)
    display.step_done(1, StepResult(assets, "connect4", 1.0, {}, games=8))
    display.close()
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", out.getvalue()).replace("\r", "\n")
    assert "[1/2] asset_number_0, asset_number_1" in text and "games 8/8" in text
    assert max(len(line) for line in text.splitlines()) <= 60


def test_run_eta_of_steps_side_by_side_divides_their_share_by_the_lanes():
    clock, a = Clock(), ["selfplay_games"]
    display = PlainProgress(lambda line: None, clock)
    display.run_started([a, a, a, a, ["catalog"]], "5 Dagster runs", parallel=2, parallel_steps=4)
    display.step_started(1, a, "connect4")
    display.step_started(2, a, "dominion")
    clock.now += 10
    display.step_done(1, StepResult(a, "connect4", 10.0, {}))
    display.step_started(3, a, "tictactoe")
    clock.now += 4
    # left: step 2 none (14 s of a 10 s mean), step 3 10 - 4 s, step 4 10 s, side by side on 2 lanes; then the
    # catalog alone (not measured: the mean of finished steps, 10 s)
    assert display.run_eta() == pytest.approx((0 + 6 + 10) / 2 + 10)
    display.games(3, 0, 4)
    display.games(3, 2, 0)
    assert display.run_eta() == pytest.approx((0 + 6 + 10) / 2 + 10)  # a measured kind: its mean, not its games


def test_summary_per_op_and_total():
    results = [StepResult(["selfplay_games", "selfplay_states", "trajectory_bags"], game, 3.0,
                          {"selfplay_games": 4, "selfplay_states": 40, "trajectory_bags": 7}, games=4,
                          op_seconds={"selfplay_games, selfplay_states": 2.0, "trajectory_bags": 0.5})
               for game in ("connect4", "tictactoe")]
    results.append(StepResult(["catalog"], None, 1.25, {}, op_seconds={"catalog": 1.0}))
    rows, total = summarize(results)
    assert [(r.name, r.partitions, r.rows, r.seconds) for r in rows] == [
        ("selfplay_games, selfplay_states", 2, 88, 4.0), ("trajectory_bags", 2, 14, 1.0), ("catalog", 0, 0, 1.0)]
    assert (total.partitions, total.rows, total.seconds) == (2, 102, 7.25)
    out = io.StringIO()
    Console(file=out, width=100).print(summary_table(results))
    table = out.getvalue()
    assert "3 steps, 8 games" in table and not CONTROL.search(table)
    assert re.search(r"selfplay_games, selfplay_states\s+2\s+88\s+4\.0", table)
    assert re.search(r"catalog\s+-\s+0\s+1\.0", table) and re.search(r"total\s+2\s+102\s+7\.2", table)


def test_summary_sums_cpu_seconds_and_keeps_the_largest_peak_per_op():
    results = [StepResult(["trajectory_bags"], game, 3.0, {}, op_seconds={"trajectory_bags": 1.0},
                          op_usage={"trajectory_bags": {"peak_rss_mb": peak, "cpu_seconds": 2.5}})
               for game, peak in (("connect4", 900.0), ("dominion", 4100.0))]
    results.append(StepResult(["catalog"], None, 1.0, {}, op_seconds={"catalog": 1.0}))  # not measured
    rows, total = summarize(results)
    assert [(r.name, r.cpu_seconds, r.peak_rss_mb) for r in rows] == [("trajectory_bags", 5.0, 4100.0),
                                                                      ("catalog", None, None)]
    assert (total.cpu_seconds, total.peak_rss_mb) == (5.0, 4100.0)
    out = io.StringIO()
    Console(file=out, width=120).print(summary_table(results))
    assert re.search(r"trajectory_bags\s+2\s+0\s+2\.0\s+5\.0\s+4,100", out.getvalue())
    assert re.search(r"catalog\s+-\s+0\s+1\.0\s+-\s+-", out.getvalue())


def test_jbag_run_prints_plain_lines_and_the_summary_when_stdout_is_no_terminal(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "dagster_home"))
    argv = ["run", "--preset", "smoke", "--select", "selfplay_games", "--games", "tictactoe",
            "--compute", "local", "--workers", "2", "--data-dir", str(tmp_path / "data")]
    assert cli.main(argv) == 0
    out = capsys.readouterr().out
    assert not CONTROL.search(out)
    lines = out.splitlines()
    steps = [line for line in lines if line.startswith("[")]
    assert len(steps) == 2 and len(STEP_DONE.findall(out)) == 2
    # one op writes both tables: Dagster gives its keys in either order
    assert re.fullmatch(r"\[1/2\] selfplay  \(tictactoe, 2 assets\): done in [0-9.]+s; games: 8; run ETA \S+",
                        steps[0]), steps[0]
    assert re.fullmatch(r"\[2/2\] catalog: done in [0-9.]+s; run ETA 0s", steps[1]), steps[1]
    assert all(len(line) <= 160 for line in steps)
    assert "2 steps, 8 games" in out and re.search(r"selfplay_games, selfplay_states\s+1\s+\d+\s+[0-9.]+\s+[0-9.]+"
                                                   r"\s+[0-9,]+\s*$", out, re.MULTILINE)  # its CPU s and peak RSS
    assert re.search(r"^\s*total\s+1\s+\d+\s+[0-9.]+", out, re.MULTILINE)
