"""Compute backends: smoke self-play wall time on `local` (2 processes) against `inline`, Dask's overhead per
batch, and self-play throughput with 1, 2 and 4 workers of a local Dask cluster.

Self-play is the smoke preset's (every registered game, its games and MCTS budget), through
jbag_pipeline.play.selfplay.play_selfplay on each backend; each backend is warmed up by one batch first, so
the process pool's and the cluster's start-up are reported on rows of their own, not in the batch times. The
speedup row's median is inline seconds / local seconds (the issue's target: at least 1.6 on 2 cores). Dask
overhead is the wall time of a batch of 8 empty one-item tasks. On a machine shared with other work the
speedups understate what idle cores give.
"""

from __future__ import annotations

import statistics
import sys
import time

from engines import GAMES
from jbag_pipeline.play.selfplay import play_selfplay, selfplay_seeds
from jbag_pipeline.compute import DaskCompute, InlineCompute, LocalCompute, run_batch
from jbag_pipeline.presets import game_run, get_preset

DASK_WORKERS = (1, 2, 4)
GAMES_PLAYED = sorted(GAMES)  # a test narrows this


def row(benchmark: str, subject: str, metric: str, median: float, ratio: float | None = None) -> dict:
    return {"benchmark": benchmark, "subject": subject, "metric": metric, "median": median, "ratio": ratio}


def smoke_selfplay(compute) -> tuple[float, int]:
    """Seconds and games of the smoke preset's self-play of every game on `compute`."""
    preset = get_preset("smoke")
    start, games = time.perf_counter(), 0
    for game in GAMES_PLAYED:
        run = game_run(preset, game)
        played, _ = play_selfplay(game, run, selfplay_seeds(preset.seed, 0, run.selfplay_games), compute)
        games += len(played)
    return time.perf_counter() - start, games


def _empty(chunk: list) -> list:
    return chunk


def _timed(compute, repeats: int) -> tuple[float, int]:
    runs = [smoke_selfplay(compute) for _ in range(repeats)]
    return statistics.median(seconds for seconds, _ in runs), runs[0][1]


def run(repeats: int = 3) -> list[dict]:
    from distributed import LocalCluster

    rows = []
    inline_s, games = _timed(InlineCompute(), repeats)
    rows.append(row("compute/smoke_selfplay", f"inline ({games} games)", "s", inline_s))
    local = LocalCompute(2)
    start = time.perf_counter()
    run_batch(local, _empty, [0, 1])  # starts the pool
    rows.append(row("compute/startup", "local (2 processes)", "s", time.perf_counter() - start))
    local_s, _ = _timed(local, repeats)
    rows.append(row("compute/smoke_selfplay", f"local 2 processes ({games} games)", "s", local_s))
    rows.append(row("compute/smoke_selfplay", "local 2 processes vs inline", "speedup x", inline_s / local_s))
    for n in DASK_WORKERS:
        start = time.perf_counter()
        with LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
            dask = DaskCompute(cluster.scheduler_address)
            try:
                run_batch(dask, _empty, list(range(8)))
                rows.append(row("compute/startup", f"dask local cluster, {n} workers", "s",
                                time.perf_counter() - start))
                overhead = []
                for _ in range(max(repeats, 5)):
                    begin = time.perf_counter()
                    run_batch(dask, _empty, list(range(8)))
                    overhead.append(time.perf_counter() - begin)
                rows.append(row("compute/dask_overhead", f"{n} workers, batch of 8 empty tasks", "ms/batch",
                                1000 * statistics.median(overhead)))
                seconds, _ = _timed(dask, repeats)
                rows.append(row("compute/dask_throughput", f"{n} workers", "games/s", games / seconds,
                                inline_s / seconds))
            finally:
                dask.close()
    return rows


if __name__ == "__main__":
    for result in run(int(sys.argv[1]) if len(sys.argv) > 1 else 3):
        ratio = "" if result["ratio"] is None else f"  vs inline {result['ratio']:.2f}x"
        print(f"{result['benchmark']:28s} {result['subject']:40s} {result['median']:10.4g} {result['metric']}{ratio}")
