"""`jbag run`'s Dagster runs are one unit: every run carries the same jbag/run_id tag and its step."""

import dagster as dg

from engines import GAMES
from jbag_pipeline.cli.runner import RUN_TAG, STEP_TAG, materialize_all, new_run_id, plan
from jbag_pipeline.assets.transfer import TRANSFER_PAIRS
from jbag_pipeline.definitions import ALL_ASSETS
from jbag_pipeline.resources import JbagSettings


def test_every_run_of_one_jbag_run_shares_its_run_id_tag(tmp_path):
    instance = dg.DagsterInstance.ephemeral()
    settings = JbagSettings(preset="smoke", data_dir=str(tmp_path))
    lines = []
    results = materialize_all(ALL_ASSETS, settings, select=["tictactoe_values"], instance=instance,
                              progress=lines.append, run_id="test-run")
    assert [r.assets for r in results] == [["tictactoe_values"], ["catalog"]]
    assert lines[0] == f"2 Dagster runs, tagged {RUN_TAG}=test-run (filter the UI's run list by it)"
    assert len(lines) == 3  # the headline, then one line per step
    assert lines[1].startswith("[1/2] tictactoe_values: done in ") and "; run ETA " in lines[1]
    assert lines[2].startswith("[2/2] catalog: done in ") and lines[2].endswith("; run ETA 0s")
    runs = instance.get_runs(dg.RunsFilter(tags={RUN_TAG: "test-run"}))
    assert sorted(run.tags[STEP_TAG] for run in runs) == ["1/2", "2/2"]
    assert all(run.status == dg.DagsterRunStatus.SUCCESS for run in runs)
    materialize_all(ALL_ASSETS, settings, select=["tictactoe_values"], instance=instance, progress=lambda _: None)
    assert len(instance.get_runs(dg.RunsFilter(tags={RUN_TAG: "test-run"}))) == 2  # the next run has its own id
    assert len(instance.get_runs()) == 4


def test_run_ids_differ_and_sort_by_start_time():
    first, second = new_run_id(), new_run_id()
    assert first != second and first[:15] <= second[:15] and len(first) == len("20261201-133000-abcdef")


def test_default_plan_is_one_run_per_game_then_transfer_pairs_and_the_rest():
    steps = plan(ALL_ASSETS, None, None)
    game_steps = [(keys, key) for keys, key in steps if key in GAMES]
    assert [key for _, key in game_steps] == sorted(GAMES)
    assert all({"selfplay_games", "winner_prototypes", "evaluation_control", "evaluation_games"} <= set(keys)
               for keys, _ in game_steps)  # the whole game, its evaluation of every pair included
    rest = [key for _, key in steps[len(game_steps):]]
    assert rest[:len(TRANSFER_PAIRS)] == sorted(TRANSFER_PAIRS)
    assert len(steps) == len(GAMES) + len(TRANSFER_PAIRS) + 3  # unpartitioned, ingested model, summaries
    assert [key for _, key in plan(ALL_ASSETS, None, ["connect4"])][:2] == ["connect4", "connect4-6x7-to-8x8"]
