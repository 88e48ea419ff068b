"""Evaluation statistics: hand-computed summaries, the degenerate cases, Tables I-II, eta-squared vs statsmodels."""

from __future__ import annotations

import math
import random

import numpy as np
import polars as pl
import pytest

from jbag_pipeline.statistics import (best_frequency_without_selection, effect_sizes, eta_squared, mean_interval,
                                      summarise, top_pairs)

T_975_DF3 = 3.182446305284263  # two-sided 95% Student t quantile with 3 degrees of freedom (t tables)


def games_table(scores_by_key: dict[tuple, list[int]]) -> pl.DataFrame:
    """evaluation_games rows from {(game, frequency, variant, seat): [scores]}."""
    rows = []
    for (game, frequency, variant, seat), scores in scores_by_key.items():
        for index, score in enumerate(scores):
            rows.append({"game": game, "prototype_frequency": frequency, "feature_variant": variant, "seat": seat,
                         "game_index": index, "score": score})
    return pl.DataFrame(rows, schema_overrides={"seat": pl.Int8, "score": pl.Int8})


def t_sf_df3(t: float) -> float:
    """Upper tail of Student's t with 3 degrees of freedom, in closed form."""
    x = t / math.sqrt(3)
    return 0.5 - (x / (1 + x * x) + math.atan(x)) / math.pi


def test_summary_matches_hand_computed_mean_interval_and_test():
    table = games_table({("g", "full", "none", 0): [1, 1, -1, 1], ("g", "full", "none", 1): [-1, -1, 0, 0]})
    summary = summarise(table)
    assert summary["scope"].to_list() == ["seat 0", "seat 1", "overall"]
    seat0 = summary.row(0, named=True)
    # mean 0.5, sample sd 1, standard error 0.5, t = 1 with 3 degrees of freedom
    assert seat0["n"] == 4 and seat0["mean"] == 0.5
    assert seat0["ci_low"] == pytest.approx(0.5 - T_975_DF3 * 0.5, abs=1e-12)
    assert seat0["ci_high"] == pytest.approx(0.5 + T_975_DF3 * 0.5, abs=1e-12)
    assert seat0["p_value"] == pytest.approx(2 * t_sf_df3(1.0), abs=1e-12)
    assert seat0["best_worst_diff"] is None
    seat1 = summary.row(1, named=True)
    sd1 = math.sqrt((2 * 0.5 ** 2 + 2 * 0.5 ** 2) / 3)  # scores -1,-1,0,0 around mean -0.5
    assert seat1["mean"] == -0.5
    assert seat1["ci_high"] == pytest.approx(-0.5 + T_975_DF3 * sd1 / 2, abs=1e-12)
    assert seat1["p_value"] == pytest.approx(2 * t_sf_df3(0.5 / (sd1 / 2)), abs=1e-12)
    overall = summary.row(2, named=True)
    assert overall["n"] == 8 and overall["mean"] == 0.0 and overall["seat"] is None
    assert overall["best_worst_diff"] == 1.0  # 0.5 - (-0.5)
    assert overall["p_value"] == pytest.approx(1.0)
    assert overall["ci_low"] == pytest.approx(-overall["ci_high"])


def test_degenerate_groups_are_explicit():
    assert mean_interval(1, 1.0, 0.0)[:2] == (1.0, 1.0) and math.isnan(mean_interval(1, 1.0, 0.0)[2])
    assert mean_interval(5, 1.0, 0.0) == (1.0, 1.0, 0.0)  # won every game: no spread, certainly above 0
    assert mean_interval(5, 0.0, 0.0) == (0.0, 0.0, 1.0)  # all draws
    summary = summarise(games_table({("g", "full", "none", 0): [1], ("g", "full", "none", 1): [-1, -1]}))
    one, flat, overall = summary.iter_rows(named=True)
    assert (one["ci_low"], one["ci_high"]) == (1.0, 1.0) and math.isnan(one["p_value"])
    assert (flat["ci_low"], flat["ci_high"], flat["p_value"]) == (-1.0, -1.0, 0.0)
    assert overall["best_worst_diff"] == 2.0
    with pytest.raises(ValueError, match="n must be >= 1"):
        mean_interval(0, 0.0, 0.0)


def test_summary_rejects_bad_tables():
    with pytest.raises(ValueError, match="lacks columns"):
        summarise(pl.DataFrame({"game": ["g"], "score": [1]}))
    bad = games_table({("g", "full", "none", 0): [1, 2]})
    with pytest.raises(ValueError, match="score must be -1, 0 or 1"):
        summarise(bad)


def _pairs_table() -> pl.DataFrame:
    means = {("full", "none"): [1, 1, 0, 1], ("random", "none"): [1, 0, 0, 0], ("interval", "full_seg"): [1, 1, 1, 1],
             ("full", "full"): [1, 1, 1, 0], ("random", "full"): [-1, -1, 0, 0]}
    table = {("g", f, v, seat): scores[seat * 2:seat * 2 + 2] for (f, v), scores in means.items() for seat in (0, 1)}
    table[("h", "full", "none", 0)] = [0, 0]
    table[("h", "interval", "none", 0)] = [1, -1]
    return games_table(table)


