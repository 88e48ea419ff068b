"""JSON-Bag value speed per game: candidate state -> V_i evaluations/s, and OSLA time per decision, vs baseline OSLA.

Prototypes (frequency full) come from ~20 seeded random games per game; the top-100 features are ranked
by a seeded Random Forest on those games' bags. Subjects: the JSON-Bag value with the top-100 features
("ours (top100)"), without selection ("ours (none)") and the baseline OSLA's ScoreValue ("baseline ScoreValue"), timed
interleaved on the same candidate states (children of decision points of other seeded random games).
The target: JSON-Bag OSLA within 5x of baseline OSLA per decision.
"""

from __future__ import annotations

import random
import statistics
import time

import polars as pl

from engines import GAMES, load_game
from engines.agents import OSLAAgent, RandomAgent
from engines.agents.osla import ScoreValue
from engines.match import play_match
from jbag_pipeline.jsonbag_agent import DeterminizedJsonBagValue, JsonBagOSLAAgent
from jbag_pipeline.prototypes import build_prototypes
from jbag_pipeline.selection import rank_tokens, top_k
from jbag_pipeline.bags import normalise
from jbag_pipeline.tokenize import TokenFilter, tokenize_trajectory

TRAINING_GAMES = 20
DECISION_GAMES = 2
MAX_DECISIONS = 40
TOP_K = 100


def training_model(game) -> tuple[list[dict], list[str]]:
    """Per-seat prototypes (frequency full) and the top-100 features from seeded random games (outcome fields dropped)."""
    bags, winners = [], []
    for seed in range(TRAINING_GAMES):
        record = play_match(game, [RandomAgent() for _ in range(game.n_players)], seed=10_000 + seed)
        bags.append(TokenFilter().apply(tokenize_trajectory([s.doc for s in record.states], num_suffix=True)).kept)
        winners.append(record.winner)
    prototypes = build_prototypes(list(zip(bags, winners)))
    rows = [{"game_id": i, "token": token, "p": share}
            for i, bag in enumerate(bags) for token, share in normalise(bag).items()]
    decided = pl.DataFrame({"game_id": list(range(len(bags))), "winner": winners}).filter(pl.col("winner").is_not_null())
    ranking = rank_tokens(pl.DataFrame(rows), decided, n_estimators=50, seed=0, where=game.name)
    return [prototypes.get(seat, {}) for seat in range(game.n_players)], ranking.tokens[:top_k(ranking, TOP_K)]


def decision_states(game) -> list:
    """Up to MAX_DECISIONS states with 2+ legal actions from seeded random games, in game order."""
    states = []
    for seed in range(DECISION_GAMES):
        state, rng = game.new_state(seed=20_000 + seed), random.Random(seed)
        while not state.is_terminal():
            legal = state.legal_actions()
            if len(legal) > 1:
                states.append(state.clone())
            state.apply(legal[rng.randrange(len(legal))])
    step = max(1, len(states) // MAX_DECISIONS)
    return states[::step][:MAX_DECISIONS]


def candidates(states: list) -> list[tuple]:
    """(child, seat) for every legal action of every decision state, from one determinization each."""
    rng, pairs = random.Random(0), []
    for state in states:
        seat = state.current_player
        sample = state.determinize(seat, rng)
        for action in state.legal_actions():
            child = sample.clone()
            child.apply(action)
            pairs.append((child, seat))
    return pairs


def _evaluate(value, states: list, pairs: list) -> float:
    """Seconds to value every candidate (begin_decision once per decision state first, as OSLA does)."""
    start = time.perf_counter()
    for state in states:
        value.begin_decision(state, state.current_player)
    for child, seat in pairs:
        value.value(child, seat)
    return time.perf_counter() - start


def _decide(agent, states: list) -> float:
    """Seconds for one choose() per decision state."""
    agent.reset(7)
    start = time.perf_counter()
    for state in states:
        agent.choose(state)
    return time.perf_counter() - start


def _interleaved(subjects: dict, run_one, repeats: int) -> dict[str, float]:
    """Median seconds per subject, rotating which subject runs first in each repetition."""
    seconds: dict[str, list[float]] = {name: [] for name in subjects}
    names = list(subjects)
    for repeat in range(repeats):
        for name in names[repeat % len(names):] + names[:repeat % len(names)]:
            seconds[name].append(run_one(subjects[name]))
    return {name: statistics.median(values) for name, values in seconds.items()}


def run(repeats: int = 5) -> list[dict]:
    """Per game: value evaluations/s and ms per OSLA decision, JSON-Bag (top100, none) beside ScoreValue."""
    rows = []
    for name in sorted(GAMES):
        game = load_game(name)
        prototypes, features = training_model(game)
        states = decision_states(game)
        pairs = candidates(states)
        values = {"ours (top100)": DeterminizedJsonBagValue(prototypes, features, seed=1),
                  "ours (none)": DeterminizedJsonBagValue(prototypes, None, seed=1), "baseline ScoreValue": ScoreValue()}

        def evaluate(value):
            if hasattr(value, "reset"):
                value.reset(3)
            return _evaluate(value, states, pairs)

        medians = _interleaved(values, evaluate, repeats)
        for subject, median in medians.items():
            ratio = None if subject == "baseline ScoreValue" else medians["baseline ScoreValue"] / median
            rows.append({"benchmark": f"value_evals/{name}", "subject": subject, "metric": "evals/s",
                         "median": len(pairs) / median, "ratio": ratio})
        agents = {"ours (top100)": JsonBagOSLAAgent(values["ours (top100)"]), "ours (none)": JsonBagOSLAAgent(values["ours (none)"]),
                  "baseline ScoreValue": OSLAAgent()}
        medians = _interleaved(agents, lambda agent: _decide(agent, states), repeats)
        for subject, median in medians.items():
            ratio = None if subject == "baseline ScoreValue" else median / medians["baseline ScoreValue"]
            rows.append({"benchmark": f"osla_decision/{name}", "subject": subject, "metric": "ms/decision",
                         "median": 1000 * median / len(states), "ratio": ratio})
    return rows


if __name__ == "__main__":
    for row in run():
        ratio = "" if row["ratio"] is None else f"  ratio {row['ratio']:.2f}"
        print(f"{row['benchmark']:30s} {row['subject']:22s} {row['median']:12.2f} {row['metric']}{ratio}")
