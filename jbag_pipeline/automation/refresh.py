"""What a scheduled self-play refresh re-runs, and the automation conditions that start it: no runs started here.

Everything downstream of self-play (`dg.AssetSelection.downstream()`) falls in three stages by partitioning:
(1) the assets partitioned by game: one job run per game, started by the weekly schedule because only a run
config can carry the seed block; (2) assets partitioned by game and something else (none in today's graph)
and (3) the unpartitioned summaries of every game (evaluation tables, catalog, report): Dagster automation
conditions (`refresh_conditions`), evaluated by the schedule's automation-condition sensor. They react only to
updates made by refresh runs (tag REFRESH_TAG), so a `jbag run` never triggers them.
"""

from __future__ import annotations

from dataclasses import dataclass

import dagster as dg

SELFPLAY_KEYS = (dg.AssetKey("selfplay_games"), dg.AssetKey("selfplay_states"))
BLOCK_TAG = "jbag/seed_block"
REFRESH_TAG = "jbag/refresh"  # on every run of a refresh: the schedule's and the automation sensor's


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


def _refreshed_deps() -> dg.AutomationCondition:
    """A dependency was updated by a refresh run since the previous tick (other runs, e.g. `jbag run`, do not count)."""
    return dg.AutomationCondition.any_deps_match(
        dg.AutomationCondition.newly_updated() & dg.AutomationCondition.any_new_update_has_run_tags(
            tag_keys={REFRESH_TAG})).with_label("any_deps_refreshed")


def _settled() -> dg.AutomationCondition:
    """No dependency (nor the asset) is in a queued or running run, and no dependency's latest run failed."""
    return (~dg.AutomationCondition.any_deps_in_progress()
            & ~dg.AutomationCondition.any_deps_match(dg.AutomationCondition.execution_failed())
            & ~dg.AutomationCondition.in_progress())


def _follow_up_due() -> dg.AutomationCondition:
    """A refresh updated a dependency since this partition last ran, and it was materialised before (the pairs
    a preset evaluates; the other keys stay missing)."""
    return _refreshed_deps().since_last_handled() & ~dg.AutomationCondition.missing()


def follow_up_condition() -> dg.AutomationCondition:
    """Stage 2: re-materialise a partition once its game's refresh run succeeded."""
    return _follow_up_due() & _settled()


def summary_condition(follow_up_keys) -> dg.AutomationCondition:
    """Stage 3: once, after every run of the refresh finished and succeeded: no stage-2 partition is due (Dagster's
    will_be_requested only sees requests that can share this asset's run). A summary dependency requested on this
    tick runs in the same run, before this asset."""
    due = dg.AutomationCondition.any_deps_match(_follow_up_due()).allow(dg.AssetSelection.assets(*follow_up_keys))
    requested = dg.AutomationCondition.any_deps_match(dg.AutomationCondition.will_be_requested())
    return (_refreshed_deps() | requested).since_last_handled() & _settled() & ~due.with_label("any_stage_2_due")


def with_refresh_conditions(assets, plan: RefreshPlan) -> list[dg.AssetsDefinition]:
    """`assets` with the stage-2 and stage-3 automation conditions on the plan's keys."""
    conditions = {**{key: follow_up_condition() for key in plan.follow_up},
                  **{key: summary_condition(plan.follow_up) for key in plan.summary}}

    def condition(spec: dg.AssetSpec) -> dg.AssetSpec:
        return spec.replace_attributes(automation_condition=conditions[spec.key]) if spec.key in conditions else spec

    return [a.map_asset_specs(condition) if any(spec.key in conditions for spec in a.specs) else a for a in assets]
