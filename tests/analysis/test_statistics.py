"""Evaluation statistics on hand-built tables: Wilson, the exact and stratified exact tests, Holm, the bounded score
interval, the detectable difference, the summary against a control, Tables I-II, effect sizes vs statsmodels."""

from __future__ import annotations

import math
import random

import numpy as np
import polars as pl
import pytest
from scipy import stats

from jbag_pipeline.analysis.statistics import (best_frequency_without_selection, control_table, effect_sizes,
                                               eta_squared, exact_two_proportion_p, holm,
                                               min_detectable_difference, outcome_statistics, score_interval,
                                               stratified_exact_p, summarise, top_pairs, two_way_anova, verdict,
                                               wilson_interval)
from tests.helpers.statistics import games_for_half_width


def games_table(scores_by_key: dict[tuple, list[int]]) -> pl.DataFrame:
    """evaluation_games rows from {(game, frequency, variant, seat): [scores]}."""
    rows = []
    for (game, frequency, variant, seat), scores in scores_by_key.items():
        for index, score in enumerate(scores):
            rows.append({"game": game, "prototype_frequency": frequency, "feature_variant": variant, "seat": seat,
                         "game_index": index, "score": score})
    return pl.DataFrame(rows, schema_overrides={"seat": pl.Int8, "score": pl.Int8})


def control_rows(wins_of: dict[tuple[str, int], tuple[int, int]]) -> pl.DataFrame:
    """evaluation_control rows from {(game, seat): (wins, games)}; the rest of the games are losses."""
    rows = [{"game": g, "seat": s, "games": n, "wins": w, "draws": 0, "losses": n - w, "win_rate": w / n,
             "mean_score": (2 * w - n) / n} for (g, s), (w, n) in wins_of.items()]
    return pl.DataFrame(rows, schema_overrides={"seat": pl.Int8})


# the building blocks

def test_wilson_interval_matches_statsmodels():
    proportion_confint = pytest.importorskip("statsmodels.stats.proportion").proportion_confint
    for wins, n in ((0, 4), (3, 8), (8, 8), (29, 100), (500, 1000)):
        low, high = wilson_interval(wins, n)
        assert (low, high) == pytest.approx(proportion_confint(wins, n, alpha=0.05, method="wilson"), abs=1e-12)
        assert 0 <= low <= wins / n <= high <= 1
    assert all(math.isnan(x) for x in wilson_interval(0, 0))
    with pytest.raises(ValueError, match="successes <= n"):
        wilson_interval(5, 4)


