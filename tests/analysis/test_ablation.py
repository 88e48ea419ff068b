"""The value-function ablation: each factor changes the value as it says on hand-built prototypes, the levels per
preset and game, and the table's statistics against the control and the default level."""

from dataclasses import replace

import numpy as np
import polars as pl
import pytest

from jbag_pipeline.play.selfplay import play_selfplay, selfplay_seeds
from jbag_pipeline.analysis.ablation import (DROPPED, KEPT, ablation_levels, ablation_table, full_tables,
                                             features_at_k)
from jbag_pipeline.analysis.statistics import holm, stratified_exact_p, verdict, wilson_interval
from jbag_pipeline.model.bags import jsd
from jbag_pipeline.model.selection import select_features
from jbag_pipeline.transforms.state_tokens import tokenize_states
from jbag_pipeline.model.tokenize import TokenFilter
from jbag_pipeline.model.value import OUTSIDE_FEATURES, seat_values
from jbag_pipeline.model.value_tables import make_jsonbag_value
from jbag_pipeline.presets import GameRun, get_preset
from jbag_pipeline.transforms.sampling import sampled_states
from jbag_pipeline.schemas import VALUE_FUNCTION_ABLATION
from jbag_pipeline.transforms.segments import segmented_bags
from tests.helpers.value_tables import values_of_bag

PRESET = get_preset("smoke")


def _prototypes(bags: dict[int, dict[str, int]]) -> pl.DataFrame:
    rows = [(seat, token, count) for seat, bag in bags.items() for token, count in bag.items()]
    return pl.DataFrame({"game": "toy", "frequency": "full", "seat": [r[0] for r in rows],
                         "token": [r[1] for r in rows], "count": [r[2] for r in rows], "p": 0.0},
                        schema_overrides={"seat": pl.Int8})


def _features(tokens: list[str]) -> pl.DataFrame:
    return pl.DataFrame({"game": "toy", "variant": "full", "token": tokens, "importance": 1.0,
                         "rank": list(range(1, len(tokens) + 1)), "segment": None},
                        schema_overrides={"segment": pl.Int32, "rank": pl.Int32})


SEATS = {0: {".a": 2, ".b": 1, ".c": 1}, 1: {".a": 1, ".b": 3, ".d": 4}}


def test_all_tokens_is_the_jsd_to_prototypes_normalised_over_all_their_tokens():
    candidate = {".a": 1, ".b": 1, ".e": 5}  # .e is outside the features: the candidate is restricted to them
    value = make_jsonbag_value(_prototypes(SEATS), _features([".a", ".b"]), "full", "full", 2,
                               normalisation="all_tokens")
    assert value.features == [".a", ".b", OUTSIDE_FEATURES]
    restricted = {".a": 0.5, ".b": 0.5}
    expected = seat_values(np.array([jsd(restricted, {".a": 2, ".b": 1, OUTSIDE_FEATURES: 1}),
                                     jsd(restricted, {".a": 1, ".b": 3, OUTSIDE_FEATURES: 4})]))
    assert values_of_bag(value, candidate) == pytest.approx(expected.tolist(), abs=1e-12)
    ours = make_jsonbag_value(_prototypes(SEATS), _features([".a", ".b"]), "full", "full", 2)
    renormalised = seat_values(np.array([jsd(restricted, {".a": 2, ".b": 1}), jsd(restricted, {".a": 1, ".b": 3})]))
    assert values_of_bag(ours, candidate) == pytest.approx(renormalised.tolist(), abs=1e-12)
    assert not np.allclose(expected, renormalised)


def test_all_tokens_counts_only_the_tokens_the_filter_keeps():
    bags = {0: {**SEATS[0], ".turnOwner.0": 6}, 1: SEATS[1]}
    filtered = make_jsonbag_value(_prototypes(bags), _features([".a", ".b"]), "full", "full", 2,
                                  token_filter=TokenFilter(("turnOwner",)), normalisation="all_tokens")
    plain = make_jsonbag_value(_prototypes(SEATS), _features([".a", ".b"]), "full", "full", 2,
                               token_filter=TokenFilter(("turnOwner",)), normalisation="all_tokens")
    assert values_of_bag(filtered, {".a": 3, ".b": 1}) == values_of_bag(plain, {".a": 3, ".b": 1})
    with pytest.raises(ValueError, match="normalisation must be one of"):
        make_jsonbag_value(_prototypes(SEATS), _features([".a"]), "full", "full", 2, normalisation="tokens")


