"""Tic-tac-toe agents as move-probability tables, and exact outcome probabilities of a match.

A policy is either a callable `board index -> probabilities over legal_cells(board)` (ascending cells)
or a (3^9, 9) array of per-cell probabilities (rows of boards in play sum to 1). Outcomes are exact:
probability mass is pushed from the empty board through the valid boards, one move count at a time.
Being exact, they carry no sampling error: no interval, test or verdict applies
(jbag_pipeline.analysis.statistics is for sampled games), and a difference between two agents' outcome
probabilities is the true difference.
"""

from __future__ import annotations

import functools
from typing import Callable, Sequence

import numpy as np

from jbag_pipeline.tictactoe.exact import N_BOARDS, N_CELLS, board_space

Policy = Callable[[int], Sequence[float]] | np.ndarray


@functools.cache
def _in_play_by_moves() -> list[np.ndarray]:
    """Board indices in play (valid, not terminal), one array per move count 0..8."""
    boards = board_space()
    in_play = boards.valid & ~boards.terminal
    return [np.flatnonzero(in_play & (boards.moves == n)) for n in range(N_CELLS)]


def _child_values(f: np.ndarray, where: str) -> tuple[np.ndarray, np.ndarray]:
    """The mover's view of each child's value (f for the first player, -f for the second) and legality."""
    f = np.asarray(f, dtype=np.float64)
    if f.shape != (N_BOARDS,) or not np.isfinite(f).all():
        raise ValueError(f"{where}: expected {N_BOARDS} finite board values, got shape {f.shape}")
    boards = board_space()
    legal = boards.children >= 0
    sign = np.where(boards.moves % 2 == 0, 1.0, -1.0)[:, None]
    return np.where(legal, sign * f[np.where(legal, boards.children, 0)], -np.inf), legal


def softmax_policy(f: np.ndarray, w: float = 10.0) -> np.ndarray:
    """p_i proportional to exp(w * f(child_i)) for the first player, exp(-w * f(child_i)) for the second."""
    if not np.isfinite(w):
        raise ValueError(f"softmax_policy: inverse temperature w must be finite, got {w}")
    values, legal = _child_values(f, "softmax_policy")
    scaled = np.where(legal, w * np.where(legal, values, 0.0), -np.inf)
    top = scaled.max(axis=1, keepdims=True, initial=-np.inf)
    weights = np.exp(scaled - np.where(np.isfinite(top), top, 0.0))  # shifted by the maximum against overflow
    totals = weights.sum(axis=1, keepdims=True)
    return np.divide(weights, totals, out=np.zeros_like(weights), where=totals > 0)


def greedy_policy(f: np.ndarray, tolerance: float = 1e-12) -> np.ndarray:
    """The mover picks a child of highest value (f for the first player, -f for the second); ties split evenly."""
    values, legal = _child_values(f, "greedy_policy")
    best = values.max(axis=1, keepdims=True, initial=-np.inf)
    chosen = legal & (values >= best - tolerance)
    counts = chosen.sum(axis=1, keepdims=True)
    return np.divide(chosen.astype(np.float64), counts, out=np.zeros(chosen.shape), where=counts > 0)


def uniform_policy() -> np.ndarray:
    """Uniformly random play over the legal cells."""
    legal = (board_space().children >= 0).astype(np.float64)
    counts = legal.sum(axis=1, keepdims=True)
    return np.divide(legal, counts, out=np.zeros_like(legal), where=counts > 0)


def policy_table(policy: Policy, seat: int) -> np.ndarray:
    """A (3^9, 9) probability table for `seat` (0 first, 1 second), filled on the boards where it moves."""
    boards = board_space()
    rows = np.concatenate(_in_play_by_moves()[seat::2])
    if isinstance(policy, np.ndarray):
        if policy.shape != (N_BOARDS, N_CELLS):
            raise ValueError(f"policy for seat {seat}: expected shape {(N_BOARDS, N_CELLS)}, got {policy.shape}")
        table = np.where(boards.children >= 0, policy, 0.0)
    elif callable(policy):
        table = np.zeros((N_BOARDS, N_CELLS))
        for board in rows:
            cells = np.flatnonzero(boards.children[board] >= 0)
            probabilities = np.asarray(policy(int(board)), dtype=np.float64)
            if probabilities.shape != cells.shape:
                raise ValueError(f"policy for seat {seat} at board {board}: expected {len(cells)} probabilities, "
                                 f"got shape {probabilities.shape}")
            table[board, cells] = probabilities
    else:
        raise ValueError(f"policy for seat {seat}: expected a callable or an array, got {type(policy).__name__}")
    sums = table[rows].sum(axis=1)
    bad = np.flatnonzero((table[rows] < 0).any(axis=1) | ~np.isclose(sums, 1.0, atol=1e-9))
    if bad.size:
        board = int(rows[bad[0]])
        raise ValueError(f"policy for seat {seat} at board {board}: probabilities over legal cells "
                         f"{table[board][boards.children[board] >= 0].tolist()} are not a distribution")
    return table


def outcome_probabilities(policy_first: Policy, policy_second: Policy) -> tuple[float, float, float]:
    """Exact (first player wins, draw, second player wins) when the two policies play one game (no sampling)."""
    boards = board_space()
    tables = (policy_table(policy_first, 0), policy_table(policy_second, 1))
    reach = np.zeros(N_BOARDS)
    reach[0] = 1.0
    for n, rows in enumerate(_in_play_by_moves()):
        children = boards.children[rows]
        legal = children >= 0
        mass = reach[rows, None] * tables[n % 2][rows]
        reach += np.bincount(children[legal], weights=mass[legal], minlength=N_BOARDS)
    ended = boards.terminal
    first = float(reach[ended & (boards.winner == 1)].sum())
    second = float(reach[ended & (boards.winner == 2)].sum())
    draw = float(reach[ended & (boards.winner == 0)].sum())
    return first, draw, second
