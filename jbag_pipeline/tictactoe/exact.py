"""The exact evaluation function f_all over all 3^9 tic-tac-toe boards, under uniformly random play.

A board is nine cells, 1..9 row-major from the top-left, each 0 (empty), 1 (first player) or 2 (second
player). Its index is the cells read as a base-3 numeral with cell 1 most significant, so
`board == int(cells, 3)`; then `f.reshape(81, 243)` is the paper's matricisation (cells 1-4 | 5-9) and
`f.reshape(27, 27, 27)` its third-order tensor (cells 1-3, 4-6, 7-9).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Sequence

import numpy as np
import polars as pl

from jbag_pipeline.schemas import TICTACTOE_VALUES, conform

N_CELLS = 9
N_BOARDS = 3**N_CELLS
PLACE_VALUES = 3 ** np.arange(N_CELLS - 1, -1, -1)  # cell 1 is the most significant digit
LINES = np.array([
    [0, 1, 2], [3, 4, 5], [6, 7, 8],  # rows
    [0, 3, 6], [1, 4, 7], [2, 5, 8],  # columns
    [0, 4, 8], [2, 4, 6],  # diagonals
])


@dataclass(frozen=True)
class Boards:
    """Every board with its rule facts; arrays are indexed by board index (length 3^9)."""

    cells: np.ndarray  # (3^9, 9) int8 cell values
    moves: np.ndarray  # number of marks on the board
    winner: np.ndarray  # 1 or 2 if that player has three in a row on a valid board, else 0
    valid: np.ndarray  # reachable from the empty board by legal play
    terminal: np.ndarray  # valid and won or full
    children: np.ndarray  # (3^9, 9) child board index per cell; -1 if illegal or the board is not in play


@functools.cache
def board_space() -> Boards:
    """All 3^9 boards, their validity (by reachability), outcomes and child index arrays."""
    cells = (np.arange(N_BOARDS)[:, None] // PLACE_VALUES % 3).astype(np.int8)
    moves = (cells != 0).sum(axis=1).astype(np.int8)
    line_cells = cells[:, LINES]  # (3^9, 8, 3)
    first_line = (line_cells == 1).all(axis=2).any(axis=1)
    second_line = (line_cells == 2).all(axis=2).any(axis=1)
    ended = first_line | second_line | (moves == N_CELLS)

    mover = np.where(moves % 2 == 0, 1, 2)
    all_children = np.arange(N_BOARDS)[:, None] + mover[:, None] * PLACE_VALUES[None, :]
    all_children = np.where(cells == 0, all_children, -1)

    valid = np.zeros(N_BOARDS, dtype=bool)
    valid[0] = True
    for n in range(N_CELLS):
        in_play = valid & ~ended & (moves == n)
        reached = all_children[in_play]
        valid[reached[reached >= 0]] = True

    terminal = valid & ended
    in_play = valid & ~ended
    children = np.where(in_play[:, None], all_children, -1).astype(np.int32)
    winner = np.where(valid & first_line, 1, np.where(valid & second_line, 2, 0)).astype(np.int8)
    boards = Boards(cells=cells, moves=moves, winner=winner, valid=valid, terminal=terminal, children=children)
    for array in vars(boards).values():
        array.setflags(write=False)  # shared by every caller through the cache
    return boards


def board_index(cells: str | Sequence[int]) -> int:
    """The index of a board given as nine cell values (a string like "120000000" or a sequence)."""
    text = cells if isinstance(cells, str) else "".join(str(c) for c in cells)
    if len(text) != N_CELLS or set(text) - set("012"):
        raise ValueError(f"board_index: expected nine cell values in 0/1/2, got {cells!r}")
    return int(text, 3)


def outcome_values(boards: Boards) -> np.ndarray:
    """+1 / -1 / 0 for terminal boards won by the first / second player / drawn; 0 elsewhere."""
    return np.where(boards.terminal, np.select([boards.winner == 1, boards.winner == 2], [1.0, -1.0], 0.0), 0.0)


def exact_values(terminal_as_zero: bool = False) -> np.ndarray:
    """f_all for every board index: terminal outcome, else the mean of the children, invalid boards 0.

    With `terminal_as_zero` the values of non-terminal boards are unchanged but terminal boards are
    stored as 0, as in the original authors' published data.
    """
    boards = board_space()
    values = outcome_values(boards)
    for n in range(N_CELLS - 1, -1, -1):
        rows = np.flatnonzero(boards.valid & ~boards.terminal & (boards.moves == n))
        children = boards.children[rows]
        legal = children >= 0
        child_values = np.where(legal, values[np.where(legal, children, 0)], 0.0)
        values[rows] = child_values.sum(axis=1) / legal.sum(axis=1)
    if terminal_as_zero:
        values[boards.terminal] = 0.0
    return values


def evaluation_table(terminal_as_zero: bool = False) -> pl.DataFrame:
    """f_all as a table: board, cells ("000000000"), valid, terminal, moves, winner, f_all."""
    boards = board_space()
    return conform(pl.DataFrame({
        "board": np.arange(N_BOARDS, dtype=np.int64),
        "cells": ["".join(map(str, row)) for row in boards.cells.tolist()],
        "valid": boards.valid,
        "terminal": boards.terminal,
        "moves": boards.moves.astype(np.int64),
        "winner": boards.winner.astype(np.int64),
        "f_all": exact_values(terminal_as_zero),
    }), TICTACTOE_VALUES, "tictactoe_values")
