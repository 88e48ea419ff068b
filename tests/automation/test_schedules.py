"""The weekly self-play refresh (schedule + job) and the inbox sensor, evaluated as Dagster would."""

from __future__ import annotations

import os
from datetime import datetime, timedelta
from pathlib import Path

import dagster as dg
import orjson
import polars as pl
import pytest
import yaml
from dagster._config import process_config
from dagster._core.events import DagsterEventType
from dagster._core.instance.config import dagster_instance_config
from dagster._core.run_coordinator import QueuedRunCoordinator

import jbag_pipeline.storage.lake as lake
from jbag_pipeline.assets.common import game_partitions
from jbag_pipeline.definitions import ALL_ASSETS, REFRESH, defs
from jbag_pipeline.presets import get_preset
from jbag_pipeline.automation.refresh import SELFPLAY_KEYS, RunInfo, followup_requests, plan_refresh
from jbag_pipeline.resources import JbagCompute, JbagSettings
from jbag_pipeline.automation.schedules import BLOCK_EPOCH, seed_block
from jbag_pipeline.agents.selfplay import selfplay_seeds
from jbag_pipeline.automation.sensors import decode_cursor, inbox_sensor

selfplay_refresh_schedule = REFRESH.schedule
REPO = Path(__file__).resolve().parents[2]
MONDAY_3AM = BLOCK_EPOCH + timedelta(hours=3)


def test_seed_block_counts_weeks_from_the_epoch():
    assert seed_block(MONDAY_3AM) == 1
    assert seed_block(MONDAY_3AM + timedelta(days=6, hours=20)) == 1
    assert seed_block(MONDAY_3AM + timedelta(weeks=1)) == 2
    assert seed_block(MONDAY_3AM + timedelta(weeks=47)) == 48
    with pytest.raises(ValueError, match="no time zone"):
        seed_block(datetime(2026, 3, 2, 3))
    with pytest.raises(ValueError, match="outside 1..999"):
        seed_block(BLOCK_EPOCH - timedelta(days=1))


def test_schedule_requests_every_game_partition_with_the_ticks_block():
    assert selfplay_refresh_schedule.default_status == dg.DefaultScheduleStatus.STOPPED
    tick = MONDAY_3AM + timedelta(weeks=4)
    requests = list(selfplay_refresh_schedule(dg.build_schedule_context(scheduled_execution_time=tick)))
    assert [r.partition_key for r in requests] == game_partitions.get_partition_keys()
    assert all(r.run_config == {"ops": {"selfplay": {"config": {"block": 5}}}} for r in requests)
    assert len({r.run_key for r in requests}) == len(requests)
    again = list(selfplay_refresh_schedule(dg.build_schedule_context(scheduled_execution_time=tick)))
    assert [r.run_key for r in again] == [r.run_key for r in requests]  # a repeated tick is deduplicated
    later = list(selfplay_refresh_schedule(dg.build_schedule_context(
        scheduled_execution_time=tick + timedelta(weeks=1))))
    assert {r.run_config["ops"]["selfplay"]["config"]["block"] for r in later} == {6}


def test_refresh_stages_cover_everything_downstream_of_selfplay_once():
    graph = defs.get_repository_def().asset_graph
    downstream = dg.AssetSelection.assets(*SELFPLAY_KEYS).downstream().resolve(graph)
    plan = REFRESH.plan
    stages = [set(plan.per_game), *(set(keys) for _, keys in plan.follow_up.values()), set(plan.summary)]
    assert set().union(*stages) == downstream and sum(map(len, stages)) == len(downstream)
    assert {"selfplay_games", "state_tokens", "winner_prototypes", "winner_classification"} <= \
        {k.to_user_string() for k in plan.per_game}
    assert {"catalog", "report"} <= {k.to_user_string() for k in plan.summary}
    job = defs.resolve_job_def("selfplay_refresh_job")
    assert job.partitions_def == game_partitions
    assert {k.to_user_string() for k in job.asset_layer.executable_asset_keys} == \
        {k.to_user_string() for k in plan.per_game}
    for name, (partitions, _) in plan.follow_up.items():
        assert defs.resolve_job_def(name).partitions_def == partitions
    assert defs.resolve_job_def("refresh_summary_job").partitions_def is None


def test_plan_refuses_a_game_asset_that_follows_another_stage():
    pairs = dg.MultiPartitionsDefinition({"game": game_partitions, "pair": dg.StaticPartitionsDefinition(["a"])})

    @dg.multi_asset(specs=[dg.AssetSpec(k, partitions_def=game_partitions) for k in SELFPLAY_KEYS])
    def selfplay():
        pass

    @dg.asset(partitions_def=pairs, deps=["selfplay_games"])
    def evaluation():
        pass

    @dg.asset(partitions_def=game_partitions, deps=["evaluation"])
    def per_game_after_evaluation():
        pass

    plan = plan_refresh([selfplay, evaluation], game_partitions)
    assert list(plan.follow_up) == ["refresh_evaluation_job"] and plan.summary == []
    with pytest.raises(ValueError, match="per_game_after_evaluation is partitioned by game but follows"):
        plan_refresh([selfplay, evaluation, per_game_after_evaluation], game_partitions)


