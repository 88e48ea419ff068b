"""What a scheduled self-play refresh re-runs, in which order: pure planning, no Dagster runs started here.

A Dagster job holds assets of one partitions definition, so everything downstream of self-play is split
into three stages: (1) the assets partitioned by game, one run per game (selfplay_refresh_job); (2) assets
partitioned by game and something else (evaluation: game x pair), one run per key of the refreshed game;
(3) the unpartitioned assets that summarise every game (evaluation tables, catalog, report), once, after
every run of the block has succeeded. `followup_requests` decides stages 2 and 3 from the runs so far.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

import dagster as dg

SELFPLAY_KEYS = (dg.AssetKey("selfplay_games"), dg.AssetKey("selfplay_states"))
BLOCK_TAG = "jbag/seed_block"


@dataclass
class RefreshPlan:
    """The asset keys of each stage; `follow_up` maps a job name to its partitions definition and keys."""

    per_game: list[dg.AssetKey]
    follow_up: dict[str, tuple[dg.PartitionsDefinition, list[dg.AssetKey]]] = field(default_factory=dict)
    summary: list[dg.AssetKey] = field(default_factory=list)


def plan_refresh(assets, game_partitions: dg.PartitionsDefinition) -> RefreshPlan:
    """Split self-play and everything downstream of it in `assets` into the three stages."""
    specs = {spec.key: spec for a in assets for spec in a.specs}
    children = defaultdict(set)
    for spec in specs.values():
        for dep in spec.deps:
            children[dep.asset_key].add(spec.key)
    downstream, todo = set(SELFPLAY_KEYS), list(SELFPLAY_KEYS)
    while todo:
        for child in children[todo.pop()] - downstream:
            downstream.add(child)
            todo.append(child)
    stage = {}
    for key in _topological(downstream, specs):
        partitions = specs[key].partitions_def
        kind = "per_game" if partitions == game_partitions else "summary" if partitions is None else "follow_up"
        upstream = [stage[d.asset_key] for d in specs[key].deps if d.asset_key in stage]
        if kind == "per_game" and any(s != "per_game" for s in upstream):
            raise ValueError(f"refresh plan: {key.to_user_string()} is partitioned by game but follows an asset of "
                             "another stage; extend jbag_pipeline/automation/refresh.py for it")
        if kind == "follow_up" and "summary" in upstream:
            raise ValueError(f"refresh plan: {key.to_user_string()} follows an unpartitioned summary asset")
        stage[key] = kind
    plan = RefreshPlan(per_game=sorted(k for k, s in stage.items() if s == "per_game"),
                       summary=sorted(k for k, s in stage.items() if s == "summary"))
    for key in sorted(k for k, s in stage.items() if s == "follow_up"):
        partitions = specs[key].partitions_def
        if "game" not in getattr(partitions, "partition_dimension_names", []):
            raise ValueError(f"refresh plan: {key.to_user_string()} has no 'game' partition dimension")
        name = next((n for n, (p, _) in plan.follow_up.items() if p == partitions), f"refresh_{key.path[-1]}_job")
        plan.follow_up.setdefault(name, (partitions, []))[1].append(key)
    return plan


def _topological(keys: set[dg.AssetKey], specs) -> list[dg.AssetKey]:
    order, done = [], set()

    def visit(key):
        if key in done:
            return
        done.add(key)
        for dep in specs[key].deps:
            if dep.asset_key in keys:
                visit(dep.asset_key)
        order.append(key)

    for key in sorted(keys):
        visit(key)
    return order


@dataclass(frozen=True)
class RunInfo:
    """What the follow-up needs of a run: its job, partition key and status name."""

    job_name: str
    partition: str | None
    status: str


def followup_requests(finished: RunInfo, block: int, block_runs: list[RunInfo], plan: RefreshPlan,
                      per_game_job: str, summary_job: str | None, games: list[str], wanted_key=lambda key: True,
                      run_config: dict | None = None) -> list[dg.RunRequest]:
    """Run requests after `finished` succeeded: stage 2 for its game, or stage 3 once the block is complete.

    `block_runs` are all runs tagged with the block, newest first (including `finished`); the summary waits
    until the latest run of every (job, partition) succeeded. `wanted_key` filters stage-2 keys (the preset's
    evaluation pairs). Run keys make every request idempotent.
    """
    tags = {BLOCK_TAG: str(block)}
    requests = []
    if finished.job_name == per_game_job:
        for job_name, (partitions, _) in plan.follow_up.items():
            for key in partitions.get_partition_keys():
                if key.keys_by_dimension["game"] == finished.partition and wanted_key(key):
                    requests.append(dg.RunRequest(job_name=job_name, partition_key=key, tags=tags,
                                                  run_key=f"refresh:block-{block}:{job_name}:{key}",
                                                  run_config=run_config or {}))
    if requests or summary_job is None:
        return requests  # the runs requested now are not in block_runs yet: never summarise in the same breath
    latest: dict[tuple[str, str | None], str] = {}
    for run in block_runs:  # newest first: a re-executed run's success supersedes its failure
        latest.setdefault((run.job_name, run.partition), run.status)
    refreshed = {partition for (job, partition), status in latest.items()
                 if job == per_game_job and status == "SUCCESS"}
    if refreshed >= set(games) and all(status == "SUCCESS" for status in latest.values()):
        requests.append(dg.RunRequest(job_name=summary_job, tags=tags, run_key=f"refresh-summary:block-{block}",
                                      run_config=run_config or {}))
    return requests