def test_a_kept_turn_order_fields_tokens_reach_the_value_and_a_dropped_ones_do_not():
    bags = {0: {".a": 2, ".turnOwner.0": 3}, 1: {".a": 2, ".turnOwner.1": 3}}
    levels = [level for level in ablation_levels(PRESET, "connect4") if level.factor == "turn_order:turnOwner"]
    values = {}
    for level in levels:
        value = make_jsonbag_value(_prototypes(bags), _features([".a", ".turnOwner.0", ".turnOwner.1"]), "full",
                                   "full", 2, token_filter=TokenFilter(level.blacklist))
        values[level.level] = values_of_bag(value, {".a": 1, ".turnOwner.0": 4})
    assert values[DROPPED] == pytest.approx([0.5, 0.5])  # only .a is left: both seats look alike
    assert values[KEPT][0] > 0.6  # seat 0's turn-order token brings the candidate near seat 0's prototype


def test_levels_change_one_choice_each():
    preset = replace(get_preset("demo"), ablation_factors=None)  # every factor
    levels = ablation_levels(preset, "connect4")
    default = preset.blacklist_for("connect4")
    by_factor: dict[str, list] = {}
    for level in levels:
        by_factor.setdefault(level.factor, []).append(level)
    assert list(by_factor)[:2] == ["top_k", "normalisation"]
    assert [f"turn_order:{f}" for f in ("turnCounter", "turnOwner", "moveCount")] == list(by_factor)[2:]
    for factor, (first, other) in by_factor.items():
        assert first.is_default and not other.is_default
        assert (first.blacklist, first.k, first.normalisation) == (default, preset.top_k, "features")
    assert [(lv.level, lv.k) for lv in by_factor["top_k"]] == [("100", 100), ("500", 500)]
    assert by_factor["normalisation"][1].normalisation == "all_tokens"
    for field in ("turnCounter", "turnOwner", "moveCount"):
        first, other = by_factor[f"turn_order:{field}"]
        assert set(first.blacklist) ^ set(other.blacklist) == {field}  # only that field changes
        assert first.level == (DROPPED if field in default else KEPT) and {first.level, other.level} == {DROPPED, KEPT}


def test_ablation_factors_choose_levels_and_bad_names_are_refused():
    fewer = replace(PRESET, ablation_factors=("normalisation", "turn_order:turnOwner"))
    assert [lv.factor for lv in ablation_levels(fewer, "connect4")] == ["normalisation"] * 2 + \
        ["turn_order:turnOwner"] * 2
    every_field = replace(PRESET, ablation_factors=("turn_order",))
    assert {lv.factor for lv in ablation_levels(every_field, "dominion")} == {
        "turn_order:turnCounter", "turn_order:turnOwner", "turn_order:turnPlayer", "turn_order:roundCounter"}
    assert [lv.level for lv in ablation_levels(replace(PRESET, ablation_factors=("top_k",), ablation_top_k=20),
                                               "connect4")] == ["20"]  # no other k, no other level
    for bad in (("k",), ("turn_order:",), ("top_k:5",), "top_k"):
        with pytest.raises(ValueError, match="ablation"):
            replace(PRESET, ablation_factors=bad)
    with pytest.raises(ValueError, match="ablation_top_k must be an int >= 1"):
        replace(PRESET, ablation_top_k=0)


@pytest.fixture(scope="module")
def connect4_tables():
    """(games, state_tokens, sampled_states) of 30 tiny MCTS Connect4 self-play games."""
    games, states = play_selfplay("connect4", GameRun(mcts_iterations=2, rollout_length=5), selfplay_seeds(0, 0, 30))
    return games, tokenize_states(states), sampled_states(states, games, 0)


def test_a_larger_k_keeps_more_features_ranked_on_the_same_bags(connect4_tables):
    games, tokens, sampled = connect4_tables
    blacklist = PRESET.blacklist_for("connect4")
    segmented = segmented_bags(tokens, sampled, 3, blacklist=blacklist)
    selected = select_features(segmented, games, k=10, n_estimators=10, seed=0).features
    small, large = features_at_k(selected, 10), features_at_k(selected, 50)
    assert small.equals(selected.filter(pl.col("variant") == "full"))  # k 10 is the selected_features `full` list
    assert len(large) > len(small) and large.head(len(small)).equals(small)
    whole = segmented.filter(pl.col("segment") == segmented["segment"].max()).filter(pl.col("frequency") == "full")
    refitted = select_features(whole.drop("segment"), games, k=50, n_estimators=10, seed=0).features
    assert large.equals(refitted.filter(pl.col("variant") == "full"))  # the forest fitted again ranks the same
    assert features_at_k(selected, 10_000).equals(selected.filter(pl.col("variant") == "none").filter(
        pl.col("importance") > 0).with_columns(pl.lit("full").alias("variant")))  # never a token without a split
    default = full_tables(tokens, sampled, games, blacklist=blacklist, k=10, n_estimators=10, seed=0)
    assert default.features.equals(small)


