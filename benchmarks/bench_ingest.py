"""Ingest cost follows the new files: CPU seconds of a small `jbag ingest` before and after a large one.

A small ingest (one 2-state game) into an empty lake is timed first (median of `repeats`, each in a fresh
lake); then a large file is ingested and 20 small files one after another. The small ingests after the large
one are compared with the first (ratio; target for the 20th: at most 1.5x), once with the large file in
another game and once in the same game partition as the small ones (whose model each ingest extends from its
new games: assets/ingested_increment.py). Side by side (`ingest/side-by-side`): the
same 10-state ingest into an empty lake and into the game a large file filled, alternated `repeats` times, and
the ratio of their medians (target: at most 1.5). Each ingest is run_ingest (the Dagster ingest group, then the
catalog) in this process; CPU time of this process (all its threads: the machine may be shared).

`--cli` (`ingest/cli`): the issue's case through the command itself. A batch of real TAG trajectories (the
shared reference's Dominion games, copied under new game ids) of at least CLI_LARGE_MB MB is ingested once;
then the same 10-state TAG game is ingested into an empty data directory and into that game, alternated
`repeats` times, each `jbag ingest` a process of its own: CPU seconds and peak RSS (benchmarks/measured.py),
medians and their ratio (target: at most 1.5). `--cli --against CHECKOUT` measures the same case with another
checkout's jbag first (e.g. main before a change), so both ratios come from one run on one machine; `--game
TAGNAME` takes another folder of the reference's trajectories (e.g. SeaSaltPaper).
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import dagster as dg
import orjson

from benchmarks.card_game_states import TAG_TRAJECTORIES
from benchmarks.measured import measure
from jbag_pipeline.cli.ingest import run_ingest

SMALL_INGESTS = 20
SIDE_BY_SIDE_STATES = 10  # the "10-state ingest"
LARGE_GAMES = 100
LARGE_STATES_PER_GAME = 60
CLI_LARGE_MB = 22  # the "one 22 MB ingest"
CLI_GAME = "Dominion"
ROOT = Path(__file__).resolve().parents[1]


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


def tag_batch(folder: Path, megabytes: float = CLI_LARGE_MB, game_type: str = CLI_GAME) -> Path:
    """A folder of real TAG trajectories of `game_type`, copied under new game ids until it holds `megabytes` MB."""
    sources = sorted((TAG_TRAJECTORIES / game_type).glob("*.json"))
    if not sources:
        raise FileNotFoundError(f"bench_ingest: no TAG trajectories under {TAG_TRAJECTORIES / game_type}")
    batch, size, game_id = folder / "large", 0, 100_000
    batch.mkdir()
    while size < megabytes * 1e6:
        data = sources[game_id % len(sources)].read_bytes()
        (batch / f"{game_type}-{game_id}.json").write_bytes(data)
        size, game_id = size + len(data), game_id + 1
    return batch


def tag_prefix(folder: Path, game_id: int, n_states: int = SIDE_BY_SIDE_STATES, game_type: str = CLI_GAME) -> Path:
    """The first `n_states` states of a real TAG trajectory as a game of its own, with the real game's result."""
    states = json.loads(sorted((TAG_TRAJECTORIES / game_type).glob("*.json"))[0].read_text())
    prefix = states[:n_states]
    prefix[-1] = {**prefix[-1], "playerResults": states[-1]["playerResults"]}
    path = folder / f"{game_type}-{game_id}.json"
    path.write_text(json.dumps(prefix))
    return path


def cli_ingest(path: Path, data: Path, log: Path, code: Path = ROOT) -> dict:
    """`jbag ingest path --data-dir data` as a process of its own, with the jbag of checkout `code`: its wall and
    CPU seconds and peak RSS (MB)."""
    env = {**os.environ, "PYTHONPATH": str(code)}
    env.pop("DAGSTER_HOME", None)  # the data directory's own instance
    command = [sys.executable, "-m", "jbag_pipeline.cli", "ingest", str(path), "--data-dir", str(data)]
    figures = measure(command, cwd=code, env=env, log=log)  # python -m puts the working directory first on the path
    if figures["returncode"] != 0:
        raise RuntimeError(f"bench_ingest: jbag ingest {path} exited with {figures['returncode']}:\n"
                           f"{log.read_text(errors='replace')[-2000:]}")
    return figures


def cli_side_by_side(repeats: int = 3, code: Path = ROOT, label: str = "", game_type: str = CLI_GAME) -> list[dict]:
    """The 10-state `jbag ingest` into an empty data directory and after a CLI_LARGE_MB MB one into its game (TAG
    trajectories of `game_type`), with the jbag of checkout `code` (rows' benchmark name suffixed by `label`)."""
    name = f"ingest/cli{label}"
    with tempfile.TemporaryDirectory(prefix="jbag-bench-ingest-cli-") as tmp:
        folder = Path(tmp)
        (folder / "small").mkdir()
        full = folder / "data-full"
        batch = tag_batch(folder, game_type=game_type)
        mb = sum(p.stat().st_size for p in batch.iterdir()) / 1e6
        large = cli_ingest(batch, full, folder / "large.log", code)
        empty, after = [], []
        for repeat in range(repeats):
            empty.append(cli_ingest(tag_prefix(folder / "small", 1_000 + repeat, game_type=game_type),
                                    folder / f"data-empty-{repeat}", folder / "empty.log", code))
            after.append(cli_ingest(tag_prefix(folder / "small", 2_000 + repeat, game_type=game_type), full,
                                    folder / "after.log", code))
    rows = [{"benchmark": name, "subject": f"large TAG batch ({mb:.1f} MB, {game_type})", "metric": metric,
             "median": large[key], "ratio": None} for metric, key in (("cpu s", "cpu"), ("peak RSS MB", "rss_mb"))]
    for metric, key in (("cpu s", "cpu"), ("peak RSS MB", "rss_mb")):
        base, then = statistics.median(f[key] for f in empty), statistics.median(f[key] for f in after)
        rows += [{"benchmark": name, "subject": f"{SIDE_BY_SIDE_STATES}-state jbag ingest, empty data dir",
                  "metric": metric, "median": base, "ratio": None},
                 {"benchmark": name, "subject": f"{SIDE_BY_SIDE_STATES}-state jbag ingest after the large one",
                  "metric": metric, "median": then, "ratio": then / base}]
    return rows


if __name__ == "__main__":
    arguments = sys.argv[1:]
    against = Path(arguments.pop(arguments.index("--against") + 1)) if "--against" in arguments else None
    game_type = arguments.pop(arguments.index("--game") + 1) if "--game" in arguments else CLI_GAME
    repeats = int(next((a for a in arguments if a.isdigit()), 3))
    if "--cli" in arguments:  # with --against CHECKOUT: the same case with that checkout's jbag first
        rows = (cli_side_by_side(repeats, against.resolve(), f" ({against})", game_type) if against else []) + \
            cli_side_by_side(repeats, ROOT, " (this checkout)" if against else "", game_type)
    else:
        rows = run(repeats)
    for row in rows:
        ratio = "" if row["ratio"] is None else f"  ratio {row['ratio']:.2f}"
        print(f"{row['benchmark']:22s} {row['subject']:52s} {row['median']:8.2f} {row['metric']}{ratio}")
