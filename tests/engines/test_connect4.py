"""Connect4 rules, JSON round trip and keys, checked against hand-made games and a brute-force referee."""

import random

import pytest

from engines import load_game
from engines.connect4 import Connect4

# x fills the bottom row's first four cells; o plays above it.
HORIZONTAL = [0, 0, 1, 1, 2, 2, 3]
VERTICAL = [0, 1, 0, 1, 0, 1, 0]
# x ends on (col 0, h 0), (1, 1), (2, 2), (3, 3) counted from the bottom.
DIAGONAL_UP = [0, 1, 1, 2, 3, 2, 2, 3, 5, 3, 3]
DIAGONAL_DOWN = [7 - c for c in DIAGONAL_UP]
# Fills the 8x8 board with the pattern "xxoo"/"ooxx" in alternate rows: nobody gets four in a row.
FULL_DRAW = [0] * 8 + [1] * 8 + [4] + [2] * 8 + [3] * 8 + [4] * 7 + [5] * 7 + [6] * 8 + [7] * 8 + [5]


def play(actions, **params):
    state = load_game("connect4", **params).new_state()
    for action in actions:
        state.apply(action)
    return state


def referee_winner(board, win_length):
    """Brute force: the piece with win_length in a row anywhere on the board, or None."""
    rows, cols = len(board), len(board[0])
    for r in range(rows):
        for c in range(cols):
            piece = board[r][c]
            if piece == ".":
                continue
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                cells = [(r + i * dr, c + i * dc) for i in range(win_length)]
                if all(0 <= rr < rows and 0 <= cc < cols and board[rr][cc] == piece for rr, cc in cells):
                    return piece
    return None


def random_states(game, seed, games=20):
    rng = random.Random(seed)
    for _ in range(games):
        state = game.new_state()
        yield state.clone()
        while not state.is_terminal():
            state.apply(rng.choice(state.legal_actions()))
            yield state.clone()


def test_defaults_follow_tag():
    game = load_game("connect4")
    assert game.params == {"rows": 8, "cols": 8, "win_length": 4}
    assert game.n_players == 2
    state = game.new_state(seed=3)
    assert state.legal_actions() == list(range(8))
    assert state.current_player == 0 and state.turn_counter == 0


@pytest.mark.parametrize("params, message", [
    ({"size": 8}, "unknown parameter"),
    ({"rows": 8.0}, "rows must be an int"),
    ({"win_length": 1}, "win_length must be >= 2"),
    ({"rows": 3}, "must be >= win_length"),
    ({"cols": 5, "win_length": 6}, "must be >= win_length"),
])
def test_bad_parameters_are_rejected(params, message):
    with pytest.raises(ValueError, match=message):
        Connect4(**params)


@pytest.mark.parametrize("moves, cells, direction", [
    (HORIZONTAL, [[7, 0], [7, 1], [7, 2], [7, 3]], "horizontal"),
    (VERTICAL, [[4, 0], [5, 0], [6, 0], [7, 0]], "vertical"),
    (DIAGONAL_UP, [[4, 3], [5, 2], [6, 1], [7, 0]], "diagonal"),
    (DIAGONAL_DOWN, [[4, 4], [5, 5], [6, 6], [7, 7]], "anti_diagonal"),
])
def test_first_player_wins_in_every_direction(moves, cells, direction):
    before = play(moves[:-1])
    assert not before.is_terminal() and before.returns() == [0, 0]
    state = play(moves)
    assert state.is_terminal()
    assert state.returns() == [1, -1] and state.scores() == [1.0, -1.0] and state.winner() == 0
    assert state.legal_actions() == []
    doc = state.to_json()
    assert doc["winnerCells"] == cells
    assert doc["gameStatus"] == "GAME_END" and doc["playerResults"] == ["WIN_GAME", "LOSE_GAME"]
    assert doc["turnOwner"] == -1
    assert state.game.run_directions(state.seat_bits()[0]) == [direction]
    assert state.game.run_directions(state.seat_bits()[1]) == []


def test_second_player_can_win():
    state = play([0, 1, 0, 1, 0, 1, 2, 1])
    assert state.returns() == [-1, 1] and state.winner() == 1
    assert state.to_json()["winnerCells"] == [[4, 1], [5, 1], [6, 1], [7, 1]]


def test_full_board_without_a_line_is_a_draw():
    state = play(FULL_DRAW)
    assert state.is_terminal() and state.returns() == [0, 0] and state.winner() is None
    doc = state.to_json()
    assert doc["board"][7] == list("xxooxxoo") and doc["board"][6] == list("ooxxooxx")
    assert doc["heights"] == [8] * 8 and doc["winnerCells"] == []
    assert doc["playerResults"] == ["DRAW_GAME", "DRAW_GAME"]