def _games(levels: dict[tuple[str, str, bool], list[list[int]]]) -> pl.DataFrame:
    """One row per game: (factor, level, is_default) -> per seat the scores."""
    rows = [("toy", factor, level, default, 10 if default else 20, seat, score)
            for (factor, level, default), seats in levels.items()
            for seat, scores in enumerate(seats) for score in scores]
    return pl.DataFrame(rows, schema={"game": pl.String, "factor": pl.String, "level": pl.String,
                                      "is_default": pl.Boolean, "n_features": pl.Int64, "seat": pl.Int8,
                                      "score": pl.Int8}, orient="row")


def test_table_statistics_against_the_control_and_the_default_level():
    default = [[1] * 6 + [-1] * 14, [1] * 4 + [-1] * 16]
    games = _games({("top_k", "100", True): default,
                    ("top_k", "500", False): [[1] * 18 + [-1] * 2, [1] * 15 + [-1] * 5],
                    ("normalisation", "features", True): default,
                    ("normalisation", "all_tokens", False): [[1] * 7 + [-1] * 13, [1] * 5 + [-1] * 15]})
    control = pl.DataFrame({"game": "toy", "seat": [0, 1], "games": [20, 20], "wins": [8, 6], "draws": 0,
                            "losses": [12, 14], "win_rate": [0.4, 0.3], "mean_score": [-0.2, -0.4]},
                           schema_overrides={"seat": pl.Int8})
    table = ablation_table(games, control, "full-full")
    assert table.schema == pl.Schema(VALUE_FUNCTION_ABLATION)
    assert table.select("factor", "level", "is_default").rows() == [
        ("top_k", "100", True), ("top_k", "500", False), ("normalisation", "features", True),
        ("normalisation", "all_tokens", False)]
    rows = {row["level"]: row for row in table.to_dicts()}
    assert rows["500"]["wins"] == 33 and rows["500"]["n"] == 40 and rows["500"]["n_features"] == 20
    assert (rows["500"]["win_rate_low"], rows["500"]["win_rate_high"]) == pytest.approx(wilson_interval(33, 40))
    assert rows["500"]["control_win_rate"] == pytest.approx(14 / 40)
    p_control = {level: stratified_exact_p([(w, 20, c, 20) for w, c in zip(wins, (8, 6))])
                 for level, wins in (("500", (18, 15)), ("all_tokens", (7, 5)), ("100", (6, 4)))}
    adjusted = holm([p_control["500"], p_control["all_tokens"]])  # the non-default rows only
    assert rows["500"]["p_value_vs_control"] == pytest.approx(p_control["500"])
    assert [rows["500"]["p_value_holm"], rows["all_tokens"]["p_value_holm"]] == pytest.approx(adjusted.tolist())
    assert rows["500"]["verdict"] == verdict(adjusted[0], 33 / 40, 14 / 40) == "better"
    assert rows["all_tokens"]["verdict"] == "no clear difference"
    for level in ("100", "features"):
        assert rows[level]["p_value_holm"] == pytest.approx(p_control["100"])
        assert rows[level]["p_value_vs_default"] is None
    assert rows["500"]["p_value_vs_default"] == pytest.approx(stratified_exact_p([(18, 20, 6, 20), (15, 20, 4, 20)]))
    assert rows["500"]["p_value_vs_default"] < 1e-4
    assert set(table["pair"]) == {"full-full"}


def test_table_refuses_a_factor_without_one_default_level():
    games = _games({("top_k", "100", False): [[1], [-1]], ("top_k", "500", False): [[1], [-1]]})
    control = pl.DataFrame({"game": "toy", "seat": [0, 1], "games": [1, 1], "wins": [1, 0], "draws": 0,
                            "losses": [0, 1], "win_rate": [1.0, 0.0], "mean_score": [1.0, -1.0]},
                           schema_overrides={"seat": pl.Int8})
    with pytest.raises(ValueError, match="exactly one default level"):
        ablation_table(games, control, "full-full")
