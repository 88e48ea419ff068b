"""Generic agents: each has `name`, `reset(seed)` and `choose(state) -> action` for the seat to move."""

from engines.agents.mcts import MCTSAgent
from engines.agents.osla import OSLAAgent, ScoreValue
from engines.agents.random_agent import RandomAgent

__all__ = ["MCTSAgent", "OSLAAgent", "RandomAgent", "ScoreValue"]
