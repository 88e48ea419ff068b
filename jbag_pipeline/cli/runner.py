"""Materialise the asset graph through Dagster, partition by partition, as the UI would; used by `jbag run`.

One `jbag run` is one unit in the UI: one Dagster run per game (self-play to evaluation), one per transfer pair,
then the unpartitioned assets, each ingested game's model and the summaries; all carry the tag RUN_TAG with the
same value, and STEP_TAG says which step of how many each run is. Not one backfill: Dagster has no public API to
submit an asset backfill, and only its daemon executes one. Not fewer runs: a run's assets must share one
partitions definition.
"""

from __future__ import annotations

import graphlib
import multiprocessing
import os
import queue
import shutil
import socket
import time
import uuid
from concurrent.futures import FIRST_COMPLETED, CancelledError, wait
from concurrent.futures.process import BrokenProcessPool
from multiprocessing.managers import SyncManager
from pathlib import Path

import dagster as dg

from jbag_pipeline.cli.progress import PlainProgress, RunProgress, StepResult
from jbag_pipeline.cli.stderr_filter import event_log_failures_summed
from jbag_pipeline.compute import ComputeError, watching_games
from jbag_pipeline.compute.lifeline import bind_to_owner, owner_alive, owner_token
from jbag_pipeline.partitions import game_partitions
from jbag_pipeline.resources import JbagCompute, JbagSettings, LakeResource
from jbag_pipeline.resources.io_manager import lake_resources
from jbag_pipeline.run_policy import AFTER_INGESTED, GAME, OPT_IN, SUMMARY


# progress lines instead of Dagster's events; a failed step's ERROR event (its stack trace) is left out too: the
# CLI reports the error in one line, and `--debug` shows the traceback
QUIET = {"loggers": {"console": {"config": {"log_level": "CRITICAL"}}}}


def asset_names(assets_defs) -> list[str]:
    return [key.to_user_string() for a in assets_defs for key in a.keys]


def asset_groups(assets_defs) -> dict[str, str]:
    """Each asset's group name (Dagster's group_name), for the progress lines; the groups in pipeline order (by
    the deepest of their assets in the asset graph: selfplay, model, selection, leakage, evaluation)."""
    groups = {key: group for a in assets_defs for key, group in a.group_names_by_key.items()}
    deps = {key: {dep for dep in found if dep in groups} for a in assets_defs for key, found in a.asset_deps.items()}
    depth: dict = {}
    for key in graphlib.TopologicalSorter(deps).static_order():
        depth[key] = 1 + max((depth[dep] for dep in deps.get(key, ())), default=-1)
    group_depth: dict[str, int] = {}
    for key, group in groups.items():
        group_depth[group] = max(group_depth.get(group, 0), depth.get(key, 0))
    return {key.to_user_string(): groups[key]
            for key in sorted(groups, key=lambda k: (group_depth[groups[k]], groups[k], k.to_user_string()))}


def _game_of(partition_key: str) -> str:
    """The game of a partition key: 'connect4', or 'connect4-6x7-to-8x8' (transfer)."""
    return partition_key.split("-")[0]


def tagged(assets_defs, tag: str) -> dict[str, str]:
    """Asset name -> its value of `tag` (run_policy.py), for each asset that carries the tag."""
    return {spec.key.to_user_string(): spec.tags[tag] for a in assets_defs for spec in a.specs if tag in spec.tags}


