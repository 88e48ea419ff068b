"""Each game's baseline OSLA as TAG's experiments configure it (docs/RULES.md section 3): the heuristic and the
search its GameInfo declares (engines/info.py)."""

from __future__ import annotations

from engines.agents.heuristics import HEURISTICS
from engines.agents.osla import OSLAAgent
from engines.agents.simultaneous_osla import SimultaneousOSLAAgent
from engines.agents.value_function import ValueFunction
from engines.registry import game_info


def baseline_value(game_name: str, heuristic: str | None = None) -> ValueFunction:
    """A fresh value object: the game's baseline heuristic, or the named one of HEURISTICS."""
    name = game_info(game_name).baseline_heuristic if heuristic is None else heuristic
    if name not in HEURISTICS:
        raise ValueError(f"unknown heuristic {name!r}; known heuristics: {sorted(HEURISTICS)}")
    only_for = HEURISTICS[name].only_for
    if only_for not in (None, game_name):
        raise ValueError(f"heuristic {name!r} is for {only_for} only, not {game_name!r}")
    return HEURISTICS[name]()


def baseline_agent(game_name: str, seed: int = 0, heuristic: str | None = None) -> OSLAAgent:
    """The game's baseline OSLA (a simultaneous game's: SimultaneousOSLAAgent) with its baseline or the named
    heuristic."""
    value = baseline_value(game_name, heuristic)
    agent_class = SimultaneousOSLAAgent if game_info(game_name).simultaneous else OSLAAgent
    return agent_class(value=value, seed=seed)
