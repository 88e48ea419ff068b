"""Scheduled reruns: every week, self-play each game with the next block of seeds and refresh what follows.

The block is a pure function of the tick's scheduled time: 1 + whole weeks since BLOCK_EPOCH (block 0 is
the first `jbag run`). A tick therefore always asks for the same block (its run_key makes a repeat a
no-op), a later tick never re-plays an earlier block's seeds, and a missed tick only skips a block.
The schedule starts STOPPED; turn it on in the UI (Automation) or with `dagster schedule start`.
"""

from __future__ import annotations

from datetime import datetime, timezone

import dagster as dg

from jbag_pipeline.assets.common import game_partitions

BLOCK_EPOCH = datetime(2026, 1, 5, tzinfo=timezone.utc)  # a Monday; ticks run Mondays 03:00 UTC
SECONDS_PER_WEEK = 7 * 24 * 3600
MAX_BLOCK = 999  # selfplay_seeds keeps a run seed's blocks in [0, 1000) so they never reach the next seed's

selfplay_refresh_job = dg.define_asset_job(
    "selfplay_refresh_job",
    selection=dg.AssetSelection.assets("selfplay_games", "selfplay_states").downstream(),  # partitioned by game
    description="Self-play one game partition with the seed block given in run config, and every asset downstream.",
)


def seed_block(tick: datetime) -> int:
    """The self-play seed block of a tick scheduled at `tick`: 1 + whole weeks since BLOCK_EPOCH."""
    if tick.tzinfo is None:
        raise ValueError(f"seed_block: tick time {tick} has no time zone")
    weeks = int((tick - BLOCK_EPOCH).total_seconds() // SECONDS_PER_WEEK)
    block = weeks + 1
    if not 1 <= block <= MAX_BLOCK:
        raise ValueError(f"seed_block: tick {tick.isoformat()} gives block {block}, outside 1..{MAX_BLOCK} "
                         f"(blocks count weeks from {BLOCK_EPOCH.date()})")
    return block


def refresh_run_config(block: int) -> dict:
    return {"ops": {"selfplay": {"config": {"block": block}}}}


@dg.schedule(job=selfplay_refresh_job, cron_schedule="0 3 * * 1", execution_timezone="UTC",
             default_status=dg.DefaultScheduleStatus.STOPPED,
             description="Weekly: self-play every game with the next block of seeds, then refresh downstream.")
def selfplay_refresh_schedule(context: dg.ScheduleEvaluationContext):
    block = seed_block(context.scheduled_execution_time)
    for game in game_partitions.get_partition_keys():
        yield dg.RunRequest(run_key=f"selfplay-refresh:{game}:block-{block}", partition_key=game,
                            run_config=refresh_run_config(block), tags={"jbag/seed_block": str(block)})