def plan(assets_defs, select: list[str] | None, games: list[str] | None):
    """Steps in order: assets partitioned by game (once per game), then other partitioned assets (once per
    transfer pair), then the unpartitioned assets, then the ingested model (partition CHANGED_INGESTED_GAMES: once
    per changed ingested game), then the assets tagged AFTER_INGESTED, then those tagged SUMMARY (the catalog
    declares no dependency on opt-in assets, so in one step Dagster might build it first). Assets tagged OPT_IN
    run only when `select` names them; with `games`, those tagged GAME run only when it names their game. A
    `select` always includes the catalog, so that its views show what the run wrote."""
    known = set(asset_names(assets_defs))
    after_ingested, summary = set(tagged(assets_defs, AFTER_INGESTED)), set(tagged(assets_defs, SUMMARY))
    chosen = set(select or known - set(tagged(assets_defs, OPT_IN)))
    if select and "catalog" in known:
        chosen.add("catalog")
    if games is not None and select is None:
        chosen -= {name for name, game in tagged(assets_defs, GAME).items() if game not in games}
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
    ordered = sorted((p for p in groups if p is not None), key=lambda p: p != game_partitions)
    steps = []
    for partitions_def in ordered:
        for key in partitions_def.get_partition_keys():
            if games is None or _game_of(key) in games:
                steps.append((groups[partitions_def], key))
    unpartitioned = groups.get(None, [])
    steps += [([k for k in unpartitioned if k not in summary | after_ingested], None)]
    steps += [(per_ingested_game, CHANGED_INGESTED_GAMES),
              ([k for k in unpartitioned if k in after_ingested], None),
              ([k for k in unpartitioned if k in summary], None)]
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


def materialize_all(assets_defs, settings: JbagSettings, lake: LakeResource, select: list[str] | None = None,
                    games: list[str] | None = None, instance: dg.DagsterInstance | None = None,
                    progress=print, compute: JbagCompute | None = None,
                    run_id: str | None = None, display: RunProgress | None = None) -> list[StepResult]:
    """Run every planned step, games on `compute` (default: local processes), each step a Dagster run tagged
    RUN_TAG=`run_id` (a new one if None); stops at the first failure with Dagster's error. On local processes
    the games' runs go side by side, one per worker (see parallel_runs). Progress goes to `display` (default:
    one plain line per step, each passed to `progress`)."""
    compute = compute or JbagCompute()
    resources = lake_resources(settings, lake, compute)
    steps = plan(assets_defs, select, games)
    run_id = run_id or new_run_id()
    display = display or PlainProgress(progress, groups=asset_groups(assets_defs))
    per_game = any(partition is CHANGED_INGESTED_GAMES for _, partition in steps)
    runs = f"{len(steps) - 1} Dagster runs and one per changed ingested game" if per_game else \
        f"{len(steps)} Dagster runs"
    lanes = parallel_runs(assets_defs, compute, instance, steps)
    side_by_side = _game_steps(steps) if lanes > 1 else 0
    display.run_started([keys for keys, _ in steps],
                        f"{runs}, tagged {RUN_TAG}={run_id} (filter the UI's run list by it)"
                        + (f"; the games' runs {lanes} at a time" if lanes > 1 else ""), lanes, side_by_side)
    results = []
    try:
        if side_by_side:
            results += _game_runs_side_by_side(steps[:side_by_side], len(steps), settings, lake, compute.get_compute(),
                                               instance, display, run_id)
        for i, (keys, partition) in enumerate(steps[side_by_side:], side_by_side + 1):
            tags = {**process_tag(), RUN_TAG: run_id, STEP_TAG: f"{i}/{len(steps)}"}
            if partition is CHANGED_INGESTED_GAMES:
                results += _changed_ingested_games(i, assets_defs, keys, settings, resources, instance, display, tags)
                continue
            display.step_started(i, keys, partition)
            played = [0]

            def on_games(done: int, added: int, index=i) -> None:
                played[0] += done
                display.games(index, done, added)

            start = time.perf_counter()
            with watching_games(on_games):
                outcome = dg.materialize(assets_defs, selection=keys, partition_key=partition, run_config=QUIET,
                                         resources=resources, instance=instance, tags=tags, raise_on_error=True)
            elapsed = time.perf_counter() - start
            rows, op_seconds, op_usage = _rows_and_op_seconds(outcome)
            result = StepResult(keys, partition, elapsed, rows, games=played[0], op_seconds=op_seconds,
                                op_usage=op_usage)
            results.append(result)
            display.step_done(i, result)
    finally:
        display.close()
    return results