def followup(finished, runs, wanted=lambda key: True):
    return followup_requests(finished, 4, runs, REFRESH.plan, "selfplay_refresh_job", "refresh_summary_job",
                             ["a", "b"], wanted_key=wanted)


def test_followup_starts_the_games_evaluation_then_the_summary_once_the_block_succeeded():
    done_a = RunInfo("selfplay_refresh_job", "a", "SUCCESS")
    evaluation = next(iter(REFRESH.plan.follow_up))
    pairs = {"full-none", "random-adaptive"}
    requests = followup(RunInfo("selfplay_refresh_job", "connect4", "SUCCESS"), [done_a],
                        wanted=lambda key: key.keys_by_dimension["pair"] in pairs)
    assert sorted(r.partition_key for r in requests) == ["connect4|full-none", "connect4|random-adaptive"]
    assert {r.job_name for r in requests} == {evaluation} and requests[0].tags == {"jbag/seed_block": "4"}
    eval_a = RunInfo(evaluation, "a|full-none", "SUCCESS")
    assert followup(eval_a, [eval_a, done_a]) == []  # game b has not been refreshed yet
    done_b = RunInfo("selfplay_refresh_job", "b", "SUCCESS")
    queued = RunInfo(evaluation, "b|full-none", "QUEUED")
    assert followup(eval_a, [queued, eval_a, done_a, done_b]) == []
    failed = RunInfo(evaluation, "b|full-none", "FAILURE")
    assert followup(eval_a, [failed, eval_a, done_a, done_b]) == []
    retried = RunInfo(evaluation, "b|full-none", "SUCCESS")
    (summary,) = followup(retried, [retried, failed, eval_a, done_a, done_b])
    assert summary.job_name == "refresh_summary_job" and summary.run_key == "refresh-summary:block-4"


@pytest.mark.filterwarnings("ignore::dagster.BetaWarning")
def test_followup_sensor_reads_the_block_runs_from_the_instance():
    instance = dg.DagsterInstance.ephemeral()
    smoke = {"resources": {"settings": {"config": {"preset": "smoke"}}}}
    run = dg.DagsterRun(job_name="selfplay_refresh_job", run_id="refresh-tictactoe", status=dg.DagsterRunStatus.SUCCESS,
                        tags={"jbag/seed_block": "4", "dagster/partition": "tictactoe"}, run_config=smoke)
    instance.add_run(run)
    event = dg.DagsterEvent(event_type_value=DagsterEventType.RUN_SUCCESS.value, job_name="selfplay_refresh_job")
    context = dg.build_run_status_sensor_context(sensor_name="selfplay_refresh_followup", dagster_event=event,
                                                 dagster_instance=instance, dagster_run=run,
                                                 repository_def=defs.get_repository_def())
    requests = REFRESH.followup_sensor(context)
    assert sorted(r.partition_key.split("|")[1] for r in requests) == sorted(get_preset("smoke").evaluation_pairs)
    assert all(r.run_config == smoke for r in requests)
    assert REFRESH.followup_sensor.default_status == dg.DefaultSensorStatus.STOPPED


def test_the_schedules_run_config_plays_the_next_block_of_seeds(tmp_path):
    settings = JbagSettings(preset="smoke", data_dir=str(tmp_path))
    tick = MONDAY_3AM + timedelta(weeks=2)
    request = next(iter(selfplay_refresh_schedule(dg.build_schedule_context(scheduled_execution_time=tick))))
    result = dg.materialize(ALL_ASSETS, selection=["selfplay_games", "selfplay_states"], partition_key="tictactoe",
                            run_config=request.run_config,
                            resources={"settings": settings, "compute": JbagCompute(backend="inline")},
                            instance=dg.DagsterInstance.ephemeral())
    assert result.success
    games = lake.read_table(tmp_path.resolve(), "selfplay_games", {"game": "tictactoe"})
    preset = settings.get_preset()
    assert games["seed"].to_list() == selfplay_seeds(preset.seed, 3, preset.games["tictactoe"].selfplay_games)


def tag_file(path, game_id: int, winner: int = 0):
    docs = [{"gameType": "Nim", "nPlayers": 2, "t": t} for t in range(3)]
    docs[-1]["playerResults"] = ["WIN_GAME", "LOSE_GAME"][::1 if winner == 0 else -1]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(orjson.dumps(docs))
    return path


