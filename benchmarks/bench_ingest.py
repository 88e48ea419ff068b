"""Ingest cost follows the new files: CPU seconds of a small `jbag ingest` before and after a large one.

A small ingest (one 2-state game) into an empty lake is timed first (median of `repeats`, each in a fresh
lake); then a large file is ingested and 20 small files one after another. The small ingests after the large
one are compared with the first (ratio; target for the 20th: at most 1.5x), once with the large file in
another game and once in the same game partition as the small ones (whose prototypes and classification,
aggregates over all its games, are rebuilt by every ingest into it). Side by side (`ingest/side-by-side`): the
same 10-state ingest into an empty lake and into the game a large file filled, alternated `repeats` times, and
the ratio of their medians (target: at most 1.5). Each ingest is run_ingest (the Dagster ingest group, then the
catalog) in this process; CPU time of this process (all its threads: the machine may be shared).
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

import dagster as dg
import orjson

from jbag_pipeline.cli.ingest import run_ingest

SMALL_INGESTS = 20
SIDE_BY_SIDE_STATES = 10  # the "10-state ingest"
LARGE_GAMES = 100
LARGE_STATES_PER_GAME = 60


def small_file(folder: Path, game_id: int, game_type: str = "Nim", n_states: int = 2) -> Path:
    docs = [{"gameType": game_type, "nPlayers": 2, "heap": [n_states - t, t], "turn": t} for t in range(n_states)]
    docs[-1]["playerResults"] = ["LOSE_GAME", "WIN_GAME"]
    path = folder / f"small-{game_id}.json"
    path.write_bytes(orjson.dumps(docs))
    return path


def large_file(folder: Path, game_type: str) -> Path:
    """JSON Lines of LARGE_GAMES games, each LARGE_STATES_PER_GAME states of a 6x7 board with a few counters."""
    lines = []
    for game_id in range(10_000, 10_000 + LARGE_GAMES):
        for t in range(LARGE_STATES_PER_GAME):
            state = {"gameType": game_type, "nPlayers": 2, "turn": t, "scores": [t, 2 * t],
                     "board": [[(game_id + r * c + t) % 3 for c in range(7)] for r in range(6)],
                     "hands": [{"cards": [f"c{(t + k) % 13}" for k in range(5)], "coins": t % 9} for _ in range(2)]}
            if t == LARGE_STATES_PER_GAME - 1:
                state["playerResults"] = ["WIN_GAME", "LOSE_GAME"] if game_id % 2 else ["LOSE_GAME", "WIN_GAME"]
            lines.append(orjson.dumps({"game_id": game_id, "state": state}))
    path = folder / f"large-{game_type.lower()}.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


def cpu_of_ingest(path: Path, root: Path, instance: dg.DagsterInstance) -> float:
    start = time.process_time()
    _, problems = run_ingest([str(path)], root, instance=instance)
    if problems:
        raise AssertionError(f"bench_ingest: {path} was not ingested cleanly: {problems[:3]}")
    return time.process_time() - start


def after_large(folder: Path, large_game: str, instance: dg.DagsterInstance) -> tuple[float, list[float]]:
    """(CPU of the large ingest, CPU of each of the small ingests after it) in one fresh lake."""
    root = folder / f"data-{large_game.lower()}"
    inputs = folder / f"in-{large_game.lower()}"
    inputs.mkdir()
    large = cpu_of_ingest(large_file(inputs, large_game), root, instance)
    return large, [cpu_of_ingest(small_file(inputs, i), root, instance) for i in range(1, SMALL_INGESTS + 1)]


def side_by_side(folder: Path, instance: dg.DagsterInstance, repeats: int) -> list[dict]:
    """The same 10-state ingest into an empty lake and after a large one in its game, alternated; medians, ratio."""
    inputs, full = folder / "side-in", folder / "side-full"
    inputs.mkdir()
    cpu_of_ingest(large_file(inputs, "Nim"), full, instance)
    empty, after = [], []
    for repeat in range(repeats):
        empty.append(cpu_of_ingest(small_file(inputs, 100 + repeat, n_states=SIDE_BY_SIDE_STATES),
                                   folder / f"side-empty-{repeat}", instance))
        after.append(cpu_of_ingest(small_file(inputs, 200 + repeat, n_states=SIDE_BY_SIDE_STATES), full, instance))
    base = statistics.median(empty)
    return [{"benchmark": "ingest/side-by-side", "subject": f"{SIDE_BY_SIDE_STATES}-state ingest into an empty lake",
             "metric": "cpu s", "median": base, "ratio": None},
            {"benchmark": "ingest/side-by-side", "subject": f"{SIDE_BY_SIDE_STATES}-state ingest after a large one "
                                                            "(same game)", "metric": "cpu s",
             "median": statistics.median(after), "ratio": statistics.median(after) / base}]


def run(repeats: int = 3) -> list[dict]:
    instance = dg.DagsterInstance.ephemeral()
    with tempfile.TemporaryDirectory(prefix="jbag-bench-ingest-") as tmp:
        folder = Path(tmp)
        (folder / "warm").mkdir()
        cpu_of_ingest(small_file(folder / "warm", 1), folder / "data-warm", instance)  # imports, first Dagster run
        firsts = []
        for repeat in range(repeats):
            inputs = folder / f"first-{repeat}"
            inputs.mkdir()
            firsts.append(cpu_of_ingest(small_file(inputs, 1), folder / f"data-first-{repeat}", instance))
        first = statistics.median(firsts)
        rows = [{"benchmark": "ingest/small", "subject": "first small ingest (empty lake)", "metric": "cpu s",
                 "median": first, "ratio": None}]
        for label, large_game in (("another game", "Big"), ("the same game", "Nim")):
            large, smalls = after_large(folder, large_game, instance)
            rows.append({"benchmark": "ingest/large", "subject": f"large file ({LARGE_GAMES * LARGE_STATES_PER_GAME} "
                                                                f"states, {label})", "metric": "cpu s",
                         "median": large, "ratio": None})
            for n in (1, SMALL_INGESTS):
                rows.append({"benchmark": "ingest/small", "subject": f"small ingest {n} after a large one in {label}",
                             "metric": "cpu s", "median": smalls[n - 1], "ratio": smalls[n - 1] / first})
        rows += side_by_side(folder, instance, repeats)
    return rows


if __name__ == "__main__":
    for row in run(int(sys.argv[1]) if len(sys.argv) > 1 else 3):
        ratio = "" if row["ratio"] is None else f"  ratio {row['ratio']:.2f}"
        print(f"{row['benchmark']:14s} {row['subject']:58s} {row['median']:8.2f} {row['metric']}{ratio}")
