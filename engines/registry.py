"""Registry of games by name: GAMES maps a name to its Game class; load_game builds one, game_info reads its
GameInfo (engines/info.py). Adding a game is one line here."""

from __future__ import annotations

from engines.base import Game
from engines.cant_stop.game import CantStop
from engines.connect4.game import Connect4
from engines.dominion.game import Dominion
from engines.dots_and_boxes.game import DotsAndBoxes
from engines.info import GameInfo
from engines.sea_salt_paper.game import SeaSaltPaper
from engines.seven_wonders.game import SevenWonders
from engines.tictactoe.game import TicTacToe

GAMES: dict[str, type[Game]] = {
    "connect4": Connect4,
    "dots_and_boxes": DotsAndBoxes,
    "cant_stop": CantStop,
    "tictactoe": TicTacToe,
    "dominion": Dominion,
    "sea_salt_paper": SeaSaltPaper,
    "seven_wonders": SevenWonders,
}


def load_game(name: str, **params) -> Game:
    """Build game `name` with `params` over its TAG defaults; unknown names get a clear error."""
    return _game_class(name)(**params)


def game_info(name: str) -> GameInfo:
    """The facts of game `name` (its class's `info`); unknown names get a clear error."""
    return _game_class(name).info


def _game_class(name: str) -> type[Game]:
    if name not in GAMES:
        raise ValueError(f"unknown game {name!r}; known games: {sorted(GAMES)}")
    return GAMES[name]
