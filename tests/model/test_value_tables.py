"""V_i through make_jsonbag_value: hand-built tables, a state added to the trajectory, bad tables rejected."""

from __future__ import annotations

import polars as pl
import pytest

from engines import load_game
from jbag_pipeline.model.bags import jsd
from jbag_pipeline.model.tokenize import tokenize_state
from jbag_pipeline.model.value import DeterminizedJsonBagValue, value_from_distances
from jbag_pipeline.model.value_tables import make_jsonbag_value, prototype_bags, selected_tokens
from tests.helpers.value_tables import lake_tables, values_of_bag


def _hand_tables() -> tuple[pl.DataFrame, pl.DataFrame]:
    prototypes = pl.DataFrame({
        "game": ["toy"] * 5, "frequency": ["full"] * 5, "seat": [0, 0, 1, 1, 1],
        "token": [".a.1", ".b.x", ".a.2", ".b.x", ".c"], "count": [3, 1, 1, 1, 2], "p": [0.75, 0.25, 0.25, 0.25, 0.5]},
        schema_overrides={"seat": pl.Int8})
    features = pl.DataFrame({"game": ["toy"] * 2, "variant": ["full"] * 2, "token": [".a.1", ".a.2"],
                             "importance": [0.6, 0.4], "rank": [1, 2], "segment": [None, None]},
                            schema_overrides={"segment": pl.Int32})
    return prototypes, features


def test_values_of_hand_built_bags_through_the_builder():
    prototypes, features = _hand_tables()
    selected = make_jsonbag_value(prototypes, features, "full", "full", n_players=2)
    assert selected.features == [".a.1", ".a.2"]
    # restricted to {.a.1, .a.2}: seat 0's prototype is all .a.1, seat 1's all .a.2
    assert values_of_bag(selected, {".a.1": 5, ".b.x": 9}) == pytest.approx([1.0, 0.0])
    assert values_of_bag(selected, {".a.1": 1, ".a.2": 1}) == pytest.approx([0.5, 0.5])
    bag = {".a.1": 3, ".a.2": 1, ".zzz": 4}
    d0, d1 = jsd({".a.1": 3, ".a.2": 1}, {".a.1": 1}), jsd({".a.1": 3, ".a.2": 1}, {".a.2": 1})
    assert values_of_bag(selected, bag) == pytest.approx([(1 - d0) / (2 - d0 - d1), (1 - d1) / (2 - d0 - d1)], abs=1e-12)
    everything = make_jsonbag_value(prototypes, features, "full", "none", n_players=2)
    assert everything.features == [".a.1", ".a.2", ".b.x", ".c"]  # the prototypes' vocabulary
    expected = value_from_distances([jsd(bag, {".a.1": 3, ".b.x": 1}), jsd(bag, {".a.2": 1, ".b.x": 1, ".c": 2})])
    assert values_of_bag(everything, bag) == pytest.approx(expected.tolist(), abs=1e-12)  # .zzz counts as mass
    assert values_of_bag(everything, {}) == [0.5, 0.5]


def test_value_of_a_state_adds_its_tokens_to_the_trajectory():
    game = load_game("connect4")
    prototypes, features = lake_tables(game)
    for variant in ("full", "none"):
        value = make_jsonbag_value(prototypes, features, "full", variant, n_players=2)
        state = game.new_state(seed=1)
        state.apply(3)
        value.begin_decision(state, 1)
        child = state.clone()
        child.apply(4)
        trajectory = tokenize_state(state.to_json(), num_suffix=True)
        candidate = {t: trajectory.get(t, 0) + c for t, c in tokenize_state(child.to_json(), num_suffix=True).items()}
        candidate.update({t: c for t, c in trajectory.items() if t not in candidate})
        for seat in (0, 1):
            assert value.value(child, seat) == pytest.approx(values_of_bag(value, candidate)[seat], abs=1e-12)
        assert value.values([child, child], 0).tolist() == pytest.approx([value.value(child, 0)] * 2)


def test_builder_rejects_bad_tables():
    prototypes, features = _hand_tables()
    with pytest.raises(ValueError, match="unknown feature variant"):
        make_jsonbag_value(prototypes, features, "full", "top5", n_players=2)
    with pytest.raises(ValueError, match="no rows for frequency 'random'"):
        make_jsonbag_value(prototypes, features, "random", "full", n_players=2)
    with pytest.raises(ValueError, match="seat 1 outside 0..0"):
        prototype_bags(prototypes, "full", n_players=1)
    with pytest.raises(ValueError, match="different games"):
        make_jsonbag_value(prototypes, features.with_columns(pl.lit("other").alias("game")), "full", "full", 2)
    with pytest.raises(ValueError, match="lacks columns"):
        selected_tokens(features.drop("rank"), "full")
    with pytest.raises(ValueError, match="frequency must be one of"):
        DeterminizedJsonBagValue([{"a": 1}, {"b": 1}], frequency="every")
    assert selected_tokens(features, "adaptive") == []  # a known variant may keep nothing: V is then uniform
