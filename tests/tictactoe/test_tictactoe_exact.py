"""The exact evaluation function f_all of tic-tac-toe (jbag_pipeline.tictactoe.exact)."""

from fractions import Fraction

import numpy as np
import pytest

from jbag_pipeline.tictactoe.exact import (
    N_BOARDS, board_index, board_space, evaluation_table, exact_values,
)
from tests.helpers.tictactoe import legal_cells


def exact_fractions() -> dict[int, Fraction]:
    """f_all of every valid board in exact arithmetic, by plain recursion over the child table."""
    boards = board_space()
    values: dict[int, Fraction] = {}

    def value(board: int) -> Fraction:
        if board not in values:
            if boards.terminal[board]:
                values[board] = Fraction({0: 0, 1: 1, 2: -1}[int(boards.winner[board])])
            else:
                children = [int(c) for c in boards.children[board] if c >= 0]
                values[board] = sum((value(c) for c in children), Fraction(0)) / len(children)
        return values[board]

    value(0)
    return values


def test_valid_boards_and_their_split_by_move_count():
    boards = board_space()
    assert boards.valid.sum() == 5478
    assert np.bincount(boards.moves[boards.valid]).tolist() == [1, 9, 72, 252, 756, 1260, 1520, 1140, 390, 78]
    assert (boards.valid & ~boards.terminal).sum() == 4520


def test_f_all_is_exact_mean_of_children():
    fractions = exact_fractions()
    assert len(fractions) == 5478  # the recursion from the empty board reaches exactly the valid boards
    assert fractions[0] == Fraction(187, 630)
    f = exact_values()
    boards = np.array(sorted(fractions))
    assert np.allclose(f[boards], [float(fractions[b]) for b in boards], rtol=0, atol=1e-14)


@pytest.mark.parametrize("cells, terminal, value", [
    ("111220000", True, 1.0),    # first player's top row
    ("110222100", True, -1.0),   # second player's middle row
    ("121122211", True, 0.0),    # full board, no line
    ("120000000", False, None),  # game in progress
])
def test_terminal_outcomes(cells, terminal, value):
    board = board_index(cells)
    assert board_space().valid[board]
    assert board_space().terminal[board] == terminal
    if terminal:
        assert exact_values()[board] == value
        assert legal_cells(board).size == 0
    else:
        assert legal_cells(board).tolist() == [2, 3, 4, 5, 6, 7, 8]


@pytest.mark.parametrize("cells", ["110000000", "200000000", "111222000", "111220200"])
def test_invalid_boards_are_zero(cells):
    # too many first-player marks, second player first, both win, a mark after the first player won
    board = board_index(cells)
    assert not board_space().valid[board]
    assert exact_values()[board] == 0.0
    assert exact_values(terminal_as_zero=True)[board] == 0.0


def test_f_all_is_invariant_under_board_symmetries():
    f = exact_values()
    cells = board_space().cells
    grid = np.arange(9).reshape(3, 3)
    for turns in range(4):
        for flip in (False, True):
            image = np.rot90(grid, turns)
            permutation = (image.T if flip else image).ravel()
            moved = (cells[:, permutation].astype(np.int64) * 3 ** np.arange(8, -1, -1)).sum(axis=1)
            assert np.allclose(f[moved], f, atol=1e-14)


def test_terminal_as_zero_keeps_non_terminal_values():
    true_values, stored = exact_values(), exact_values(terminal_as_zero=True)
    terminal = board_space().terminal
    assert np.all(stored[terminal] == 0.0)
    assert np.any(true_values[terminal] != 0.0)
    assert np.array_equal(stored[~terminal], true_values[~terminal])


def test_evaluation_table():
    table = evaluation_table()
    assert table.columns == ["board", "cells", "valid", "terminal", "moves", "winner", "f_all"]
    assert table.height == N_BOARDS
    sample = table.sample(50, seed=3)
    for board, cells in zip(sample["board"], sample["cells"]):
        assert int(cells, 3) == board == board_index(cells) == board_index([int(c) for c in cells])
    assert table["valid"].sum() == 5478
    assert table.filter(table["board"] == 0)["f_all"][0] == pytest.approx(187 / 630, abs=1e-15)
    assert table["moves"].to_list()[board_index("120120000")] == 4


@pytest.mark.parametrize("cells", ["12", "1200000003", "abc000000", [0] * 8, [0.0] * 9])
def test_board_index_rejects_bad_cells(cells):
    with pytest.raises(ValueError, match="board_index"):
        board_index(cells)
