"""7 Wonders: the game (game.py), its cards, its JSON documents, scoring, trade and hidden information."""

from engines.seven_wonders.game import SevenWonders

__all__ = ["SevenWonders"]
