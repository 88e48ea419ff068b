"""The weekly refresh's automation conditions, declared on the assets they start (automation/refresh.py says which
stage an asset is in, and refuses an asset that declares another stage's condition).

Stage 2 (partitioned by game and something else) declares FOLLOW_UP_CONDITION and the tag FOLLOW_UP, by which
the summaries find it; stage 3 (the unpartitioned summaries) declares SUMMARY_CONDITION. They react only to
updates made by refresh runs (tag REFRESH_TAG), so a `jbag run` never triggers them.
"""

import dagster as dg

from jbag_pipeline.run_policy import YES

REFRESH_TAG = "jbag/refresh"  # on every run of a refresh: the schedule's and the automation sensor's
FOLLOW_UP = "jbag/refresh_follow_up"  # on each stage-2 asset (value YES): what a summary waits for


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


def _summary_condition() -> dg.AutomationCondition:
    """Once, after every run of the refresh finished and succeeded: no stage-2 partition is due (Dagster's
    will_be_requested only sees requests that can share this asset's run). A summary dependency requested on this
    tick runs in the same run, before this asset."""
    due = dg.AutomationCondition.any_deps_match(_follow_up_due()).allow(dg.AssetSelection.tag(FOLLOW_UP, YES))
    requested = dg.AutomationCondition.any_deps_match(dg.AutomationCondition.will_be_requested())
    return (_refreshed_deps() | requested).since_last_handled() & _settled() & ~due.with_label("any_stage_2_due")


# stage 2: re-materialise a partition once its game's refresh run succeeded
FOLLOW_UP_CONDITION = _follow_up_due() & _settled()
# stage 3: re-materialise once the whole refresh succeeded
SUMMARY_CONDITION = _summary_condition()