def test_other_sizes_and_win_lengths_match_the_referee():
    for params in ({"rows": 6, "cols": 7}, {"rows": 10, "cols": 10, "win_length": 3},
                   {"rows": 8, "cols": 8, "win_length": 6}, {"rows": 12, "cols": 12, "win_length": 5}):
        game = load_game("connect4", **params)
        for state in random_states(game, seed=11, games=6):
            doc = state.to_json()
            piece = referee_winner(doc["board"], params.get("win_length", 4))
            full = all(cell != "." for row in doc["board"] for cell in row)
            assert state.is_terminal() == (piece is not None or full), (params, doc["board"])
            assert state.winner() == (None if piece is None else "xo".index(piece))


@pytest.mark.parametrize("action", [8, -1, "3", 2.0, True, None])
def test_illegal_actions_name_the_action_and_the_legal_ones(action):
    state = play([])
    with pytest.raises(ValueError, match=r"illegal action .*legal actions: \[0, 1, 2, 3, 4, 5, 6, 7\]"):
        state.apply(action)
    assert state.to_json() == play([]).to_json()


def test_full_column_and_finished_game_reject_moves():
    state = play([0] * 8)
    assert 0 not in state.legal_actions()
    with pytest.raises(ValueError, match="illegal action 0"):
        state.apply(0)
    finished = play(VERTICAL)
    with pytest.raises(ValueError, match=r"illegal action 5; legal actions: \[\]"):
        finished.apply(5)


def test_json_layout_is_readable_and_ordered():
    doc = play([3, 3, 4]).to_json()
    assert list(doc) == ["board", "heights", "winnerCells", "moveCount", "gameType", "turnCounter",
                         "turnOwner", "nPlayers", "gameStatus", "playerResults"]
    assert doc["board"][7] == [".", ".", ".", "x", "x", ".", ".", "."]
    assert doc["board"][6] == [".", ".", ".", "o", ".", ".", ".", "."]
    assert doc["heights"] == [0, 0, 0, 2, 1, 0, 0, 0]
    assert doc["moveCount"] == 3 and doc["turnCounter"] == 3 and doc["turnOwner"] == 1
    assert doc["gameType"] == "Connect4" and doc["playerResults"] == ["GAME_ONGOING"] * 2


def test_from_json_inverts_to_json_and_continues_identically():
    game = load_game("connect4", rows=6, cols=7)
    for state in random_states(game, seed=5, games=10):
        doc = state.to_json()
        restored = game.from_json(doc, seed=1)
        assert restored.to_json() == doc
        assert restored.key() == state.key() and restored.legal_actions() == state.legal_actions()
        assert restored.returns() == state.returns() and restored.current_player == state.current_player
        if not state.is_terminal():
            action = state.legal_actions()[-1]
            state.apply(action)
            restored.apply(action)
            assert restored.to_json() == state.to_json()


@pytest.mark.parametrize("edit, message", [
    (lambda d: d["board"][0].__setitem__(0, "x"), "piece above an empty cell"),
    (lambda d: d["board"][7].__setitem__(5, "x"), "cannot alternate"),
    (lambda d: d["board"][7].__setitem__(5, "z"), r"board\[7\]\[5\] is 'z'"),
    (lambda d: d.__setitem__("moveCount", 4), "field 'moveCount'"),
    (lambda d: d.__setitem__("heights", [0] * 8), "field 'heights'"),
    (lambda d: d.__setitem__("extra", 1), "field 'extra'"),
    (lambda d: d["board"].pop(), "8 rows of 8 cells"),
])
def test_from_json_rejects_inconsistent_documents(edit, message):
    game = load_game("connect4")
    doc = play([3, 3, 4]).to_json()
    edit(doc)
    with pytest.raises(ValueError, match=message):
        game.from_json(doc)


def test_from_json_rejects_a_win_by_the_wrong_mover():
    doc = play(VERTICAL).to_json()
    doc["board"][7][5] = "o"  # o moved after x had already won
    with pytest.raises(ValueError, match="did not move last"):
        load_game("connect4").from_json(doc)


def test_key_is_equal_for_transposed_move_orders_only():
    assert play([0, 1, 2, 5]).key() == play([2, 5, 0, 1]).key()
    assert play([0, 1, 2, 5]).key() != play([1, 0, 2, 5]).key()
    assert play([0, 0]).key() != play([0]).key()
    hash(play([0, 1]).key())


def test_clone_is_independent():
    state = play([0, 1, 2])
    copy = state.clone()
    copy.apply(3)
    copy.apply(3)
    assert state.to_json() == play([0, 1, 2]).to_json()
    assert copy.to_json() == play([0, 1, 2, 3, 3]).to_json()


def test_games_are_deterministic_for_a_seeded_action_stream():
    game = load_game("connect4")
    first = [s.to_json() for s in random_states(game, seed=9, games=3)]
    second = [s.to_json() for s in random_states(game, seed=9, games=3)]
    assert first == second
