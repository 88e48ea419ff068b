"""Sea Salt & Paper: the game (game.py), its cards, its JSON documents."""

from engines.sea_salt_paper.game import SeaSaltPaper

__all__ = ["SeaSaltPaper"]
