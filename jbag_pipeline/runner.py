"""Materialise the asset graph through Dagster, partition by partition, as the UI would; used by `jbag run`."""

from __future__ import annotations

import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

import dagster as dg

from jbag_pipeline.resources import JbagSettings


QUIET = {"loggers": {"console": {"config": {"log_level": "WARNING"}}}}  # progress lines instead of DEBUG events


@dataclass
class StepResult:
    assets: list[str]
    partition: str | None
    seconds: float
    rows: dict[str, int]


def asset_names(assets_defs) -> list[str]:
    return [key.to_user_string() for a in assets_defs for key in a.keys]


def plan(assets_defs, select: list[str] | None, games: list[str] | None):
    """Steps in order: each partitioned asset set once per game partition, then the unpartitioned assets."""
    known = set(asset_names(assets_defs))
    chosen = set(select or known)
    unknown = sorted(chosen - known)
    if unknown:
        raise ValueError(f"--select names unknown asset(s) {unknown}; known assets: {sorted(known)}")
    partitioned = [a for a in assets_defs if a.partitions_def is not None]
    unpartitioned = [a for a in assets_defs if a.partitions_def is None]
    part_keys = [k for a in partitioned for k in asset_names([a]) if k in chosen]
    steps = []
    if part_keys:
        all_games = list(partitioned[0].partitions_def.get_partition_keys())
        wanted = games or all_games
        bad = sorted(set(wanted) - set(all_games))
        if bad:
            raise ValueError(f"--games names unknown game(s) {bad}; registered games: {all_games}")
        steps += [(part_keys, g) for g in all_games if g in wanted]
    flat_keys = [k for a in unpartitioned for k in asset_names([a]) if k in chosen]
    if flat_keys:
        steps.append((flat_keys, None))
    return steps


def materialize_all(assets_defs, settings: JbagSettings, select: list[str] | None = None,
                    games: list[str] | None = None, instance: dg.DagsterInstance | None = None,
                    progress=print) -> list[StepResult]:
    """Run every planned step; stops at the first failure with Dagster's error."""
    steps = plan(assets_defs, select, games)
    results = []
    for i, (keys, partition) in enumerate(steps, 1):
        label = f"[{i}/{len(steps)}] {', '.join(keys)}" + (f"  (game={partition})" if partition else "")
        progress(label + " ...")
        start = time.perf_counter()
        outcome = dg.materialize(assets_defs, selection=keys, partition_key=partition, run_config=QUIET,
                                 resources={"settings": settings}, instance=instance, raise_on_error=True)
        rows = {}
        for event in outcome.get_asset_materialization_events():
            mat = event.event_specific_data.materialization
            count = mat.metadata.get("dagster/row_count")
            if count is not None:
                rows[mat.asset_key.to_user_string()] = int(count.value)
        elapsed = time.perf_counter() - start
        progress(f"    done in {elapsed:.1f}s" + (f"; rows: {rows}" if rows else ""))
        results.append(StepResult(keys, partition, elapsed, rows))
    return results


INSTANCE_CONFIG = Path(__file__).resolve().parents[1] / "dagster.yaml"


def prepare_dagster_home(root: Path) -> Path:
    """DAGSTER_HOME (default <data dir>/dagster_home) with the project's dagster.yaml in it, if it has none."""
    home = Path(os.environ.get("DAGSTER_HOME") or root / "dagster_home").resolve()
    home.mkdir(parents=True, exist_ok=True)
    if not (home / "dagster.yaml").exists() and INSTANCE_CONFIG.exists():
        shutil.copyfile(INSTANCE_CONFIG, home / "dagster.yaml")
    return home


def dagster_instance(root: Path) -> dg.DagsterInstance:
    """The persistent instance under DAGSTER_HOME, shared with `make ui` so CLI runs show in the UI."""
    os.environ["DAGSTER_HOME"] = str(prepare_dagster_home(root))
    return dg.DagsterInstance.get()
