"""MCTSAgent's leaf evaluators: the default keeps today's records, ValueEvaluator's reward rules, the Agent protocol."""

from __future__ import annotations

import hashlib
import json
import random

import pytest

from engines import load_game
from engines.agents import (Agent, MCTSAgent, MemorylessValue, OSLAAgent, RandomAgent, RolloutEvaluator,
                            ValueEvaluator, baseline_value)
from engines.agents.leaf_evaluators import lead_rewards
from engines.match import play_match

# MCTS matches recorded with the engines of b68c88b (before the evaluator seam), by digest() below
EXPECTED = {
    "connect4": "30a51b7a4100607ee665f68afc2937dabc7fb8157a9fd9d00ac40239756b7825",
    "dots_and_boxes": "cf5b02b3a8760d15a1378697ce672620ab5cef9ca6d167a9003633a17e086b50",
    "tictactoe": "a86a8ea2fbc23a44257202b1dd941ef08da64c38cfebac19425ce3fef84d3a91",
    "cant_stop": "ff4dd04d32cd5ce6c8766e6b9b118e4ddc4050d36ae0204e5deabdade44ffe19",
}
SETTINGS = {"cant_stop": {"cutoff": "progress", "rollout_length": 5}}


def digest(name: str, make_agent) -> str:
    game = load_game(name)
    h = hashlib.sha256()
    for seed in (0, 1):
        record = play_match(game, [make_agent() for _ in range(game.n_players)], seed=seed)
        h.update(json.dumps([record.actions, record.returns, record.scores]).encode())
    return h.hexdigest()


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_the_default_evaluator_keeps_the_records_of_b68c88b(name):
    kwargs = {"iterations": 30, "rollout_length": 20, **SETTINGS.get(name, {})}
    assert digest(name, lambda: MCTSAgent(**kwargs)) == EXPECTED[name]
    evaluator = {"rollout_length": kwargs.pop("rollout_length"), "cutoff": kwargs.pop("cutoff", "score")}
    assert digest(name, lambda: MCTSAgent(**kwargs, evaluator=RolloutEvaluator(**evaluator))) == EXPECTED[name]


class Constant(MemorylessValue):
    """Seat 0 is worth `share`, every other seat 1 - share."""

    def __init__(self, share: float):
        self.share = share

    def value(self, state, seat: int) -> float:
        return self.share if seat == 0 else 1 - self.share


def test_value_evaluator_share_and_lead_rules():
    state = load_game("cant_stop", n_players=3).new_state(seed=0)
    share = ValueEvaluator(Constant(0.4), depth=0, rule="share")
    share.begin_decision(state, 0, random.Random(0))
    assert share.evaluate(state.clone(), random.Random(0).random) == pytest.approx([0.4, 0.3, 0.3])
    share.begin_decision(state, 1, random.Random(0))
    assert share.evaluate(state.clone(), random.Random(0).random) == pytest.approx([0.2, 0.6, 0.2])
    lead = ValueEvaluator(Constant(0.4), depth=0, rule="lead")
    lead.begin_decision(state, 0, random.Random(0))
    assert lead.evaluate(state.clone(), random.Random(0).random) == [0.0, 0.5, 0.5]
    assert lead_rewards([3, 1, 2]) == [1.0, 0.0, 0.0]


def test_value_evaluator_scores_a_finished_game_by_its_result_and_walks_depth_random_steps():
    game = load_game("tictactoe")
    state = game.new_state(seed=0)
    for action in (0, 3, 1, 4):
        state.apply(action)
    evaluator = ValueEvaluator(Constant(0.5), depth=0)
    evaluator.begin_decision(state, 0, random.Random(0))
    won = state.clone()
    won.apply(2)
    assert evaluator.evaluate(won, random.Random(0).random) == [1.0, 0.0]
    deep = ValueEvaluator(Constant(0.5), depth=3)
    deep.begin_decision(state, 0, random.Random(0))
    leaf = game.new_state(seed=0)
    deep.evaluate(leaf, random.Random(1).random)
    assert len(leaf.legal_actions()) == 9 - 3  # three random moves, and no game of tic-tac-toe ends in three


def test_value_evaluator_refuses_bad_input():
    with pytest.raises(ValueError, match="value must be a ValueFunction"):
        ValueEvaluator(object())
    with pytest.raises(ValueError, match="depth must be an int >= 0"):
        ValueEvaluator(Constant(0.5), depth=-1)
    with pytest.raises(ValueError, match="rule must be one of"):
        ValueEvaluator(Constant(0.5), rule="rank")
    state = load_game("connect4").new_state(seed=0)
    evaluator = ValueEvaluator(Constant(1.5))
    evaluator.begin_decision(state, 0, random.Random(0))
    with pytest.raises(ValueError, match=r"rule 'share' needs values in \[0, 1\], the value gave 1.5"):
        evaluator.evaluate(state, random.Random(0).random)
    with pytest.raises(ValueError, match="evaluator must be a LeafEvaluator"):
        MCTSAgent(evaluator=Constant(0.5))


def test_heuristic_mcts_plays_every_game_and_every_agent_is_an_agent():
    for name in ("connect4", "cant_stop", "dominion"):
        game = load_game(name)
        agents = [MCTSAgent(5, evaluator=ValueEvaluator(baseline_value(name), 1, "lead"), name="heuristic_mcts")]
        agents += [RandomAgent() for _ in range(game.n_players - 1)]
        assert play_match(game, agents, seed=1).n_actions > 0
    assert all(isinstance(agent, Agent) for agent in (MCTSAgent(), OSLAAgent(), RandomAgent()))


class PreferStopping:
    """A rollout-free evaluator that likes a leaf a millionth more once the searcher's turn is over."""

    name = "prefer_stopping"

    def reset(self):
        pass

    def begin_game(self, state, seat, seed):
        pass

    def begin_decision(self, state, seat, rng):
        self.seat = seat

    def evaluate(self, state, rand):
        share = 0.5 + (1e-6 if state.current_player != self.seat else 0.0)
        return [share if p == self.seat else (1 - share) / 3 for p in range(4)]


def test_ties_of_visits_go_to_the_first_legal_move_or_to_the_best_mean():
    state, rng = load_game("cant_stop").new_state(seed=0), random.Random(0)
    while state.legal_actions() != ["roll", "stop"]:
        legal = state.legal_actions()
        state.apply(legal[rng.randrange(len(legal))])
    assert MCTSAgent(20, evaluator=PreferStopping()).choose(state) == "roll"  # 10 and 10 visits: legal order
    assert MCTSAgent(20, evaluator=PreferStopping(), ties="mean").choose(state) == "stop"
    with pytest.raises(ValueError, match="ties must be one of"):
        MCTSAgent(ties="random")
