"""Random-Forest feature selection per game at demo scale: seconds and peak RSS of select_features.

Demo-sized inputs are synthesised quickly: the demo preset's number of games per game, played by random
agents (engines.match.play_match), tokenized and segmented as the pipeline does (state_tokens,
sampled_states, segmented_bags with the demo preset's segments and token filter). select_features then runs
with the demo preset's trees, k and adaptive share, in a fresh interpreter that first loads the saved bags:
its peak RSS (ru_maxrss) is selection's own, and "RSS growth" is that peak minus the RSS after loading.
At most MAX_REPEATS timed calls per game. No reference implementation exists to race against.
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

import orjson
import polars as pl

from benchmarks.measured import measure
from engines import GAMES, load_game
from engines.agents import RandomAgent
from engines.match import play_match
from jbag_pipeline.presets import game_run, get_preset
from jbag_pipeline.transforms.sampling import sampled_states
from jbag_pipeline.transforms.segments import segmented_bags
from jbag_pipeline.model.selection import select_features
from jbag_pipeline.play.selfplay import selfplay_seeds
from jbag_pipeline.transforms.state_tokens import tokenize_states

ROOT = Path(__file__).resolve().parents[1]
MAX_REPEATS = 2  # a select_features call takes seconds, so its timing noise is small next to the suite's budget


def random_selfplay(game_name: str, params: dict, n_games: int, run_seed: int) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(games, states) tables shaped like selfplay_games / selfplay_states, from seeded random-agent games."""
    game = load_game(game_name, **params)
    game_rows, state_rows = [], []
    for seed in selfplay_seeds(run_seed, 0, n_games):
        record = play_match(game, [RandomAgent() for _ in range(game.n_players)], seed=seed)
        game_rows.append({"game": game_name, "game_id": seed, "n_players": game.n_players, "winner": record.winner})
        last = len(record.states) - 1
        state_rows += [{"game": game_name, "game_id": seed, "state_idx": s.state_idx,
                        "is_terminal": s.state_idx == last, "doc": orjson.dumps(s.doc).decode()} for s in record.states]
    games = pl.DataFrame(game_rows, schema={"game": pl.String, "game_id": pl.Int64, "n_players": pl.Int8,
                                            "winner": pl.Int8})
    states = pl.DataFrame(state_rows, schema={"game": pl.String, "game_id": pl.Int64, "state_idx": pl.Int32,
                                              "is_terminal": pl.Boolean, "doc": pl.String})
    return games, states


def demo_bags(game_name: str, chunk: int = 10) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The segmented bags and games table of a demo-sized random self-play of `game_name`."""
    preset = get_preset("demo")
    run = game_run(preset, game_name)
    games, states = random_selfplay(game_name, run.params, run.selfplay_games, preset.seed)
    sampled = sampled_states(states, games, preset.seed)
    # A trajectory's segmented bags depend on it alone, so `chunk` trajectories at a time give the same table
    # while the whole state_tokens table (millions of rows for 7 Wonders) never exists at once.
    parts = []
    game_ids = games["game_id"].to_list()
    for first in range(0, len(game_ids), chunk):
        ids = game_ids[first:first + chunk]
        tokens = tokenize_states(states.filter(pl.col("game_id").is_in(ids)))
        parts.append(segmented_bags(tokens, sampled.filter(pl.col("game_id").is_in(ids)), n_segments=preset.segments,
                                    blacklist=preset.blacklist_for(game_name), memory_limit=preset.duckdb_memory_limit))
    return pl.concat(parts), games


def measure_selection(folder: Path, repeats: int) -> dict:
    """In this (fresh) process: load the saved bags, then time select_features; RSS after loading and at peak."""
    preset = get_preset("demo")
    bags, games = pl.read_parquet(folder / "bags.parquet"), pl.read_parquet(folder / "games.parquet")
    rss_loaded = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    seconds = []
    for _ in range(repeats):
        start = time.perf_counter()
        select_features(bags, games, k=preset.top_k, n_estimators=preset.rf_trees, seed=preset.seed,
                        adaptive_share=preset.adaptive_share)
        seconds.append(time.perf_counter() - start)
    rss_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {"seconds": seconds, "rss_loaded_mb": rss_loaded / 1024, "rss_peak_mb": rss_peak / 1024}


def measure_in_subprocess(folder: Path, repeats: int) -> dict:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    log = folder / "measure.log"
    figures = measure([sys.executable, "-m", "benchmarks.bench_selection_demo", "--measure", str(folder),
                       "--repeats", str(repeats)], cwd=ROOT, env=env, log=log)
    output = log.read_text(errors="replace")
    if figures["returncode"] != 0:
        raise RuntimeError(f"bench_selection_demo: selection on {folder} failed:\n{output[-2000:]}")
    return json.loads(output.strip().splitlines()[-1])


def run(repeats: int = 5) -> list[dict]:
    rows = []
    for game_name in sorted(GAMES):
        with tempfile.TemporaryDirectory(prefix="jbag-bench-selection-") as folder:
            bags, games = demo_bags(game_name)
            bags.write_parquet(Path(folder) / "bags.parquet")
            games.write_parquet(Path(folder) / "games.parquet")
            whole = bags.filter((pl.col("frequency") == "full") & (pl.col("segment") == pl.col("segment").max()))
            shape = f"{whole['game_id'].n_unique()} trajectories x {whole['token'].n_unique()} tokens"
            del bags, games, whole
            result = measure_in_subprocess(Path(folder), min(repeats, MAX_REPEATS))
        benchmark = f"rf_selection_demo/{game_name}"
        for metric, value in (("s", statistics.median(result["seconds"])), ("peak RSS MB", result["rss_peak_mb"]),
                              ("RSS growth MB", result["rss_peak_mb"] - result["rss_loaded_mb"])):
            rows.append({"benchmark": benchmark, "subject": f"ours ({shape})", "metric": metric, "median": value,
                         "ratio": None})
    return rows


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "--measure" and sys.argv[3] == "--repeats":
        print(json.dumps(measure_selection(Path(sys.argv[2]), int(sys.argv[4]))))
    else:
        for result in run(int(sys.argv[1]) if len(sys.argv) > 1 else 5):
            print(result)
