"""UCT Monte Carlo tree search with an iteration budget, for any number of seats and hidden information.

Every iteration samples a fresh determinization of the searcher's observation (a plain clone in
perfect-information games) and walks a tree keyed by actions (open loop, as TAG's MCTS). At a node only
actions legal in the current determinization compete, with UCB using availability counts (ISMCTS).
A node's statistics are from the perspective of the seat that moved into it; rewards lie in [0, 1] and come from
the leaf evaluator (engines.agents.leaf_evaluators): by default a random rollout cut after `rollout_length` actions
(counted from the new leaf), a finished game giving (return + 1) / 2 per seat and a cut one scored as if the game
ended there on the current scores: 1 for a sole leader, 0.5 for tied leaders, 0 otherwise (the same ranking rule as
returns()). With cutoff="progress" a state with a progress() (Can't Stop: completed tracks plus the banked share of
the open ones) gives each seat its share of the summed progress instead: ranking on it made the search stop after
about one roll a turn.
"""

from __future__ import annotations

import math
import random
from functools import partial

from engines.agents.leaf_evaluators import LeafEvaluator, RolloutEvaluator
from engines.base import Action, State


TIE_RULES = ("first", "mean")  # how the most visited moves' ties are broken (MCTSAgent)


class _Node:
    __slots__ = ("children", "mover", "visits", "total", "available")

    def __init__(self, mover: int):
        self.children: dict = {}
        self.mover = mover  # seat that chose the action leading here
        self.visits = 0
        self.total = 0.0  # sum of the mover's rewards over the iterations through this node
        self.available = 1  # iterations in which this node's action was legal at its parent, creation's included


class MCTSAgent:
    """UCT search of `iterations` iterations per decision; deterministic from `seed`.

    `evaluator` values each new leaf (a LeafEvaluator); None: RolloutEvaluator(rollout_length, cutoff), the random
    rollout, and then rollout_length and cutoff only configure it. The most visited move is chosen; among equally
    visited ones, ties="first" takes the first in legal order (the records of self-play), ties="mean" the one of the
    highest mean reward (then the first): with a flat leaf value, UCB splits the iterations evenly and "first" would
    always take the same move.
    """

    def __init__(self, iterations: int = 1000, exploration: float = 1.0, rollout_length: int = 100, seed: int = 0,
                 cutoff: str = "score", evaluator: LeafEvaluator | None = None, name: str = "mcts",
                 ties: str = "first"):
        if type(iterations) is not int or iterations < 1:
            raise ValueError(f"mcts: iterations must be a positive int, got {iterations!r}")
        if not exploration >= 0:
            raise ValueError(f"mcts: exploration must be >= 0, got {exploration!r}")
        if evaluator is None:
            evaluator = RolloutEvaluator(rollout_length, cutoff)
        elif not isinstance(evaluator, LeafEvaluator):
            raise ValueError(f"mcts: evaluator must be a LeafEvaluator (reset, begin_game, begin_decision, evaluate), "
                             f"got {type(evaluator).__name__}")
        if ties not in TIE_RULES:
            raise ValueError(f"mcts: ties must be one of {list(TIE_RULES)}, got {ties!r}")
        self.name = name
        self.ties = ties
        self.iterations = iterations
        self.exploration = exploration
        self.evaluator = evaluator
        # log(n) of every availability count a child can reach (at most one per iteration), looked up, not recomputed
        self._logs = [0.0] + [math.log(n) for n in range(1, iterations + 1)]
        self.reset(seed)

    def reset(self, seed: int) -> None:
        """Start a new game with a fresh RNG seeded by `seed`; the evaluator forgets the last game."""
        self._rng = random.Random(seed)
        self._seed = seed
        self.evaluator.reset()

    def begin_game(self, state: State, seat: int) -> None:
        """The evaluator sees the initial state (a value that keeps it takes `seat`'s sample)."""
        self.evaluator.begin_game(state, seat, self._seed)

    def choose(self, state: State) -> Action:
        legal = state.legal_actions()
        if not legal:
            raise ValueError("mcts: the state has no legal actions (is the game over?)")
        seat, rng, iterate = state.current_player, self._rng, self._iterate
        self.evaluator.begin_decision(state, seat, rng)
        if len(legal) == 1:
            return legal[0]
        determinizer = getattr(state, "determinizer", None)  # states outside engines.base may have determinize only
        sample = determinizer(seat) if determinizer is not None else partial(state.determinize, seat)
        root = _Node(-1)
        logs = self._logs
        if len(logs) <= self.iterations:  # iterations raised after construction
            logs = self._logs = [0.0] + [math.log(n) for n in range(1, self.iterations + 1)]
        for _ in range(self.iterations):
            iterate(root, sample(rng), logs)
        best, best_visits, best_mean = legal[0], -1, -1.0
        by_mean = self.ties == "mean"
        for action in legal:
            child = root.children.get(action)
            if child is None:
                continue
            visits = child.visits
            if visits > best_visits or (by_mean and visits == best_visits and child.total / visits > best_mean):
                best, best_visits, best_mean = action, visits, child.total / visits
        return best

    def _iterate(self, root: _Node, state: State, logs: list[float]) -> None:
        """One selection, expansion, rollout and backup pass over the determinization `state`; logs[n] = log(n)."""
        rand = self._rng.random
        sqrt = math.sqrt
        exploration = self.exploration
        apply, legal_actions, is_terminal = state.apply, state.legal_actions, state.is_terminal
        node, path = root, []
        while not is_terminal():
            get_child = node.children.get
            untried = []
            best_value = -1.0
            for action in legal_actions():
                child = get_child(action)
                if child is None:
                    untried.append(action)
                    continue
                child.available = available = child.available + 1
                visits = child.visits
                value = child.total / visits + exploration * sqrt(logs[available] / visits)
                if value > best_value:
                    best_value, best_action, best_child = value, action, child
            if untried:
                action = untried[int(rand() * len(untried))]
                node.children[action] = child = _Node(state.current_player)
                apply(action)
                path.append(child)
                break
            apply(best_action)
            path.append(best_child)
            node = best_child
        reward = self.evaluator.evaluate(state, rand)
        for node in path:
            node.visits += 1
            node.total += reward[node.mover]

