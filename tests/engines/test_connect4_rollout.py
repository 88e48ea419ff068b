"""Connect4's fast paths: random_playout plays exactly the generic rollout, has_run's unrolled form agrees."""

import random

import pytest

from engines import load_game
from engines.agents.leaf_evaluators import random_rollout

SIZES = [{}, {"rows": 6, "cols": 7}, {"rows": 4, "cols": 4, "win_length": 2}, {"rows": 5, "cols": 6, "win_length": 3},
         {"rows": 6, "cols": 6, "win_length": 5}]


def generic_rollout(state, rand, max_actions):
    for _ in range(max_actions):
        if state.is_terminal():
            break
        actions = state.legal_actions()
        state.apply(actions[int(rand() * len(actions))])


@pytest.mark.parametrize("params", SIZES)
@pytest.mark.parametrize("max_actions", [100, 5, 0])
def test_random_playout_makes_the_generic_rollouts_moves(params, max_actions):
    game = load_game("connect4", **params)
    for seed in range(30):
        start = game.new_state()
        for action in random.Random(seed).choices(range(game.cols), k=seed % 4):
            start.apply(action)
        before = (start.to_json(), start.legal_actions())
        fast, slow = start.clone(), start.clone()
        fast_rng, slow_rng = random.Random(seed), random.Random(seed)
        fast.random_playout(fast_rng.random, max_actions)
        generic_rollout(slow, slow_rng.random, max_actions)
        assert fast.to_json() == slow.to_json()
        assert (fast.is_terminal(), fast.returns(), fast.legal_actions()) == \
            (slow.is_terminal(), slow.returns(), slow.legal_actions())
        assert fast_rng.random() == slow_rng.random()  # both drew the same number of random numbers
        # clones share the legal-move list, so the playout must replace it, never mutate it
        assert (start.to_json(), start.legal_actions()) == before


def test_a_finished_game_draws_nothing_and_mcts_uses_the_fast_path():
    state = load_game("connect4").new_state()
    for action in [0, 1, 0, 1, 0, 1, 0]:
        state.apply(action)
    rng = random.Random(1)
    state.random_playout(rng.random, 50)
    assert state.returns() == [1, -1] and rng.random() == random.Random(1).random()

    calls = []

    class Spy(type(state)):
        __slots__ = ()

        def random_playout(self, rand, max_actions):
            calls.append(max_actions)
            super().random_playout(rand, max_actions)

    spy = Spy(load_game("connect4"))
    random_rollout(spy, random.Random(0).random, 9)
    assert calls == [9] and spy.turn_counter == 9


@pytest.mark.parametrize("params", SIZES)
def test_unrolled_has_run_agrees_with_the_general_loop(params):
    game = load_game("connect4", **params)
    rng = random.Random(7)
    cells = [c * game.height + r for c in range(game.cols) for r in range(game.rows)]
    for _ in range(400):
        bits = sum(1 << cell for cell in rng.sample(cells, rng.randrange(len(cells) // 2)))
        general = False
        for shifts in game.shift_groups:
            run = bits
            for shift in shifts:
                run &= run >> shift
            general = general or bool(run)
        assert game.has_run(bits) == general
