"""What the card-engine benchmarks share: random playouts, states recorded along random games, per-call timing and
the tokens per recorded document (tokenized as the pipeline does: mode "both", positive-integer rule on)."""

from __future__ import annotations

import json
import random
import statistics
import time
from pathlib import Path

from jbag_pipeline.model.tokenize import tokenize_state

TAG_TRAJECTORIES = Path(__file__).resolve().parents[2] / "shared" / "data" / "jsonbag_reference" / "example_trajectories"


def playouts_per_second(game, count: int, seed: int) -> float:
    """Uniformly random games from fresh seeded deals."""
    rand = random.Random(seed).random
    start = time.perf_counter()
    for i in range(count):
        state = game.new_state(seed=seed + i)
        while not state.is_terminal():
            actions = state.legal_actions()
            state.apply(actions[int(rand() * len(actions))])
    return count / (time.perf_counter() - start)


def recorded_states(game, count: int, seed: int = 0) -> list:
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
    """Mean tokens per document (the sum of its token counts)."""
    return statistics.mean(sum(tokenize_state(d, mode="both", num_suffix=True).values()) for d in docs)


def tag_documents(folder: str) -> list[dict]:
    """Every state of TAG's recorded trajectories of one game (beside the repository), or [] when absent."""
    path = TAG_TRAJECTORIES / folder
    files = sorted(path.glob("*.json")) if path.is_dir() else []
    return [doc for file in files for doc in json.loads(file.read_text())]


def to_json_size_rows(name: str, states: list, tag_folder: str, tag_label: str) -> list[dict]:
    """Tokens per state of our documents and, when TAG's recorded trajectories are present, of TAG's (the ratio
    ours / TAG's on our row)."""
    ours = tokens_per_state([s.to_json() for s in states])
    rows = [{"benchmark": f"{name} to_json size", "subject": "ours", "metric": "tokens/state", "median": ours,
             "ratio": None}]
    tag_docs = tag_documents(tag_folder)
    if tag_docs:
        theirs = tokens_per_state(tag_docs)
        rows[0]["ratio"] = ours / theirs
        rows.append({"benchmark": f"{name} to_json size", "subject": tag_label, "metric": "tokens/state",
                     "median": theirs, "ratio": None})
    return rows
