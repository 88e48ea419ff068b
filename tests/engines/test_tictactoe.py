"""Tic-Tac-Toe rules, JSON round trip, position count and the known random-play outcome odds."""

import math
import random

import pytest

from engines import load_game
from engines.agents import RandomAgent


def play(actions):
    state = load_game("tictactoe").new_state()
    for action in actions:
        state.apply(action)
    return state


@pytest.mark.parametrize("moves, cells", [
    ([0, 3, 1, 4, 2], [[0, 0], [0, 1], [0, 2]]),  # top row
    ([1, 0, 4, 2, 7], [[0, 1], [1, 1], [2, 1]]),  # middle column
    ([0, 1, 4, 2, 8], [[0, 0], [1, 1], [2, 2]]),  # main diagonal
    ([2, 0, 4, 1, 6], [[0, 2], [1, 1], [2, 0]]),  # anti-diagonal
])
def test_first_player_wins_on_a_line(moves, cells):
    assert not play(moves[:-1]).is_terminal()
    state = play(moves)
    assert state.is_terminal() and state.returns() == [1, -1] and state.scores() == [1.0, -1.0]
    assert state.legal_actions() == []
    assert state.to_json()["winnerCells"] == cells


def test_second_player_wins_and_double_lines_are_listed():
    assert play([0, 3, 1, 4, 8, 5]).returns() == [-1, 1]
    double = play([0, 1, 8, 3, 2, 5, 6, 7, 4])  # x's last move fills the board and both diagonals
    assert double.returns() == [1, -1]
    assert double.to_json()["winnerCells"] == [[0, 0], [0, 2], [1, 1], [2, 0], [2, 2]]


def test_full_board_without_a_line_is_a_draw():
    state = play([0, 1, 2, 4, 3, 5, 7, 6, 8])
    assert state.is_terminal() and state.returns() == [0, 0] and state.winner() is None
    doc = state.to_json()
    assert doc["board"] == [["x", "o", "x"], ["x", "o", "o"], ["o", "x", "x"]]
    assert doc["playerResults"] == ["DRAW_GAME", "DRAW_GAME"] and doc["turnOwner"] == -1


@pytest.mark.parametrize("action", [9, -1, 4.0, "4", False])
def test_illegal_actions_are_rejected_with_the_legal_list(action):
    with pytest.raises(ValueError, match=r"tictactoe: illegal action .*legal actions: \[0, 1, 2"):
        play([]).apply(action)


def test_occupied_cell_and_finished_game_reject_moves():
    with pytest.raises(ValueError, match=r"illegal action 4; legal actions: \[0, 1, 2, 3, 5, 6, 7, 8\]"):
        play([4]).apply(4)
    with pytest.raises(ValueError, match=r"illegal action 8; legal actions: \[\]"):
        play([0, 3, 1, 4, 2]).apply(8)


def test_json_layout():
    doc = play([4, 0]).to_json()
    assert list(doc) == ["board", "winnerCells", "moveCount", "gameType", "turnCounter", "turnOwner",
                         "nPlayers", "gameStatus", "playerResults"]
    assert doc["board"] == [["o", ".", "."], [".", "x", "."], [".", ".", "."]]
    assert doc["moveCount"] == 2 and doc["turnCounter"] == 2 and doc["turnOwner"] == 0
    assert doc["gameType"] == "TicTacToe" and doc["gameStatus"] == "ONGOING"


def test_parameters_are_rejected():
    with pytest.raises(ValueError, match="unknown parameter"):
        load_game("tictactoe", rows=4)


def reachable_states():
    """Every position reachable from the empty board, by key (terminal positions are not expanded)."""
    start = play([])
    seen = {start.key(): start}
    frontier = [start]
    while frontier:
        state = frontier.pop()
        for action in state.legal_actions():
            child = state.clone()
            child.apply(action)
            if child.key() not in seen:
                seen[child.key()] = child
                frontier.append(child)
    return seen


def test_exactly_5478_reachable_positions_and_json_round_trip():
    states = reachable_states()
    assert len(states) == 5478
    assert sum(s.is_terminal() for s in states.values()) == 958
    game = load_game("tictactoe")
    for state in states.values():
        doc = state.to_json()
        restored = game.from_json(doc)
        assert restored.to_json() == doc and restored.key() == state.key()


def test_key_is_equal_for_transposed_move_orders_only():
    assert play([0, 4, 8]).key() == play([8, 4, 0]).key()
    assert play([0, 4, 8]).key() != play([4, 0, 8]).key()


@pytest.mark.parametrize("edit, message", [
    (lambda d: d["board"][0].__setitem__(0, "x"), "cannot alternate"),
    (lambda d: d["board"][0].__setitem__(0, "?"), r"board\[0\]\[0\] is '\?'"),
    (lambda d: d.__setitem__("turnOwner", 0), "field 'turnOwner'"),
    (lambda d: d.__setitem__("board", [[".", ".", "."]]), "3 rows of 3 cells"),
])
def test_from_json_rejects_inconsistent_documents(edit, message):
    doc = play([4, 1, 5]).to_json()
    edit(doc)
    with pytest.raises(ValueError, match=message):
        load_game("tictactoe").from_json(doc)


def test_random_play_outcome_frequencies_match_the_exact_odds():
    games = 6000
    game = load_game("tictactoe")
    agents = [RandomAgent(seed=1), RandomAgent(seed=2)]
    counts = {0: 0, 1: 0, None: 0}
    for _ in range(games):
        state = game.new_state()
        while not state.is_terminal():
            state.apply(agents[state.current_player].choose(state))
        counts[state.winner()] += 1
    for outcome, p in ((0, 737 / 1260), (1, 121 / 420), (None, 8 / 63)):
        tolerance = 4 * math.sqrt(p * (1 - p) / games)
        assert abs(counts[outcome] / games - p) < tolerance, (outcome, counts)


def test_random_outcomes_are_deterministic_from_seeds():
    def outcomes(seed):
        rng = random.Random(seed)
        result = []
        for _ in range(50):
            state = play([])
            while not state.is_terminal():
                state.apply(rng.choice(state.legal_actions()))
            result.append(state.to_json())
        return result
    assert outcomes(4) == outcomes(4)
    assert outcomes(4) != outcomes(5)
