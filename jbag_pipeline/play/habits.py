"""Game habits counted from a game's recorded actions: in Can't Stop, turns, rolls and busts per seat.

Pure functions without Dagster, one per game; games with nothing counted here have no entry in HABITS.
"""

from __future__ import annotations

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


def cant_stop_habits(actions: list, n_players: int) -> list[Habits]:
    """Per seat, from Can't Stop's actions in order: seat 0 moves first and a stop or bust ends the turn."""
    if n_players < 1:
        raise ValueError(f"cant_stop_habits: n_players must be >= 1, got {n_players}")
    turns, rolls, busts = [0] * n_players, [0] * n_players, [0] * n_players
    seat = 0
    for action in actions:
        if action == "roll":
            rolls[seat] += 1
        elif action == "stop" or action == "bust":
            busts[seat] += action == "bust"
            turns[seat] += 1
            seat = (seat + 1) % n_players
        elif not isinstance(action, (list, tuple)):
            raise ValueError(f"cant_stop_habits: unknown action {action!r} (roll, stop, bust or a list of sums)")
    return [Habits(t, r, b) for t, r, b in zip(turns, rolls, busts)]


HABITS = {"cant_stop": cant_stop_habits}  # game -> per-seat habit counter of its actions


def seat_habits(game: str, actions: list, n_players: int) -> list[Habits] | None:
    """Per seat habit counts of one game's actions; None for a game without habits counted."""
    counter = HABITS.get(game)
    return None if counter is None else counter(actions, n_players)
