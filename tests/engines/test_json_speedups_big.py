"""State documents of seven_wonders and sea_salt_paper built from cached templates: round trips, fresh objects
on every call (mutating a document never leaks into a cache or a later document) and what observations hide."""

from __future__ import annotations

import json
import random

import pytest

from engines.sea_salt_paper.game import SeaSaltPaper
from engines.seven_wonders.game import SevenWonders

GAMES = [(SevenWonders, {}), (SevenWonders, {"n_players": 3}), (SeaSaltPaper, {}), (SeaSaltPaper, {"n_players": 2})]


def playout(game, seed: int) -> list:
    """Every state of a seeded random game, terminal included."""
    state, rng, states = game.new_state(seed=seed), random.Random(seed), []
    while True:
        states.append(state.clone())
        if state.is_terminal():
            return states
        state.apply(rng.choice(state.legal_actions()))


def dump(doc) -> str:
    """Exact text of a document: tells 1, 1.0 and true apart, and key order."""
    return json.dumps(doc)


def containers(doc) -> list:
    """Every dict and list in a document, the document included."""
    found, todo = [], [doc]
    while todo:
        item = todo.pop()
        if isinstance(item, dict):
            found.append(item)
            todo.extend(item.values())
        elif isinstance(item, list):
            found.append(item)
            todo.extend(item)
    return found


def vandalise(doc) -> None:
    """Mutate every container of a document in place."""
    for item in containers(doc):
        if isinstance(item, dict):
            for key in list(item):
                item[key] = "vandalised"
            item["extra"] = 1
        else:
            item[:] = ["vandalised"]


def documents(state) -> list:
    return [state.to_json()] + [state.observation_json(p) for p in range(state.n_players)]


@pytest.mark.parametrize("cls, params", GAMES)
def test_to_json_round_trips_on_every_state(cls, params):
    game = cls(**params)
    for seed in (1, 2):
        for state in playout(game, seed):
            doc = state.to_json()
            assert dump(game.from_json(doc, seed=5).to_json()) == dump(doc)


@pytest.mark.parametrize("cls, params", GAMES)
def test_documents_are_fresh_objects_every_call(cls, params):
    game = cls(**params)
    states = playout(game, 3)
    for state in states[:: max(1, len(states) // 25)]:
        first, second = documents(state), documents(state)
        ids = [id(c) for c in containers(first) + containers(second)]
        assert len(ids) == len(set(ids)), "a container is shared within or between documents"
        expected = [dump(doc) for doc in first]
        for doc in first:
            vandalise(doc)
        assert [dump(doc) for doc in documents(state)] == expected
        sample = state.determinize(0, random.Random(4))
        before = dump(sample.to_json())
        vandalise(sample.to_json())
        assert dump(sample.to_json()) == before
        assert dump(state.determinize(0, random.Random(4)).to_json()) == before


@pytest.mark.parametrize("params", [{}, {"n_players": 3}])
def test_seven_wonders_observation_hides_hands_discard_and_choices(params):
    game = SevenWonders(**params)
    for seed in (5, 6):
        for state in playout(game, seed):
            for viewer in range(state.n_players):
                view, sample = state.observation_json(viewer), state.determinize(viewer, random.Random(seed))
                assert dump(sample.observation_json(viewer)) == dump(view)
                for seat, deck in enumerate(view["playerHands"]):
                    hand = state.hands[seat]
                    if seat == viewer:
                        assert [c["cardType"] for c in deck["components"]] == hand
                    else:
                        assert deck["components"] == [] and deck["hiddenCount"] == len(hand)
                pile = view["discardPile"]
                if viewer == state.builder:
                    assert [c["cardType"] for c in pile["components"]] == state.discard
                else:
                    assert pile["components"] == [] and pile["hiddenCount"] == len(state.discard)
                for seat, choice in enumerate(view["turnActions"]):
                    if state.pending[seat] is None:
                        assert choice is None
                    else:
                        assert choice == (list(state.pending[seat]) if seat == viewer else "HIDDEN")


@pytest.mark.parametrize("params", [{}, {"n_players": 2}])
def test_sea_salt_paper_observation_hides_hands_and_draw_pile(params):
    game = SeaSaltPaper(**params)
    for state in playout(game, 7):
        for viewer in range(state.n_players):
            view, sample = state.observation_json(viewer), state.determinize(viewer, random.Random(8))
            assert dump(sample.observation_json(viewer)) == dump(view)
            assert "components" not in view["drawPile"] and view["drawPile"]["size"] == len(state.draw_pile)
            for seat, deck in enumerate(view["playerHands"]):
                hand = state.hands[seat]
                if seat == viewer or state.protected[seat]:
                    assert len(deck["components"]) == len(deck["elementVisibility"]) == len(hand)
                else:
                    assert "components" not in deck and "elementVisibility" not in deck
                    assert deck["size"] == len(hand)