def _game_steps(steps) -> int:
    """How many leading steps are games' runs (plan puts them first)."""
    games = set(game_partitions.get_partition_keys())
    return next((i for i, (_, partition) in enumerate(steps) if partition not in games), len(steps))


def parallel_runs(assets_defs, compute: JbagCompute, instance: dg.DagsterInstance | None, steps) -> int:
    """How many games' runs go side by side: on local processes, one per worker (each plays its games inline),
    when a worker can rebuild the run (the project's own assets, an instance on disk) and there are at least as
    many games as workers (with more workers, one run after another keeps every worker busy with the run's
    games); else 1: one run after another, each run's games over the workers."""
    from jbag_pipeline.compute import LocalCompute
    from jbag_pipeline.definitions import ALL_ASSETS

    backend = compute.get_compute()
    if not isinstance(backend, LocalCompute) or assets_defs is not ALL_ASSETS or instance is None \
            or instance.is_ephemeral:
        return 1
    return backend.workers if 1 < backend.workers <= _game_steps(steps) else 1


def _game_runs_side_by_side(steps, total: int, settings: JbagSettings, lake: LakeResource, local, instance, display,
                            run_id: str) -> list[StepResult]:
    """Each game's run in a worker of the `local` pool, as many at once as it has workers; their start and games
    reach `display` through a queue. After a failure, runs not started are cancelled, those running finish, and
    the first error is raised."""
    home, fields = str(instance.root_directory), settings_fields(settings)
    # spawn: never fork this threaded process; the manager's process dies with this one, as the workers do
    manager = SyncManager(ctx=multiprocessing.get_context("spawn"))
    manager.start(bind_to_owner, owner_token())
    with manager:
        events = manager.Queue()
        futures = {local.submit(_game_run, keys, partition, fields, lake.data_dir, home,
                                {RUN_TAG: run_id, STEP_TAG: f"{i}/{total}"}, i, events): i
                   for i, (keys, partition) in enumerate(steps, 1)}
        played, results, failure, pending = {}, {}, None, set(futures)
        while pending:
            done, pending = wait(pending, timeout=0.2, return_when=FIRST_COMPLETED)
            _show_events(events, steps, display, played)
            for future in sorted(done, key=futures.get):
                i = futures[future]
                try:
                    rows, op_seconds, op_usage, elapsed = future.result()
                except CancelledError:
                    continue
                except BrokenProcessPool as exc:
                    failure = failure or ComputeError(f"compute local: a worker process died in the run of "
                                                      f"{steps[i - 1][1]} ({exc}); rerun")
                except Exception as exc:  # noqa: BLE001 - the first error is raised once the others stopped
                    failure = failure or exc
                else:
                    keys, partition = steps[i - 1]
                    results[i] = StepResult(keys, partition, elapsed, rows, games=played.get(i, 0),
                                            op_seconds=op_seconds, op_usage=op_usage)
                    display.step_done(i, results[i])
                if failure is not None:
                    for other in pending:
                        other.cancel()
    if failure is not None:
        raise failure
    return [results[i] for i in sorted(results)]


def _show_events(events, steps, display, played: dict[int, int]) -> None:
    """Pass the workers' queued events (a run started, games done or added) to `display`."""
    while True:
        try:
            event = events.get_nowait()
        except queue.Empty:
            return
        if event[0] == "started":
            keys, partition = steps[event[1] - 1]
            display.step_started(event[1], keys, partition)
        else:
            _, index, done, added = event
            played[index] = played.get(index, 0) + done
            display.games(index, done, added)


def settings_fields(settings: JbagSettings) -> dict:
    """What rebuilds `settings` in another process (a Dagster resource does not pickle)."""
    return {"preset": settings.preset, "seed": settings.seed, "token_blacklist": settings.token_blacklist}


