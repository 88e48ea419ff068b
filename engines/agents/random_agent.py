"""The uniformly random agent."""

from __future__ import annotations

import random

from engines.base import Action, State


class RandomAgent:
    """Picks a legal action uniformly at random from its own seeded RNG."""

    def __init__(self, seed: int = 0):
        self.name = "random"
        self.reset(seed)

    def reset(self, seed: int) -> None:
        """Start a new game with a fresh RNG seeded by `seed`."""
        self._rng = random.Random(seed)

    def begin_game(self, state: State, seat: int) -> None:
        """Nothing kept from the initial state."""

    def choose(self, state: State) -> Action:
        actions = state.legal_actions()
        if not actions:
            raise ValueError("random agent: the state has no legal actions (is the game over?)")
        return actions[self._rng.randrange(len(actions))]
