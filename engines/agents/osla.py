"""One-step look-ahead: try every legal action once and keep the one whose child state is valued best."""

from __future__ import annotations

import math
import random

from engines.agents.value_function import MemorylessValue, ValueFunction, begin_value_game
from engines.base import Action, State


class ScoreValue(MemorylessValue):
    """The game's own score as a value: the seat's score minus the best opponent score (own score alone solo)."""

    def value(self, state: State, seat: int) -> float:
        scores = state.scores()
        opponents = [s for p, s in enumerate(scores) if p != seat]
        return scores[seat] - max(opponents) if opponents else scores[seat]


class OSLAAgent:
    """Greedy one-step agent: wins are +inf, losses -inf, everything else the value function's value.

    One determinization per decision (hidden information re-sampled from the agent's view), which the value
    function sees first (begin_decision) and every child comes from; ties are broken by the agent's seeded RNG.
    """

    def __init__(self, value: ValueFunction | None = None, seed: int = 0):
        if value is not None and not isinstance(value, ValueFunction):
            raise ValueError(f"osla: value must be a ValueFunction (reset, begin_decision, value, values), got "
                             f"{type(value).__name__}")
        self.name = "osla"
        self.value_function: ValueFunction = ScoreValue() if value is None else value
        # A forced move is played without building and valuing its child when nothing would notice: the value need
        # not see every decision and child() draws nothing from the agent's RNG (not the simultaneous OSLA's).
        self._forced_needs_no_child = not self.value_function.sees_every_decision and \
            type(self).child is OSLAAgent.child
        self.reset(seed)

    def reset(self, seed: int) -> None:
        """Start a new game: fresh RNG from `seed`, and a fresh value function memory."""
        self._rng = random.Random(seed)
        self._seed = seed
        self.value_function.reset()

    def begin_game(self, state: State, seat: int) -> None:
        """The game's initial state, before any decision (play_match calls it after reset): a GameStartValue gets
        `seat`'s determinized sample of it (begin_value_game)."""
        begin_value_game(self.value_function, state, seat, self._seed)

    def choose(self, state: State) -> Action:
        legal = state.legal_actions()
        if not legal:
            raise ValueError(f"{self.name}: the state has no legal actions (is the game over?)")
        seat = state.current_player
        sample = state.determinize(seat, self._rng)
        self.value_function.begin_decision(sample, seat)
        if len(legal) == 1 and self._forced_needs_no_child:  # the tie-break draw below, without valuing a child
            return legal[self._rng.randrange(1)]
        children = [self.child(sample, action) for action in legal]
        values = self.child_values(legal, children, seat)
        best = max(values)
        best_actions = [action for action, value in zip(legal, values) if value == best]
        return best_actions[self._rng.randrange(len(best_actions))]

    def child(self, sample: State, action: Action) -> State:
        """The state valued for `action`: a copy of the decision's sample after one step (TAG's one forward-model
        call)."""
        child = sample.clone()
        child.apply(action)
        return child

    def child_values(self, legal: list[Action], children: list[State], seat: int) -> list[float]:
        """The value of each child for `seat`: wins +inf, losses -inf, the others by one values() call of the value
        function; when a child wins, it is taken whatever the others are worth, so they are not valued (-inf)."""
        values = [terminal_value(child, seat) for child in children]
        if math.inf in values:
            return [-math.inf if value is None else value for value in values]
        open_positions = [position for position, value in enumerate(values) if value is None]
        if open_positions:
            valued = self.value_function.values([children[p] for p in open_positions], seat)
            for position, value in zip(open_positions, valued):
                value = float(value)
                if math.isnan(value):
                    raise ValueError(f"{self.name}: value function returned NaN for action {legal[position]!r}")
                values[position] = value
        return values


def terminal_value(child: State, seat: int) -> float | None:
    """+inf for a won child, -inf for a lost one; None for a draw or a running game (the value function decides)."""
    if child.is_terminal():
        result = child.returns()[seat]
        if result > 0:
            return math.inf
        if result < 0:
            return -math.inf
    return None
