"""The benchmark modules written for the suite: pipeline groups and measuring, scaling, demo-scale selection."""

import os
import sys

import polars as pl
import pytest

from benchmarks import bench_pipeline, bench_scaling, bench_selection_demo
from benchmarks.run_all import ROOT
from jbag_pipeline.presets import game_run, get_preset
from jbag_pipeline.transforms.sampling import sampled_states
from jbag_pipeline.transforms.segments import segmented_bags
from jbag_pipeline.transforms.state_tokens import tokenize_states


@pytest.mark.slow  # imports the Dagster definitions: about 10 s on the shared machine
def test_asset_groups_come_after_the_groups_they_read():
    from jbag_pipeline.definitions import ALL_ASSETS
    from jbag_pipeline.run_policy import OPT_IN
    from jbag_pipeline.cli.runner import tagged

    opt_in = set(tagged(ALL_ASSETS, OPT_IN))
    groups = bench_pipeline.asset_groups()
    position = {group: i for i, (group, _) in enumerate(groups)}
    assert {"selfplay", "model", "selection", "catalog", "report"} <= set(position)
    group_of = {key: group for a in ALL_ASSETS for key, group in a.group_names_by_key.items()}
    for assets_def in ALL_ASSETS:
        for key in assets_def.keys:
            for dep in assets_def.dependency_keys:
                if dep in group_of and dep.to_user_string() not in opt_in:  # e.g. catalog <- reference
                    assert position[group_of[dep]] <= position[group_of[key]], (dep, key)
    listed = [key for _, keys in groups for key in keys]
    assert sorted(listed) == sorted({key.to_user_string() for key in group_of} - opt_in)
    assert len(set(listed)) == len(listed)


def test_run_measured_sums_the_step_times_and_reports_resources(tmp_path):
    script = ("print('2 Dagster runs'); print('[1/2] a, b  (connect4): done in 1.5s; games: 4; run ETA 2s; rows: {}');"
              "print('[2/2] catalog: done in 2.25s; run ETA 0s'); print('    done in 0.5s');"
              "print('  total      7   44,788,858     556.9   171.0         1,074  ')")
    measured = bench_pipeline.run_measured([sys.executable, "-c", script], {}, tmp_path / "log")
    assert measured["steps"] == 4.25
    assert measured["op_cpu"] == 171.0  # the summary's CPU s, which counts the ops' worker processes
    no_cpu = bench_pipeline.run_measured([sys.executable, "-c", "print('  total  -  0  3.8  -  -')"], {}, tmp_path / "log")
    assert no_cpu["op_cpu"] == 0.0
    older = bench_pipeline.run_measured([sys.executable, "-c", "print('  total  7  22,542  339.9')"], {}, tmp_path / "log")
    assert older["op_cpu"] is None
    assert measured["rss_mb"] > 1 and measured["wall"] > 0 and measured["cpu"] >= 0
    with pytest.raises(RuntimeError, match="exited with 3:\nboom"):
        bench_pipeline.run_measured([sys.executable, "-c", "print('boom'); raise SystemExit(3)"], {}, tmp_path / "log")


