"""Engine speed: random playouts/s and MCTS iterations/s for every registered game, next to OpenSpiel.

When `pyspiel` (pip package open-spiel, an optional extra) is importable, OpenSpiel's C++ games driven
from Python the same way, and OpenSpiel's pure-Python MCTS on Connect Four, are timed interleaved with ours.
"""

from __future__ import annotations

import random
import statistics
import time

import numpy as np

from engines import GAMES, load_game
from engines.agents import MCTSAgent

try:
    import pyspiel
    from open_spiel.python.algorithms import mcts as openspiel_mcts
except ImportError:
    pyspiel = None

PLAYOUTS = 100
MCTS_ITERATIONS = 1000
# Our game (name, params) -> the same game in OpenSpiel.
OPENSPIEL_GAMES = {
    ("connect4", (("cols", 8), ("rows", 8), ("win_length", 4))): "connect_four(rows=8,columns=8,x_in_row=4)",
    ("connect4", (("cols", 7), ("rows", 6), ("win_length", 4))): "connect_four",
    ("tictactoe", ()): "tic_tac_toe",
    ("dots_and_boxes", (("cols", 7), ("rows", 5))): "dots_and_boxes(num_rows=5,num_cols=7)",
}


def our_playouts(game, count: int, seed: int = 0) -> float:
    """Uniformly random games from the initial state; returns playouts per second."""
    rand = random.Random(seed).random
    start = time.perf_counter()
    for i in range(count):
        state = game.new_state(seed=i)
        while not state.is_terminal():
            actions = state.legal_actions()
            state.apply(actions[int(rand() * len(actions))])
    return count / (time.perf_counter() - start)


def openspiel_playouts(game, count: int, seed: int = 0) -> float:
    """The same loop over an OpenSpiel game (chance outcomes sampled uniformly, none in these games)."""
    rand = random.Random(seed).random
    start = time.perf_counter()
    for _ in range(count):
        state = game.new_initial_state()
        while not state.is_terminal():
            actions = state.legal_actions()
            state.apply_action(actions[int(rand() * len(actions))])
    return count / (time.perf_counter() - start)


def first_real_decision(game, seed: int = 0):
    """The first state of the seeded game with two or more legal actions (forced moves are played; MCTS skips them)."""
    state = game.new_state(seed=seed)
    while len(state.legal_actions()) == 1:
        state.apply(state.legal_actions()[0])
    if state.is_terminal():
        raise ValueError(f"bench_engines: {game.name} ended before any real decision")
    return state


def our_mcts(game, iterations: int, seed: int = 0) -> float:
    """One MCTS decision from the first real decision of a game; returns iterations per second."""
    agent = MCTSAgent(iterations=iterations, seed=seed)
    state = first_real_decision(game, seed)
    start = time.perf_counter()
    agent.choose(state)
    return iterations / (time.perf_counter() - start)


def openspiel_mcts_iterations(game, iterations: int, seed: int = 0) -> float:
    """OpenSpiel's Python MCTSBot (UCT c=1, one random rollout per leaf) for one decision."""
    evaluator = openspiel_mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(seed))
    bot = openspiel_mcts.MCTSBot(game, uct_c=1.0, max_simulations=iterations, evaluator=evaluator,
                                 random_state=np.random.RandomState(seed), solve=False)
    state = game.new_initial_state()
    start = time.perf_counter()
    bot.step(state)
    return iterations / (time.perf_counter() - start)


def _openspiel_name(name: str, params: dict) -> str | None:
    if pyspiel is None:
        return None
    return OPENSPIEL_GAMES.get((name, tuple(sorted(params.items()))))


def _measure(benchmark, metric, ours, reference, reference_name, repeats) -> list[dict]:
    """Time `ours` and `reference` (or only ours) alternately `repeats` times; medians and ratio."""
    our_values, reference_values = [], []
    for _ in range(repeats):
        our_values.append(ours())
        if reference is not None:
            reference_values.append(reference())
    our_median = statistics.median(our_values)
    rows = [{"benchmark": benchmark, "subject": "ours", "metric": metric, "median": our_median, "ratio": None}]
    if reference is not None:
        reference_median = statistics.median(reference_values)
        rows[0]["ratio"] = our_median / reference_median
        rows.append({"benchmark": benchmark, "subject": reference_name, "metric": metric,
                     "median": reference_median, "ratio": None})
    return rows


def run(repeats: int = 5) -> list[dict]:
    """Random playouts/s and MCTS iterations/s for each registered game with default params, and 6x7 Connect4."""
    cases = [(name, load_game(name)) for name in sorted(GAMES)]
    cases.append(("connect4_6x7", load_game("connect4", rows=6, cols=7)))
    rows = []
    for label, game in cases:
        spiel_name = _openspiel_name(game.name, game.params)
        spiel_game = pyspiel.load_game(spiel_name) if spiel_name else None
        rows += _measure(
            f"random_playouts/{label}", "playouts/s",
            lambda: our_playouts(game, PLAYOUTS),
            (lambda: openspiel_playouts(spiel_game, PLAYOUTS)) if spiel_game else None,
            f"pyspiel:{spiel_name}", repeats)
        use_reference = spiel_game is not None and game.name == "connect4"
        rows += _measure(
            f"mcts_iterations/{label}", "iterations/s",
            lambda: our_mcts(game, MCTS_ITERATIONS),
            (lambda: openspiel_mcts_iterations(spiel_game, MCTS_ITERATIONS)) if use_reference else None,
            f"open_spiel.python.algorithms.mcts:{spiel_name}", repeats)
    return rows


if __name__ == "__main__":
    for row in run():
        ratio = "" if row["ratio"] is None else f"  ratio {row['ratio']:.2f}"
        print(f"{row['benchmark']:32s} {row['subject']:60s} {row['median']:12.1f} {row['metric']}{ratio}")
