"""State.json_changes lists exactly the values in which two documents differ: for every engine that offers it,
the reference's to_json() with the listed values put in place is the state's to_json(), for every child and for
states further apart (a decision's sample against the last one), and a state of another game gets None."""

from __future__ import annotations

import copy
import random

import pytest

from engines import GAMES, load_game
from engines.base import ABSENT

CHANGES_GAMES = sorted(name for name in GAMES
                       if load_game(name).new_state(seed=0).json_changes(load_game(name).new_state(seed=0)) is not None)
STATES_PER_GAME = 150


def random_states(game, n: int, seed: int) -> list:
    """Up to n states of seeded random games (terminal ones included), in play order, game after game."""
    states, rng = [], random.Random(seed)
    for game_seed in range(1000):
        state = game.new_state(seed=game_seed)
        states.append(state.clone())
        while not state.is_terminal() and len(states) < n:
            legal = state.legal_actions()
            state.apply(legal[rng.randrange(len(legal))])
            states.append(state.clone())
        if len(states) >= n:
            return states
    return states


def patched(document: dict, changes: list[tuple]) -> dict:
    """`document` with each change's after-value put at its location (its before-value checked first): values
    replaced, then ABSENT afters removed (a list's from its end), then ABSENT befores added (a list's at its end)."""
    document = copy.deepcopy(document)
    replaced = [change for change in changes if change[1] is not ABSENT and change[2] is not ABSENT]
    removed = sorted((change for change in changes if change[2] is ABSENT), key=lambda change: change[0],
                     reverse=True)
    added = sorted((change for change in changes if change[1] is ABSENT), key=lambda change: change[0])
    assert not any(change[1] is ABSENT and change[2] is ABSENT for change in changes)
    for location, before, after in replaced + removed + added:
        node = document
        for step in location[:-1]:
            node = node[step]
        step = location[-1]
        if before is ABSENT:  # a new key, or an item right past the list's end
            assert step not in node if type(node) is dict else step == len(node), (location, after)
            if type(node) is dict:
                node[step] = after
            else:
                node.append(after)
            continue
        assert node[step] == before, (location, before, node[step])
        if after is not ABSENT:
            node[step] = after
        elif type(node) is dict:
            del node[step]
        else:  # the list's last item
            assert step == len(node) - 1, (location, before)
            node.pop()
    return document


def test_the_bitboard_and_card_games_offer_changes():
    assert {"connect4", "dots_and_boxes", "tictactoe", "dominion"} <= set(CHANGES_GAMES)


@pytest.mark.parametrize("name", CHANGES_GAMES)
def test_changes_turn_a_reference_document_into_the_state_document(name):
    game = load_game(name)
    states = random_states(game, STATES_PER_GAME, seed=5)
    rng = random.Random(6)
    for i, state in enumerate(states):
        document = state.to_json()
        assert state.json_changes(state) == []
        for reference in (states[i - 1], states[rng.randrange(len(states))]):  # the move before, and any state
            assert patched(reference.to_json(), state.json_changes(reference)) == document
        for action in state.legal_actions():
            child = state.clone()
            child.apply(action)
            changes = child.json_changes(state)
            assert patched(document, changes) == child.to_json(), (name, i, action)
            assert len({location for location, _, _ in changes}) == len(changes)


@pytest.mark.parametrize("name", CHANGES_GAMES)
def test_a_state_of_another_game_has_no_changes(name):
    state = load_game(name).new_state(seed=0)
    other = next(load_game(n).new_state(seed=0) for n in sorted(GAMES) if n != name)
    assert state.json_changes(other) is None
