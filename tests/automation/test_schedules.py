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
from dagster._core.instance.config import dagster_instance_config
from dagster._core.run_coordinator import QueuedRunCoordinator
from dagster._core.storage.dagster_run import DagsterRun

import jbag_pipeline.storage.lake as lake
from jbag_pipeline.partitions import game_partitions
from jbag_pipeline.definitions import ALL_ASSETS, defs
from jbag_pipeline.assets.conditions import FOLLOW_UP, FOLLOW_UP_CONDITION, REFRESH_TAG, SUMMARY_CONDITION
from jbag_pipeline.run_policy import YES
from jbag_pipeline.defs.automation import REFRESH
from jbag_pipeline.automation.refresh import SELFPLAY_KEYS, check_conditions, plan_refresh
from jbag_pipeline.resources import JbagSettings, LakeResource
from jbag_pipeline.resources.io_manager import lake_resources
from jbag_pipeline.automation.schedules import BLOCK_EPOCH, seed_block
from jbag_pipeline.play.selfplay import selfplay_seeds
from jbag_pipeline.assets.ingest import INGEST_KEYS
from jbag_pipeline.assets.ingested_model import MODEL_TABLES
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
    assert all(r.tags == {"jbag/seed_block": "5", REFRESH_TAG: "schedule"} for r in requests)
    again = list(selfplay_refresh_schedule(dg.build_schedule_context(scheduled_execution_time=tick)))
    assert [r.run_key for r in again] == [r.run_key for r in requests]  # a repeated tick is deduplicated
    later = list(selfplay_refresh_schedule(dg.build_schedule_context(
        scheduled_execution_time=tick + timedelta(weeks=1))))
    assert {r.run_config["ops"]["selfplay"]["config"]["block"] for r in later} == {6}


def test_refresh_stages_cover_everything_downstream_of_selfplay_once():
    graph = defs.get_repository_def().asset_graph
    downstream = dg.AssetSelection.assets(*SELFPLAY_KEYS).downstream().resolve(graph)
    plan = REFRESH.plan
    stages = [set(plan.per_game), set(plan.follow_up), set(plan.summary)]
    assert set().union(*stages) == downstream and sum(map(len, stages)) == len(downstream)
    assert {"selfplay_games", "state_tokens", "winner_prototypes", "winner_classification"} <= \
        {k.to_user_string() for k in plan.per_game}
    assert "evaluation_games" in {k.to_user_string() for k in plan.per_game}  # all pairs in the game's run
    assert plan.follow_up == []
    assert {"catalog", "report", "verdicts"} <= {k.to_user_string() for k in plan.summary}
    job = defs.resolve_job_def("selfplay_refresh_job")
    assert job.partitions_def == game_partitions
    assert {k.to_user_string() for k in job.asset_layer.executable_asset_keys} == \
        {k.to_user_string() for k in plan.per_game}
    conditioned = {key for key in graph.get_all_asset_keys() if graph.get(key).automation_condition is not None}
    assert conditioned == set(plan.follow_up) | set(plan.summary)  # stage 1 runs by schedule, the rest by condition
    sensor = REFRESH.automation_sensor
    assert sensor.default_status == dg.DefaultSensorStatus.STOPPED and sensor.run_tags == {REFRESH_TAG: "automation"}
    assert sensor.asset_selection.resolve(graph) == conditioned


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
    assert plan.follow_up == [dg.AssetKey("evaluation")] and plan.summary == []
    with pytest.raises(ValueError, match="per_game_after_evaluation is partitioned by game but follows evaluation"):
        plan_refresh([selfplay, evaluation, per_game_after_evaluation], game_partitions)


def test_the_refresh_refuses_assets_without_their_stages_automation_condition():
    games = dg.StaticPartitionsDefinition(["a", "b"])
    pairs = dg.MultiPartitionsDefinition({"game": games, "pair": dg.StaticPartitionsDefinition(["x"])})

    @dg.multi_asset(specs=[dg.AssetSpec(k, partitions_def=games) for k in SELFPLAY_KEYS])
    def selfplay():
        pass

    def graph(stage_2: dict, stage_3: dict, stage_1: dict | None = None):
        @dg.asset(partitions_def=games, deps=["selfplay_games"], **(stage_1 or {}))
        def tokens():
            pass

        @dg.asset(partitions_def=pairs, deps=["tokens"], **stage_2)
        def evaluation():
            pass

        @dg.asset(deps=["evaluation"], **stage_3)
        def summary():
            pass

        assets = [selfplay, tokens, evaluation, summary]
        check_conditions(assets, plan_refresh(assets, games))

    follow_up = {"automation_condition": FOLLOW_UP_CONDITION, "tags": {FOLLOW_UP: YES}}
    graph(follow_up, {"automation_condition": SUMMARY_CONDITION})
    with pytest.raises(ValueError, match="summary is in stage 3 of the refresh: declare automation_condition=SUMMARY"):
        graph(follow_up, {})
    with pytest.raises(ValueError, match="evaluation is in stage 2 of the refresh"):
        graph({"automation_condition": FOLLOW_UP_CONDITION}, {"automation_condition": SUMMARY_CONDITION})
    with pytest.raises(ValueError, match="evaluation is in stage 2 of the refresh"):
        graph({"automation_condition": SUMMARY_CONDITION, "tags": {FOLLOW_UP: YES}},
              {"automation_condition": SUMMARY_CONDITION})
    with pytest.raises(ValueError, match="tokens is not in stage 2 or 3 of the refresh"):
        graph(follow_up, {"automation_condition": SUMMARY_CONDITION}, {"automation_condition": SUMMARY_CONDITION})


