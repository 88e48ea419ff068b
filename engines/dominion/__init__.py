"""Dominion: the game (game.py), its cards, its JSON documents."""

from engines.dominion.game import Dominion

__all__ = ["Dominion"]
