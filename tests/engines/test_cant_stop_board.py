"""Can't Stop's kept fields (open lengths, owned tracks, every seat's room) equal their from-scratch values."""

import random

import pytest

from engines.cant_stop import MARKERS, TRACK_LENGTHS, TRACKS, CantStop, roll_value, seeded_random


def check_kept_fields(state):
    """open_length, owned and rooms recomputed from the board, the completed tracks and the turn's markers."""
    permanent, completed = state.permanent, state.completed
    assert state.open_length == tuple(0 if completed[t] else TRACK_LENGTHS[t] for t in range(13))
    assert state.owned == tuple(sum(completed[t] and row[t] == TRACK_LENGTHS[t] for t in TRACKS) for row in permanent)
    assert len(state.markers) == len(set(state.markers)) <= MARKERS
    assert not state.markers or not state.is_terminal()
    for seat, row in enumerate(permanent):
        for track in range(13):
            from_permanent = state.open_length[track] - row[track]
            if seat == state.player and track in state.markers:  # a temporary marker above the permanent one
                assert not completed[track] and 0 <= state.rooms[seat][track] < from_permanent
            else:
                assert state.rooms[seat][track] == from_permanent


@pytest.mark.parametrize("n_players", [2, 3, 4])
def test_kept_fields_match_at_every_step_of_random_games(n_players):
    game = CantStop(n_players=n_players)
    for seed in range(6):
        state, rng = game.new_state(seed), random.Random(seed)
        check_kept_fields(state)
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply(legal[rng.randrange(len(legal))])
            check_kept_fields(state)
            assert game.from_json(state.to_json()).to_json() == state.to_json()


def test_kept_fields_match_after_random_playouts_of_every_length():
    game = CantStop()
    state, rng = game.new_state(4), random.Random(4)
    while not state.is_terminal():
        for length in (1, 3, 10, 400):
            copy = state.determinize(0, rng)
            copy.random_playout(rng.random, length)
            check_kept_fields(copy)
        legal = state.legal_actions()
        state.apply(legal[rng.randrange(len(legal))])


def test_roll_value_draws_as_randrange():
    for seed in range(200):
        ours, library = random.Random(seed), random.Random(seed)
        assert [roll_value(ours.getrandbits) for _ in range(5)] == [library.randrange(6**4) for _ in range(5)]
        assert ours.random() == library.random()


def test_seeded_random_is_random_random():
    for seed in (0, 1, 2**63 + 12345, 2**64 - 1):
        ours, library = seeded_random(seed), random.Random(seed)
        assert ours.getstate() == library.getstate() and ours.random() == library.random()