def test_table_one_ranks_pairs_by_overall_mean():
    summary = summarise(_pairs_table())
    table = top_pairs(summary, k=3)
    g = table.filter(pl.col("game") == "g")
    assert g["rank"].to_list() == [1, 2, 3]
    assert list(zip(g["prototype_frequency"], g["feature_variant"])) == [
        ("interval", "full_seg"), ("full", "full"), ("full", "none")]  # 1.0, then two at 0.75 ordered by CI, name
    assert g["mean"].to_list() == [1.0, 0.75, 0.75]
    assert g["best_worst_diff"].to_list() == [0.0, 0.5, 0.5]
    assert table.filter(pl.col("game") == "h").height == 2  # fewer pairs than k
    with pytest.raises(ValueError, match="k must be >= 1"):
        top_pairs(summary, k=0)


def test_table_two_picks_the_best_frequency_without_selection():
    table = best_frequency_without_selection(summarise(_pairs_table()))
    assert table["game"].to_list() == ["g", "h"]
    assert table["prototype_frequency"].to_list() == ["full", "full"]  # h: both 0.0, the narrower CI wins
    assert table["feature_variant"].to_list() == ["none", "none"]


def _factorial_table(seed: int, games_per_cell: list[int]) -> pl.DataFrame:
    rng = random.Random(seed)
    frequencies, variants = ["full", "interval", "random"], ["none", "full", "full_seg", "adaptive"]
    rows, cell = [], 0
    for f, frequency in enumerate(frequencies):
        for v, variant in enumerate(variants):
            for index in range(games_per_cell[cell % len(games_per_cell)]):
                bias = 0.3 * v - 0.1 * f
                score = 1 if rng.random() < 0.4 + bias / 2 else (0 if rng.random() < 0.3 else -1)
                rows.append({"game": "g", "prototype_frequency": frequency, "feature_variant": variant, "seat": 0,
                             "game_index": index, "score": score})
            cell += 1
    return pl.DataFrame(rows)


def _anova_sums(table: pl.DataFrame, formula: str, typ: int):
    smf = pytest.importorskip("statsmodels.formula.api")
    anova_lm = pytest.importorskip("statsmodels.stats.anova").anova_lm
    frame = table.select("score", "prototype_frequency", "feature_variant").to_pandas()
    frame["score"] = frame["score"].astype(float)
    result = anova_lm(smf.ols(formula, data=frame).fit(), typ=typ)
    total = float(((frame["score"] - frame["score"].mean()) ** 2).sum())
    return result, total


def test_eta_squared_matches_statsmodels_two_way_anova_balanced():
    table = _factorial_table(1, [12])
    result, total = _anova_sums(table, "score ~ C(prototype_frequency) * C(feature_variant)", typ=2)
    ours = {row["factor"]: row["eta_squared"] for row in effect_sizes(table).iter_rows(named=True)}
    for factor in ("prototype_frequency", "feature_variant"):
        assert ours[factor] == pytest.approx(result.loc[f"C({factor})", "sum_sq"] / total, rel=1e-9)
        assert 0 <= ours[factor] <= 1
    assert ours["feature_variant"] > ours["prototype_frequency"]  # the variant effect built into the data


def test_eta_squared_is_the_type_one_sum_of_squares_of_the_factor_entered_first():
    table = _factorial_table(2, [5, 9, 3, 7])  # unbalanced: type I and II differ, ours is type I entered first
    ours = {row["factor"]: row["eta_squared"] for row in effect_sizes(table).iter_rows(named=True)}
    for first, second in (("prototype_frequency", "feature_variant"), ("feature_variant", "prototype_frequency")):
        result, total = _anova_sums(table, f"score ~ C({first}) + C({second})", typ=1)
        assert ours[first] == pytest.approx(result.loc[f"C({first})", "sum_sq"] / total, rel=1e-9)


def test_eta_squared_edge_cases():
    assert math.isnan(eta_squared(np.array([1, 1, 1]), np.array(["a", "b", "a"])))
    assert eta_squared(np.array([1, -1, 1, -1]), np.array(["a", "a", "a", "a"])) == 0.0
    assert eta_squared(np.array([1, 1, -1, -1]), np.array(["a", "a", "b", "b"])) == 1.0
    with pytest.raises(ValueError, match="one level per score"):
        eta_squared(np.array([1, 0]), np.array(["a"]))
    sizes = effect_sizes(_factorial_table(3, [4]))
    assert sizes.columns == ["game", "factor", "eta_squared"]
    assert sizes["factor"].to_list() == ["prototype_frequency", "feature_variant"]
