"""Connect4: the game (game.py) and its TAG-dialect documents (tag_json.py)."""

from engines.connect4.game import Connect4

__all__ = ["Connect4"]
