"""Tic-tac-toe board facts that only the tests ask for."""

import numpy as np

from jbag_pipeline.tictactoe.exact import board_space


def legal_cells(board: int) -> np.ndarray:
    """Cells (0-based, ascending) open to the player to move; empty for terminal or invalid boards."""
    return np.flatnonzero(board_space().children[board] >= 0)
