"""The JSON-Bag value counting states by State.json_changes equals the one counting their documents: the same
trajectory counts and children's values, on random play of every engine that offers changes, restricted to some
tokens and unrestricted, including children valued before any decision and a state of another game."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from engines import GAMES, load_game
from jbag_pipeline.model.tokenize import tokenize_state
from jbag_pipeline.model.value import DeterminizedJsonBagValue
from tests.engines.test_json_changes import CHANGES_GAMES, random_states
from tests.helpers.states import children, same_decisions


class ByDocuments(DeterminizedJsonBagValue):
    counts_by_changes = False
    counts_by_parts = False


@pytest.mark.parametrize("name", CHANGES_GAMES)
def test_the_value_by_changes_equals_the_value_by_documents(name):
    game = load_game(name)
    states = [s for s in random_states(game, 90, seed=3) if not s.is_terminal()]
    bags = [tokenize_state(s.to_json(), num_suffix=True) for s in states[::3]]
    prototypes = [dict(bag) for bag in bags[:game.n_players]]
    features = sorted(set().union(*bags))[::7]
    for chosen in (features, None):
        by_changes, by_documents = DeterminizedJsonBagValue(prototypes, chosen), ByDocuments(prototypes, chosen)
        first = children(states[0])  # valued before any decision: counted from the empty document
        np.testing.assert_array_equal(by_changes.values(first, 0), by_documents.values(first, 0))
        for _ in same_decisions(states, by_changes, by_documents):
            assert by_changes._by_changes and not by_documents._by_changes
            assert by_changes._trajectory_mass == by_documents._trajectory_mass


@pytest.mark.parametrize("name", CHANGES_GAMES)
def test_a_state_of_another_game_is_counted_by_its_document(name):
    game = load_game(name)
    other = load_game(next(n for n in sorted(GAMES) if n != name and load_game(n).n_players == game.n_players))
    state, stranger = game.new_state(seed=0), other.new_state(seed=0)
    prototypes = [tokenize_state(state.to_json(), num_suffix=True), tokenize_state(stranger.to_json(), num_suffix=True)]
    by_changes, by_documents = DeterminizedJsonBagValue(prototypes), ByDocuments(prototypes)
    for value in (by_changes, by_documents):
        value.begin_decision(state, 0)
    np.testing.assert_allclose(by_changes.values([stranger], 0), by_documents.values([stranger], 0), rtol=0,
                               atol=1e-12)


@pytest.mark.parametrize("name", ["connect4", "dominion"])
def test_a_value_pickled_mid_game_values_on_as_the_original(name):
    """The evaluation sends values to worker processes: a copy taken mid-game (its caches of rows full) goes on
    valuing the same decisions alike."""
    game = load_game(name)
    states = [s for s in random_states(game, 40, seed=5) if not s.is_terminal()]
    bags = [tokenize_state(s.to_json(), num_suffix=True) for s in states[::3]]
    prototypes, features = [dict(bag) for bag in bags[:game.n_players]], sorted(set().union(*bags))[::5]
    value, half = DeterminizedJsonBagValue(prototypes, features), len(states) // 2
    for _ in same_decisions(states[:half], value, ByDocuments(prototypes, features)):
        pass
    copy = pickle.loads(pickle.dumps(value))
    assert len(copy._rows_by_change) and copy._rows_by_change._make.__self__ is copy
    for _ in same_decisions(states[half:], value, copy):
        pass