def evaluate(settings, cursor=None):
    return inbox_sensor(dg.build_sensor_context(cursor=cursor, resources={"settings": settings}))


def test_inbox_sensor_requests_new_and_changed_files_only(tmp_path):
    assert inbox_sensor.default_status == dg.DefaultSensorStatus.STOPPED
    settings = JbagSettings(data_dir=str(tmp_path))
    inbox = tmp_path / "inbox"
    first = evaluate(settings)
    assert not first.run_requests and first.skip_reason
    a = tag_file(inbox / "Nim-1.json", 1)
    b = tag_file(inbox / "more" / "Nim-2.json", 2)
    (inbox / ".Nim-3.json").write_bytes(b"[")  # hidden: a writer's temporary name
    (inbox / "notes.txt").write_text("not a trajectory")
    os.utime(a, ns=(10**18, 10**18))
    os.utime(b, ns=(2 * 10**18, 2 * 10**18))
    result = evaluate(settings, first.cursor)
    (request,) = result.run_requests
    assert request.run_config["ops"]["ingested_games"]["config"]["paths"] == [str(a), str(b)]
    assert decode_cursor(result.cursor) == {"Nim-1.json": 10**18, "more/Nim-2.json": 2 * 10**18}
    assert result.cursor == '[["Nim-1.json",1000000000000000000],["more/Nim-2.json",2000000000000000000]]'
    assert {k.to_user_string() for k in request.asset_selection} >= {"ingested_games", "ingested_states",
                                                                     "ingested_tokens", "ingested_classification"}
    assert evaluate(settings, result.cursor).run_requests == []
    os.utime(b, ns=(3 * 10**18, 3 * 10**18))  # rewritten
    changed = evaluate(settings, result.cursor)
    assert [r.run_config["ops"]["ingested_games"]["config"]["paths"] for r in changed.run_requests] == [[str(b)]]
    assert changed.run_requests[0].run_key != request.run_key
    assert evaluate(settings, result.cursor).run_requests[0].run_key == changed.run_requests[0].run_key
    with pytest.raises(ValueError, match="cursor is not a JSON list"):
        evaluate(settings, "{oops")


def test_inbox_sensor_run_ingests_the_files(tmp_path):
    settings = JbagSettings(preset="smoke", data_dir=str(tmp_path))
    tag_file(tmp_path / "inbox" / "Nim-1.json", 1)
    tag_file(tmp_path / "inbox" / "Nim-2.json", 2, winner=1)
    (request,) = evaluate(settings).run_requests
    result = dg.materialize(ALL_ASSETS, selection=list(request.asset_selection), run_config=request.run_config,
                            resources={"settings": settings, "compute": JbagCompute(backend="inline")},
                            instance=dg.DagsterInstance.ephemeral())
    assert result.success
    games = lake.read_table(tmp_path.resolve(), "ingested_games")
    assert games.select("game", "game_id", "winner").rows() == [("nim", 1, 0), ("nim", 2, 1)]
    assert lake.read_table(tmp_path.resolve(), "ingested_prototypes").filter(pl.col("frequency") == "full")["seat"] \
        .unique().sort().to_list() == [0, 1]


@pytest.mark.parametrize("path", [REPO / "dagster.yaml", REPO / "deploy" / "dagster.yaml"])
def test_instance_configs_validate(path, tmp_path):
    (tmp_path / "dagster.yaml").write_text(path.read_text())
    config, _ = dagster_instance_config(str(tmp_path))
    assert config["telemetry"] == {"enabled": False}
    assert config["run_coordinator"]["class"] == "QueuedRunCoordinator"
    assert process_config(QueuedRunCoordinator.config_type(), config["run_coordinator"]["config"]).success


def test_deploy_example_runs_on_k8s_with_the_lake_mounted_everywhere():
    instance = yaml.safe_load((REPO / "deploy" / "dagster.yaml").read_text())
    assert instance["run_launcher"]["class"] == "K8sRunLauncher"
    assert "JBAG_DATA_DIR=/lake" in instance["run_launcher"]["config"]["env_vars"]
    values = yaml.safe_load((REPO / "deploy" / "values.yaml").read_text())
    (location,) = values["dagster-user-deployments"]["deployments"]
    assert location["dagsterApiGrpcArgs"] == ["-m", "jbag_pipeline.definitions"]
    assert {"name": "JBAG_DATA_DIR", "value": "/lake"} in location["env"]
    assert location["volumeMounts"][0]["mountPath"] == "/lake" and location["includeConfigInLaunchedRuns"]["enabled"]
    assert values["runLauncher"]["type"] == "K8sRunLauncher"
    coordinator = values["dagsterDaemon"]["runCoordinator"]["config"]["queuedRunCoordinator"]
    assert coordinator["tagConcurrencyLimits"] == [{"key": "jbag/ingest", "limit": 1}]
