"""DeterminizedJsonBagValue: every decision joins the trajectory whatever the frequency, reset, and batched values
equal to counting from scratch."""

from __future__ import annotations

import random

import numpy as np
import polars as pl
import pytest

from engines import GAMES, load_game
from jbag_pipeline.model.tokenize import TokenFilter, tokenize_state
from jbag_pipeline.model.value import DeterminizedJsonBagValue
from jbag_pipeline.model.value_tables import make_jsonbag_value, prototype_bags
from tests.helpers.states import random_play_states
from tests.helpers.value_tables import lake_tables


def _own_turn_states(game, seat: int, seed: int = 3) -> list:
    record_state, states, rng = game.new_state(seed=seed), [], random.Random(seed)
    while not record_state.is_terminal():
        if record_state.current_player == seat:
            states.append(record_state.clone())
        legal = record_state.legal_actions()
        record_state.apply(legal[rng.randrange(len(legal))])
    return states


def test_every_decision_joins_the_trajectory_whatever_the_frequency():
    game = load_game("cant_stop")  # perfect information: the determinized view is the state itself
    prototypes, _ = lake_tables(game, n_games=4)
    states = _own_turn_states(game, seat=2)  # several decisions per turn: each one adds
    assert len({s.turn_counter for s in states}) < len(states)
    bags = prototype_bags(prototypes, "full", 4)
    column = {token: i for i, token in enumerate(DeterminizedJsonBagValue(bags).features)}
    expected, outside = np.zeros(len(column)), 0
    for state in states:
        for token, count in tokenize_state(state.to_json(), num_suffix=True).items():
            if token in column:
                expected[column[token]] += count
            elif TokenFilter().keeps(token):
                outside += count
    for frequency in ("full", "interval", "random"):
        value = DeterminizedJsonBagValue(bags, None, frequency=frequency)
        value.reset()
        for state in states:
            value.begin_decision(state, 2)
        assert np.array_equal(value.trajectory, expected) and value.trajectory_outside == outside


def test_the_frequency_names_the_prototypes_only_not_the_agents_bag():
    game = load_game("dominion")
    prototypes, features = lake_tables(game, n_games=3)
    same_prototypes = pl.concat([prototypes.with_columns(pl.lit(f).alias("frequency")) for f in ("full", "random")])
    by_frequency = {f: make_jsonbag_value(same_prototypes, features, f, "full", 4) for f in ("full", "random")}
    state, rng, decisions = game.new_state(seed=4), random.Random(4), 0
    for value in by_frequency.values():
        value.reset()
    while not state.is_terminal():
        seat = state.current_player
        if seat == 1:
            sample = state.determinize(seat, random.Random(decisions))
            children = []
            for action in state.legal_actions():
                children.append(sample.clone())
                children[-1].apply(action)
            values = []
            for value in by_frequency.values():
                value.begin_decision(sample, seat)
                values.append(value.values(children, seat))
            assert np.array_equal(values[0], values[1])
            decisions += 1
        legal = state.legal_actions()
        state.apply(legal[rng.randrange(len(legal))])
    assert decisions >= 40
    assert np.array_equal(by_frequency["full"].trajectory, by_frequency["random"].trajectory)


def test_reset_empties_the_trajectory():
    game = load_game("dominion")
    prototypes, features = lake_tables(game, n_games=3)
    value = make_jsonbag_value(prototypes.with_columns(pl.lit("random").alias("frequency")), features, "random",
                               "none", n_players=4)
    states = _own_turn_states(game, seat=0)[:30]

    def trajectory():
        value.reset()
        assert not value.trajectory.any() and value.trajectory_outside == 0
        for state in states:
            value.begin_decision(state, 0)
        return value.trajectory.copy()

    first = trajectory()
    assert first.any() and np.array_equal(first, trajectory())


def _scratch_values(value: DeterminizedJsonBagValue, child, seat: int) -> float:
    """V_seat of the value's trajectory plus the child's tokens, counted from scratch by the plain tokenizer."""
    counts = value.trajectory.copy()
    outside = value.trajectory_outside + value.add_bag(tokenize_state(child.to_json(), num_suffix=True), counts)
    return float(value.values_of(counts, outside)[seat])


@pytest.mark.parametrize("name", sorted(GAMES))
def test_batched_values_equal_counting_from_scratch(name, monkeypatch):
    monkeypatch.setattr("jbag_pipeline.model.tokenize_delta._PATHS_CACHE_LIMIT", 30)  # forget child paths often
    monkeypatch.setattr("jbag_pipeline.model.value._CHANGE_CACHE_LIMIT", 30)  # and changes
    game = load_game(name)
    prototypes, features = lake_tables(game, n_games=3)
    states = random_play_states(game, n_games=1, every=5)[:8]
    for variant in ("full", "none"):
        value = make_jsonbag_value(prototypes, features, "full", variant, game.n_players)
        value.reset()
        for i, state in enumerate(states):
            seat = state.current_player
            sample = state.determinize(seat, random.Random(i))
            trajectory, outside = value.trajectory.copy(), value.trajectory_outside
            value.begin_decision(sample, seat)  # counted as the last sample plus its changes
            added = np.zeros(len(value.features))  # the sample joins the trajectory, counted afresh here
            added_outside = value.add_bag(tokenize_state(sample.to_json(), num_suffix=True), added)
            assert np.array_equal(value.trajectory - trajectory, added)
            assert value.trajectory_outside - outside == pytest.approx(added_outside)
            children = []
            for action in state.legal_actions()[:6]:
                children.append(sample.clone())
                children[-1].apply(action)
            batch = value.values(children, seat)
            assert batch.tolist() == pytest.approx([_scratch_values(value, c, seat) for c in children], abs=1e-9)
