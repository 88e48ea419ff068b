"""The value protocol OSLA agents take: what a state is worth to a seat, with a memory per game if it keeps one."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from engines.base import State


@runtime_checkable
class ValueFunction(Protocol):
    """OSLAAgent calls reset() at every new game, begin_decision(sample, seat) once per decision with the
    decision's determinized sample, then value(child, seat) for each child (larger is better for `seat`)."""

    def reset(self) -> None:
        """Start a new game (forget what the last one added)."""

    def begin_decision(self, state: State, seat: int) -> None:
        """See the decision's determinized sample before its children are valued."""

    def value(self, state: State, seat: int) -> float:
        """What `state` is worth to `seat`."""


class MemorylessValue(ValueFunction):
    """A ValueFunction that keeps nothing between decisions or games: subclasses define value() only."""

    def reset(self) -> None:
        """Nothing to forget."""

    def begin_decision(self, state: State, seat: int) -> None:
        """Nothing to remember."""
