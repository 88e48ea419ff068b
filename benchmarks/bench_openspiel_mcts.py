"""MCTS iterations per second of the OpenSpiel-backed self-play bot (pyspiel.MCTSBot, C++) against our Python MCTS.

Both search the same positions (the opening and a seeded mid-game position) of connect4 8x8, dots_and_boxes 5x7
and tictactoe, with UCT and one random rollout to the end of the game per iteration, timed alternately in CPU
seconds of this process (time.process_time: on a shared machine wall time depends on the others' load, and both
searchers are single-threaded). Rows of the OpenSpiel bot carry the ratio OpenSpiel / ours. Without pyspiel
(the openspiel extra) only our rows are reported.
"""

from __future__ import annotations

import random
import statistics
import time

from engines import load_game
from engines.agents import MCTSAgent

try:
    import pyspiel

    from engines.agents.openspiel_mcts import load_spiel_game, mapping_for
except ImportError:  # the OpenSpiel bot is optional
    pyspiel = None

ITERATIONS = {"connect4": 2000, "dots_and_boxes": 1000, "tictactoe": 2000}
MIDGAME_MOVES = {"connect4": 12, "dots_and_boxes": 20, "tictactoe": 3}
FULL_ROLLOUT = 10_000  # our rollout cut-off: beyond every game's length, as OpenSpiel's rollouts


def positions(game, moves: int, seed: int = 1) -> list[tuple[str, list]]:
    """(label, actions from the initial state) of the opening and of a position after `moves` seeded random moves."""
    rng, state, actions = random.Random(seed), game.new_state(), []
    for _ in range(moves):
        legal = state.legal_actions()
        actions.append(legal[rng.randrange(len(legal))])
        state.apply(actions[-1])
    return [("opening", []), (f"after {moves} moves", actions)]


def ours_per_second(game, actions: list, iterations: int) -> float:
    """Our MCTSAgent (exploration 1.0 on rewards in [0, 1]) for one decision."""
    state = game.new_state()
    for action in actions:
        state.apply(action)
    agent = MCTSAgent(iterations=iterations, exploration=1.0, rollout_length=FULL_ROLLOUT, seed=1)
    start = time.process_time()
    agent.choose(state)
    return iterations / (time.process_time() - start)


def openspiel_per_second(game, actions: list, iterations: int) -> float:
    """pyspiel.MCTSBot (uct_c 2.0 on returns in [-1, 1], the same exploration) with one random rollout per leaf."""
    spiel_game, mapping = load_spiel_game(game), mapping_for(game.name)
    state = spiel_game.new_initial_state()
    for action in actions:
        state.apply_action(mapping.to_spiel(game, action))
    evaluator = pyspiel.RandomRolloutEvaluator(1, 1)
    bot = pyspiel.MCTSBot(spiel_game, evaluator, 2.0, iterations, 1000, False, 1, False)
    start = time.process_time()
    bot.step(state)
    return iterations / (time.process_time() - start)


def run(repeats: int = 5) -> list[dict]:
    rows = []
    for name, iterations in ITERATIONS.items():
        game = load_game(name)
        for label, actions in positions(game, MIDGAME_MOVES[name]):
            ours, theirs = [], []
            for _ in range(repeats):
                ours.append(ours_per_second(game, actions, iterations))
                if pyspiel is not None:
                    theirs.append(openspiel_per_second(game, actions, iterations))
            benchmark = f"openspiel_mcts/{name} {label}"
            our_median = statistics.median(ours)
            rows.append({"benchmark": benchmark, "subject": "ours (engines.agents.MCTSAgent)",
                         "metric": "iterations/s", "median": our_median, "ratio": None})
            if theirs:
                median = statistics.median(theirs)
                rows.append({"benchmark": benchmark, "subject": "pyspiel.MCTSBot", "metric": "iterations/s",
                             "median": median, "ratio": median / our_median})
    return rows


if __name__ == "__main__":
    for row in run(repeats=3):
        ratio = "" if row["ratio"] is None else f"  ratio {row['ratio']:.1f}"
        print(f"{row['benchmark']:40s} {row['subject']:34s} {row['median']:12.0f} {row['metric']}{ratio}")