def test_preset_rows_sum_the_groups_and_estimate_one_run(monkeypatch):
    monkeypatch.setattr(bench_pipeline, "asset_groups", lambda: [("selfplay", ["a", "b"]), ("report", ["c"])])
    figures = {"selfplay": {"wall": 30.0, "cpu": 20.0, "rss_mb": 400.0, "steps": 22.0, "op_cpu": 60.0},
               "report": {"wall": 12.0, "cpu": 9.0, "rss_mb": 300.0, "steps": 6.0, "op_cpu": None}}
    commands = []

    def fake_run_measured(command, env, log):
        commands.append(command[command.index("--select") + 1])
        assert command[command.index("--preset") + 1] == "smoke" and env["DAGSTER_HOME"].endswith("dagster_home")
        return figures[log.stem]

    monkeypatch.setattr(bench_pipeline, "run_measured", fake_run_measured)
    rows = {(r["benchmark"], r["metric"]): r["median"] for r in bench_pipeline.run()}
    assert commands == ["a,b", "c"]
    assert rows[("pipeline/smoke/selfplay", "peak RSS MB")] == 400.0
    assert rows[("pipeline/smoke/all groups", "wall s")] == 42.0
    assert rows[("pipeline/smoke/all groups", "CPU s")] == 29.0
    assert rows[("pipeline/smoke/all groups", "op CPU s")] == 60.0 and ("pipeline/smoke/report", "op CPU s") not in rows
    assert rows[("pipeline/smoke/all groups", "peak RSS MB")] == 400.0
    assert rows[("pipeline/smoke/one jbag run (estimate)", "wall s")] == 28.0 + 6.0  # the smaller start-up: 12 - 6


def test_scaling_rows_judge_linearity_per_action(monkeypatch):
    monkeypatch.setattr(bench_scaling, "BASE_GAMES", {"tictactoe": 2})
    rows = bench_scaling.run(repeats=1)
    selfplay = [r for r in rows if r["benchmark"] == "scaling/selfplay/tictactoe"]
    assert [r["subject"].split(" ")[0] for r in selfplay] == ["1x", "2x", "4x"]
    assert selfplay[0]["ratio"] is None and all(0 < r["ratio"] < 10 for r in selfplay[1:])
    assert "(8 games," in selfplay[2]["subject"]
    sizes = {r["metric"]: r["median"] for r in rows if r["benchmark"] == "scaling/state_tokens_parquet/tictactoe"}
    assert set(sizes) == {"bytes/row", "bytes/token"} and 0 < sizes["bytes/token"] <= sizes["bytes/row"]


def test_demo_bags_in_chunks_equal_the_pipelines_whole_table():
    preset = get_preset("demo")
    n_games = game_run(preset, "tictactoe").selfplay_games
    games, states = bench_selection_demo.random_selfplay("tictactoe", {}, n_games, preset.seed)
    whole = segmented_bags(tokenize_states(states), sampled_states(states, games, preset.seed),
                           n_segments=preset.segments, blacklist=preset.blacklist_for("tictactoe"))
    chunked, chunked_games = bench_selection_demo.demo_bags("tictactoe", chunk=25)
    key = ["frequency", "segment", "game_id", "token"]
    assert chunked.sort(key).equals(whole.sort(key))
    assert chunked_games.equals(games) and games["game_id"].n_unique() == n_games
    assert games["winner"].drop_nulls().n_unique() == 2  # both seats win some: selection can run on these bags
    assert set(whole["frequency"]) == {"full", "interval", "random"} and whole["segment"].max() == preset.segments
    assert isinstance(whole, pl.DataFrame)


def test_measured_peak_rss_is_the_commands_own_not_its_callers(tmp_path):
    from benchmarks.measured import measure

    ballast = b"x" * (256 * 1024 * 1024)  # this process grows by 256 MB; a child started directly would inherit it
    small = measure([sys.executable, "-c", "print('hi')"], cwd=tmp_path, env=dict(os.environ, PYTHONPATH=str(ROOT)),
                    log=tmp_path / "log")
    big = measure([sys.executable, "-c", "x = b'1' * (200 * 1024 * 1024)"],
                  cwd=tmp_path, env=dict(os.environ, PYTHONPATH=str(ROOT)), log=tmp_path / "log")
    del ballast
    assert small["returncode"] == 0 and (tmp_path / "log").exists()
    assert small["rss_mb"] < 100 and big["rss_mb"] > 200
    failed = measure([sys.executable, "-c", "raise SystemExit(4)"], cwd=tmp_path,
                     env=dict(os.environ, PYTHONPATH=str(ROOT)), log=tmp_path / "log")
    assert failed["returncode"] == 4
