"""Scaling: self-play time for 1x, 2x and 4x the games (it should grow linearly), and state_tokens bytes per token.

Self-play is jbag_pipeline.play.selfplay.play_selfplay at the smoke preset's MCTS settings; the 2x and 4x runs
replay the 1x seeds and add more. Because games differ in length, linearity is judged per action: a kx row's
ratio is its seconds per action divided by the 1x run's (1.0 = linear). The scales run interleaved within
each repetition. The Parquet rows write the 4x run's state_tokens as the lake does (zstd) and divide the
file size by its rows, and by its tokens (the sum of the counts).
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

import jbag_pipeline.storage.lake as lake
from jbag_pipeline.presets import game_run, get_preset
from jbag_pipeline.play.selfplay import play_selfplay, selfplay_seeds
from jbag_pipeline.transforms.state_tokens import tokenize_states

SCALES = (1, 2, 4)
# Games at 1x, chosen so a 1x run takes about a second here (connect4 and tictactoe games are short).
BASE_GAMES = {"connect4": 16, "tictactoe": 32, "dots_and_boxes": 2}


def timed_selfplay(game: str, seeds: list[int]) -> tuple[float, int, object]:
    """Seconds, total actions and the states table of one self-play run at the smoke preset's settings."""
    run = game_run(get_preset("smoke"), game)
    start = time.perf_counter()
    games, states = play_selfplay(game, run, seeds)
    return time.perf_counter() - start, int(games["n_actions"].sum()), states


def parquet_bytes(states) -> tuple[int, int, int]:
    """(file bytes, rows, tokens) of the state_tokens table of `states`, written as the lake writes it."""
    tokens = tokenize_states(states)
    with tempfile.TemporaryDirectory(prefix="jbag-bench-") as folder:
        path = lake.write_table(tokens, Path(folder), "state_tokens", {"game": "bench"})
        size = path.stat().st_size
    return size, len(tokens), int(tokens["count"].sum())


def row(benchmark: str, subject: str, metric: str, median: float, ratio: float | None) -> dict:
    return {"benchmark": benchmark, "subject": subject, "metric": metric, "median": median, "ratio": ratio}


def run(repeats: int = 5) -> list[dict]:
    rows = []
    for game, base in BASE_GAMES.items():
        seeds = selfplay_seeds(0, 0, base * max(SCALES))
        seconds = {scale: [] for scale in SCALES}
        actions, states = {}, None
        for repeat in range(repeats):
            order = SCALES[repeat % len(SCALES):] + SCALES[:repeat % len(SCALES)]  # rotate who goes first
            for scale in order:
                elapsed, actions[scale], played = timed_selfplay(game, seeds[:base * scale])
                seconds[scale].append(elapsed)
                if scale == max(SCALES):
                    states = played
        per_action_1x = statistics.median(seconds[1]) / actions[1]
        for scale in SCALES:
            median = statistics.median(seconds[scale])
            ratio = None if scale == 1 else (median / actions[scale]) / per_action_1x
            rows.append(row(f"scaling/selfplay/{game}", f"{scale}x ({base * scale} games, {actions[scale]} actions)",
                            "s", median, ratio))
        size, n_rows, n_tokens = parquet_bytes(states)
        rows.append(row(f"scaling/state_tokens_parquet/{game}", "ours", "bytes/row", size / n_rows, None))
        rows.append(row(f"scaling/state_tokens_parquet/{game}", "ours", "bytes/token", size / n_tokens, None))
    return rows


if __name__ == "__main__":
    for result in run(int(sys.argv[1]) if len(sys.argv) > 1 else 5):
        ratio = "" if result["ratio"] is None else f"  ratio {result['ratio']:.2f}"
        print(f"{result['benchmark']:40s} {result['subject']:36s} {result['median']:12.4g} {result['metric']}{ratio}")