def tiny_refresh_graph(failing: set[str]):
    """Self-play and a game asset (stage 1), an evaluation by game x pair (2), a summary and a catalog (3)."""
    games = dg.StaticPartitionsDefinition(["a", "b"])
    pairs = dg.MultiPartitionsDefinition({"game": games, "pair": dg.StaticPartitionsDefinition(["x", "y"])})

    @dg.multi_asset(specs=[dg.AssetSpec(k, partitions_def=games) for k in SELFPLAY_KEYS])
    def selfplay():
        pass

    @dg.asset(partitions_def=games, deps=["selfplay_games"])
    def tokens():
        pass

    @dg.asset(partitions_def=pairs, deps=["tokens", "selfplay_games"], automation_condition=FOLLOW_UP_CONDITION,
              tags={FOLLOW_UP: YES})
    def evaluation(context):
        if context.partition_key in failing:
            raise RuntimeError("evaluation failed")

    @dg.asset(deps=["evaluation", "tokens"], automation_condition=SUMMARY_CONDITION)
    def summary():
        pass

    @dg.asset(deps=["summary"], automation_condition=SUMMARY_CONDITION)
    def catalog():
        pass

    assets = [selfplay, tokens, evaluation, summary, catalog]
    plan = plan_refresh(assets, games)
    assert (plan.per_game, plan.follow_up, plan.summary) == (
        [*SELFPLAY_KEYS, dg.AssetKey("tokens")], [dg.AssetKey("evaluation")],
        [dg.AssetKey("catalog"), dg.AssetKey("summary")])
    check_conditions(assets, plan)
    return assets


@pytest.mark.filterwarnings("ignore::dagster.BetaWarning", "ignore::dagster.PreviewWarning")
def test_automation_conditions_refresh_a_games_evaluations_then_the_summaries_once_all_succeeded():
    failing = set()
    assets = tiny_refresh_graph(failing)
    tiny_defs = dg.Definitions(assets=assets)
    instance = dg.DagsterInstance.ephemeral()
    cursor = None

    def run(selection, partition=None, refresh=True):
        tags = {REFRESH_TAG: "test"} if refresh else {}
        dg.materialize(assets, selection=selection, partition_key=partition, instance=instance, tags=tags,
                       raise_on_error=False)

    def requested():
        nonlocal cursor
        result = dg.evaluate_automation_conditions(defs=tiny_defs, instance=instance, cursor=cursor)
        cursor = result.cursor
        return {key.to_user_string(): sorted(str(p) for p in result.get_requested_partitions(key) if p is not None)
                or [None] for key in tiny_defs.resolve_asset_graph().get_all_asset_keys()
                if result.get_num_requested(key)}

    stage1 = ["selfplay_games", "selfplay_states", "tokens"]
    for game in ("a", "b"):  # what `jbag run` makes (no refresh tag): only pair x is evaluated
        run(stage1, game, refresh=False)
        run(["evaluation"], f"{game}|x", refresh=False)
    run(["summary", "catalog"], refresh=False)
    assert requested() == {}
    run(stage1, "a", refresh=False)  # a plain run again: the refresh ignores it
    assert requested() == {}
    run(stage1, "a")  # the schedule's run for game a: its evaluated pairs follow, the summary waits
    assert requested() == {"evaluation": ["a|x"]}
    run(stage1, "b")
    assert requested() == {"evaluation": ["b|x"]}
    failing.add("b|x")
    run(["evaluation"], "a|x")
    run(["evaluation"], "b|x")
    assert requested() == {}  # b|x failed: no summary
    failing.clear()
    run(["evaluation"], "b|x")  # retried: the summary and the catalog follow, in one tick
    assert requested() == {"summary": [None], "catalog": [None]}
    run(["summary", "catalog"])
    assert requested() == {}


@pytest.mark.filterwarnings("ignore::dagster.BetaWarning", "ignore::dagster.PreviewWarning")
def test_automation_conditions_start_nothing_on_a_new_instance():
    result = dg.evaluate_automation_conditions(defs=defs, instance=dg.DagsterInstance.ephemeral())
    assert result.total_requested == 0


