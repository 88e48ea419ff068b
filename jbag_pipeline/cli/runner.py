"""Materialise the asset graph through Dagster, partition by partition, as the UI would; used by `jbag run`.

One `jbag run` is one unit in the UI: all its Dagster runs (one per game, one per evaluation key, then the rest)
carry the tag RUN_TAG with the same value, and STEP_TAG says which step of how many each run is. Not one
backfill: Dagster has no public API to submit an asset backfill, and only its daemon executes one. Not fewer runs:
a run's assets must share one partitions definition, so the game x pair evaluation keys cannot join the game's run.
"""

from __future__ import annotations

import os
import shutil
import socket
import time
import uuid
from pathlib import Path

import dagster as dg
import psutil

from jbag_pipeline.assets.common import game_partitions
from jbag_pipeline.cli.progress import PlainProgress, RunProgress, StepResult
from jbag_pipeline.compute import watching_games
from jbag_pipeline.resources import JbagCompute, JbagSettings
from jbag_pipeline.storage.io_manager import lake_resources


# progress lines instead of Dagster's events; a failed step's ERROR event (its stack trace) is left out too: the
# CLI reports the error in one line, and `--debug` shows the traceback
QUIET = {"loggers": {"console": {"config": {"log_level": "CRITICAL"}}}}


def asset_names(assets_defs) -> list[str]:
    return [key.to_user_string() for a in assets_defs for key in a.keys]


def _game_of(partition_key: str) -> str:
    """The game of a partition key: 'connect4', (game, pair) of an evaluation key, 'connect4-6x7-to-8x8' (transfer)."""
    if isinstance(partition_key, dg.MultiPartitionKey):
        return partition_key.keys_by_dimension["game"]
    return partition_key.split("-")[0]


# unpartitioned assets that read one game's partitions: skipped when --games leaves that game out
GAME_SPECIFIC_ASSETS = {"tictactoe_jsonbag": "tictactoe"}
# assets outside the default selection: they run only when --select names them
OPT_IN_ASSETS = {"reference_reproduction", "published_value_functions", "published_vf_evaluation",
                 "ingested_vf_evaluation"}
# unpartitioned assets that read the ingested model's lake tables: run in a step of their own after it
AFTER_INGESTED_ASSETS = ("ingested_vf_evaluation",)
# unpartitioned assets that read every lake table: run in a step of their own after all others (the catalog
# declares no dependency on opt-in assets, so in one step Dagster might build it first)
SUMMARY_ASSETS = ("catalog", "report")


def _wanted(key: str, games: list[str] | None, pairs: tuple[str, ...] | None) -> bool:
    pair = key.keys_by_dimension.get("pair") if isinstance(key, dg.MultiPartitionKey) else None
    return (games is None or _game_of(key) in games) and (pairs is None or pair is None or pair in pairs)


