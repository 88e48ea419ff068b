"""JSON-Bag value speed per game: candidate state -> V_i evaluations/s, and OSLA time per decision, vs baseline OSLA.

Prototypes (frequency full) come from ~20 seeded random games per game; the top-100 features are ranked
by a seeded Random Forest on those games' bags. Subjects: the JSON-Bag value with the top-100 features
("ours (top100)"), without selection ("ours (none)") and each game's baseline heuristic ("baseline heuristic",
engines.agents.baseline_value), timed interleaved on the same candidate states (children of decision points of other seeded random games).
Per decision: one JSON-Bag OSLA per subject plays evaluation games against baseline OSLAs, as play_evaluation
runs them; after WARMUP_GAMES untimed games (its caches fill as over an evaluation's many games) it plays
DECISION_GAMES_PER_REPEAT timed games, and the row is the mean time per decision of each side over those games.
Times are CPU seconds of this process (the machine may be shared). The targets: JSON-Bag OSLA within 3x of
baseline OSLA per decision with the top-100 features, 5x unrestricted.
Run alone: python -m benchmarks.bench_value [REPEATS] [GAME ...] (default 5 repeats, every game).
"""

from __future__ import annotations

import random
import statistics
import time

import polars as pl

from engines import GAMES, load_game
from engines.agents import RandomAgent, baseline_agent, baseline_value
from engines.match import play_match
from jbag_pipeline.model.bags import normalise
from jbag_pipeline.play.jsonbag_agent import JsonBagOSLAAgent
from jbag_pipeline.model.selection import rank_tokens, top_k
from jbag_pipeline.model.prototypes import build_prototypes
from jbag_pipeline.model.tokenize import TokenFilter, tokenize_trajectory
from jbag_pipeline.model.value import DeterminizedJsonBagValue

TRAINING_GAMES = 20
DECISION_GAMES = 2
MAX_DECISIONS = 40
TOP_K = 100
WARMUP_GAMES = 2
DECISION_GAMES_PER_REPEAT = 4


def training_model(game) -> tuple[list[dict], list[str]]:
    """Per-seat prototypes (frequency full) and the top-100 features of seeded random games (outcomes dropped)."""
    bags, winners = [], []
    for seed in range(TRAINING_GAMES):
        record = play_match(game, [RandomAgent() for _ in range(game.n_players)], seed=10_000 + seed)
        bags.append(TokenFilter().apply(tokenize_trajectory([s.doc for s in record.states], num_suffix=True)).kept)
        winners.append(record.winner)
    prototypes = build_prototypes(list(zip(bags, winners)))
    rows = [{"game_id": i, "token": token, "p": share}
            for i, bag in enumerate(bags) for token, share in normalise(bag).items()]
    decided = pl.DataFrame({"game_id": list(range(len(bags))), "winner": winners}).filter(
        pl.col("winner").is_not_null())
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


def candidates(states: list) -> list[tuple[object, list, int]]:
    """(sample, children, seat) of every decision state: one determinization and a child per legal action of it."""
    rng, decisions = random.Random(0), []
    for state in states:
        seat, children = state.current_player, []
        sample = state.determinize(seat, rng)
        for action in state.legal_actions():
            child = sample.clone()
            child.apply(action)
            children.append(child)
        decisions.append((sample, children, seat))
    return decisions


def _evaluate(value, decisions: list, batched: bool) -> float:
    """Seconds to value every candidate (begin_decision with the sample first, as OSLA does), one value() call
    per candidate or one values() call per decision."""
    start = time.process_time()
    for sample, children, seat in decisions:
        value.begin_decision(sample, seat)
        if batched:
            value.values(children, seat)
        else:
            for child in children:
                value.value(child, seat)
    return time.process_time() - start


class _TimedAgent:
    """Wraps an agent and adds up the CPU seconds of its choose() calls (CPU time: the machine may be shared)."""

    def __init__(self, agent):
        self.agent, self.seconds, self.decisions = agent, 0.0, 0
        self.name = agent.name

    def reset(self, seed: int) -> None:
        self.agent.reset(seed)

    def begin_game(self, state, seat: int) -> None:
        self.agent.begin_game(state, seat)

    def choose(self, state):
        start = time.process_time()
        action = self.agent.choose(state)
        self.seconds += time.process_time() - start
        self.decisions += 1
        return action


