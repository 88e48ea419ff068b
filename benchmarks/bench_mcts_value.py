"""JSON-Bag MCTS speed per game: MCTS iterations per CPU-second with a JSON-Bag leaf value, vs score MCTS (issue 28).

Three searchers at the demo preset's iteration budget of each game search the same decision states (bench_value's
decision_states), each decision from a fresh agent reset with the decision's own seed, so every subject draws the
same random numbers where its search allows: "score MCTS" (the reference: random rollouts of the demo's
rollout_length, scored by its mcts_cutoff), "ours (jsonbag top100)" (ValueEvaluator over the JSON-Bag value of
bench_value's training_model, top-100 features, LEAF_DEPTH random steps, rule "share") and "baseline heuristic MCTS"
(ValueEvaluator over the game's baseline heuristic, LEAF_DEPTH steps, rule "lead"). Subjects run interleaved, their
order rotating per repeat. Every searcher first searches every decision state once untimed, at other seeds
(WARMUP_SEED on): the JSON-Bag value's change caches persist across games and fill as over an evaluation's many
(cold, the first pass ran at 0.05x score MCTS in Sea Salt and Paper; after it, new seeds run as fast as repeated
ones). A timed run is ROUNDS passes over the states with the same seeds; times are CPU seconds of this process; the
row is the median over repeats of iterations/s, ratio = subject / score MCTS. The target: JSON-Bag MCTS within 3x of
score MCTS.
Run alone: python -m benchmarks.bench_mcts_value [REPEATS] [GAME ...] (default 5 repeats, every game).
"""

from __future__ import annotations

import time
from dataclasses import replace
from functools import partial

from benchmarks.bench_value import _interleaved, decision_states, training_model
from engines import GAMES, load_game
from engines.agents import MCTSAgent
from jbag_pipeline.model.value import DeterminizedJsonBagValue
from jbag_pipeline.play.mcts_evaluation import make_agent
from jbag_pipeline.presets import get_preset

LEAF_DEPTH = 0  # random steps from a new leaf before the value function values it
ROUNDS = 4  # passes over the decision states per timed run: a card game's pass takes only about 40 ms
WARMUP_SEED = 1000  # the untimed warm-up pass's first seed, apart from the timed passes' 0..len(states)-1
REFERENCE = "score MCTS"
SUBJECTS = {REFERENCE: "score_mcts", "ours (jsonbag top100)": "jsonbag_mcts",
            "baseline heuristic MCTS": "heuristic_mcts"}  # subject -> the MCTS evaluation's agent


def searchers(name: str, prototypes: list[dict], features: list[str]) -> dict[str, MCTSAgent]:
    """The three subjects at the demo preset's budget for game `name`, built as the MCTS evaluation builds them
    (play.mcts_evaluation.make_agent) at leaf depth LEAF_DEPTH: score MCTS first (the reference)."""
    run = replace(get_preset("demo").games[name], mcts_leaf_depth=LEAF_DEPTH)
    return {subject: make_agent(kind, name, run, partial(DeterminizedJsonBagValue, prototypes, features))
            for subject, kind in SUBJECTS.items()}


def search_all(agent: MCTSAgent, states: list, first_seed: int = 0) -> float:
    """CPU seconds to search every decision state, each from agent.reset(first_seed + its index) (the same seeds
    per subject)."""
    seconds = 0.0
    for seed, state in enumerate(states, first_seed):
        agent.reset(seed)
        start = time.process_time()
        agent.choose(state)
        seconds += time.process_time() - start
    return seconds


def run(repeats: int = 5, games: tuple[str, ...] | None = None) -> list[dict]:
    """Per game (`games`, default all): iterations/s of score MCTS, JSON-Bag MCTS and heuristic MCTS."""
    if type(repeats) is not int or repeats < 1:
        raise ValueError(f"bench_mcts_value: repeats must be a positive int, got {repeats!r}")
    unknown = sorted(set(games or ()) - set(GAMES))
    if unknown:
        raise ValueError(f"bench_mcts_value: unknown games {unknown}; known: {sorted(GAMES)}")
    rows = []
    for name in sorted(games or GAMES):
        game = load_game(name)
        prototypes, features = training_model(game)
        states = decision_states(game)
        agents = searchers(name, prototypes, features)
        for agent in agents.values():
            search_all(agent, states, WARMUP_SEED)  # fills the JSON-Bag value's change caches
        medians = _interleaved(agents, lambda agent: sum(search_all(agent, states) for _ in range(ROUNDS)), repeats)
        iterations = {subject: agent.iterations * len(states) * ROUNDS for subject, agent in agents.items()}
        per_second = {subject: iterations[subject] / seconds for subject, seconds in medians.items()}
        for subject, speed in per_second.items():
            ratio = None if subject == REFERENCE else speed / per_second[REFERENCE]
            rows.append({"benchmark": f"mcts_value/{name}", "subject": subject, "metric": "iterations/s",
                         "median": speed, "ratio": ratio})
    return rows


if __name__ == "__main__":
    # python -m benchmarks.bench_mcts_value [REPEATS] [GAME ...]
    import sys
    if len(sys.argv) > 1 and not sys.argv[1].isdigit():
        sys.exit(f"bench_mcts_value: REPEATS must be a positive int, got {sys.argv[1]!r}")
    for row in run(int(sys.argv[1]) if len(sys.argv) > 1 else 5, tuple(sys.argv[2:]) or None):
        ratio = "" if row["ratio"] is None else f"  ratio {row['ratio']:.2f}"
        print(f"{row['benchmark']:28s} {row['subject']:24s} {row['median']:12.1f} {row['metric']}{ratio}")
