"""Sea Salt & Paper engine: random playouts/s, clone and determinize cost, and to_json() size in tokens.

No other Python implementation of the game exists to race against, so the speed rows have no reference.
The token rows compare our recorded documents with TAG's own recorded SSP states (the JSON-Bag reference
trajectories beside the repository, when present), tokenized the same way (mode "both", as the pipeline).
"""

from __future__ import annotations

import json
import random
import statistics
import time
from pathlib import Path

from engines.sea_salt_paper.game import SeaSaltPaper

try:
    from jbag_pipeline.model.tokenize import tokenize_state
except ImportError:
    tokenize_state = None

PLAYOUTS = 20
SAMPLE_STATES = 200
TAG_TRAJECTORIES = (Path(__file__).resolve().parents[2] / "shared" / "data" / "jsonbag_reference"
                    / "example_trajectories" / "SeaSaltPaper")


def playouts_per_second(game: SeaSaltPaper, count: int, seed: int) -> float:
    """Uniformly random games from fresh seeded deals."""
    rand = random.Random(seed).random
    start = time.perf_counter()
    for i in range(count):
        state = game.new_state(seed=seed + i)
        while not state.is_terminal():
            actions = state.legal_actions()
            state.apply(actions[int(rand() * len(actions))])
    return count / (time.perf_counter() - start)


def sample_states(game: SeaSaltPaper, count: int, seed: int = 0) -> list:
    """States recorded as the match runner would (after each completed turn) along random games."""
    rand, states, i = random.Random(seed).random, [], 0
    while len(states) < count:
        state = game.new_state(seed=seed + i)
        i += 1
        while not state.is_terminal() and len(states) < count:
            turn = state.turn_counter
            actions = state.legal_actions()
            state.apply(actions[int(rand() * len(actions))])
            if state.turn_counter > turn:
                states.append(state.clone())
    return states


def microseconds_per_call(function, states: list) -> float:
    start = time.perf_counter()
    for state in states:
        function(state)
    return (time.perf_counter() - start) / len(states) * 1e6


def tokens_per_state(docs: list[dict]) -> float:
    """Mean token count (sum of counts, mode both, positive-integer rule on) or, without the tokenizer, atoms."""
    if tokenize_state is not None:
        return statistics.mean(sum(tokenize_state(d, mode="both", num_suffix=True).values()) for d in docs)
    return statistics.mean(count_atoms(d) for d in docs)


def count_atoms(value) -> int:
    if isinstance(value, dict):
        return sum(count_atoms(v) for v in value.values())
    if isinstance(value, list):
        return sum(count_atoms(v) for v in value)
    return 1


def run(repeats: int = 5) -> list[dict]:
    game = SeaSaltPaper()
    playouts, clones, determinizations = [], [], []
    states = sample_states(game, SAMPLE_STATES)
    for r in range(repeats):
        playouts.append(playouts_per_second(game, PLAYOUTS, seed=1000 * r))
        clones.append(microseconds_per_call(lambda s: s.clone(), states))
        rng = random.Random(r)
        determinizations.append(microseconds_per_call(lambda s: s.determinize(s.current_player, rng), states))
    unit = "tokens/state" if tokenize_state is not None else "atoms/state"
    ours_tokens = tokens_per_state([s.to_json() for s in states])
    rows = [
        row("random playouts", "ours", "playouts/s", statistics.median(playouts)),
        row("clone", "ours", "us/call", statistics.median(clones)),
        row("determinize", "ours", "us/call", statistics.median(determinizations)),
        row("to_json size", "ours", unit, ours_tokens),
    ]
    tag_files = sorted(TAG_TRAJECTORIES.glob("*.json")) if TAG_TRAJECTORIES.is_dir() else []
    if tag_files:
        tag_docs = [doc for path in tag_files for doc in json.loads(path.read_text())]
        tag_tokens = tokens_per_state(tag_docs)
        rows[-1]["ratio"] = ours_tokens / tag_tokens
        rows.append(row("to_json size", "TAG recorded SSP states", unit, tag_tokens))
    return rows


def row(benchmark: str, subject: str, metric: str, median: float) -> dict:
    return {"benchmark": f"sea_salt_paper {benchmark}", "subject": subject, "metric": metric, "median": median,
            "ratio": None}


if __name__ == "__main__":
    for result in run():
        print(result)
