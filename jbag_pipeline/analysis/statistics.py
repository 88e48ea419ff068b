"""Evaluation statistics: win rates against a control arm, exact tests, Holm, bounded score intervals, the paper's
Tables I and II, and effect sizes of the two factors (Table III).

Every comparison the product reports (evaluation pairs, transfer methods) goes through these functions: the
agent's wins in a seat against the control's wins in that seat (Fisher's exact test), overall stratified by seat
(the exact conditional test of a common odds ratio 1), Holm across the comparisons of a game, and a verdict at
alpha after Holm. Intervals never leave the possible range: Wilson for win rates, a multinomial bootstrap for the
mean score in {-1, 0, 1}; a sample without spread gives its point and no p-value of 0.
"""

from __future__ import annotations

import math
from typing import Iterable, Sequence

import numpy as np
import polars as pl
from scipy import optimize, special, stats

from jbag_pipeline.model.variants import NO_SELECTION
from jbag_pipeline.model.tables import require_columns
from jbag_pipeline.schemas import EFFECT_SIZES, EVALUATION_CONTROL, EVALUATION_SUMMARY, OUTCOME_STATISTICS
from jbag_pipeline.schemas import PAPER_TABLE_1, PAPER_TABLE_2, conform

PAIR = ("game", "prototype_frequency", "feature_variant")
EFFECT_FACTORS = ("prototype_frequency", "feature_variant")
OVERALL = "overall"
BETTER, WORSE, NO_CLEAR_DIFFERENCE = "better", "worse", "no clear difference"
BOOTSTRAP_RESAMPLES = 2000
RELATIVE_TOLERANCE = 1e-7  # as scipy's fisher_exact: probabilities this close to the observed one count as equal


def _check_games(games: pl.DataFrame, needed: tuple[str, ...]) -> None:
    require_columns(games, "evaluation_games", needed)
    if games["score"].null_count():
        raise ValueError("evaluation_games: score has null values")
    if not games["score"].is_in([-1, 0, 1]).all():
        raise ValueError(f"evaluation_games: score must be -1, 0 or 1, got {sorted(games['score'].unique().to_list())}")


def _check_count(where: str, successes: int, n: int) -> None:
    if n < 0 or not 0 <= successes <= n:
        raise ValueError(f"{where}: need 0 <= successes <= n, got {successes} of {n}")