def plan(assets_defs, select: list[str] | None, games: list[str] | None, pairs: tuple[str, ...] | None = None):
    """Steps in order: assets partitioned by game (once per game), then those partitioned by game and pair
    (once per key; only `pairs` when given), then other partitioned assets (transfer pairs), then the
    unpartitioned assets, then the ingested model (partition CHANGED_INGESTED_GAMES: once per changed ingested
    game), then the assets that read it (AFTER_INGESTED_ASSETS), then the summary assets. A `select` always
    includes the catalog, so that its views show what the run wrote."""
    known = set(asset_names(assets_defs))
    chosen = set(select or known - OPT_IN_ASSETS)
    if select and "catalog" in known:
        chosen.add("catalog")
    if games is not None and select is None:
        chosen -= {name for name, game in GAME_SPECIFIC_ASSETS.items() if game not in games}
    unknown = sorted(chosen - known)
    if unknown:
        raise ValueError(f"--select names unknown asset(s) {unknown}; known assets: {sorted(known)}")
    groups: dict[object, list[str]] = {}
    for a in assets_defs:
        keys = [k for k in asset_names([a]) if k in chosen]
        if keys and not a.can_subset:  # selfplay_games comes with selfplay_states: one function writes both
            keys = asset_names([a])
        if keys:
            groups.setdefault(a.partitions_def, []).extend(keys)
    all_games = sorted(game_partitions.get_partition_keys())
    bad = sorted(set(games or []) - set(all_games))
    if bad:
        raise ValueError(f"--games names unknown game(s) {bad}; registered games: {all_games}")
    per_ingested_game = [key for p in groups if isinstance(p, dg.DynamicPartitionsDefinition) for key in groups[p]]
    groups = {p: keys for p, keys in groups.items() if not isinstance(p, dg.DynamicPartitionsDefinition)}
    ordered = sorted((p for p in groups if p is not None),
                     key=lambda p: 0 if p == game_partitions else 1 if isinstance(p, dg.MultiPartitionsDefinition) else 2)
    steps = []
    for partitions_def in ordered:
        for key in partitions_def.get_partition_keys():
            if _wanted(key, games, pairs):
                steps.append((groups[partitions_def], key))
    unpartitioned = groups.get(None, [])
    steps += [([k for k in unpartitioned if k not in (*SUMMARY_ASSETS, *AFTER_INGESTED_ASSETS)], None)]
    steps += [(per_ingested_game, CHANGED_INGESTED_GAMES),
              ([k for k in unpartitioned if k in AFTER_INGESTED_ASSETS], None),
              ([k for k in unpartitioned if k in SUMMARY_ASSETS], None)]
    return [(keys, partition) for keys, partition in steps if keys]


class _ChangedIngestedGames:
    """The partition of a step that runs once per changed ingested game (known only once ingested_games ran)."""

    def __repr__(self) -> str:
        return "CHANGED_INGESTED_GAMES"


CHANGED_INGESTED_GAMES = _ChangedIngestedGames()


RUN_TAG = "jbag/run_id"  # shared by every Dagster run of one `jbag run`: filter the UI's run list by it
STEP_TAG = "jbag/step"  # "<step>/<steps>" of the run within its `jbag run`


def new_run_id() -> str:
    """A `jbag run`'s id: UTC start time (sorts by time) and a random suffix (two runs in one second differ)."""
    return f"{time.strftime('%Y%m%d-%H%M%S', time.gmtime())}-{uuid.uuid4().hex[:6]}"


def materialize_all(assets_defs, settings: JbagSettings, select: list[str] | None = None,
                    games: list[str] | None = None, instance: dg.DagsterInstance | None = None,
                    progress=print, compute: JbagCompute | None = None,
                    run_id: str | None = None, display: RunProgress | None = None) -> list[StepResult]:
    """Run every planned step, games on `compute` (default: local processes), each step a Dagster run tagged
    RUN_TAG=`run_id` (a new one if None); stops at the first failure with Dagster's error. Progress goes to
    `display` (default: one plain line per step, each passed to `progress`)."""
    resources = lake_resources(settings, compute or JbagCompute())
    steps = plan(assets_defs, select, games, settings.get_preset().evaluation_pairs)
    run_id = run_id or new_run_id()
    display = display or PlainProgress(progress)
    per_game = any(partition is CHANGED_INGESTED_GAMES for _, partition in steps)
    runs = f"{len(steps) - 1} Dagster runs and one per changed ingested game" if per_game else \
        f"{len(steps)} Dagster runs"
    display.run_started([keys for keys, _ in steps],
                        f"{runs}, tagged {RUN_TAG}={run_id} (filter the UI's run list by it)")
    results = []
    try:
        for i, (keys, partition) in enumerate(steps, 1):
            tags = {**process_tag(), RUN_TAG: run_id, STEP_TAG: f"{i}/{len(steps)}"}
            if partition is CHANGED_INGESTED_GAMES:
                results += _changed_ingested_games(i, assets_defs, keys, settings, resources, instance, display, tags)
                continue
            display.step_started(i, keys, partition)
            played = [0]

            def on_games(done: int, added: int) -> None:
                played[0] += done
                display.games(done, added)

            start = time.perf_counter()
            with watching_games(on_games):
                outcome = dg.materialize(assets_defs, selection=keys, partition_key=partition, run_config=QUIET,
                                         resources=resources, instance=instance, tags=tags, raise_on_error=True)
            elapsed = time.perf_counter() - start
            rows, op_seconds = _rows_and_op_seconds(outcome)
            result = StepResult(keys, partition, elapsed, rows, games=played[0], op_seconds=op_seconds)
            results.append(result)
            display.step_done(i, result)
    finally:
        display.close()
    return results


