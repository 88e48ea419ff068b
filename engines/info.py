"""A game's facts in one descriptor: each Game class declares its GameInfo as `info`, read through the registry
(engines.registry.game_info). Code outside the engine asks the descriptor instead of keeping a dictionary keyed by
game name or trying the engine to find out."""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from engines.base import Game, State


def legal_before(before: State, after: State) -> list:
    """The moves legal in `before`: what may lead from it to a later state (OpenSpielInfo's default candidates)."""
    return before.legal_actions()


@dataclass(frozen=True)
class OpenSpielInfo:
    """The same game in OpenSpiel (engines/agents/openspiel_mcts.py); both number their actions 0..n-1 alike."""

    name: str  # pyspiel.load_game's name
    params: Callable[[dict], dict]  # our game params -> OpenSpiel's game params
    n_actions: Callable[[Game], int]  # how many action ids the game has (ours and OpenSpiel's)
    candidates: Callable[[State, State], list] = legal_before  # our moves that may lead from one state to a later


@dataclass(frozen=True)
class GameInfo:
    """What the pipeline and the agents need to know about one game without playing it."""

    baseline_heuristic: str  # the engines.agents.heuristics.HEURISTICS entry its baseline OSLA uses (TAG's)
    outcome_fields: tuple[str, ...]  # document fields that state the result (jbag_pipeline/analysis/leakage.py)
    turn_order_fields: tuple[str, ...]  # document fields that count turns, rounds or moves, or name a seat's turn
    simultaneous: bool = False  # seats choose in secret and reveal together: played by SimultaneousOSLAAgent
    hidden_information: bool = False  # observation_json hides part of the state from some seat
    tag: ModuleType | None = None  # the TAG-dialect translator: tag_json, from_tag_json, recorded_moment, ...
    tag_game_type: str | None = None  # TAG's gameType; the authors' published value functions use it as folder
    openspiel: OpenSpielInfo | None = None  # None: OpenSpiel has no such game

    def __post_init__(self):
        if (self.tag is None) != (self.tag_game_type is None):
            raise ValueError("GameInfo: a TAG translator and its gameType go together (both or neither)")

    @property
    def tag_unknown_fields(self) -> tuple[str, ...]:
        """The fields of a TAG document our engine cannot know (token paths, list indices left out); () without
        a TAG dialect."""
        return tuple(self.tag.UNKNOWN_FIELDS) if self.tag is not None else ()

    @property
    def tag_unreachable_fields(self) -> tuple[str, ...]:
        """The unknown fields our TAG documents write as a placeholder (-1), so TAG's tokens under them never occur
        in ours: all but those the translator fills in by a rule of ours (its GUESSED_FIELDS, if any)."""
        guessed = getattr(self.tag, "GUESSED_FIELDS", ())
        return tuple(field for field in self.tag_unknown_fields if field not in guessed)
