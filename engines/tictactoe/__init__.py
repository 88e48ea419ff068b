"""Tic-Tac-Toe: the game (game.py); TAG has no Tic-Tac-Toe in the papers' data, so no TAG-dialect documents."""

from engines.tictactoe.game import TicTacToe, TicTacToeState

__all__ = ["TicTacToe", "TicTacToeState"]