def test_games_for_half_width_is_the_fewest_games_with_that_wilson_interval():
    n = games_for_half_width(0.10)
    assert n == 93  # the normal approximation says 1.96^2 / (4 * 0.1^2) = 96; Wilson is a little narrower
    for games, within in ((n, True), (n - 1, False)):  # 93 games: 46 or 47 wins; 92 games: 46 wins
        widest = max(high - low for low, high in (wilson_interval(k, games) for k in (games // 2, (games + 1) // 2)))
        assert (widest / 2 <= 0.10) is within
    assert games_for_half_width(0.10, rate=0.25) < n and games_for_half_width(0.05) > 3 * n
    with pytest.raises(ValueError, match="half_width"):
        games_for_half_width(0.0)


def test_exact_two_proportion_test_is_fishers_and_never_zero_from_tiny_samples():
    assert exact_two_proportion_p(4, 4, 0, 4) == pytest.approx(2 / 70)  # the two most extreme of C(8,4) tables
    assert exact_two_proportion_p(4, 4, 4, 4) == 1.0  # no spread on either side, nothing differs
    assert exact_two_proportion_p(3, 10, 3, 10) == 1.0
    for wins_a, n_a, wins_b, n_b in ((3, 8, 1, 8), (29, 100, 23, 100), (0, 5, 4, 7)):
        expected = stats.fisher_exact([[wins_a, n_a - wins_a], [wins_b, n_b - wins_b]]).pvalue
        assert exact_two_proportion_p(wins_a, n_a, wins_b, n_b) == pytest.approx(expected, rel=1e-12)
        assert exact_two_proportion_p(wins_b, n_b, wins_a, n_a) == pytest.approx(expected, rel=1e-12)
    assert math.isnan(exact_two_proportion_p(0, 0, 2, 4))
    with pytest.raises(ValueError, match="successes <= n"):
        exact_two_proportion_p(1, 4, 5, 4)


def test_stratified_exact_test_of_one_stratum_is_fishers():
    rng = random.Random(3)
    for _ in range(20):
        n_a, n_b = rng.randint(1, 30), rng.randint(1, 30)
        wins_a, wins_b = rng.randint(0, n_a), rng.randint(0, n_b)
        assert stratified_exact_p([(wins_a, n_a, wins_b, n_b)]) == pytest.approx(
            exact_two_proportion_p(wins_a, n_a, wins_b, n_b), rel=1e-9)


def test_stratified_exact_test_on_a_hand_computed_case():
    # each stratum 2 of 2 against 0 of 2: wins_a is hypergeometric (1/6, 4/6, 1/6) on 0..2; the sum of two
    # strata has (1, 8, 18, 8, 1)/36 on 0..4; observing 4 leaves the two ends: p = 2/36
    assert stratified_exact_p([(2, 2, 0, 2), (2, 2, 0, 2)]) == pytest.approx(2 / 36, rel=1e-12)
    # degenerate strata (a margin 0) are point masses and change nothing
    padded = [(2, 2, 0, 2), (0, 3, 0, 5), (2, 2, 0, 2), (4, 4, 0, 0), (0, 0, 3, 3)]
    assert stratified_exact_p(padded) == pytest.approx(2 / 36, rel=1e-12)
    assert stratified_exact_p([(0, 3, 0, 5)]) == 1.0  # nobody ever won: nothing differs
    assert math.isnan(stratified_exact_p([(1, 3, 0, 0), (0, 0, 1, 2)]))  # no stratum compares the two
    assert math.isnan(stratified_exact_p([]))
    with pytest.raises(ValueError, match="successes <= n"):
        stratified_exact_p([(3, 2, 0, 2)])


def test_stratified_exact_test_agrees_with_cochran_mantel_haenszel_on_large_strata():
    contingency = pytest.importorskip("statsmodels.stats.contingency_tables")
    cases = [[(90, 300, 75, 300), (160, 300, 150, 300), (40, 300, 30, 300), (120, 300, 118, 300)],
             [(60, 250, 40, 260), (100, 240, 90, 250), (20, 260, 15, 240)],
             [(70, 200, 80, 200), (50, 200, 55, 200), (110, 200, 100, 200), (30, 200, 45, 200)]]
    for strata in cases:
        tables = np.array([[[wa, na - wa], [wb, nb - wb]] for wa, na, wb, nb in strata]).transpose(1, 2, 0)
        table = contingency.StratifiedTable(tables)
        ours = stratified_exact_p(strata)
        assert 0.005 < ours < 0.9  # a case where the two could disagree
        # the exact conditional test sits next to the continuity-corrected CMH test, a little above the plain one
        assert ours == pytest.approx(table.test_null_odds(correction=True).pvalue, abs=0.005)
        assert ours == pytest.approx(table.test_null_odds().pvalue, rel=0.15)
        swapped = [(wb, nb, wa, na) for wa, na, wb, nb in strata]
        assert stratified_exact_p(swapped) == pytest.approx(ours, rel=1e-9)


def test_holm_matches_statsmodels_and_passes_nan_through():
    multipletests = pytest.importorskip("statsmodels.stats.multitest").multipletests
    p = [0.01, math.nan, 0.04, 0.03, 0.5, 0.004]
    ours = holm(p)
    valid = [x for x in p if not math.isnan(x)]
    expected = iter(multipletests(valid, method="holm")[1])
    for mine, original in zip(ours, p):
        if math.isnan(original):
            assert math.isnan(mine)
        else:
            assert mine == pytest.approx(next(expected), abs=1e-15)
    assert holm([0.01, 0.04, 0.03]).tolist() == pytest.approx([0.03, 0.06, 0.06])  # 3 tests, step-down, monotone
    assert holm([]).size == 0 and math.isnan(holm([math.nan])[0])
    with pytest.raises(ValueError, match=r"in \[0, 1\]"):
        holm([0.2, 1.5])


def test_verdict():
    assert verdict(0.01, 0.40, 0.25) == "better"
    assert verdict(0.01, 0.10, 0.25) == "worse"
    assert verdict(0.05, 0.40, 0.25) == "no clear difference"  # not below alpha
    assert verdict(0.04, 0.40, 0.25, alpha=0.01) == "no clear difference"
    assert verdict(math.nan, 1.0, 0.0) == "no clear difference"


def test_min_detectable_difference_matches_statsmodels_power_on_cohens_h():
    NormalIndPower = pytest.importorskip("statsmodels.stats.power").NormalIndPower
    for n, n_control, control_rate in ((100, 100, 0.25), (300, 600, 0.5), (1000, 1000, 0.03), (40, 120, 0.6)):
        d = min_detectable_difference(n, n_control, control_rate)
        h = NormalIndPower().solve_power(nobs1=n, ratio=n_control / n, alpha=0.05, power=0.8)
        expected = math.sin(math.asin(math.sqrt(control_rate)) + abs(h) / 2) ** 2 - control_rate
        assert d == pytest.approx(expected, abs=1e-6)
        assert 0 < d <= 1 - control_rate
        power = NormalIndPower().power(effect_size=2 * math.asin(math.sqrt(control_rate + d))
                                       - 2 * math.asin(math.sqrt(control_rate)), nobs1=n, alpha=0.05,
                                       ratio=n_control / n)
        assert power == pytest.approx(0.8, abs=1e-6)
    assert min_detectable_difference(400, 400, 0.25) < min_detectable_difference(100, 100, 0.25)
    assert min_detectable_difference(2, 2, 0.5) == 0.5  # even a sure win is not found at n = 2: capped
    assert math.isnan(min_detectable_difference(0, 10, 0.5)) and math.isnan(min_detectable_difference(10, 10, 1.0))
    with pytest.raises(ValueError, match="alpha < power"):
        min_detectable_difference(10, 10, 0.5, alpha=0.9, power=0.8)


def test_score_interval_stays_in_range_and_is_seeded():
    for counts in ((3, 0, 1), (1, 0, 3), (1, 2, 1), (9, 0, 1), (0, 1, 7)):
        low, high = score_interval(*counts)
        mean = (counts[0] - counts[2]) / sum(counts)
        assert -1 <= low <= mean <= high <= 1
        assert score_interval(*counts) == (low, high)  # seeded
    assert score_interval(4, 0, 0) == (1.0, 1.0)  # zero variance: the point
    assert score_interval(0, 5, 0) == (0.0, 0.0)
    assert all(math.isnan(x) for x in score_interval(0, 0, 0))
    # large n: close to the normal interval of the mean
    wins, draws, losses = 400, 200, 400
    half = (score_interval(wins, draws, losses)[1] - score_interval(wins, draws, losses)[0]) / 2
    sd = math.sqrt((wins + losses) / 1000)
    assert half == pytest.approx(1.959964 * sd / math.sqrt(1000), rel=0.1)
    assert score_interval(3, 1, 2, seed=1) != score_interval(3, 1, 2, seed=2)
    with pytest.raises(ValueError, match="counts must be >= 0"):
        score_interval(-1, 2, 2)


def test_outcome_statistics_of_one_group():
    stats_ = outcome_statistics(3, 1, 1)
    assert (stats_["n"], stats_["mean"], stats_["win_rate"]) == (5, 0.4, 0.6)
    assert (stats_["ci_low"], stats_["ci_high"]) == score_interval(3, 1, 1)
    assert (stats_["win_rate_low"], stats_["win_rate_high"]) == wilson_interval(3, 5)
    with pytest.raises(ValueError, match="at least one game"):
        outcome_statistics(0, 0, 0)


# the summary against the control

def test_summary_of_eight_games_against_the_control():
    table = games_table({("g", "full", "none", 0): [1, 1, -1, 1], ("g", "full", "none", 1): [-1, -1, 0, 0]})
    control = control_rows({("g", 0): (1, 4), ("g", 1): (2, 4)})
    summary = summarise(table, control)
    assert summary["scope"].to_list() == ["seat 0", "seat 1", "overall"]
    seat0, seat1, overall = summary.iter_rows(named=True)
    assert (seat0["n"], seat0["wins"], seat0["draws"], seat0["losses"]) == (4, 3, 0, 1)
    assert seat0["mean"] == 0.5 and seat0["win_rate"] == 0.75 and seat0["control_win_rate"] == 0.25
    assert (seat0["ci_low"], seat0["ci_high"]) == score_interval(3, 0, 1)
    assert (seat0["win_rate_low"], seat0["win_rate_high"]) == wilson_interval(3, 4)
    assert seat0["p_value_vs_control"] == pytest.approx(stats.fisher_exact([[3, 1], [1, 3]]).pvalue)
    assert seat0["min_detectable_difference"] == min_detectable_difference(4, 4, 0.25)
    assert seat0["best_worst_diff"] is None
    assert (seat1["wins"], seat1["draws"], seat1["losses"], seat1["mean"]) == (0, 2, 2, -0.5)
    assert seat1["p_value_vs_control"] == pytest.approx(stats.fisher_exact([[0, 4], [2, 2]]).pvalue)
    assert (overall["n"], overall["wins"], overall["seat"]) == (8, 3, None)
    assert overall["mean"] == 0.0 and overall["win_rate"] == 3 / 8 and overall["control_win_rate"] == 3 / 8
    assert overall["p_value_vs_control"] == stratified_exact_p([(3, 4, 1, 4), (0, 4, 2, 4)])
    assert 0 < overall["p_value_vs_control"] <= 1
    assert overall["best_worst_diff"] == 1.0  # 0.5 - (-0.5)
    assert all(-1 <= row["ci_low"] <= row["mean"] <= row["ci_high"] <= 1 for row in (seat0, seat1, overall))
    # one pair: Holm changes nothing, and 4 games per seat decide nothing
    assert summary["p_value_holm"].to_list() == summary["p_value_vs_control"].to_list()
    assert set(summary["verdict"]) == {"no clear difference"}


def test_a_zero_variance_sample_gives_its_point_and_no_fake_significance():
    table = games_table({("g", "full", "none", 0): [1, 1, 1, 1]})
    summary = summarise(table, control_rows({("g", 0): (4, 4)}))
    seat0 = summary.row(0, named=True)
    assert (seat0["ci_low"], seat0["ci_high"]) == (1.0, 1.0)
    assert seat0["p_value_vs_control"] == 1.0 and seat0["verdict"] == "no clear difference"
    against_losses = summarise(table, control_rows({("g", 0): (0, 4)})).row(0, named=True)
    assert against_losses["p_value_vs_control"] == pytest.approx(2 / 70)  # 4 of 4 vs 0 of 4: small, never 0
    assert against_losses["verdict"] == "better"  # 4 of 4 against 0 of 4 is significant on its own
    assert 0.5 < against_losses["min_detectable_difference"] < 1.0


def test_holm_across_three_pairs_and_their_verdicts():
    pairs = {("full", "none"): 40, ("full", "full"): 10, ("full", "full_seg"): 0}  # wins of 40 in each seat
    table = games_table({("g", f, v, seat): [1] * wins + [-1] * (40 - wins)
                         for (f, v), wins in pairs.items() for seat in (0, 1)})
    table = pl.concat([table, games_table({("h", "full", "none", 0): [1, -1]})])
    control = control_rows({("g", 0): (10, 40), ("g", 1): (10, 40), ("h", 0): (1, 2)})
    summary = summarise(table, control)
    g = summary.filter(pl.col("game") == "g")
    for scope in ("overall", "seat 0", "seat 1"):
        family = g.filter(pl.col("scope") == scope)
        assert family.height == 3
        assert family["p_value_holm"].to_list() == pytest.approx(holm(family["p_value_vs_control"].to_list()).tolist())
    overall = {row["feature_variant"]: row for row in g.filter(pl.col("scope") == "overall").iter_rows(named=True)}
    assert overall["none"]["verdict"] == "better" and overall["full_seg"]["verdict"] == "worse"
    assert overall["full"]["verdict"] == "no clear difference" and overall["full"]["p_value_holm"] == pytest.approx(1.0)
    assert overall["none"]["p_value_holm"] > overall["none"]["p_value_vs_control"]
    h = summary.filter(pl.col("game") == "h")  # its own family: one pair, Holm leaves it
    assert h["p_value_holm"].to_list() == h["p_value_vs_control"].to_list()


def test_other_keys_such_as_a_half_column():
    table = games_table({("g", "full", "none", 0): [1, 1, -1, 1], ("g", "full", "none", 1): [-1, 1, 0, 0]})
    table = pl.concat([table.with_columns(pl.lit(h).alias("half")) for h in ("a", "b")])
    summary = summarise(table, control_rows({("g", 0): (1, 4), ("g", 1): (2, 4)}),
                        keys=("game", "prototype_frequency", "feature_variant", "half"))
    assert summary.height == 6 and summary["half"].to_list() == ["a"] * 3 + ["b"] * 3
    overall = summary.filter(pl.col("scope") == "overall")
    assert overall["p_value_holm"].to_list() == pytest.approx(holm(overall["p_value_vs_control"].to_list()).tolist())
    with pytest.raises(ValueError, match="keys must include 'game'"):
        summarise(table, control_rows({("g", 0): (1, 4)}), keys=("half",))


def test_the_holm_family_can_be_narrower_than_a_game():
    table = games_table({("g", "full", v, 0): [1] * wins + [-1] * (20 - wins)
                         for v, wins in (("none", 2), ("full", 12), ("full_seg", 15))})
    table = pl.concat([table.with_columns(pl.lit(s).alias("share")) for s in (0.5, 1.0)])
    keys = ("game", "share", "prototype_frequency", "feature_variant")
    control = control_rows({("g", 0): (6, 20)})
    narrow = summarise(table, control, keys=keys, family=("game", "share")).filter(pl.col("scope") == "overall")
    wide = summarise(table, control, keys=keys).filter(pl.col("scope") == "overall")
    for share in (0.5, 1.0):
        family = narrow.filter(pl.col("share") == share)
        assert family["p_value_holm"].to_list() == pytest.approx(holm(family["p_value_vs_control"].to_list()).tolist())
    assert (narrow["p_value_holm"] < wide["p_value_holm"]).all()  # three tests paid for instead of six
    with pytest.raises(ValueError, match="Holm family"):
        summarise(table, control, keys=keys, family=("game", "half"))


def test_summary_rejects_bad_tables_and_a_missing_control():
    control = control_rows({("g", 0): (1, 4)})
    with pytest.raises(ValueError, match="lacks columns"):
        summarise(pl.DataFrame({"game": ["g"], "score": [1]}), control)
    with pytest.raises(ValueError, match="score must be -1, 0 or 1"):
        summarise(games_table({("g", "full", "none", 0): [1, 2]}), control)
    two_seats = games_table({("g", "full", "none", 0): [1], ("g", "full", "none", 1): [1]})
    with pytest.raises(ValueError, match="no row for game 'g' seat 1"):
        summarise(two_seats, control)
    with pytest.raises(ValueError, match="evaluation_control lacks columns"):
        summarise(two_seats, control.drop("wins"))
    with pytest.raises(ValueError, match="game 'g' seat 0 appears twice"):
        summarise(two_seats, pl.concat([control, control]))
    with pytest.raises(ValueError, match="game 'g' seat 0 needs games >= 1"):
        summarise(two_seats, control_rows({("g", 0): (1, 4)}).with_columns(pl.lit(0).alias("games")))


def test_control_table_counts_each_seat():
    games = pl.DataFrame({"game": ["g"] * 6, "seat": [0, 0, 0, 1, 1, 1], "score": [1, 0, -1, -1, -1, 1]},
                         schema_overrides={"seat": pl.Int8})
    control = control_table(games)
    assert control.columns == ["game", "seat", "games", "wins", "draws", "losses", "win_rate", "mean_score"]
    assert control.rows() == [("g", 0, 3, 1, 1, 1, 1 / 3, 0.0), ("g", 1, 3, 1, 0, 2, 1 / 3, -1 / 3)]


def _pairs_table() -> pl.DataFrame:
    means = {("full", "none"): [1, 1, 0, 1], ("random", "none"): [1, 0, 0, 0], ("interval", "full_seg"): [1, 1, 1, 1],
             ("full", "full"): [1, 1, 1, 0], ("random", "full"): [-1, -1, 0, 0]}
    table = {("g", f, v, seat): scores[seat * 2:seat * 2 + 2] for (f, v), scores in means.items() for seat in (0, 1)}
    table[("h", "full", "none", 0)] = [0, 0]
    table[("h", "interval", "none", 0)] = [1, -1]
    return games_table(table)


PAIRS_CONTROL = {("g", 0): (1, 2), ("g", 1): (1, 2), ("h", 0): (1, 2)}


def test_table_one_ranks_pairs_by_overall_mean():
    summary = summarise(_pairs_table(), control_rows(PAIRS_CONTROL))
    table = top_pairs(summary, k=3)
    g = table.filter(pl.col("game") == "g")
    assert g["rank"].to_list() == [1, 2, 3]
    assert list(zip(g["prototype_frequency"], g["feature_variant"])) == [
        ("interval", "full_seg"), ("full", "full"), ("full", "none")]  # 1.0, then two at 0.75 ordered by CI, name
    assert g["mean"].to_list() == [1.0, 0.75, 0.75]
    assert g["best_worst_diff"].to_list() == [0.0, 0.5, 0.5]
    assert g["win_rate"].to_list() == [1.0, 0.75, 0.75] and g["control_win_rate"].to_list() == [0.5] * 3
    for column in ("win_rate_low", "win_rate_high", "p_value_vs_control", "p_value_holm", "verdict"):
        assert column in table.columns and table[column].null_count() == 0
    assert table.filter(pl.col("game") == "h").height == 2  # fewer pairs than k
    with pytest.raises(ValueError, match="k must be >= 1"):
        top_pairs(summary, k=0)


def test_table_two_picks_the_best_frequency_without_selection():
    table = best_frequency_without_selection(summarise(_pairs_table(), control_rows(PAIRS_CONTROL)))
    assert table["game"].to_list() == ["g", "h"]
    assert table["prototype_frequency"].to_list() == ["full", "full"]  # h: both 0.0, the narrower CI wins
    assert table["feature_variant"].to_list() == ["none", "none"]
    assert "verdict" in table.columns and "p_value_holm" in table.columns


# effect sizes

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


def test_partial_eta_omega_and_f_test_match_statsmodels_type_two_anova_unbalanced():
    table = _factorial_table(4, [5, 9, 3, 7, 11])
    result, total = _anova_sums(table, "score ~ C(prototype_frequency) * C(feature_variant)", typ=2)
    residual_ss, residual_df = result.loc["Residual", "sum_sq"], result.loc["Residual", "df"]
    mean_square_error = residual_ss / residual_df
    sizes = effect_sizes(table)
    for row in sizes.iter_rows(named=True):
        term = result.loc[f"C({row['factor']})"]
        assert row["p_value"] == pytest.approx(term["PR(>F)"], rel=1e-7)
        assert row["partial_eta_squared"] == pytest.approx(term["sum_sq"] / (term["sum_sq"] + residual_ss), rel=1e-9)
        assert row["omega_squared"] == pytest.approx(
            (term["sum_sq"] - term["df"] * mean_square_error) / (total + mean_square_error), rel=1e-9)
        assert row["n"] == table.height
        assert row["null_eta_squared"] == pytest.approx((row["levels"] - 1) / (table.height - 1))
    assert sizes["levels"].to_list() == [3, 4]
    frame = table.to_pandas()
    interaction = two_way_anova(frame["score"].to_numpy(), frame["prototype_frequency"].to_numpy(),
                                frame["feature_variant"].to_numpy())["interaction"]
    expected = result.loc["C(prototype_frequency):C(feature_variant)"]
    assert (interaction["sum_sq"], interaction["df"]) == (pytest.approx(expected["sum_sq"]), expected["df"])
    assert interaction["p_value"] == pytest.approx(expected["PR(>F)"], rel=1e-7)


def test_omega_squared_removes_the_many_level_bias_under_the_null():
    rng = np.random.default_rng(5)
    etas = {"prototype_frequency": [], "feature_variant": []}
    omegas = {"prototype_frequency": [], "feature_variant": []}
    frequencies = [f"f{i}" for i in range(8)]
    for _ in range(30):  # scores independent of both factors: 8 x 3 levels, 2 games per cell
        rows = [{"game": "g", "prototype_frequency": f, "feature_variant": v, "score": int(rng.choice([-1, 0, 1]))}
                for f in frequencies for v in ("none", "full", "full_seg") for _ in range(2)]
        for row in effect_sizes(pl.DataFrame(rows)).iter_rows(named=True):
            etas[row["factor"]].append(row["eta_squared"])
            omegas[row["factor"]].append(row["omega_squared"])
    assert np.mean(etas["prototype_frequency"]) == pytest.approx(7 / 47, abs=0.05)  # (k - 1) / (N - 1)
    assert np.mean(etas["prototype_frequency"]) > 2 * np.mean(etas["feature_variant"])
    assert abs(np.mean(omegas["prototype_frequency"])) < 0.03 and abs(np.mean(omegas["feature_variant"])) < 0.03


def test_eta_squared_edge_cases():
    assert math.isnan(eta_squared(np.array([1, 1, 1]), np.array(["a", "b", "a"])))
    assert eta_squared(np.array([1, -1, 1, -1]), np.array(["a", "a", "a", "a"])) == 0.0
    assert eta_squared(np.array([1, 1, -1, -1]), np.array(["a", "a", "b", "b"])) == 1.0
    with pytest.raises(ValueError, match="one level per score"):
        eta_squared(np.array([1, 0]), np.array(["a"]))
    sizes = effect_sizes(_factorial_table(3, [4]))
    assert sizes.columns == ["game", "factor", "levels", "n", "eta_squared", "null_eta_squared",
                             "partial_eta_squared", "omega_squared", "p_value"]
    assert sizes["factor"].to_list() == ["prototype_frequency", "feature_variant"]


def test_a_factor_with_one_level_gives_nan():
    table = _factorial_table(6, [6]).filter(pl.col("prototype_frequency") == "full")
    one, variant = effect_sizes(table).iter_rows(named=True)
    assert one["levels"] == 1
    assert all(math.isnan(one[c]) for c in ("eta_squared", "null_eta_squared", "partial_eta_squared",
                                            "omega_squared", "p_value"))
    assert variant["levels"] == 4 and 0 <= variant["p_value"] <= 1
    expected = stats.f_oneway(*[table.filter(pl.col("feature_variant") == v)["score"].cast(float).to_numpy()
                                for v in ("none", "full", "full_seg", "adaptive")]).pvalue
    assert variant["p_value"] == pytest.approx(expected, rel=1e-9)  # with one level of the other: one-way ANOVA
