"""Dominion engine: random playouts/s, clone and determinize cost, and to_json() size in tokens per state.

No other Python Dominion exists to race against: playouts and determinize have no reference; clone is
timed next to copy.deepcopy of the same states; the token rows compare our recorded documents with TAG's
recorded Dominion states (JSON-Bag reference trajectories beside the repository, when present), both
tokenized as the pipeline does (mode "both", positive-integer rule on).
"""

from __future__ import annotations

import copy
import random
import statistics

from benchmarks.card_game_states import (microseconds_per_call, playouts_per_second, recorded_states,
                                         to_json_size_rows)
from engines.dominion.game import Dominion


PLAYOUTS = 40
SAMPLE_STATES = 300


def row(benchmark: str, subject: str, metric: str, median: float, ratio: float | None = None) -> dict:
    return {"benchmark": f"dominion {benchmark}", "subject": subject, "metric": metric, "median": median,
            "ratio": ratio}


def run(repeats: int = 5) -> list[dict]:
    game = Dominion()
    states = recorded_states(game, SAMPLE_STATES)
    playouts, clones, deep_copies, determinizations = [], [], [], []
    for r in range(repeats):  # ours and the reference interleaved within each repetition
        playouts.append(playouts_per_second(game, PLAYOUTS, seed=1000 * r))
        clones.append(microseconds_per_call(lambda s: s.clone(), states))
        deep_copies.append(microseconds_per_call(copy.deepcopy, states))
        rng = random.Random(r)
        determinizations.append(microseconds_per_call(lambda s: s.determinize(s.current_player, rng), states))
    clone, deep_copy = statistics.median(clones), statistics.median(deep_copies)
    return [
        row("random playouts", "ours", "playouts/s", statistics.median(playouts)),
        row("clone", "ours", "us/call", clone, clone / deep_copy),
        row("clone", "copy.deepcopy", "us/call", deep_copy),
        row("determinize", "ours", "us/call", statistics.median(determinizations)),
        *to_json_size_rows("dominion", states, "Dominion", "TAG recorded Dominion states"),
    ]


if __name__ == "__main__":
    for result in run():
        print(result)
