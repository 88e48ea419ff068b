"""States met in seeded random play, for tests that need positions from the middle of a game."""

from __future__ import annotations

import random

import numpy as np


def random_play_states(game, n_games: int, every: int) -> list:
    """Every `every`-th state (cloned) of `n_games` random games of `game`, seeded 0..n_games-1."""
    states = []
    for seed in range(n_games):
        state, rng, step = game.new_state(seed=seed), random.Random(seed), 0
        while not state.is_terminal():
            if step % every == every - 1:
                states.append(state.clone())
            legal = state.legal_actions()
            state.apply(legal[rng.randrange(len(legal))])
            step += 1
    return states


def children(state) -> list:
    """The state after each legal action, in legal-action order."""
    result = []
    for action in state.legal_actions():
        child = state.clone()
        child.apply(action)
        result.append(child)
    return result


def same_decisions(states: list, first, second, seed: int = 4):
    """Feeds two value functions the same determinized decisions along `states` and asserts after each that they
    value its children alike (to 1e-12) and hold the same trajectory counts; yields after each decision."""
    rngs = random.Random(seed), random.Random(seed)
    for state in states:
        seat = state.current_player
        values = []
        for value, rng in zip((first, second), rngs):
            sample = state.determinize(seat, rng)
            value.begin_decision(sample, seat)
            values.append(np.asarray(value.values(children(sample), seat)))
        np.testing.assert_allclose(values[0], values[1], rtol=0, atol=1e-12)
        np.testing.assert_array_equal(first.trajectory, second.trajectory)
        yield state
