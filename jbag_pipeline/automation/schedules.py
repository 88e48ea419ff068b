"""Scheduled reruns: every week, self-play each game with the next block of seeds and refresh what follows.

The block is a pure function of the tick's scheduled time: 1 + whole weeks since BLOCK_EPOCH (block 0 is
the first `jbag run`). A tick therefore always asks for the same block (run keys make a repeat a no-op),
a later tick never re-plays an earlier block's seeds, and a missed tick only skips a block.
Stages (jbag_pipeline/automation/refresh.py): the schedule starts `selfplay_refresh_job` per game; the run-status
sensor `selfplay_refresh_followup` then starts the game's evaluation runs and, once every run of the
block has succeeded, `refresh_summary_job`. Both start STOPPED: turn on the schedule and the sensor in
the UI (Automation) or with `dagster schedule start` / `dagster sensor start`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone

import dagster as dg

from jbag_pipeline.assets.common import game_partitions
from jbag_pipeline.presets import get_preset
from jbag_pipeline.automation.refresh import BLOCK_TAG, RefreshPlan, RunInfo, followup_requests, plan_refresh

BLOCK_EPOCH = datetime(2026, 1, 5, tzinfo=timezone.utc)  # a Monday; ticks run Mondays 03:00 UTC
SECONDS_PER_WEEK = 7 * 24 * 3600
MAX_BLOCK = 999  # selfplay_seeds keeps a run seed's blocks in [0, 1000) so they never reach the next seed's
REFRESH_JOB = "selfplay_refresh_job"
SUMMARY_JOB = "refresh_summary_job"


def seed_block(tick: datetime) -> int:
    """The self-play seed block of a tick scheduled at `tick`: 1 + whole weeks since BLOCK_EPOCH."""
    if tick.tzinfo is None:
        raise ValueError(f"seed_block: tick time {tick} has no time zone")
    block = int((tick - BLOCK_EPOCH).total_seconds() // SECONDS_PER_WEEK) + 1
    if not 1 <= block <= MAX_BLOCK:
        raise ValueError(f"seed_block: tick {tick.isoformat()} gives block {block}, outside 1..{MAX_BLOCK} "
                         f"(blocks count weeks from {BLOCK_EPOCH.date()})")
    return block


def refresh_run_config(block: int) -> dict:
    return {"ops": {"selfplay": {"config": {"block": block}}}}


def _wanted_pair(key: dg.MultiPartitionKey, pairs: tuple[str, ...] | None) -> bool:
    """Whether a stage-2 key is one the preset evaluates (`pairs` None = all; keys without a pair always)."""
    dims = key.keys_by_dimension
    return pairs is None or "pair" not in dims or dims["pair"] in pairs


@dataclass
class Refresh:
    """The refresh's jobs, its schedule and its follow-up sensor, built for one asset list."""

    plan: RefreshPlan
    jobs: list
    schedule: dg.ScheduleDefinition
    followup_sensor: dg.SensorDefinition


def build_refresh(assets) -> Refresh:
    """Jobs per stage of `assets` downstream of self-play, the weekly schedule and the follow-up sensor."""
    plan = plan_refresh(assets, game_partitions)
    refresh_job = dg.define_asset_job(REFRESH_JOB, selection=plan.per_game,
                                      description="Self-play one game with the seed block in run config, and every "
                                                  "asset partitioned by game downstream of it.")
    followup_jobs = [dg.define_asset_job(name, selection=keys, description="Refresh stage 2: one key of the game.")
                     for name, (_, keys) in plan.follow_up.items()]
    summary_job = dg.define_asset_job(SUMMARY_JOB, selection=plan.summary,
                                      description="Refresh stage 3: the unpartitioned summaries of every game.") \
        if plan.summary else None

    @dg.schedule(name="selfplay_refresh_schedule", job=refresh_job, cron_schedule="0 3 * * 1",
                 execution_timezone="UTC", default_status=dg.DefaultScheduleStatus.STOPPED,
                 description="Weekly: self-play every game with the next block of seeds, then refresh downstream.")
    def selfplay_refresh_schedule(context: dg.ScheduleEvaluationContext):
        block = seed_block(context.scheduled_execution_time)
        for game in game_partitions.get_partition_keys():
            yield dg.RunRequest(run_key=f"selfplay-refresh:{game}:block-{block}", partition_key=game,
                                run_config=refresh_run_config(block), tags={BLOCK_TAG: str(block)})

    @dg.run_status_sensor(name="selfplay_refresh_followup", run_status=dg.DagsterRunStatus.SUCCESS,
                          monitored_jobs=[refresh_job, *followup_jobs],
                          request_jobs=[*followup_jobs, *([summary_job] if summary_job else [])],
                          default_status=dg.DefaultSensorStatus.STOPPED,
                          description="After a refresh run succeeds: its game's evaluation runs, then the summaries.")
    def selfplay_refresh_followup(context: dg.RunStatusSensorContext):
        run = context.dagster_run
        block = run.tags.get(BLOCK_TAG)
        if block is None:
            return dg.SkipReason(f"run {run.run_id} has no {BLOCK_TAG} tag: not a scheduled refresh")
        runs = context.instance.get_runs(filters=dg.RunsFilter(tags={BLOCK_TAG: block}))  # newest first
        infos = [RunInfo(r.job_name, r.tags.get("dagster/partition"), r.status.value) for r in runs]
        resources = {"resources": run.run_config["resources"]} if run.run_config.get("resources") else {}
        preset_name = resources.get("resources", {}).get("settings", {}).get("config", {}).get("preset")
        pairs = get_preset(preset_name).evaluation_pairs
        requests = followup_requests(
            RunInfo(run.job_name, run.tags.get("dagster/partition"), "SUCCESS"), int(block), infos, plan,
            REFRESH_JOB, SUMMARY_JOB if summary_job else None, game_partitions.get_partition_keys(),
            wanted_key=lambda key: _wanted_pair(key, pairs), run_config=resources)
        return requests or dg.SkipReason(f"block {block}: nothing to start yet")

    return Refresh(plan, [refresh_job, *followup_jobs, *([summary_job] if summary_job else [])],
                   selfplay_refresh_schedule, selfplay_refresh_followup)
