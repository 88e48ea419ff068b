"""`jbag run`'s Dagster runs are one unit: every run carries the same jbag/run_id tag and its step."""

import dagster as dg
import pytest

from engines import GAMES
import jbag_pipeline.storage.lake as lake
from jbag_pipeline.cli.checks import ReportedError, error_line
from jbag_pipeline.run_policy import AFTER_INGESTED, GAME, OPT_IN, SUMMARY, YES
from jbag_pipeline.cli.runner import RUN_TAG, STEP_TAG, materialize_all, new_run_id, parallel_runs, plan
from jbag_pipeline.assets.transfer import TRANSFER_PAIRS
from jbag_pipeline.definitions import ALL_ASSETS
from jbag_pipeline.resources import JbagCompute, JbagSettings, LakeResource


def test_every_run_of_one_jbag_run_shares_its_run_id_tag(tmp_path):
    instance = dg.DagsterInstance.ephemeral()
    settings, location = JbagSettings(preset="smoke"), LakeResource(data_dir=str(tmp_path))
    lines = []
    results = materialize_all(ALL_ASSETS, settings, location, select=["tictactoe_values"], instance=instance,
                              progress=lines.append, run_id="test-run")
    assert [r.assets for r in results] == [["tictactoe_values"], ["catalog"]]
    assert lines[0] == f"2 Dagster runs, tagged {RUN_TAG}=test-run (filter the UI's run list by it)"
    assert len(lines) == 3  # the headline, then one line per step
    assert lines[1].startswith("[1/2] tictactoe: done in ") and "; run ETA " in lines[1]  # its asset group
    assert lines[2].startswith("[2/2] catalog: done in ") and lines[2].endswith("; run ETA 0s")
    runs = instance.get_runs(dg.RunsFilter(tags={RUN_TAG: "test-run"}))
    assert sorted(run.tags[STEP_TAG] for run in runs) == ["1/2", "2/2"]
    assert all(run.status == dg.DagsterRunStatus.SUCCESS for run in runs)
    materialize_all(ALL_ASSETS, settings, location, select=["tictactoe_values"], instance=instance,
                    progress=lambda _: None)
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
    assert "tictactoe_jsonbag" not in {name for keys, _ in plan(ALL_ASSETS, None, ["connect4"]) for name in keys}


def test_plan_follows_the_run_policy_tags_on_the_assets():
    @dg.asset
    def table():
        pass

    @dg.asset(tags={OPT_IN: YES})
    def extra():
        pass

    @dg.asset(tags={OPT_IN: YES, AFTER_INGESTED: YES})
    def late():
        pass

    @dg.asset(tags={GAME: "tictactoe"})
    def board():
        pass

    @dg.asset(tags={SUMMARY: YES})
    def catalog():
        pass

    toy = [catalog, late, board, extra, table]
    assert plan(toy, None, None) == [(["board", "table"], None), (["catalog"], None)]
    assert plan(toy, None, ["connect4"]) == [(["table"], None), (["catalog"], None)]  # board reads tictactoe
    assert plan(toy, None, ["tictactoe"]) == [(["board", "table"], None), (["catalog"], None)]
    assert plan(toy, ["late", "extra"], None) == [(["extra"], None), (["late"], None), (["catalog"], None)]


def _folder(path):
    """A Dagster home on disk (the side-by-side runs need one: workers open it too)."""
    path.mkdir(parents=True)
    (path / "dagster.yaml").write_text("telemetry:\n  enabled: false\n")
    return path


SIDE_BY_SIDE = {"select": ["selfplay_games", "state_tokens"], "games": ["connect4", "tictactoe"]}


def test_games_runs_side_by_side_on_local_processes_write_what_one_after_another_does(tmp_path):
    """Two games' runs at once in the local pool's workers: the same lake files as the inline runs in turn."""
    tables = {}
    for backend in ("inline", "local"):
        root = tmp_path / backend
        instance = dg.DagsterInstance.local_temp(str(_folder(tmp_path / f"{backend}_home")))
        settings, location = JbagSettings(preset="smoke"), LakeResource(data_dir=str(root))
        compute = JbagCompute(backend=backend, workers=2 if backend == "local" else None)
        steps = plan(ALL_ASSETS, [*SIDE_BY_SIDE["select"], "catalog"], SIDE_BY_SIDE["games"])
        assert parallel_runs(ALL_ASSETS, compute, instance, steps) == (2 if backend == "local" else 1)
        more_workers = JbagCompute(backend=backend, workers=3 if backend == "local" else None)
        assert parallel_runs(ALL_ASSETS, more_workers, instance, steps) == 1  # 3 workers, 2 games: the pool's
        lines = []
        results = materialize_all(ALL_ASSETS, settings, location, **SIDE_BY_SIDE, instance=instance,
                                  compute=compute, progress=lines.append, run_id=backend)
        assert [r.partition for r in results] == ["connect4", "tictactoe", None]
        assert all(r.games == 8 for r in results[:2])  # the workers' games reached this process
        assert lines[-1].startswith("[3/3] catalog: done in ") and lines[-1].endswith("; run ETA 0s")
        runs = instance.get_runs(dg.RunsFilter(tags={RUN_TAG: backend}))
        assert len(runs) == 3 and all(run.status == dg.DagsterRunStatus.SUCCESS for run in runs)
        tables[backend] = {p.relative_to(root): p.read_bytes() for p in (root / "lake").rglob("part.parquet")}
    assert len(tables["local"]) == 6 and tables["local"] == tables["inline"]  # self-play's two tables and tokens


def test_a_games_run_failing_in_a_worker_is_one_line_naming_the_file(tmp_path):
    instance = dg.DagsterInstance.local_temp(str(_folder(tmp_path / "home")))
    settings, location = JbagSettings(preset="smoke"), LakeResource(data_dir=str(tmp_path / "data"))
    compute = JbagCompute(backend="local", workers=2)
    materialize_all(ALL_ASSETS, settings, location, select=["selfplay_games"], games=SIDE_BY_SIDE["games"],
                    instance=instance, compute=compute, progress=lambda _: None)
    broken = lake.partition_path(location.root(), "selfplay_states", {"game": "tictactoe"})
    broken.write_bytes(b"not parquet")
    with pytest.raises(ReportedError) as failed:
        materialize_all(ALL_ASSETS, settings, location, select=["state_tokens"], games=SIDE_BY_SIDE["games"],
                        instance=instance, compute=compute, progress=lambda _: None)
    line = error_line(failed.value, location.root())
    assert line.startswith(f"lake file {broken} ") and "re-materialise the asset that writes table 'selfplay_states'" \
        in line and "\n" not in line
    assert lake.partition_path(location.root(), "state_tokens", {"game": "connect4"}).exists()  # the other run finished
