"""Each game's baseline OSLA as TAG's experiments configure it (docs/RULES.md section 3)."""

from __future__ import annotations

from engines.agents.heuristics import GAME_SPECIFIC, HEURISTICS
from engines.agents.osla import OSLAAgent
from engines.agents.simultaneous_osla import SimultaneousOSLAAgent
from engines.agents.value_function import ValueFunction

BASELINE_HEURISTIC = {  # game -> the heuristic its baseline OSLA uses
    "connect4": "win_loss_scaled_score",
    "dots_and_boxes": "win_loss_scaled_score",
    "tictactoe": "win_loss_scaled_score",  # not in the papers: scored like Connect4 (+1 / 0 / -1)
    "cant_stop": "pure_score",
    "dominion": "pure_score",
    "sea_salt_paper": "score_and_hand",
    "seven_wonders": "wonders7_vp_share",
}
SIMULTANEOUS_GAMES = frozenset({"seven_wonders"})  # played by SimultaneousOSLAAgent


def baseline_value(game_name: str, heuristic: str | None = None) -> ValueFunction:
    """A fresh value object: the game's baseline heuristic, or the named one of HEURISTICS."""
    _check_game(game_name)
    name = BASELINE_HEURISTIC[game_name] if heuristic is None else heuristic
    if name not in HEURISTICS:
        raise ValueError(f"unknown heuristic {name!r}; known heuristics: {sorted(HEURISTICS)}")
    if GAME_SPECIFIC.get(name, game_name) != game_name:
        raise ValueError(f"heuristic {name!r} is for {GAME_SPECIFIC[name]} only, not {game_name!r}")
    return HEURISTICS[name]()


def baseline_agent(game_name: str, seed: int = 0, heuristic: str | None = None) -> OSLAAgent:
    """The game's baseline OSLA (7 Wonders: SimultaneousOSLAAgent) with its baseline or the named heuristic."""
    value = baseline_value(game_name, heuristic)
    agent_class = SimultaneousOSLAAgent if game_name in SIMULTANEOUS_GAMES else OSLAAgent
    return agent_class(value=value, seed=seed)


def _check_game(game_name: str) -> None:
    if game_name not in BASELINE_HEURISTIC:
        raise ValueError(f"no baseline OSLA for game {game_name!r}; games with one: {sorted(BASELINE_HEURISTIC)}")
