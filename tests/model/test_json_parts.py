"""Counting states by json_parts (model/json_parts.PartCounts) gives exactly the tokens of their to_json(): on random
play of every engine that offers parts, for every child and determinized sample of many states, unrestricted and
restricted to random tokens; and the JSON-Bag value counting by parts equals the one counting documents."""

from __future__ import annotations

import random

import pytest

from engines import GAMES, load_game
from engines.base import Items
from jbag_pipeline.model.json_parts import PartCounts, _pruned
from jbag_pipeline.model.tokenize import tokenize_state
from jbag_pipeline.model.tokenize_delta import TokenDelta
from jbag_pipeline.model.tokenize_restricted import token_paths
from jbag_pipeline.model.value import DeterminizedJsonBagValue
from tests.helpers.states import same_decisions

PARTS_GAMES = sorted(name for name in GAMES if load_game(name).new_state(seed=0).json_parts() is not None)
STATES_PER_GAME = 120


def random_states(game, n: int, seed: int) -> list:
    """Up to n states of seeded random games, in play order, game after game."""
    states, rng = [], random.Random(seed)
    for game_seed in range(1000):
        state = game.new_state(seed=game_seed)
        while not state.is_terminal() and len(states) < n:
            states.append(state.clone())
            legal = state.legal_actions()
            state.apply(legal[rng.randrange(len(legal))])
        if len(states) >= n:
            return states
    return states


class Counter:
    """A PartCounts over a growing vocabulary (unrestricted) or a wanted token set (restricted), read as bags."""

    def __init__(self, wanted: list[str] | None):
        self.tokens: list[str] = []
        self.columns: dict[str, int] = {}
        self.wanted = None if wanted is None else set(wanted)
        self.parts = PartCounts(TokenDelta(None if wanted is None else token_paths(wanted)), self.column)

    def column(self, token: str) -> int:
        if self.wanted is not None and token not in self.wanted:
            return -2
        if token not in self.columns:
            self.columns[token] = len(self.tokens)
            self.tokens.append(token)
        return self.columns[token]

    def change(self, old_parts: dict, state) -> tuple[dict[str, int], int]:
        columns, counts = [], []
        mass = self.parts.change(old_parts, state.json_parts(), state, columns, counts)
        bag: dict[str, int] = {}
        for column, times in zip(columns, counts):
            bag[self.tokens[column]] = bag.get(self.tokens[column], 0) + times
        return {token: times for token, times in bag.items() if times}, mass

    def full(self, state) -> dict[str, int]:
        bag = tokenize_state(state.to_json(), num_suffix=True)
        return bag if self.wanted is None else {token: times for token, times in bag.items() if token in self.wanted}


def difference(new: dict[str, int], old: dict[str, int]) -> dict[str, int]:
    change = {token: new.get(token, 0) - old.get(token, 0) for token in {*new, *old}}
    return {token: times for token, times in change.items() if times}


@pytest.mark.parametrize("restricted", [False, True])
@pytest.mark.parametrize("name", PARTS_GAMES)
def test_parts_count_every_child_and_sample_as_its_document(name, restricted):
    game = load_game(name)
    states = random_states(game, STATES_PER_GAME, seed=1)
    rng = random.Random(2)
    wanted = None
    if restricted:  # a random fifth of the tokens these states hold, as selected features would be
        seen = sorted(set().union(*(tokenize_state(s.to_json(), num_suffix=True) for s in states[::5])))
        wanted = rng.sample(seen, max(1, len(seen) // 5))
    counter = Counter(wanted)
    reference, reference_parts = {}, {}  # the last sample, as begin_decision counts each against the one before
    for state in states:
        sample = state.determinize(state.current_player, rng)
        bag, mass = counter.change(reference_parts, sample)
        sample_bag = counter.full(sample)
        assert bag == difference(sample_bag, reference)
        if not restricted:
            assert mass == sum(sample_bag.values()) - sum(reference.values())
        reference, reference_parts = sample_bag, sample.json_parts()
        for action in sample.legal_actions():
            child = sample.clone()
            child.apply(action)
            bag, mass = counter.change(reference_parts, child)
            child_bag = counter.full(child)
            assert bag == difference(child_bag, reference), (name, action)
            if not restricted:
                assert mass == sum(child_bag.values()) - sum(reference.values())


@pytest.mark.parametrize("name", PARTS_GAMES)
def test_the_value_by_parts_equals_the_value_by_documents(name):
    game = load_game(name)
    states = random_states(game, 60, seed=3)
    bags = [tokenize_state(s.to_json(), num_suffix=True) for s in states[::3]]
    prototypes = [dict(bag) for bag in bags[:game.n_players]]
    features = sorted(set().union(*bags))[::7]

    class ByParts(DeterminizedJsonBagValue):
        counts_by_changes = False  # tic-tac-toe offers json_changes too, which come first

    class ByDocuments(ByParts):
        counts_by_parts = False

    for chosen in (features, None):
        by_parts, by_documents = ByParts(prototypes, chosen), ByDocuments(prototypes, chosen)
        for _ in same_decisions(states, by_parts, by_documents):
            assert by_parts._by_parts and not by_documents._by_parts


def test_a_part_is_its_subtree_with_the_parts_below_it_emptied():
    document = {"a": [{"b": 1, "c": [2, 3]}, 4], "d": 5}
    assert _pruned(document, [("a", 0, "c")]) == {"a": [{"b": 1, "c": {}}, 4], "d": 5}
    assert _pruned(document, [("a",), ("d",)]) == {"a": {}, "d": {}}
    assert document == {"a": [{"b": 1, "c": [2, 3]}, 4], "d": 5}  # copies, the document unchanged


def test_parts_that_appear_disappear_or_turn_into_items_are_counted():
    class Doc:
        def __init__(self, document, parts):
            self.document, self.parts = document, parts

        def to_json(self):
            return self.document

        def json_parts(self):
            return self.parts

    counter = Counter(None)
    first = Doc({"x": 3, "l": [1, 2], "y": "a"}, {(): None, ("x",): 3, ("l",): Items((1, 2)), ("y",): "a"})
    second = Doc({"x": 4, "l": [2]}, {(): None, ("x",): 4, ("l",): Items((2,))})
    bag, _ = counter.change({}, first)
    assert bag == tokenize_state(first.document, num_suffix=True)
    bag, mass = counter.change(first.parts, second)
    expected = difference(tokenize_state(second.document, num_suffix=True), tokenize_state(first.document,
                                                                                           num_suffix=True))
    assert bag == expected and mass == sum(expected.values())


def test_an_item_met_again_and_an_unwanted_part_read_no_document():
    class Doc:
        reads = 0

        def __init__(self, document, parts):
            self.document, self.parts = document, parts

        def to_json(self):
            Doc.reads += 1
            return self.document

        def json_parts(self):
            return self.parts

    def doc(cards: list[str], turn: int) -> Doc:
        return Doc({"pile": [{"card": card} for card in cards], "turn": turn},
                   {(): None, ("pile",): Items(cards), ("turn",): turn})

    counter = Counter([".pile[0].card.a", ".pile[1].card.a", ".pile.card.b"])  # ".turn" not wanted
    first, second = doc(["a", "b"], 1), doc(["b", "a"], 2)
    counter.change({}, first)
    reads = Doc.reads
    bag, _ = counter.change(first.parts, second)  # "a" and "b" met before, at other positions; a new turn
    assert Doc.reads == reads
    assert bag == difference(counter.full(second), counter.full(first))
