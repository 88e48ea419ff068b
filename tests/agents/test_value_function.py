"""Every value class is an engines.agents.ValueFunction, and OSLA takes nothing else."""

import pytest

from engines.agents import MemorylessValue, OSLAAgent, ScoreValue, SimultaneousOSLAAgent, ValueFunction
from engines.agents.baseline import BASELINE_HEURISTIC, baseline_value
from engines.agents.heuristics import HEURISTICS
from engines.tictactoe import TicTacToe
from jbag_pipeline.model.value import DeterminizedJsonBagValue, JsonBagValue

PROTOTYPES = [{".a": 1}, {".b": 1}]


def every_value():
    yield ScoreValue()
    yield from (make() for make in HEURISTICS.values())
    yield from (baseline_value(game) for game in BASELINE_HEURISTIC)
    yield JsonBagValue(PROTOTYPES)
    yield DeterminizedJsonBagValue(PROTOTYPES, [".a"], frequency="random")


@pytest.mark.parametrize("value", list(every_value()), ids=lambda v: type(v).__name__)
def test_every_value_class_implements_the_protocol_explicitly(value):
    assert isinstance(value, ValueFunction)
    assert ValueFunction in type(value).__mro__  # declared, not just the right method names
    value.reset()


def test_osla_resets_its_value_at_every_game_and_rejects_what_is_not_a_value_function():
    class Counting(MemorylessValue):
        resets = 0

        def reset(self):
            self.resets += 1

        def value(self, state, seat):
            return 0.0

    value = Counting()
    agent = OSLAAgent(value=value, seed=0)
    agent.choose(TicTacToe().new_state())
    agent.reset(1)
    assert value.resets == 2

    class NoReset:
        def begin_decision(self, state, seat):
            pass

        def value(self, state, seat):
            return 0.0

    for make in (OSLAAgent, SimultaneousOSLAAgent):
        with pytest.raises(ValueError, match="must be a ValueFunction"):
            make(value=NoReset())
