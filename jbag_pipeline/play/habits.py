"""Game habits counted from a game's recorded actions: in Can't Stop, turns, rolls and busts per seat.

Pure functions without Dagster, one per game; games with nothing counted here have no entry in HABITS.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass


@dataclass(frozen=True)
class Habits:
    """One seat's (or several seats' summed) counts over some games."""

    turns: int = 0
    rolls: int = 0
    busts: int = 0

    def __add__(self, other: "Habits") -> "Habits":
        return Habits(self.turns + other.turns, self.rolls + other.rolls, self.busts + other.busts)

    def per_turn(self) -> tuple[float | None, float | None]:
        """(rolls per turn, busts per turn); None without a turn."""
        if not self.turns:
            return None, None
        return self.rolls / self.turns, self.busts / self.turns


TURN_ENDS = ("stop", "bust")  # Can't Stop's actions that end the mover's turn


@dataclass(frozen=True)
class CantStopTurn:
    """One Can't Stop turn: its seat, its rolls and how it ended ("stop" or "bust"; None if the actions end first)."""

    seat: int
    rolls: int
    end: str | None


def cant_stop_turns(moves: Iterable[tuple[int, object]]) -> list[CantStopTurn]:
    """The turns of Can't Stop's (seat, action) pairs in order: a seat's actions up to its stop or bust."""
    turns, seat, rolls = [], None, 0
    for mover, action in moves:
        if seat is not None and mover != seat:
            raise ValueError(f"cant_stop: seat {mover} moved in seat {seat}'s turn (a turn ends with stop or bust)")
        seat = mover
        if action == "roll":
            rolls += 1
        elif action in TURN_ENDS:
            turns.append(CantStopTurn(seat, rolls, action))
            seat, rolls = None, 0
        elif not isinstance(action, (list, tuple)):
            raise ValueError(f"cant_stop: unknown action {action!r} (roll, stop, bust or a list of sums)")
    if seat is not None:
        turns.append(CantStopTurn(seat, rolls, None))
    return turns


def cant_stop_habits(actions: list, n_players: int) -> list[Habits]:
    """Per seat, from Can't Stop's actions in order: seat 0 moves first and a stop or bust ends the turn."""
    if n_players < 1:
        raise ValueError(f"cant_stop_habits: n_players must be >= 1, got {n_players}")
    habits = [Habits()] * n_players
    for turn in cant_stop_turns(_rotating_seats(actions, n_players)):
        habits[turn.seat] += Habits(int(turn.end is not None), turn.rolls, int(turn.end == "bust"))
    return habits


def _rotating_seats(actions: list, n_players: int) -> Iterator[tuple[int, object]]:
    """(seat, action) pairs with the seat taken in turn from seat 0, passing on after every stop or bust."""
    seat = 0
    for action in actions:
        yield seat, action
        if action in TURN_ENDS:
            seat = (seat + 1) % n_players


HABITS = {"cant_stop": cant_stop_habits}  # game -> per-seat habit counter of its actions


def seat_habits(game: str, actions: list, n_players: int) -> list[Habits] | None:
    """Per seat habit counts of one game's actions; None for a game without habits counted."""
    counter = HABITS.get(game)
    return None if counter is None else counter(actions, n_players)