def _rows_and_op_seconds(outcome) -> tuple[dict[str, int], dict[str, float]]:
    """Rows per asset (their dagster/row_count) and seconds per op, the op named by the assets it wrote."""
    rows, written, seconds = {}, {}, {}
    for event in outcome.get_asset_materialization_events():
        mat = event.event_specific_data.materialization
        written.setdefault(event.step_key, []).append(mat.asset_key.to_user_string())
        count = mat.metadata.get("dagster/row_count")
        if count is not None:
            rows[mat.asset_key.to_user_string()] = int(count.value)
    for event in outcome.all_events:
        if event.is_step_success:
            name = ", ".join(sorted(written.get(event.step_key, [event.step_key])))
            seconds[name] = event.event_specific_data.duration_ms / 1000
    return rows, seconds


def _changed_ingested_games(index, assets_defs, keys, settings, resources, instance, display, tags) -> list[StepResult]:
    """The step of the ingested model: one run per changed ingested game, of its stale tables among `keys`."""
    from jbag_pipeline.automation.ingested import materialize_changed_games

    display.step_started(index, keys, "each changed ingested game")
    start = time.perf_counter()
    changed = materialize_changed_games(assets_defs, settings, resources, instance or dg.DagsterInstance.ephemeral(),
                                        tables=keys, run_config=QUIET, tags=tags)
    elapsed = time.perf_counter() - start
    display.step_done(index, StepResult(keys, f"games rebuilt: {', '.join(changed) or 'none'}", elapsed, {}))
    return [StepResult(tables, game, elapsed / len(changed), {}) for game, tables in changed.items()]


INSTANCE_CONFIG = Path(__file__).resolve().parents[2] / "dagster.yaml"


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


PROCESS_TAG = "jbag/process"  # host:pid:start time of the process that materialises a run


def process_tag() -> dict[str, str]:
    """Run tags naming this process, so that a later `jbag run` can tell the run's process has died."""
    me = psutil.Process()
    return {PROCESS_TAG: f"{socket.gethostname()}:{me.pid}:{me.create_time():.3f}"}


def _process_gone(tag: str) -> bool:
    parts = tag.rsplit(":", 2)
    if len(parts) != 3 or parts[0] != socket.gethostname() or not parts[1].isdigit():
        return False  # another machine's process (or not our tag): cannot tell
    _, pid, started = parts
    try:
        process = psutil.Process(int(pid))
        return f"{process.create_time():.3f}" != started or process.status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def fail_orphaned_runs(instance: dg.DagsterInstance) -> list[str]:
    """Mark failed the in-progress runs whose `jbag run` process on this host is gone (killed); left alone they
    stay STARTED for ever and count against the UI queue's max_concurrent_runs. Returns their run ids."""
    running = instance.get_runs(dg.RunsFilter(statuses=[dg.DagsterRunStatus.STARTING, dg.DagsterRunStatus.STARTED]))
    orphans = [run for run in running if PROCESS_TAG in run.tags and _process_gone(run.tags[PROCESS_TAG])]
    for run in orphans:
        instance.report_run_failed(run, f"its process ({run.tags[PROCESS_TAG]}) is gone; marked failed by jbag run")
    return [run.run_id for run in orphans]