def wilson_interval(successes: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval of a binomial proportion (scipy's binomtest); (nan, nan) when n = 0."""
    _check_count("wilson_interval", successes, n)
    if n == 0:
        return math.nan, math.nan
    interval = stats.binomtest(successes, n).proportion_ci(confidence_level=confidence, method="wilson")
    return float(interval.low), float(interval.high)


def score_interval(wins: int, draws: int, losses: int, confidence: float = 0.95,
                   seed: int = 0) -> tuple[float, float]:
    """Percentile interval of the mean score (+1 win, 0 draw, -1 loss) from a seeded multinomial bootstrap.

    Always within [-1, 1]; a sample with one outcome only gives that point; (nan, nan) when there are no games.
    """
    counts = np.array([wins, draws, losses])
    if (counts < 0).any():
        raise ValueError(f"score_interval: counts must be >= 0, got wins={wins} draws={draws} losses={losses}")
    n = int(counts.sum())
    if n == 0:
        return math.nan, math.nan
    if (counts == n).any():
        point = (wins - losses) / n
        return point, point
    resampled = np.random.default_rng(seed).multinomial(n, counts / n, size=BOOTSTRAP_RESAMPLES)
    means = (resampled[:, 0] - resampled[:, 2]) / n
    tail = (1 - confidence) / 2
    low, high = np.quantile(means, [tail, 1 - tail])
    return float(low), float(high)


def exact_two_proportion_p(wins_a: int, n_a: int, wins_b: int, n_b: int) -> float:
    """Two-sided Fisher exact test of equal win probabilities of a and b; NaN when either has no games."""
    _check_count("exact_two_proportion_p (a)", wins_a, n_a)
    _check_count("exact_two_proportion_p (b)", wins_b, n_b)
    if n_a == 0 or n_b == 0:
        return math.nan
    return float(stats.fisher_exact([[wins_a, n_a - wins_a], [wins_b, n_b - wins_b]]).pvalue)


def _conditional_pmf(wins_a: int, n_a: int, wins_b: int, n_b: int) -> tuple[int, np.ndarray]:
    """(lowest possible wins_a, pmf of wins_a) given the stratum's margins: hypergeometric, a point mass if fixed."""
    total, wins = n_a + n_b, wins_a + wins_b
    lowest, highest = max(0, n_a - (total - wins)), min(n_a, wins)
    if lowest == highest:
        return lowest, np.ones(1)
    return lowest, stats.hypergeom.pmf(np.arange(lowest, highest + 1), total, wins, n_a)


def stratified_exact_p(strata: Iterable[Sequence[int]]) -> float:
    """Exact two-sided test of a common odds ratio 1 across strata of (wins_a, n_a, wins_b, n_b).

    Given every stratum's margins, the sum of wins_a is distributed as the convolution of the strata's
    hypergeometric pmfs; p is the mass of the sums no more likely than the observed one. NaN when no stratum
    has games on both sides.
    """
    distribution, lowest, observed, informative = np.ones(1), 0, 0, False
    for stratum in strata:
        wins_a, n_a, wins_b, n_b = (int(x) for x in stratum)
        _check_count("stratified_exact_p (a)", wins_a, n_a)
        _check_count("stratified_exact_p (b)", wins_b, n_b)
        informative |= n_a > 0 and n_b > 0
        start, pmf = _conditional_pmf(wins_a, n_a, wins_b, n_b)
        distribution, lowest, observed = np.convolve(distribution, pmf), lowest + start, observed + wins_a
    if not informative:
        return math.nan
    at_observed = distribution[observed - lowest]
    return float(min(1.0, distribution[distribution <= at_observed * (1 + RELATIVE_TOLERANCE)].sum()))


def holm(p_values: Sequence[float]) -> np.ndarray:
    """Holm step-down adjusted p-values; NaN stays NaN and does not count towards the number of tests."""
    p = np.asarray(p_values, dtype=np.float64)
    if p.ndim != 1:
        raise ValueError(f"holm: expected a 1-d sequence of p-values, got shape {p.shape}")
    valid = np.flatnonzero(~np.isnan(p))
    if ((p[valid] < 0) | (p[valid] > 1)).any():
        raise ValueError(f"holm: p-values must be in [0, 1], got {p[valid].tolist()}")
    order = valid[np.argsort(p[valid], kind="stable")]
    adjusted = np.full(p.shape, np.nan)
    multipliers = len(order) - np.arange(len(order))
    adjusted[order] = np.minimum(np.maximum.accumulate(multipliers * p[order]), 1.0)
    return adjusted


def verdict(p_holm: float, rate: float, control_rate: float, alpha: float = 0.05) -> str:
    """'better' or 'worse' than the control when the Holm-adjusted p is below alpha, else 'no clear difference'."""
    if not p_holm < alpha or rate == control_rate:  # a NaN p (no test possible) is no evidence either
        return NO_CLEAR_DIFFERENCE
    return BETTER if rate > control_rate else WORSE


def _two_proportion_power(rate: float, control_rate: float, n: int, n_control: int, alpha: float) -> float:
    """Power of the two-sided normal test on Cohen's h = 2 asin(sqrt(rate)) - 2 asin(sqrt(control_rate))."""
    h = 2 * math.asin(math.sqrt(rate)) - 2 * math.asin(math.sqrt(control_rate))
    shift, critical = h * math.sqrt(n * n_control / (n + n_control)), -special.ndtri(alpha / 2)
    # the standard normal cdf as scipy.special.ndtr: stats.norm's generic machinery costs ~1 ms a call in brentq
    return float(special.ndtr(shift - critical) + special.ndtr(-critical - shift))


def min_detectable_difference(n: int, n_control: int, control_rate: float, alpha: float = 0.05,
                              power: float = 0.8) -> float:
    """Smallest win-rate gain d > 0 over control_rate that a two-sided test at alpha finds with this power.

    Normal approximation on Cohen's h (arcsine). Capped at 1 - control_rate when even a win rate of 1 is not
    found with that power; NaN without games on either side or when control_rate is 1 (no room above).
    """
    if not 0 < alpha < power < 1:
        raise ValueError(f"min_detectable_difference: need 0 < alpha < power < 1, got alpha={alpha}, power={power}")
    if n < 0 or n_control < 0 or not 0 <= control_rate <= 1:
        raise ValueError(f"min_detectable_difference: need n, n_control >= 0 and control_rate in [0, 1], got "
                         f"{n}, {n_control}, {control_rate}")
    room = 1.0 - control_rate
    if n == 0 or n_control == 0 or room == 0:
        return math.nan

    def shortfall(d: float) -> float:
        return _two_proportion_power(control_rate + d, control_rate, n, n_control, alpha) - power

    if shortfall(room) < 0:
        return room
    return float(optimize.brentq(shortfall, 0.0, room, xtol=1e-12))


def _outcome_counts(games: pl.DataFrame, by: list[str]) -> pl.DataFrame:
    """Per group: n, wins, draws, losses of the score column."""
    score = pl.col("score")
    return games.group_by(*by).agg(pl.len().cast(pl.Int64).alias("n"), (score == 1).sum().cast(pl.Int64).alias("wins"),
                                   (score == 0).sum().cast(pl.Int64).alias("draws"),
                                   (score == -1).sum().cast(pl.Int64).alias("losses")).sort(*by)


def control_table(control_games: pl.DataFrame) -> pl.DataFrame:
    """evaluation_control rows (game, seat, games, wins, draws, losses, win_rate, mean_score) from one row per
    control game and seat (game, seat, score: that seat's result with the baseline in every seat)."""
    _check_games(control_games, ("game", "seat", "score"))
    counts = _outcome_counts(control_games, ["game", "seat"]).rename({"n": "games"})
    return counts.with_columns((pl.col("wins") / pl.col("games")).alias("win_rate"),
                               ((pl.col("wins") - pl.col("losses")) / pl.col("games")).alias("mean_score")
                               ).select(list(EVALUATION_CONTROL)).cast(EVALUATION_CONTROL)


def _control_by_seat(control: pl.DataFrame) -> dict[tuple[str, int], tuple[int, int]]:
    """{(game, seat): (wins, games)} of evaluation_control, validated."""
    require_columns(control, "evaluation_control", ("game", "seat", "games", "wins"))
    by_seat = {}
    for game, seat, games, wins in control.select("game", "seat", "games", "wins").iter_rows():
        if (game, seat) in by_seat:
            raise ValueError(f"evaluation_control: game {game!r} seat {seat} appears twice")
        if games is None or wins is None or games < 1 or not 0 <= wins <= games:
            raise ValueError(f"evaluation_control: game {game!r} seat {seat} needs games >= 1 and "
                             f"0 <= wins <= games, got {wins} of {games}")
        by_seat[(game, seat)] = (int(wins), int(games))
    return by_seat


def outcome_statistics(wins: int, draws: int, losses: int) -> dict:
    """n, wins, draws, losses, mean (score +1/0/-1) with ci_low/ci_high (score_interval), win_rate with its
    Wilson interval (win_rate_low/win_rate_high) of one group of games (at least one)."""
    n = wins + draws + losses
    if n < 1:
        raise ValueError(f"outcome_statistics: need at least one game, got wins={wins} draws={draws} losses={losses}")
    low, high = score_interval(wins, draws, losses)
    rate_low, rate_high = wilson_interval(wins, n)
    return {"n": n, "wins": wins, "draws": draws, "losses": losses, "mean": (wins - losses) / n, "ci_low": low,
            "ci_high": high, "win_rate": wins / n, "win_rate_low": rate_low, "win_rate_high": rate_high}


def _comparison(wins: int, draws: int, losses: int, control_wins: int, control_games: int, p_value: float) -> dict:
    """The statistics of one group against its control, all but p_value_holm and verdict."""
    outcomes, control_rate = outcome_statistics(wins, draws, losses), control_wins / control_games
    return {**outcomes, "control_win_rate": control_rate, "p_value_vs_control": p_value,
            "min_detectable_difference": min_detectable_difference(outcomes["n"], control_games, control_rate)}


def _with_holm_and_verdicts(rows: list[dict], alpha: float, family: Sequence[str]) -> None:
    """Holm across the rows that share `family`'s values and scope (the compared groups), then each row's verdict."""
    families: dict[tuple, list[dict]] = {}
    for row in rows:
        families.setdefault((*(row[k] for k in family), row["scope"]), []).append(row)
    for family in families.values():
        for row, adjusted in zip(family, holm([row["p_value_vs_control"] for row in family])):
            row["p_value_holm"] = float(adjusted)
            row["verdict"] = verdict(adjusted, row["win_rate"], row["control_win_rate"], alpha)


def summarise(evaluation_games: pl.DataFrame, evaluation_control: pl.DataFrame, keys: Sequence[str] = PAIR,
              alpha: float = 0.05, family: Sequence[str] = ("game",)) -> pl.DataFrame:
    """Per key group (which must include game): a row per seat (scope "seat <i>") and an "overall" row.

    Counts, mean score with its bootstrap interval, win rate with its Wilson interval, the control's win rate,
    p_value_vs_control (per seat Fisher's exact test, overall stratified by seat), p_value_holm (Holm across
    the groups that share the `family` keys, by default a game's, separately per scope), verdict and
    min_detectable_difference (80% power; overall on the pooled counts); the overall row also carries
    best_worst_diff = best seat mean minus worst seat mean.
    """
    keys = list(keys)
    if "game" not in keys:
        raise ValueError(f"summarise: keys must include 'game', got {keys}")
    if not set(family) <= set(keys):
        raise ValueError(f"summarise: the Holm family {list(family)} must be among the keys {keys}")
    _check_games(evaluation_games, (*keys, "seat", "score"))
    control = _control_by_seat(evaluation_control)
    per_seat, rows = {}, []
    for group in _outcome_counts(evaluation_games, [*keys, "seat"]).iter_rows(named=True):
        game, seat = group["game"], group["seat"]
        if (game, seat) not in control:
            raise ValueError(f"evaluation_control has no row for game {game!r} seat {seat}")
        control_wins, control_games = control[(game, seat)]
        counts = [group[c] for c in ("wins", "draws", "losses")]
        p_value = exact_two_proportion_p(group["wins"], group["n"], control_wins, control_games)
        row = {**{k: group[k] for k in keys}, "scope": f"seat {seat}", "seat": seat,
               **_comparison(*counts, control_wins, control_games, p_value), "best_worst_diff": None}
        rows.append(row)
        per_seat.setdefault(tuple(group[k] for k in keys), []).append((row, control_wins, control_games))
    for key, seats in per_seat.items():
        totals = [sum(row[c] for row, _, _ in seats) for c in ("wins", "draws", "losses")]
        control_wins, control_games = sum(s[1] for s in seats), sum(s[2] for s in seats)
        p_value = stratified_exact_p([(row["wins"], row["n"], wins, games) for row, wins, games in seats])
        means = [row["mean"] for row, _, _ in seats]
        rows.append({**dict(zip(keys, key)), "scope": OVERALL, "seat": None,
                     **_comparison(*totals, control_wins, control_games, p_value),
                     "best_worst_diff": max(means) - min(means)})
    _with_holm_and_verdicts(rows, alpha, family)
    schema = {**{k: evaluation_games.schema[k] for k in keys}, **OUTCOME_STATISTICS}
    summary = pl.DataFrame(rows, schema=schema)
    return summary.sort(*keys, pl.col("seat").is_null(), "seat")


def _overall(summary: pl.DataFrame) -> pl.DataFrame:
    require_columns(summary, "evaluation_summary", EVALUATION_SUMMARY)
    return summary.filter(pl.col("scope") == OVERALL)


def _best_first(rows: pl.DataFrame) -> pl.DataFrame:
    """Highest mean first; ties by the higher lower CI bound, then by frequency and variant name (stable)."""
    return rows.sort(["game", "mean", "ci_low", "prototype_frequency", "feature_variant"],
                     descending=[False, True, True, False, False])


def top_pairs(summary: pl.DataFrame, k: int = 3) -> pl.DataFrame:
    """Table I: the k best (prototype frequency, feature variant) pairs per game by overall mean score."""
    if k < 1:
        raise ValueError(f"top_pairs: k must be >= 1, got {k}")
    ranked = _best_first(_overall(summary)).with_columns(
        pl.int_range(1, pl.len() + 1).over("game").cast(pl.Int32).alias("rank"))
    return conform(ranked.filter(pl.col("rank") <= k), PAPER_TABLE_1, "paper_table_1")


def best_frequency_without_selection(summary: pl.DataFrame) -> pl.DataFrame:
    """Table II: per game, the prototype frequency with the best overall mean when no features are selected."""
    unselected = _overall(summary).filter(pl.col("feature_variant") == NO_SELECTION)
    best = _best_first(unselected).group_by("game", maintain_order=True).head(1)
    return conform(best, PAPER_TABLE_2, "paper_table_2")


def eta_squared(scores: np.ndarray, levels: np.ndarray) -> float:
    """SS_effect / SS_total of one factor: SS_effect = sum over levels of n_level * (level mean - grand mean)^2.

    This is the factor's sum of squares in a sequential (type I) ANOVA when it enters first, and in a
    balanced two-way layout also its type II sum of squares. NaN when every score is equal (SS_total = 0).
    """
    scores = np.asarray(scores, dtype=float)
    if scores.size == 0 or scores.shape != np.shape(levels):
        raise ValueError(f"eta_squared: need one level per score, got {scores.shape} scores, {np.shape(levels)} levels")
    grand = scores.mean()
    total = float(((scores - grand) ** 2).sum())
    if total == 0:
        return math.nan
    _, codes = np.unique(np.asarray(levels), return_inverse=True)
    counts = np.bincount(codes)
    means = np.bincount(codes, weights=scores) / counts
    return float((counts * (means - grand) ** 2).sum() / total)


def _dummies(levels: np.ndarray) -> np.ndarray:
    """Treatment (dummy) codes of a factor: one 0/1 column per level but the first."""
    _, codes = np.unique(np.asarray(levels), return_inverse=True)
    return (codes[:, None] == np.arange(1, codes.max() + 1)[None, :]).astype(np.float64)


def _fit(scores: np.ndarray, *blocks: np.ndarray) -> tuple[float, int]:
    """(residual sum of squares, rank) of the least-squares fit of scores on an intercept and the blocks."""
    design = np.column_stack([np.ones(len(scores)), *blocks])
    coefficients, _, rank, _ = np.linalg.lstsq(design, scores, rcond=None)
    residuals = scores - design @ coefficients
    return float(residuals @ residuals), int(rank)


def _ratio(numerator: float, denominator: float) -> float:
    return numerator / denominator if denominator > 0 else math.nan


def two_way_anova(scores: np.ndarray, first: np.ndarray, second: np.ndarray) -> dict[str, dict[str, float]]:
    """Type II two-way ANOVA with interaction: {"first"|"second"|"interaction": sum_sq, df, F, p_value;
    "residual": sum_sq, df, mean_sq}. Each main effect is tested after the other, the interaction after both;
    F and p are NaN where a term has no degrees of freedom or the residual has none (or no spread)."""
    scores = np.asarray(scores, dtype=np.float64)
    a, b = _dummies(first), _dummies(second)
    ab = (a[:, :, None] * b[:, None, :]).reshape(len(scores), -1)
    rss_full, rank_full = _fit(scores, a, b, ab)
    rss_main, rank_main = _fit(scores, a, b)
    rss_a, rank_a = _fit(scores, a)
    rss_b, rank_b = _fit(scores, b)
    residual_df = len(scores) - rank_full
    mean_square_error = _ratio(rss_full, residual_df)
    table = {"residual": {"sum_sq": rss_full, "df": residual_df, "mean_sq": mean_square_error}}
    for name, difference, df in (("first", rss_b - rss_main, rank_main - rank_b),
                                 ("second", rss_a - rss_main, rank_main - rank_a),
                                 ("interaction", rss_main - rss_full, rank_full - rank_main)):
        sum_sq = max(difference, 0.0)  # a nested fit cannot fit worse; below 0 is rounding
        f_value = _ratio(_ratio(sum_sq, df), mean_square_error)
        p_value = float(stats.f.sf(f_value, df, residual_df)) if np.isfinite(f_value) else math.nan
        table[name] = {"sum_sq": sum_sq, "df": df, "F": f_value, "p_value": p_value}
    return table


def effect_sizes(evaluation_games: pl.DataFrame) -> pl.DataFrame:
    """Table III: per game and factor (prototype frequency, feature variant) on the per-game scores.

    eta_squared is the factor alone (SS_factor / SS_total), whose expectation when nothing matters is
    null_eta_squared = (levels - 1) / (n - 1): compare the two, not eta-squared across factors of different
    levels. partial_eta_squared, omega_squared (bias-corrected: (SS - df MS_error) / (SS_total + MS_error),
    about 0 and possibly below when the factor does nothing) and p_value (F test) come from a type II two-way
    ANOVA with interaction. A factor with one level in a game gives NaN in every statistic (nothing to compare).
    """
    _check_games(evaluation_games, (*PAIR, "score"))
    rows = []
    for game in sorted(evaluation_games["game"].unique().to_list()):
        of_game = evaluation_games.filter(pl.col("game") == game)
        scores = of_game["score"].cast(pl.Float64).to_numpy()
        # integer codes once per factor: np.unique on 10^5 strings is what would cost time at paper scale
        factors = [np.unique(of_game[factor].to_numpy(), return_inverse=True)[1] for factor in EFFECT_FACTORS]
        anova = two_way_anova(scores, *factors)
        total, mean_square_error = float(((scores - scores.mean()) ** 2).sum()), anova["residual"]["mean_sq"]
        for factor, levels, term in zip(EFFECT_FACTORS, factors, ("first", "second")):
            n_levels, n = len(np.unique(levels)), len(scores)
            row = {"game": game, "factor": factor, "levels": n_levels, "n": n, "eta_squared": math.nan,
                   "null_eta_squared": math.nan, "partial_eta_squared": math.nan, "omega_squared": math.nan,
                   "p_value": math.nan}
            if n_levels > 1:
                sum_sq, df = anova[term]["sum_sq"], anova[term]["df"]
                row.update(eta_squared=eta_squared(scores, levels), null_eta_squared=(n_levels - 1) / (n - 1),
                           partial_eta_squared=_ratio(sum_sq, sum_sq + anova["residual"]["sum_sq"]),
                           omega_squared=_ratio(sum_sq - df * mean_square_error, total + mean_square_error),
                           p_value=anova[term]["p_value"])
            rows.append(row)
    return pl.DataFrame(rows, schema=EFFECT_SIZES)
