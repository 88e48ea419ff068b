"""Speed of the Dots and Boxes (5x7) and Can't Stop engines: random playouts, MCTS iterations, clones.

The reference is OpenSpiel's C++ dots_and_boxes driven from Python (`pip install -e ".[bench]"`); its
MCTS is open_spiel.python.algorithms.mcts with one random rollout to the end, as ours runs here.
OpenSpiel has no Can't Stop, so those rows have no reference. Without pyspiel only our rows are reported.
"""

from __future__ import annotations

import random
import statistics
import time

from engines import load_game
from engines.agents import MCTSAgent

try:
    import pyspiel
except ImportError:  # the reference is optional
    pyspiel = None

PLAYOUTS = {"dots_and_boxes": 40, "cant_stop": 20}
MCTS_ITERATIONS = 200
CLONES = 20_000


def our_playouts(game, n: int) -> float:
    """Seeded uniformly random games per second."""
    start = time.perf_counter()
    for seed in range(n):
        state, rng = game.new_state(seed), random.Random(seed)
        while not state.is_terminal():
            actions = state.legal_actions()
            state.apply(actions[rng.randrange(len(actions))])
    return n / (time.perf_counter() - start)


def spiel_playouts(game, n: int) -> float:
    start = time.perf_counter()
    for seed in range(n):
        state, rng = game.new_initial_state(), random.Random(seed)
        while not state.is_terminal():
            actions = state.legal_actions()
            state.apply_action(actions[rng.randrange(len(actions))])
    return n / (time.perf_counter() - start)


def midgame(state, apply, legal, moves: int, seed: int = 1):
    """`state` after `moves` seeded random actions (a typical state to clone or search from)."""
    rng = random.Random(seed)
    for _ in range(moves):
        actions = legal(state)
        apply(state, actions[rng.randrange(len(actions))])
    return state


def our_mcts(game, moves: int) -> float:
    """MCTS iterations per second from a mid-game state, rollouts played to the end."""
    state = midgame(game.new_state(1), lambda s, a: s.apply(a), lambda s: s.legal_actions(), moves)
    agent = MCTSAgent(iterations=MCTS_ITERATIONS, exploration=1.0, rollout_length=10_000, seed=1)
    start = time.perf_counter()
    agent.choose(state)
    return MCTS_ITERATIONS / (time.perf_counter() - start)


def spiel_mcts(game, moves: int) -> float:
    import numpy as np
    from open_spiel.python.algorithms import mcts

    state = midgame(game.new_initial_state(), lambda s, a: s.apply_action(a), lambda s: s.legal_actions(), moves)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(1))
    bot = mcts.MCTSBot(game, 1.0, MCTS_ITERATIONS, evaluator, random_state=np.random.RandomState(1))
    start = time.perf_counter()
    bot.step(state)
    return MCTS_ITERATIONS / (time.perf_counter() - start)


def clones(state, n: int = CLONES) -> float:
    """State copies per second (ours: clone(); OpenSpiel: clone())."""
    copy = state.clone
    start = time.perf_counter()
    for _ in range(n):
        copy()
    return n / (time.perf_counter() - start)


def row(benchmark: str, subject: str, metric: str, median: float, ratio: float | None) -> dict:
    return {"benchmark": benchmark, "subject": subject, "metric": metric, "median": median, "ratio": ratio}


def run(repeats: int = 5) -> list[dict]:
    """Each measurement `repeats` times, ours and the reference interleaved; medians and ours/reference."""
    dots = load_game("dots_and_boxes")
    cant_stop = load_game("cant_stop")
    spiel = pyspiel.load_game("dots_and_boxes", {"num_rows": 5, "num_cols": 7}) if pyspiel else None
    dots_mid = midgame(dots.new_state(), lambda s, a: s.apply(a), lambda s: s.legal_actions(), 30)
    cant_mid = midgame(cant_stop.new_state(1), lambda s, a: s.apply(a), lambda s: s.legal_actions(), 150)
    measurements = {
        ("dots_and_boxes 5x7 random playouts", "playouts/s"): (
            lambda: our_playouts(dots, PLAYOUTS["dots_and_boxes"]),
            spiel and (lambda: spiel_playouts(spiel, PLAYOUTS["dots_and_boxes"])),
        ),
        ("dots_and_boxes 5x7 MCTS from move 30", "iterations/s"): (
            lambda: our_mcts(dots, 30),
            spiel and (lambda: spiel_mcts(spiel, 30)),
        ),
        ("dots_and_boxes 5x7 clone at move 30", "clones/s"): (
            lambda: clones(dots_mid),
            spiel and (lambda: clones(midgame(spiel.new_initial_state(), lambda s, a: s.apply_action(a),
                                              lambda s: s.legal_actions(), 30))),
        ),
        ("cant_stop 4p random playouts", "playouts/s"): (lambda: our_playouts(cant_stop, PLAYOUTS["cant_stop"]), None),
        ("cant_stop 4p MCTS from action 150", "iterations/s"): (lambda: our_mcts(cant_stop, 150), None),
        ("cant_stop 4p clone at action 150", "clones/s"): (lambda: clones(cant_mid), None),
    }
    rows = []
    for (benchmark, metric), (ours, reference) in measurements.items():
        our_samples, reference_samples = [], []
        for _ in range(repeats):
            our_samples.append(ours())
            if reference:
                reference_samples.append(reference())
        our_median = statistics.median(our_samples)
        if not reference:
            rows.append(row(benchmark, "ours", metric, our_median, None))
            continue
        reference_median = statistics.median(reference_samples)
        rows.append(row(benchmark, "ours", metric, our_median, our_median / reference_median))
        rows.append(row(benchmark, "openspiel", metric, reference_median, None))
    return rows


if __name__ == "__main__":
    for result in run():
        print(result)
