"""Generic agents: each is an Agent (engines.agents.agent): `name`, `reset(seed)`, `begin_game(state, seat)` and
`choose(state) -> action` for the seat to move."""

from engines.agents.agent import Agent
from engines.agents.baseline import baseline_agent, baseline_value
from engines.agents.leaf_evaluators import LeafEvaluator, RolloutEvaluator, ValueEvaluator
from engines.agents.mcts import MCTSAgent
from engines.agents.openspiel_mcts import OpenSpielMCTSAgent  # imports pyspiel only when an agent is built
from engines.agents.osla import OSLAAgent, ScoreValue
from engines.agents.random_agent import RandomAgent
from engines.agents.simultaneous_osla import SimultaneousOSLAAgent
from engines.agents.value_function import GameStartValue, MemorylessValue, ValueFunction

__all__ = ["Agent", "GameStartValue", "LeafEvaluator", "MCTSAgent", "MemorylessValue", "OSLAAgent",
           "OpenSpielMCTSAgent", "RandomAgent", "RolloutEvaluator", "ScoreValue", "SimultaneousOSLAAgent",
           "ValueEvaluator", "ValueFunction", "baseline_agent", "baseline_value"]
