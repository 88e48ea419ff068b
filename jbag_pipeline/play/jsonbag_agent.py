"""The JSON-Bag OSLA of the evaluation: OSLA's rule over a DeterminizedJsonBagValue (which values a decision's children
in one batch through the ValueFunction.values seam).

It tokenizes full state documents (`to_json()`), as the prototypes were built, but only of determinized
states: begin_decision gets OSLA's determinized sample of the decision (drawn from the seat's own view) and
every child comes from that sample, so hidden information is never read.
The agent's trajectory bag gets the state it observes at every one of its decisions, as the authors' agent
does, whatever the pair's frequency: the frequency only names the prototypes (how the training trajectories
were sampled into bags), not the agent's own bag. The value is built from the lake tables by
model.value_tables.make_jsonbag_value.
"""

from __future__ import annotations

from engines.agents.osla import OSLAAgent
from engines.agents.simultaneous_osla import finish_round_randomly
from engines.base import Action, State
from engines.registry import game_info
from jbag_pipeline.model.value import DeterminizedJsonBagValue


class JsonBagOSLAAgent(OSLAAgent):
    """OSLAAgent over a JSON-Bag value, named after the value's prototype frequency.

    Wins are +inf, losses -inf, other children V_seat; ties go to the agent's seeded RNG, as in OSLAAgent.
    Every new game (reset) empties the value's trajectory bag.
    """

    def __init__(self, value: DeterminizedJsonBagValue, seed: int = 0):
        if value is None:
            raise ValueError("JsonBagOSLAAgent: needs a JSON-Bag value function, got None")
        super().__init__(value=value, seed=seed)
        self.name = f"jsonbag_osla({getattr(value, 'frequency', 'full')})"


class SimultaneousJsonBagOSLAAgent(JsonBagOSLAAgent):
    """JsonBagOSLAAgent whose children are played on by random legal moves until the round's secret choices are
    resolved, as SimultaneousOSLAAgent's are (the authors' JSON-Bag OSLA in 7 Wonders runs in this mode)."""

    def __init__(self, value: DeterminizedJsonBagValue, seed: int = 0):
        super().__init__(value, seed)
        self.name = f"simultaneous_{self.name}"

    def child(self, sample: State, action: Action) -> State:
        child = super().child(sample, action)
        finish_round_randomly(child, self._rng)
        return child


def jsonbag_agent_class(game_name: str) -> type[JsonBagOSLAAgent]:
    """The JSON-Bag OSLA the authors play `game_name` with: simultaneous for the games whose baseline is."""
    return SimultaneousJsonBagOSLAAgent if game_info(game_name).simultaneous else JsonBagOSLAAgent
