"""What MCTSAgent asks of a new leaf: per-seat rewards in [0, 1] (OpenSpiel's MCTSBot takes an Evaluator likewise).

RolloutEvaluator is the default: a random rollout cut after `rollout_length` actions, a finished game scored by its
result and a cut one by the current scores (or progress). ValueEvaluator plays `depth` random actions and, unless the
game ended, asks a value function (engines.agents.ValueFunction) through its batch seam values([leaf], seat):
"share" for a value that is the searcher's share of winning in [0, 1] (the JSON-Bag value), "lead" for a value on
any scale (a baseline heuristic), ranked across the seats as the score cut-off ranks scores.
"""

from __future__ import annotations

import math
import random
from typing import Protocol, Sequence, runtime_checkable

from engines.agents.value_function import ValueFunction, begin_value_game
from engines.base import State


def rewards(state: State) -> list[float]:
    """Per-seat reward in [0, 1]: from the result when finished, else from who leads on score."""
    if state.is_terminal():
        return [(r + 1) / 2 for r in state.returns()]
    return lead_rewards(state.scores())


def progress_rewards(state: State) -> list[float]:
    """As rewards(), but a running game whose state defines progress() gives each seat its share of the summed
    progress (equal shares before anyone progressed)."""
    progress = getattr(state, "progress", None)
    if progress is None or state.is_terminal():
        return rewards(state)
    shares = progress()
    total = sum(shares)
    return [share / total for share in shares] if total else [1 / len(shares)] * len(shares)


def lead_rewards(scores: Sequence[float]) -> list[float]:
    """1 for a sole leader, 0.5 for each of tied leaders, 0 for the others."""
    best = max(scores)
    lead_reward = 1.0 if scores.count(best) == 1 else 0.5
    return [lead_reward if s == best else 0.0 for s in scores]


CUTOFFS = {"score": rewards, "progress": progress_rewards}  # how a rollout cut before the end is scored


def random_rollout(state: State, rand, max_actions: int) -> None:
    """Apply up to `max_actions` uniformly random actions: legal_actions()[int(rand() * n)] each.

    A state may provide `random_playout(rand, max_actions)` making the same moves faster (Connect4 does).
    """
    fast = getattr(state, "random_playout", None)
    if fast is not None:
        fast(rand, max_actions)
        return
    apply, legal_actions, is_terminal = state.apply, state.legal_actions, state.is_terminal
    for _ in range(max_actions):
        if is_terminal():
            break
        actions = legal_actions()
        apply(actions[int(rand() * len(actions))])


@runtime_checkable
class LeafEvaluator(Protocol):
    """MCTSAgent calls reset() at every new game, begin_game(state, seat, seed) once after it, begin_decision(state,
    seat, rng) at every searched decision (before its iterations; an evaluator that draws from `rng` changes the
    search's draws), and evaluate(leaf, rand) once per iteration: the per-seat rewards of the leaf, which it may
    advance."""

    name: str

    def reset(self) -> None: ...

    def begin_game(self, state: State, seat: int, seed: int) -> None: ...

    def begin_decision(self, state: State, seat: int, rng: random.Random) -> None: ...

    def evaluate(self, state: State, rand) -> Sequence[float]: ...


class RolloutEvaluator:
    """A random rollout of up to `rollout_length` actions, then CUTOFFS[cutoff] of where it stopped."""

    def __init__(self, rollout_length: int = 100, cutoff: str = "score"):
        if type(rollout_length) is not int or rollout_length < 0:
            raise ValueError(f"mcts: rollout_length must be an int >= 0, got {rollout_length!r}")
        if cutoff not in CUTOFFS:
            raise ValueError(f"mcts: cutoff must be one of {sorted(CUTOFFS)}, got {cutoff!r}")
        self.name = "rollout"
        self.rollout_length, self.cutoff = rollout_length, cutoff
        self._rewards = CUTOFFS[cutoff]

    def reset(self) -> None:
        """Nothing kept between games."""

    def begin_game(self, state: State, seat: int, seed: int) -> None:
        """Nothing kept from the initial state."""

    def begin_decision(self, state: State, seat: int, rng: random.Random) -> None:
        """Nothing kept between decisions (and no draw from `rng`: the search's draws stay as they were)."""

    def evaluate(self, state: State, rand) -> list[float]:
        random_rollout(state, rand, self.rollout_length)
        return self._rewards(state)


REWARD_RULES = ("share", "lead")


class ValueEvaluator:
    """`depth` random actions, then a finished game's result or the value function's rewards for the leaf.

    rule "share": the value is the searcher's share of winning in [0, 1]; the searcher gets it and the other seats
    split the rest equally (exact in two-seat games). rule "lead": every seat's value, ranked by lead_rewards.
    At every searched decision the value sees the searcher's determinized sample (begin_decision), as OSLA's value
    sees its decision's sample; a GameStartValue sees the searcher's sample of the initial state.
    """

    def __init__(self, value: ValueFunction, depth: int = 0, rule: str = "share", name: str | None = None):
        if not isinstance(value, ValueFunction):
            raise ValueError(f"mcts: value must be a ValueFunction (reset, begin_decision, value, values), got "
                             f"{type(value).__name__}")
        if type(depth) is not int or depth < 0:
            raise ValueError(f"mcts: the leaf evaluator's depth must be an int >= 0, got {depth!r}")
        if rule not in REWARD_RULES:
            raise ValueError(f"mcts: rule must be one of {list(REWARD_RULES)}, got {rule!r}")
        self.value_function, self.depth, self.rule = value, depth, rule
        self.name = name or f"value({type(value).__name__},depth={depth},{rule})"
        self._seat, self._seats = 0, 1  # the searcher and the number of seats, set by begin_decision

    def reset(self) -> None:
        """A new game: the value forgets the last one."""
        self.value_function.reset()

    def begin_game(self, state: State, seat: int, seed: int) -> None:
        """A GameStartValue gets `seat`'s sample of the initial state (begin_value_game, as OSLAAgent's)."""
        begin_value_game(self.value_function, state, seat, seed)

    def begin_decision(self, state: State, seat: int, rng: random.Random) -> None:
        """The value sees the searcher's determinized sample of the decision, drawn from the search's `rng`."""
        self._seat, self._seats = seat, len(state.scores())
        self.value_function.begin_decision(state.determinize(seat, rng), seat)

    def evaluate(self, state: State, rand) -> list[float]:
        random_rollout(state, rand, self.depth)
        if state.is_terminal():
            return rewards(state)
        seat, n_seats = self._seat, self._seats
        if self.rule == "lead":
            return lead_rewards([self._value(state, p) for p in range(n_seats)])
        share = self._value(state, seat)
        if not 0.0 <= share <= 1.0:
            raise ValueError(f"mcts: rule 'share' needs values in [0, 1], the value gave {share!r}")
        others = (1.0 - share) / (n_seats - 1) if n_seats > 1 else 0.0
        return [share if p == seat else others for p in range(n_seats)]

    def _value(self, state: State, seat: int) -> float:
        value = float(self.value_function.values([state], seat)[0])
        if math.isnan(value):
            raise ValueError(f"mcts: the value function returned NaN for seat {seat}")
        return value
