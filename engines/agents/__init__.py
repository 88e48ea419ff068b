"""Generic agents: each has `name`, `reset(seed)` and `choose(state) -> action` for the seat to move."""

from engines.agents.baseline import baseline_agent, baseline_value
from engines.agents.mcts import MCTSAgent
from engines.agents.openspiel_mcts import OpenSpielMCTSAgent  # imports pyspiel only when an agent is built
from engines.agents.osla import OSLAAgent, ScoreValue
from engines.agents.random_agent import RandomAgent
from engines.agents.simultaneous_osla import SimultaneousOSLAAgent
from engines.agents.value_function import GameStartValue, MemorylessValue, ValueFunction

__all__ = ["GameStartValue", "MCTSAgent", "MemorylessValue", "OSLAAgent", "OpenSpielMCTSAgent", "RandomAgent",
           "ScoreValue", "SimultaneousOSLAAgent", "ValueFunction", "baseline_agent", "baseline_value"]