def test_the_schedules_run_config_plays_the_next_block_of_seeds(tmp_path):
    settings = JbagSettings(preset="smoke")
    tick = MONDAY_3AM + timedelta(weeks=2)
    request = next(iter(selfplay_refresh_schedule(dg.build_schedule_context(scheduled_execution_time=tick))))
    result = dg.materialize(ALL_ASSETS, selection=["selfplay_games", "selfplay_states"], partition_key="tictactoe",
                            run_config=request.run_config,
                            resources=lake_resources(settings, LakeResource(data_dir=str(tmp_path))),
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


def evaluate(settings, location, cursor=None, instance=None):
    return inbox_sensor(dg.build_sensor_context(cursor=cursor, resources={"settings": settings, "lake": location},
                                                instance=instance or dg.DagsterInstance.ephemeral()))


def test_inbox_sensor_requests_new_and_changed_files_only(tmp_path):
    assert inbox_sensor.default_status == dg.DefaultSensorStatus.STOPPED
    settings, location = JbagSettings(), LakeResource(data_dir=str(tmp_path))
    inbox = tmp_path / "inbox"
    first = evaluate(settings, location)
    assert not first.run_requests and first.skip_reason
    a = tag_file(inbox / "Nim-1.json", 1)
    b = tag_file(inbox / "more" / "Nim-2.json", 2)
    (inbox / ".Nim-3.json").write_bytes(b"[")  # hidden: a writer's temporary name
    (inbox / "notes.txt").write_text("not a trajectory")
    os.utime(a, ns=(10**18, 10**18))
    os.utime(b, ns=(2 * 10**18, 2 * 10**18))
    result = evaluate(settings, location, first.cursor)
    (request,) = result.run_requests
    assert request.run_config["ops"]["ingested_games"]["config"]["paths"] == [str(a), str(b)]
    assert decode_cursor(result.cursor) == {"Nim-1.json": 10**18, "more/Nim-2.json": 2 * 10**18}
    assert result.cursor == '[["Nim-1.json",1000000000000000000],["more/Nim-2.json",2000000000000000000]]'
    assert {k.to_user_string() for k in request.asset_selection} == set(INGEST_KEYS)  # the model: once ingested
    assert evaluate(settings, location, result.cursor).run_requests == []
    os.utime(b, ns=(3 * 10**18, 3 * 10**18))  # rewritten
    changed = evaluate(settings, location, result.cursor)
    assert [r.run_config["ops"]["ingested_games"]["config"]["paths"] for r in changed.run_requests] == [[str(b)]]
    assert changed.run_requests[0].run_key != request.run_key
    assert evaluate(settings, location, result.cursor).run_requests[0].run_key == changed.run_requests[0].run_key
    with pytest.raises(ValueError, match="cursor is not a JSON list"):
        evaluate(settings, location, "{oops")


def test_inbox_sensor_run_ingests_the_files(tmp_path):
    settings, location = JbagSettings(preset="smoke"), LakeResource(data_dir=str(tmp_path))
    tag_file(tmp_path / "inbox" / "Nim-1.json", 1)
    tag_file(tmp_path / "inbox" / "Nim-2.json", 2, winner=1)
    instance = dg.DagsterInstance.ephemeral()

    def run(request):
        result = dg.materialize(ALL_ASSETS, selection=list(request.asset_selection), run_config=request.run_config,
                                partition_key=request.partition_key, resources=lake_resources(settings, location),
                                instance=instance)
        assert result.success

    first = evaluate(settings, location, instance=instance)
    (ingest,) = first.run_requests
    assert {k.to_user_string() for k in ingest.asset_selection} == set(INGEST_KEYS)
    run(ingest)  # ingested_games added the game's dynamic partition
    games = lake.read_table(tmp_path.resolve(), "ingested_games")
    assert games.select("game", "game_id", "winner").rows() == [("nim", 1, 0), ("nim", 2, 1)]
    assert instance.get_dynamic_partitions("ingested_game") == ["nim"]
    second = evaluate(settings, location, first.cursor, instance)  # the files are ingested: the changed game's model
    (model,) = second.run_requests
    assert model.partition_key == "nim" and not second.dynamic_partitions_requests
    assert [k.to_user_string() for k in model.asset_selection] == MODEL_TABLES
    busy = dg.DagsterInstance.ephemeral()  # while an ingest run of the sensor is under way: no model run yet
    busy.add_run(DagsterRun(job_name="__ASSET_JOB", run_id="ingesting", tags={"jbag/ingest": "inbox"},
                            status=dg.DagsterRunStatus.STARTED))
    waiting = evaluate(settings, location, first.cursor, busy)
    assert not waiting.run_requests and waiting.skip_reason.skip_message == "an ingest run is queued or running"
    fresh = evaluate(settings, location, first.cursor)  # an instance without the partition: the sensor adds it first
    assert [(r.partitions_def_name, r.partition_keys) for r in fresh.dynamic_partitions_requests] == [
        ("ingested_game", ["nim"])] and fresh.run_requests[0].run_key == model.run_key
    run(model)
    assert lake.read_table(tmp_path.resolve(), "ingested_prototypes").filter(pl.col("frequency") == "full")["seat"] \
        .unique().sort().to_list() == [0, 1]
    third = evaluate(settings, location, second.cursor, instance)
    assert not third.run_requests and third.skip_reason  # nothing changed since: no model run


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
