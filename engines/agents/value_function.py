"""The value protocol OSLA agents take: what a state is worth to a seat, with a memory per game if it keeps one."""

from __future__ import annotations

import random
from typing import Protocol, Sequence, runtime_checkable

from engines.base import State


@runtime_checkable
class ValueFunction(Protocol):
    """OSLAAgent calls reset() at every new game, begin_decision(sample, seat) once per decision with the
    decision's determinized sample, then values(children, seat) once for all children it needs valued (larger is
    better for `seat`). Subclasses define value(); values() defaults to it per state, and a value that can value
    many states at once overrides it. A value that also wants each game's initial state implements GameStartValue."""

    # Whether the value must see every decision (begin_decision and its children) to value later ones: a value that
    # keeps nothing between decisions sets it False, so a forced move is played without valuing its child.
    sees_every_decision: bool = True

    def reset(self) -> None:
        """Start a new game (forget what the last one added)."""

    def begin_decision(self, state: State, seat: int) -> None:
        """See the decision's determinized sample before its children are valued."""

    def value(self, state: State, seat: int) -> float:
        """What `state` is worth to `seat`."""

    def values(self, states: Sequence[State], seat: int) -> Sequence[float]:
        """What each of `states` is worth to `seat`, in order: by default value() of each."""
        return [self.value(state, seat) for state in states]


@runtime_checkable
class GameStartValue(Protocol):
    """A value that starts each game from its initial state, as TAG's initializePlayer hands every player its
    observation of the initial state: OSLAAgent.begin_game calls begin_game(sample, seat) after reset()."""

    def begin_game(self, state: State, seat: int) -> None:
        """See the game's initial state (`seat`'s determinized sample of it) before any decision."""


def begin_value_game(value: ValueFunction, state: State, seat: int, seed: int) -> None:
    """Give a GameStartValue `seat`'s sample of the initial state, drawn from an RNG of its own (seeded from the agent's
    `seed`) so that the agent's decisions draw the same whether or not the value takes it; other values get nothing."""
    if isinstance(value, GameStartValue):
        value.begin_game(state.determinize(seat, random.Random(f"{seed}:begin_game")), seat)


class MemorylessValue(ValueFunction):
    """A ValueFunction that keeps nothing between decisions or games: subclasses define value() only."""

    sees_every_decision = False
    only_for: str | None = None  # the one game whose states it can value (it reads that engine's facts); None: any

    def reset(self) -> None:
        """Nothing to forget."""

    def begin_decision(self, state: State, seat: int) -> None:
        """Nothing to remember."""
