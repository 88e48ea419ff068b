"""7 Wonders engine: random playouts/s, determinization cost and JSON-Bag tokens per recorded state.

No public engine of 7 Wonders exists to race (OpenSpiel has none), so playouts have no reference row.
Determinizations are timed interleaved with plain clones of the same states (ratio = their speed ratio).
Tokens per state are compared with TAG's own recorded 7 Wonders states (the JSON-Bag reference
trajectories in ../shared/data, tokenized the same way, mode "unordered" as the JSON-Bag paper used for 7W);
TAG records a state per round, we record one per seat's choice, so the counts are per state.
"""

from __future__ import annotations

import json
import random
import statistics
import time
from pathlib import Path

from engines.seven_wonders.game import SevenWonders
from jbag_pipeline.model.tokenize import tokenize_state

PLAYOUTS = 20
DETERMINIZE_STATES = 30
DETERMINIZATIONS = 20  # per state and repetition
TOKEN_GAMES = 3
SHARED = Path(__file__).resolve().parents[1].parent / "shared"
REFERENCE_DIR = SHARED / "data" / "jsonbag_reference" / "example_trajectories" / "Wonders7"


def playouts_per_second(game: SevenWonders, count: int, first_seed: int) -> float:
    """Uniformly random games from seeded initial states, per second."""
    start = time.perf_counter()
    for seed in range(first_seed, first_seed + count):
        state, rng = game.new_state(seed), random.Random(seed)
        while not state.is_terminal():
            actions = state.legal_actions()
            state.apply(actions[rng.randrange(len(actions))])
    return count / (time.perf_counter() - start)


def recorded_states(game: SevenWonders, games: int, every: int = 1) -> list:
    """States after every `every`-th choice of seeded random games (what the match runner records)."""
    states = []
    for seed in range(games):
        state, rng = game.new_state(seed), random.Random(seed)
        while not state.is_terminal():
            actions = state.legal_actions()
            state.apply(actions[rng.randrange(len(actions))])
            if state.turn_counter % every == 0 or state.is_terminal():
                states.append(state.clone())
    return states


def per_second(operation, states: list, repeat: int) -> float:
    start = time.perf_counter()
    for state in states:
        for _ in range(repeat):
            operation(state)
    return len(states) * repeat / (time.perf_counter() - start)


def _row(benchmark: str, subject: str, metric: str, values: list[float], ratio: float | None = None) -> dict:
    return {"benchmark": benchmark, "subject": subject, "metric": metric, "median": statistics.median(values),
            "ratio": ratio}


def token_counts(docs: list[dict]) -> tuple[list[float], list[float]]:
    """Tokens per state (with multiplicity) and distinct tokens per state, mode "unordered"."""
    bags = [tokenize_state(doc, mode="unordered") for doc in docs]
    return [float(sum(bag.values())) for bag in bags], [float(len(bag)) for bag in bags]


def reference_docs() -> list[dict]:
    """TAG's recorded 7 Wonders states (empty where ../shared is absent)."""
    docs = []
    for path in sorted(REFERENCE_DIR.glob("*.json")) if REFERENCE_DIR.is_dir() else []:
        docs.extend(json.loads(path.read_text()))
    return docs


def run(repeats: int = 5) -> list[dict]:
    """Playouts/s, determinizations/s next to clones/s, and tokens per state next to TAG's recorded states."""
    game = SevenWonders()
    rows = [_row("random_playouts/seven_wonders", "ours", "playouts/s",
                 [playouts_per_second(game, PLAYOUTS, 100 * r) for r in range(repeats)])]

    states = [s for s in recorded_states(game, 2, every=5) if not s.is_terminal()][:DETERMINIZE_STATES]
    rng = random.Random(0)
    determinize, clone = [], []
    for _ in range(repeats):
        determinize.append(per_second(lambda s: s.determinize(s.current_player, rng), states, DETERMINIZATIONS))
        clone.append(per_second(lambda s: s.clone(), states, DETERMINIZATIONS))
    ratio = statistics.median(determinize) / statistics.median(clone)
    rows.append(_row("determinize/seven_wonders", "ours", "determinizations/s", determinize, ratio))
    rows.append(_row("determinize/seven_wonders", "clone (same states)", "clones/s", clone))

    ours_total, ours_distinct = token_counts([s.to_json() for s in recorded_states(game, TOKEN_GAMES)])
    tag_docs = reference_docs()
    tag_total, tag_distinct = token_counts(tag_docs) if tag_docs else ([], [])
    metrics = (("tokens/state", ours_total, tag_total), ("distinct tokens/state", ours_distinct, tag_distinct))
    for metric, ours, tag in metrics:
        ratio = statistics.median(ours) / statistics.median(tag) if tag else None
        rows.append(_row("tokens_per_state/seven_wonders", "ours", metric, ours, ratio))
        if tag:
            rows.append(_row("tokens_per_state/seven_wonders", "tag:JSON-Bag Wonders7 trajectories", metric, tag))
    return rows


if __name__ == "__main__":
    for row in run():
        ratio = "" if row["ratio"] is None else f"  ratio {row['ratio']:.2f}"
        print(f"{row['benchmark']:32s} {row['subject']:36s} {row['median']:12.1f} {row['metric']}{ratio}")
