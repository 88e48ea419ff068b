"""value_spread: a perfect-information game's moves keep their value across determinizations; a card game's do not."""

import pytest

from engines import load_game
from jbag_pipeline.model.value_tables import make_jsonbag_value
from jbag_pipeline.play.value_spread import value_spread
from tests.helpers.value_tables import lake_tables


def _value(name: str):
    game = load_game(name)
    prototypes, features = lake_tables(game, n_games=6, seed=1)
    return make_jsonbag_value(prototypes, features, "full", "full", game.n_players)


def test_determinizations_change_nothing_in_connect4_and_something_in_dominion():
    connect4 = value_spread("connect4", _value("connect4"), games=1, every=4, determinizations=3)
    assert connect4.decisions > 3 and connect4.across_determinizations == 0.0 and connect4.across_moves > 0
    dominion = value_spread("dominion", _value("dominion"), games=1, every=40, determinizations=3)
    assert dominion.across_determinizations > 0


def test_bad_counts_are_refused():
    with pytest.raises(ValueError, match="determinizations must be an int >= 1, got 0"):
        value_spread("connect4", _value("connect4"), determinizations=0)
