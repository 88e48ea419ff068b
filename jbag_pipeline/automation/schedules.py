"""Scheduled reruns: every week, self-play each game with the next block of seeds and refresh what follows.

The block is a pure function of the tick's scheduled time: 1 + whole weeks since BLOCK_EPOCH (block 0 is
the first `jbag run`). A tick therefore always asks for the same block (run keys make a repeat a no-op),
a later tick never re-plays an earlier block's seeds, and a missed tick only skips a block.
Stages (jbag_pipeline/automation/refresh.py): the schedule starts `selfplay_refresh_job` per game; the automation
conditions on the later stages, evaluated by the automation-condition sensor `selfplay_refresh_automation`, then
start the game's evaluation partitions and, once every run of the refresh has succeeded, the summaries. Both
start STOPPED (so that nothing runs until asked, as before): turn them on in the UI (Automation) or with
`dagster schedule start` / `dagster sensor start`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone

import dagster as dg

from jbag_pipeline.partitions import game_partitions
from jbag_pipeline.assets.conditions import REFRESH_TAG
from jbag_pipeline.automation.refresh import BLOCK_TAG, RefreshPlan, check_conditions, plan_refresh

BLOCK_EPOCH = datetime(2026, 1, 5, tzinfo=timezone.utc)  # a Monday; ticks run Mondays 03:00 UTC
SECONDS_PER_WEEK = 7 * 24 * 3600
MAX_BLOCK = 999  # selfplay_seeds keeps a run seed's blocks in [0, 1000) so they never reach the next seed's
REFRESH_JOB = "selfplay_refresh_job"
AUTOMATION_SENSOR = "selfplay_refresh_automation"


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


@dataclass
class Refresh:
    """The refresh's plan, job, schedule and automation sensor."""

    plan: RefreshPlan
    jobs: list
    schedule: dg.ScheduleDefinition
    automation_sensor: dg.AutomationConditionSensorDefinition


def build_refresh(assets) -> Refresh:
    """The stage-1 job and weekly schedule, and the sensor of the stage-2/3 automation conditions, for `assets`
    (which must declare those conditions: check_conditions)."""
    plan = plan_refresh(assets, game_partitions)
    check_conditions(assets, plan)
    refresh_job = dg.define_asset_job(REFRESH_JOB, selection=plan.per_game,
                                      description="Self-play one game with the seed block in run config, and every "
                                                  "asset partitioned by game downstream of it.")

    @dg.schedule(name="selfplay_refresh_schedule", job=refresh_job, cron_schedule="0 3 * * 1",
                 execution_timezone="UTC", default_status=dg.DefaultScheduleStatus.STOPPED,
                 description="Weekly: self-play every game with the next block of seeds, then refresh downstream.")
    def selfplay_refresh_schedule(context: dg.ScheduleEvaluationContext):
        block = seed_block(context.scheduled_execution_time)
        for game in game_partitions.get_partition_keys():
            yield dg.RunRequest(run_key=f"selfplay-refresh:{game}:block-{block}", partition_key=game,
                                run_config=refresh_run_config(block),
                                tags={BLOCK_TAG: str(block), REFRESH_TAG: "schedule"})

    automation_sensor = dg.AutomationConditionSensorDefinition(
        AUTOMATION_SENSOR, target=dg.AssetSelection.assets(*plan.follow_up, *plan.summary),
        run_tags={REFRESH_TAG: "automation"}, default_status=dg.DefaultSensorStatus.STOPPED,
        description="Evaluates the refresh's automation conditions: after a game's scheduled self-play refresh, "
                    "its evaluation partitions; once every refresh run succeeded, the summaries.")
    return Refresh(plan, [refresh_job], selfplay_refresh_schedule, automation_sensor)
