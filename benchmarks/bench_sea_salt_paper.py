"""Sea Salt & Paper engine: random playouts/s, clone and determinize cost, and to_json() size in tokens.

No other Python implementation of the game exists to race against, so the speed rows have no reference.
The token rows compare our recorded documents with TAG's own recorded SSP states (the JSON-Bag reference
trajectories beside the repository, when present), tokenized the same way (mode "both", as the pipeline).
"""

from __future__ import annotations

import random
import statistics

from benchmarks.card_game_states import (microseconds_per_call, playouts_per_second, recorded_states,
                                         to_json_size_rows)
from engines.sea_salt_paper.game import SeaSaltPaper


PLAYOUTS = 20
SAMPLE_STATES = 200


def run(repeats: int = 5) -> list[dict]:
    game = SeaSaltPaper()
    playouts, clones, determinizations = [], [], []
    states = recorded_states(game, SAMPLE_STATES)
    for r in range(repeats):
        playouts.append(playouts_per_second(game, PLAYOUTS, seed=1000 * r))
        clones.append(microseconds_per_call(lambda s: s.clone(), states))
        rng = random.Random(r)
        determinizations.append(microseconds_per_call(lambda s: s.determinize(s.current_player, rng), states))
    return [
        row("random playouts", "ours", "playouts/s", statistics.median(playouts)),
        row("clone", "ours", "us/call", statistics.median(clones)),
        row("determinize", "ours", "us/call", statistics.median(determinizations)),
        *to_json_size_rows("sea_salt_paper", states, "SeaSaltPaper", "TAG recorded SSP states"),
    ]


def row(benchmark: str, subject: str, metric: str, median: float) -> dict:
    return {"benchmark": f"sea_salt_paper {benchmark}", "subject": subject, "metric": metric, "median": median,
            "ratio": None}


if __name__ == "__main__":
    for result in run():
        print(result)
