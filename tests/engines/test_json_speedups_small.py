"""State documents of dots_and_boxes, connect4, tictactoe, cant_stop and dominion after their to_json speed-ups.

Every state of seeded random games must round-trip exactly (same bytes, so 1 / True / 1.0 are told apart),
documents must match simple reference builders, and a caller mutating a returned document must never change
the state or a later document.
"""

import random

import orjson
import pytest

from engines import load_game
from engines.dominion.cards import CARD_ORDER
from engines.dots_and_boxes import owners_of_bits

CONFIGS = [
    ("dots_and_boxes", {}), ("dots_and_boxes", {"rows": 1, "cols": 1}), ("dots_and_boxes", {"rows": 3, "cols": 9}),
    ("connect4", {}), ("connect4", {"rows": 6, "cols": 7}), ("connect4", {"rows": 4, "cols": 9, "win_length": 3}),
    ("tictactoe", {}), ("cant_stop", {}), ("cant_stop", {"n_players": 2}),
    ("dominion", {}), ("dominion", {"n_players": 2}),
]


def random_states(name, params, seed, max_steps=3000):
    """Clones of every state of one seeded random game."""
    game = load_game(name, **params)
    state = game.new_state(seed=seed)
    rng = random.Random(seed)
    states = [state.clone()]
    for _ in range(max_steps):
        if state.is_terminal():
            break
        state.apply(rng.choice(state.legal_actions()))
        states.append(state.clone())
    return game, states


def scramble(value):
    """Mutate a document in place at every depth, as a careless caller might."""
    if isinstance(value, dict):
        for item in value.values():
            scramble(item)
        for key in list(value):
            value[key] = "junk"
        value["junk"] = [0]
    elif isinstance(value, list):
        for item in value:
            scramble(item)
        value[:] = ["junk"] * len(value)
        value.append(-7)


@pytest.mark.parametrize("name, params", CONFIGS)
def test_round_trip_is_exact_on_every_state(name, params):
    for seed in range(3):
        game, states = random_states(name, params, seed)
        assert states[-1].is_terminal()
        for state in states:
            doc = state.to_json()
            restored = game.from_json(doc, seed=seed)
            assert orjson.dumps(restored.to_json()) == orjson.dumps(doc)
            if not state.is_terminal():  # a finished game's document names no mover
                assert restored.key() == state.key()


@pytest.mark.parametrize("name, params", CONFIGS)
def test_mutating_documents_changes_nothing(name, params):
    _, states = random_states(name, params, seed=11)
    for state in states[:: max(1, len(states) // 40)] + [states[-1]]:
        key, legal = state.key(), state.legal_actions()
        before = orjson.dumps(state.to_json())
        seen = [orjson.dumps(state.observation_json(p)) for p in range(state.n_players)]
        scramble(state.to_json())
        for p in range(state.n_players):
            scramble(state.observation_json(p))
        assert orjson.dumps(state.to_json()) == before
        assert [orjson.dumps(state.observation_json(p)) for p in range(state.n_players)] == seen
        assert state.key() == key and state.legal_actions() == legal
        other = state.clone()  # a clone's documents are independent too
        scramble(other.to_json())
        assert orjson.dumps(other.to_json()) == before


def test_owners_of_bits_matches_a_bit_by_bit_reference():
    rng = random.Random(5)
    for size in list(range(1, 40)) + [82, 117, 200]:
        for _ in range(20):
            first, second = rng.getrandbits(size), rng.getrandbits(size)  # overlapping sets: seat 1 wins ties
            expected = [1 if second >> i & 1 else 0 if first >> i & 1 else -1 for i in range(size)]
            got = owners_of_bits([first, second], size)
            assert got == expected and all(type(o) is int for o in got)


def test_boards_match_simple_reference_builders():
    for seed in range(5):
        _, states = random_states("connect4", {"rows": 6, "cols": 7}, seed)
        for state in states:
            game, doc = state._game, state.to_json()
            seats = state.seat_bits()
            board = [["o" if seats[1] >> (c * game.height + r) & 1 else "x" if seats[0] >> (c * game.height + r) & 1
                      else "." for c in range(game.cols)] for r in range(game.rows - 1, -1, -1)]
            assert doc["board"] == board
            assert doc["heights"] == [sum(1 for row in board if row[c] != ".") for c in range(game.cols)]
        _, states = random_states("tictactoe", {}, seed)
        for state in states:
            x, o = state.key()
            cells = ["o" if o >> cell & 1 else "x" if x >> cell & 1 else "." for cell in range(9)]
            assert state.to_json()["board"] == [cells[0:3], cells[3:6], cells[6:9]]


def test_dominion_observation_counts_unlocated_cards():
    _, states = random_states("dominion", {}, seed=4)
    for state in states[::7]:
        for player in range(state.n_players):
            doc = state.observation_json(player)
            for seat in range(state.n_players):
                cards = state._unlocated(seat, player)
                expected = sorted({c: cards.count(c) for c in cards}.items(), key=lambda item: CARD_ORDER[item[0]])
                assert list(doc["unlocatedCards"][seat].items()) == expected
            assert doc["victoryPoints"] == state.scores() and all(type(v) is float for v in doc["victoryPoints"])
