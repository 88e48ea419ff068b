"""TAG's SimultaneousOSLAPlayer: OSLA for games whose seats choose in secret and resolve together (7 Wonders)."""

from __future__ import annotations

import random

from engines.agents.osla import OSLAAgent
from engines.agents.value_function import ValueFunction
from engines.base import Action, State


class SimultaneousOSLAAgent(OSLAAgent):
    """OSLA whose every child is played on, by random legal moves for whoever must move, until the round's
    choices are resolved or the game ends, and only then valued: right after its own secret choice nothing
    has happened yet, so every move would look the same.

    The random moves come from the agent's seeded RNG and are played in the decision's determinized sample,
    so the hidden choices and hands of the others are never read.
    """

    def __init__(self, value: ValueFunction | None = None, seed: int = 0):
        super().__init__(value=value, seed=seed)
        self.name = "simultaneous_osla"

    def child(self, sample: State, action: Action) -> State:
        child = super().child(sample, action)
        finish_round_randomly(child, self._rng)
        return child


def finish_round_randomly(state: State, rng: random.Random) -> None:
    """Apply uniformly random legal moves until no chosen move of the round waits to be resolved or the game ends."""
    in_progress = getattr(state, "round_in_progress", None)
    if in_progress is None:
        raise ValueError(f"simultaneous_osla: {type(state).__name__} has no simultaneous rounds "
                         f"(no round_in_progress method)")
    while not state.is_terminal() and in_progress():
        actions = state.legal_actions()
        state.apply(actions[rng.randrange(len(actions))])
