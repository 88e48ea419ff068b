"""Softmax/greedy/random tic-tac-toe agents and exact outcome probabilities (jbag_pipeline.tictactoe.agents)."""

import random

import numpy as np
import pytest

from jbag_pipeline.tictactoe.agents import (
    greedy_policy, outcome_probabilities, policy_table, softmax_policy, uniform_policy,
)
from jbag_pipeline.analysis.statistics import wilson_interval
from jbag_pipeline.tictactoe.exact import N_BOARDS, board_index, board_space, exact_values
from tests.helpers.tictactoe import legal_cells

RANDOM_VS_RANDOM = (737 / 1260, 8 / 63, 121 / 420)  # first wins, draw, second wins


@pytest.fixture(scope="module")
def f():
    return exact_values()


def in_play() -> np.ndarray:
    return board_space().valid & ~board_space().terminal


def test_random_vs_random_exact_outcome():
    assert outcome_probabilities(uniform_policy(), uniform_policy()) == pytest.approx(RANDOM_VS_RANDOM, abs=1e-14)


def test_softmax_rows_are_distributions_over_legal_cells(f):
    policy = softmax_policy(f, w=10.0)
    legal = board_space().children >= 0
    assert np.allclose(policy[in_play()].sum(axis=1), 1.0)
    assert not policy[~legal].any()
    assert not policy[~in_play()].any()


def test_softmax_with_zero_temperature_is_uniform(f):
    assert np.allclose(softmax_policy(f, w=0.0), uniform_policy())


def test_softmax_matches_the_paper_formula_on_one_board(f):
    board = board_index("120100200")  # first player to move at cells 3, 5, 6, 8, 9
    children = [board + 3 ** (8 - cell) for cell in legal_cells(board)]
    weights = np.exp(10.0 * f[children])
    assert np.allclose(softmax_policy(f)[board, legal_cells(board)], weights / weights.sum())


def test_second_player_prefers_low_values(f):
    board = board_index("121120000")  # second player to move; cell 8 completes its middle column
    policy = softmax_policy(f, w=10.0)[board]
    assert np.argmax(policy) == 7
    assert greedy_policy(f)[board].tolist() == [0, 0, 0, 0, 0, 0, 0, 1, 0]


def test_greedy_splits_ties_evenly():
    board = board_index("000010000")  # second player to move; corners tie, edges tie under f_all
    row = greedy_policy(exact_values())[board]
    assert set(np.flatnonzero(row)) == {0, 2, 6, 8}
    assert np.allclose(row[[0, 2, 6, 8]], 0.25)


def test_informed_agents_beat_random(f):
    win, draw, loss = outcome_probabilities(softmax_policy(f), uniform_policy())
    assert win + draw + loss == pytest.approx(1.0)
    assert win > 0.95 > RANDOM_VS_RANDOM[0]
    first, draw, second = outcome_probabilities(uniform_policy(), softmax_policy(f))
    assert second > 0.85 > RANDOM_VS_RANDOM[2]


def test_callable_policy_agrees_with_table(f):
    table = softmax_policy(f, w=3.0)

    def uniform(board: int) -> list[float]:
        return [1 / len(legal_cells(board))] * len(legal_cells(board))

    def softmax(board: int) -> np.ndarray:
        return table[board, legal_cells(board)]

    assert outcome_probabilities(softmax, uniform) == pytest.approx(outcome_probabilities(table, uniform_policy()))
    assert np.allclose(policy_table(softmax, 1)[board_index("100000000")], table[board_index("100000000")])


@pytest.mark.parametrize("policy, message", [
    (lambda board: [1.0], "expected"),
    (lambda board: np.full(len(legal_cells(board)), 0.5), "not a distribution"),
    (np.ones((N_BOARDS, 8)), "shape"),
    ("random", "callable"),
])
def test_bad_policies_raise(policy, message):
    with pytest.raises(ValueError, match=message):
        outcome_probabilities(policy, uniform_policy())


def test_bad_values_raise():
    with pytest.raises(ValueError, match="softmax_policy"):
        softmax_policy(np.zeros(10))
    with pytest.raises(ValueError, match="inverse temperature"):
        softmax_policy(np.zeros(N_BOARDS), w=float("nan"))


def test_exact_outcomes_agree_with_engine_monte_carlo(f):
    engines = pytest.importorskip("engines")
    try:
        game = engines.load_game("tictactoe")
    except (ImportError, ValueError) as error:
        pytest.skip(f"engines tictactoe unavailable: {error}")
    policies = (softmax_policy(f, w=2.0), uniform_policy())
    rng = random.Random(11)
    games, counts = 4000, {0: 0, None: 0, 1: 0}
    for _ in range(games):
        state, board = game.new_state(seed=0), 0
        while not state.is_terminal():
            assert state.legal_actions() == legal_cells(board).tolist()
            mover = state.current_player
            cell = rng.choices(range(9), weights=policies[mover][board])[0]
            state.apply(cell)
            board += (mover + 1) * 3 ** (8 - cell)
        assert board_space().terminal[board]
        counts[state.winner()] += 1
    exact = outcome_probabilities(*policies)
    for observed, p in zip((counts[0], counts[None], counts[1]), exact):  # the exact value inside the sample's
        low, high = wilson_interval(observed, games, confidence=0.9999)  # interval (about 4 standard errors)
        assert low <= p <= high