def _game_run(keys, partition: str, fields: dict, data_dir: str, dagster_home: str, tags: dict, index: int,
              events) -> tuple[dict, dict, dict, float]:
    """One game's Dagster run in a worker process, its games inline: (rows, op seconds, op usage, wall seconds). An error
    comes back as one line (cli.checks.error_line, computed here where its causes are), the cause chained."""
    from jbag_pipeline.cli.checks import ReportedError, error_line
    from jbag_pipeline.definitions import ALL_ASSETS

    settings, lake = JbagSettings(**fields), LakeResource(data_dir=data_dir)
    os.environ["DAGSTER_HOME"] = dagster_home
    events.put(("started", index))
    start = time.perf_counter()
    try:
        with event_log_failures_summed(), \
                watching_games(lambda done, added: events.put(("games", index, done, added))):
            outcome = dg.materialize(ALL_ASSETS, selection=keys, partition_key=partition, run_config=QUIET,
                                     resources=lake_resources(settings, lake, JbagCompute(backend="inline")),
                                     instance=dg.DagsterInstance.get(), tags={**process_tag(), **tags},
                                     raise_on_error=True)
    except Exception as exc:
        raise ReportedError(error_line(exc, lake.root())) from exc
    return (*_rows_and_op_seconds(outcome), time.perf_counter() - start)


def _rows_and_op_seconds(outcome) -> tuple[dict[str, int], dict[str, float], dict[str, dict[str, float]]]:
    """Rows per asset (their dagster/row_count), seconds per op and its peak RSS and CPU seconds (the metadata the
    lake IO manager adds, jbag_pipeline.compute.usage), the op named by the assets it wrote."""
    rows, written, seconds, used = {}, {}, {}, {}
    for event in outcome.get_asset_materialization_events():
        mat = event.event_specific_data.materialization
        written.setdefault(event.step_key, []).append(mat.asset_key.to_user_string())
        count = mat.metadata.get("dagster/row_count")
        if count is not None:
            rows[mat.asset_key.to_user_string()] = int(count.value)
        for measure in ("peak_rss_mb", "cpu_seconds"):  # an op's later outputs carry its usage so far: the largest
            if measure in mat.metadata:
                of_op = used.setdefault(event.step_key, {})
                of_op[measure] = max(of_op.get(measure, 0.0), float(mat.metadata[measure].value))
    usage = {}
    for event in outcome.all_events:
        if event.is_step_success:
            name = ", ".join(sorted(written.get(event.step_key, [event.step_key])))
            seconds[name] = event.event_specific_data.duration_ms / 1000
            if event.step_key in used:
                usage[name] = used[event.step_key]
    return rows, seconds, usage


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


PROCESS_TAG = "jbag/process"  # host:pid:start of the process that materialises a run (start: lifeline.start_of)


def process_tag() -> dict[str, str]:
    """Run tags naming this process, so that a later `jbag run` can tell the run's process has died."""
    pid, start = owner_token()
    return {PROCESS_TAG: f"{socket.gethostname()}:{pid}:{start!r}"}


def _process_gone(tag: str) -> bool:
    # the start is compared as the lifeline compares a worker's owner: in clock ticks since boot, which a clock
    # change or a VM restore does not move (psutil's create_time does, and a live run would be marked failed)
    parts = tag.rsplit(":", 2)
    if len(parts) != 3 or parts[0] != socket.gethostname() or not parts[1].isdigit():
        return False  # another machine's process (or not our tag): cannot tell
    try:
        start = float(parts[2])
    except ValueError:
        return False
    return not owner_alive((int(parts[1]), start))


def fail_orphaned_runs(instance: dg.DagsterInstance) -> list[str]:
    """Mark failed the in-progress runs whose `jbag run` process on this host is gone (killed); left alone they
    stay STARTED for ever and count against the UI queue's max_concurrent_runs. Returns their run ids."""
    running = instance.get_runs(dg.RunsFilter(statuses=[dg.DagsterRunStatus.STARTING, dg.DagsterRunStatus.STARTED]))
    orphans = [run for run in running if PROCESS_TAG in run.tags and _process_gone(run.tags[PROCESS_TAG])]
    for run in orphans:
        instance.report_run_failed(run, f"its process ({run.tags[PROCESS_TAG]}) is gone; marked failed by jbag run")
    return [run.run_id for run in orphans]
