"""The agent protocol play_match plays: every agent, whatever its search, offers these four members."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from engines.base import Action, State

AGENT_MEMBERS = ("name", "reset", "begin_game", "choose")


@runtime_checkable
class Agent(Protocol):
    """play_match calls reset(seed) before every game, begin_game(initial state, seat) once after it, then
    choose(state) whenever the agent's seat is to move."""

    name: str

    def reset(self, seed: int) -> None:
        """Start a new game with a fresh RNG seeded by `seed` (and forget the last game)."""

    def begin_game(self, state: State, seat: int) -> None:
        """See the game's initial state before any decision (TAG's initializePlayer); most agents keep nothing."""

    def choose(self, state: State) -> Action:
        """A legal action for the seat to move in `state`."""


def missing_agent_members(agent: object) -> list[str]:
    """The members of Agent that `agent` lacks (methods must be callable); empty for an agent."""
    return [member for member in AGENT_MEMBERS
            if not hasattr(agent, member) or (member != "name" and not callable(getattr(agent, member)))]
