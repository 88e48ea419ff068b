"""What a scheduled self-play refresh re-runs, and the check that its assets declare the automation conditions that
start it: no runs started here.

Everything downstream of self-play (`dg.AssetSelection.downstream()`) falls in three stages by partitioning:
(1) the assets partitioned by game: one job run per game, started by the weekly schedule because only a run
config can carry the seed block; (2) assets partitioned by game and something else (none in today's graph)
and (3) the unpartitioned summaries of every game (evaluation tables, catalog, report): Dagster automation
conditions declared on the assets (assets/conditions.py), evaluated by the schedule's automation-condition
sensor. They react only to updates made by refresh runs (tag REFRESH_TAG), so a `jbag run` never triggers them.
"""

from __future__ import annotations

from dataclasses import dataclass

import dagster as dg

from jbag_pipeline.assets.conditions import FOLLOW_UP, FOLLOW_UP_CONDITION, SUMMARY_CONDITION

SELFPLAY_KEYS = (dg.AssetKey("selfplay_games"), dg.AssetKey("selfplay_states"))
BLOCK_TAG = "jbag/seed_block"


@dataclass(frozen=True)
class RefreshPlan:
    """The asset keys of each stage, sorted."""

    per_game: list[dg.AssetKey]
    follow_up: list[dg.AssetKey]
    summary: list[dg.AssetKey]


def refresh_selection() -> dg.AssetSelection:
    """Self-play and everything downstream of it."""
    return dg.AssetSelection.assets(*SELFPLAY_KEYS).downstream()


def _stage(partitions_def, game_partitions: dg.PartitionsDefinition) -> str:
    return "per_game" if partitions_def == game_partitions else "summary" if partitions_def is None else "follow_up"


def plan_refresh(assets, game_partitions: dg.PartitionsDefinition) -> RefreshPlan:
    """Split self-play and everything downstream of it in `assets` into the three stages.

    Stage 1 is one job run, so nothing of it may follow a later stage; stage 2 may not follow stage 3."""
    specs = {spec.key: spec for a in assets for spec in a.specs}
    stage = {key: _stage(specs[key].partitions_def, game_partitions) for key in refresh_selection().resolve(assets)}
    for key, kind in sorted(stage.items()):
        if kind == "per_game":
            continue
        below = dg.AssetSelection.assets(key).downstream(include_self=False).resolve(assets)
        forbidden = {"per_game"} if kind == "follow_up" else {"per_game", "follow_up"}
        later = sorted(k for k in below if stage[k] in forbidden)
        if later:
            what = "by game" if stage[later[0]] == "per_game" else "by game and more"
            raise ValueError(f"refresh plan: {later[0].to_user_string()} is partitioned {what} but follows "
                             f"{key.to_user_string()} of a later stage; extend jbag_pipeline/automation/refresh.py")
    return RefreshPlan(*(sorted(k for k, s in stage.items() if s == kind) for kind in ("per_game", "follow_up",
                                                                                       "summary")))


def check_conditions(assets, plan: RefreshPlan) -> None:
    """Refuse an asset whose declared automation condition is not its stage's (assets/conditions.py): none in
    stage 1 (the schedule starts it) and outside the refresh, FOLLOW_UP_CONDITION and the tag FOLLOW_UP in stage 2,
    SUMMARY_CONDITION in stage 3."""
    wanted = {**{key: (FOLLOW_UP_CONDITION, True) for key in plan.follow_up},
              **{key: (SUMMARY_CONDITION, False) for key in plan.summary}}
    for spec in (spec for a in assets for spec in a.specs):
        condition, tagged = wanted.get(spec.key, (None, False))
        if spec.automation_condition == condition and (FOLLOW_UP in spec.tags) == tagged:
            continue
        if spec.key in plan.follow_up:
            what = "is in stage 2 of the refresh: declare automation_condition=FOLLOW_UP_CONDITION, tag FOLLOW_UP"
        elif spec.key in plan.summary:
            what = "is in stage 3 of the refresh: declare automation_condition=SUMMARY_CONDITION and no FOLLOW_UP tag"
        else:
            what = "is not in stage 2 or 3 of the refresh: declare no automation condition and no FOLLOW_UP tag"
        raise ValueError(f"refresh: {spec.key.to_user_string()} {what} (jbag_pipeline/assets/conditions.py)")
