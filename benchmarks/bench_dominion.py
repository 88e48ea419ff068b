"""Dominion engine: random playouts/s, clone and determinize cost, and to_json() size in tokens per state.

No other Python Dominion exists to race against: playouts and determinize have no reference; clone is
timed next to copy.deepcopy of the same states; the token rows compare our recorded documents with TAG's
recorded Dominion states (JSON-Bag reference trajectories beside the repository, when present), both
tokenized as the pipeline does (mode "both", positive-integer rule on).
"""

from __future__ import annotations

import copy
import json
import random
import statistics
import time
from pathlib import Path

from engines.dominion.game import Dominion

try:
    from jbag_pipeline.model.tokenize import tokenize_state
except ImportError:
    tokenize_state = None

PLAYOUTS = 40
SAMPLE_STATES = 300
TAG_TRAJECTORIES = (Path(__file__).resolve().parents[2] / "shared" / "data" / "jsonbag_reference"
                    / "example_trajectories" / "Dominion")


def playouts_per_second(game: Dominion, count: int, seed: int) -> float:
    """Uniformly random games from fresh seeded deals."""
    rand = random.Random(seed).random
    start = time.perf_counter()
    for i in range(count):
        state = game.new_state(seed=seed + i)
        while not state.is_terminal():
            actions = state.legal_actions()
            state.apply(actions[int(rand() * len(actions))])
    return count / (time.perf_counter() - start)


def recorded_states(game: Dominion, count: int, seed: int = 0) -> list:
    """States as the match runner records them (after each completed turn) along random games."""
    rand, states, game_seed = random.Random(seed).random, [], seed
    while len(states) < count:
        state = game.new_state(seed=game_seed)
        game_seed += 1
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
    """Mean tokens per document (sum of counts); without the tokenizer, atoms per document."""
    if tokenize_state is not None:
        return statistics.mean(sum(tokenize_state(d, mode="both", num_suffix=True).values()) for d in docs)
    return statistics.mean(count_atoms(d) for d in docs)


def count_atoms(value) -> int:
    if isinstance(value, dict):
        return sum(count_atoms(v) for v in value.values())
    if isinstance(value, list):
        return sum(count_atoms(v) for v in value)
    return 1


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
    unit = "tokens/state" if tokenize_state is not None else "atoms/state"
    ours_tokens = tokens_per_state([s.to_json() for s in states])
    rows = [
        row("random playouts", "ours", "playouts/s", statistics.median(playouts)),
        row("clone", "ours", "us/call", clone, clone / deep_copy),
        row("clone", "copy.deepcopy", "us/call", deep_copy),
        row("determinize", "ours", "us/call", statistics.median(determinizations)),
        row("to_json size", "ours", unit, ours_tokens),
    ]
    tag_files = sorted(TAG_TRAJECTORIES.glob("*.json")) if TAG_TRAJECTORIES.is_dir() else []
    if tag_files:
        tag_tokens = tokens_per_state([doc for path in tag_files for doc in json.loads(path.read_text())])
        rows[-1]["ratio"] = ours_tokens / tag_tokens
        rows.append(row("to_json size", "TAG recorded Dominion states", unit, tag_tokens))
    return rows


if __name__ == "__main__":
    for result in run():
        print(result)