def _evaluation_games(game, jsonbag: JsonBagOSLAAgent, seeds: range) -> tuple[float, float]:
    """Evaluation games (JSON-Bag OSLA in seat seed % n_players, baseline OSLAs elsewhere): mean seconds per
    decision of the JSON-Bag agent and of the baseline agents over all of them."""
    ours, baseline = [0.0, 0], [0.0, 0]
    for seed in seeds:
        seat = seed % game.n_players
        agents = [_TimedAgent(jsonbag if p == seat else baseline_agent(game.name)) for p in range(game.n_players)]
        play_match(game, agents, seed=seed, record_states=False)  # as play_evaluation plays them
        for p, agent in enumerate(agents):
            side = ours if p == seat else baseline
            side[0] += agent.seconds
            side[1] += agent.decisions
    return ours[0] / ours[1], baseline[0] / baseline[1]


def _interleaved(subjects: dict, run_one, repeats: int) -> dict[str, float]:
    """Median seconds per subject, rotating which subject runs first in each repetition."""
    seconds: dict[str, list[float]] = {name: [] for name in subjects}
    names = list(subjects)
    for repeat in range(repeats):
        for name in names[repeat % len(names):] + names[:repeat % len(names)]:
            seconds[name].append(run_one(subjects[name]))
    return {name: statistics.median(values) for name, values in seconds.items()}


def run(repeats: int = 5, games: tuple[str, ...] | None = None) -> list[dict]:
    """Per game (`games`, default all): value evaluations/s and ms per OSLA decision, JSON-Bag (top100, none) beside
    the game's baseline heuristic."""
    unknown = sorted(set(games or ()) - set(GAMES))
    if unknown:
        raise ValueError(f"bench_value: unknown games {unknown}; known: {sorted(GAMES)}")
    rows = []
    for name in sorted(games or GAMES):
        game = load_game(name)
        prototypes, features = training_model(game)
        decisions = candidates(decision_states(game))
        n_candidates = sum(len(children) for _, children, _ in decisions)
        values = {"ours (top100)": DeterminizedJsonBagValue(prototypes, features),
                  "ours (none)": DeterminizedJsonBagValue(prototypes, None),
                  "baseline heuristic": baseline_value(name)}
        subjects = {**{name: (value, False) for name, value in values.items()},
                    "ours batched (top100)": (values["ours (top100)"], True)}

        def evaluate(subject):
            value, batched = subject
            if hasattr(value, "reset"):
                value.reset()
            return _evaluate(value, decisions, batched)

        medians = _interleaved(subjects, evaluate, repeats)
        for subject, median in medians.items():
            ratio = None if subject == "baseline heuristic" else medians["baseline heuristic"] / median
            rows.append({"benchmark": f"value_evals/{name}", "subject": subject, "metric": "evals/s",
                         "median": n_candidates / median, "ratio": ratio})
        per_decision: dict[str, list[float]] = {"ours (top100)": [], "ours (none)": [], "baseline heuristic": []}
        for subject in ("ours (top100)", "ours (none)"):
            jsonbag = JsonBagOSLAAgent(values[subject])  # one value per pair, as play_evaluation builds it
            _evaluation_games(game, jsonbag, range(40_000, 40_000 + WARMUP_GAMES))
            for repeat in range(repeats):
                first = 30_000 + repeat * DECISION_GAMES_PER_REPEAT
                ours, baseline = _evaluation_games(game, jsonbag, range(first, first + DECISION_GAMES_PER_REPEAT))
                per_decision[subject].append(ours)
                per_decision["baseline heuristic"].append(baseline)
        medians = {subject: statistics.median(seconds) for subject, seconds in per_decision.items()}
        for subject, median in medians.items():
            ratio = None if subject == "baseline heuristic" else median / medians["baseline heuristic"]
            rows.append({"benchmark": f"osla_decision/{name}", "subject": subject, "metric": "ms/decision",
                         "median": 1000 * median, "ratio": ratio})
    return rows


if __name__ == "__main__":
    # python -m benchmarks.bench_value [REPEATS] [GAME ...]: a few games, side by side with another checkout
    import sys
    if len(sys.argv) > 1 and not sys.argv[1].isdigit():
        sys.exit(f"bench_value: REPEATS must be a positive int, got {sys.argv[1]!r}")
    for row in run(int(sys.argv[1]) if len(sys.argv) > 1 else 5, tuple(sys.argv[2:]) or None):
        ratio = "" if row["ratio"] is None else f"  ratio {row['ratio']:.2f}"
        print(f"{row['benchmark']:30s} {row['subject']:22s} {row['median']:12.2f} {row['metric']}{ratio}")
