"""Every engine keeps the JSON type of each place in its documents: where a value is a number or a boolean, it is
always the same one of int, float and bool. jbag_pipeline.model.tokenize_delta relies on it, since Python's == holds
1 == 1.0 == True while their tokens differ."""

from __future__ import annotations

import pytest

from engines import GAMES, load_game
from engines.agents import RandomAgent
from engines.match import play_match

NUMBER_TYPES = {bool, int, float}


def _types_by_place(node, place: str, found: dict) -> None:
    """place -> types of the atoms seen there (list positions collapsed to [])."""
    if isinstance(node, dict):
        for key, value in node.items():
            _types_by_place(value, f"{place}.{key}", found)
    elif isinstance(node, list):
        for value in node:
            _types_by_place(value, place + "[]", found)
    else:
        found.setdefault(place, set()).add(type(node))


@pytest.mark.parametrize("name", sorted(GAMES))
def test_each_place_holds_one_number_type(name):
    game = load_game(name)
    found: dict[str, set] = {}
    for seed in range(3):
        record = play_match(game, [RandomAgent() for _ in range(game.n_players)], seed=seed)
        for state in record.states:
            _types_by_place(state.doc, "", found)
    mixed = {place: sorted(t.__name__ for t in types) for place, types in found.items()
             if len(types & NUMBER_TYPES) > 1}
    assert not mixed
    assert found  # the walk saw the documents


def test_the_check_sees_a_mixed_place():
    found: dict[str, set] = {}
    for doc in ({"a": [1, 2]}, {"a": [1.0]}, {"b": True}):
        _types_by_place(doc, "", found)
    assert found[".a[]"] == {int, float} and found[".b"] == {bool}
