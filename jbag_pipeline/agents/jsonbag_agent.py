"""The JSON-Bag OSLA of the evaluation: OSLA's rule over a DeterminizedJsonBagValue, every child valued in one batch.

It tokenizes full state documents (`to_json()`), as the prototypes were built, but only of determinized
states: begin_decision gets OSLA's determinized sample of the decision (drawn from the seat's own view) and
every child comes from that sample, so hidden information is never read.
The agent's trajectory bag gets the state it observes at every one of its decisions, as the authors' agent
does, whatever the pair's frequency: the frequency only names the prototypes (how the training trajectories
were sampled into bags), not the agent's own bag. The value is built from the lake tables by
model.value_tables.make_jsonbag_value.
"""

from __future__ import annotations

import math

import numpy as np

from engines.agents.baseline import SIMULTANEOUS_GAMES
from engines.agents.osla import OSLAAgent, terminal_value
from engines.agents.simultaneous_osla import finish_round_randomly
from engines.base import Action, State
from jbag_pipeline.model.value import DeterminizedJsonBagValue


class JsonBagOSLAAgent(OSLAAgent):
    """OSLAAgent's decision rule with a DeterminizedJsonBagValue, valuing all children in one batch.

    Wins are +inf, losses -inf, other children V_seat; ties go to the agent's seeded RNG, as in OSLAAgent.
    Every new game (reset) empties the value's trajectory bag.
    """

    def __init__(self, value: DeterminizedJsonBagValue, seed: int = 0):
        if not isinstance(value, DeterminizedJsonBagValue):
            raise ValueError(f"JsonBagOSLAAgent: value must be a DeterminizedJsonBagValue, got {type(value).__name__}")
        super().__init__(value=value, seed=seed)
        self.name = f"jsonbag_osla({value.frequency})"

    def child_values(self, legal: list[Action], children: list, seat: int) -> list[float]:
        """As OSLAAgent, but the children that are not won or lost are valued in one batch."""
        values = [terminal_value(child, seat) for child in children]
        if math.inf in values:  # a win is taken whatever the other children are worth
            return [-math.inf if value is None else value for value in values]
        open_positions = [position for position, value in enumerate(values) if value is None]
        if open_positions:
            batch = self.value_function.values_batch([children[p] for p in open_positions], seat)
            if np.isnan(batch).any():
                raise ValueError(f"jsonbag_osla: the value function returned NaN for seat {seat}")
            for position, value in zip(open_positions, batch.tolist()):
                values[position] = value
        return values


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
    return SimultaneousJsonBagOSLAAgent if game_name in SIMULTANEOUS_GAMES else JsonBagOSLAAgent
