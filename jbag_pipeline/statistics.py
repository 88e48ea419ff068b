"""Evaluation statistics: mean score with a 95% t confidence interval and a t-test against 0 per seat and
overall, Best-Worst Diff, the paper's Tables I and II, and eta-squared of the two factors (Table III).

Degenerate groups are explicit: with n = 1 the interval is the mean itself and the p-value is NaN (no test
is possible); with n >= 2 and zero variance the interval is the mean itself and the p-value is the limit
of the t-test as the spread shrinks: 1.0 if the mean is 0, else 0.0.
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl
from scipy import stats

from jbag_pipeline.jsonbag_agent import NO_SELECTION

PAIR = ("game", "prototype_frequency", "feature_variant")
EFFECT_FACTORS = ("prototype_frequency", "feature_variant")
OVERALL = "overall"
SUMMARY_SCHEMA = {
    "game": pl.String, "prototype_frequency": pl.String, "feature_variant": pl.String, "scope": pl.String,
    "seat": pl.Int8, "n": pl.Int64, "mean": pl.Float64, "ci_low": pl.Float64, "ci_high": pl.Float64,
    "p_value": pl.Float64, "best_worst_diff": pl.Float64,
}
TABLE_COLUMNS = ["game", "prototype_frequency", "feature_variant", "n", "mean", "ci_low", "ci_high",
                 "p_value", "best_worst_diff"]
EFFECT_SIZES_SCHEMA = {"game": pl.String, "factor": pl.String, "eta_squared": pl.Float64}


def _check_games(games: pl.DataFrame, needed: tuple[str, ...]) -> None:
    missing = [c for c in needed if c not in games.columns]
    if missing:
        raise ValueError(f"evaluation_games lacks columns {missing} (has {games.columns})")
    if games["score"].null_count():
        raise ValueError("evaluation_games: score has null values")
    if not games["score"].is_in([-1, 0, 1]).all():
        raise ValueError(f"evaluation_games: score must be -1, 0 or 1, got {sorted(games['score'].unique().to_list())}")


def wilson_interval(successes: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval of a binomial proportion (scipy's binomtest); (nan, nan) when n = 0."""
    if n < 0 or not 0 <= successes <= n:
        raise ValueError(f"wilson_interval: need 0 <= successes <= n, got {successes} of {n}")
    if n == 0:
        return math.nan, math.nan
    interval = stats.binomtest(successes, n).proportion_ci(confidence_level=confidence, method="wilson")
    return float(interval.low), float(interval.high)


def mean_interval(n: int, mean: float, sd: float) -> tuple[float, float, float]:
    """(ci_low, ci_high, p_value): 95% t interval of the mean and the two-sided one-sample t-test against 0."""
    if n < 1:
        raise ValueError(f"mean_interval: n must be >= 1, got {n}")
    if n == 1:
        return mean, mean, math.nan
    if sd == 0:
        return mean, mean, 1.0 if mean == 0 else 0.0
    standard_error = sd / math.sqrt(n)
    half_width = float(stats.t.ppf(0.975, n - 1)) * standard_error
    p_value = float(2 * stats.t.sf(abs(mean) / standard_error, n - 1))
    return mean - half_width, mean + half_width, p_value


def _rows(groups: pl.DataFrame, scope_of) -> list[dict]:
    rows = []
    for group in groups.iter_rows(named=True):
        low, high, p_value = mean_interval(group["n"], group["mean"], group["sd"] or 0.0)
        rows.append({**{k: group[k] for k in PAIR}, "scope": scope_of(group), "seat": group.get("seat"),
                     "n": group["n"], "mean": group["mean"], "ci_low": low, "ci_high": high, "p_value": p_value,
                     "best_worst_diff": None})
    return rows


def summarise(evaluation_games: pl.DataFrame) -> pl.DataFrame:
    """Per (game, prototype_frequency, feature_variant): a row per seat (scope "seat <i>") and an "overall" row.

    Columns n, mean, ci_low, ci_high (95%, t distribution), p_value (t-test against 0); the overall row also
    carries best_worst_diff = best seat mean minus worst seat mean.
    """
    _check_games(evaluation_games, (*PAIR, "seat", "score"))
    score = pl.col("score").cast(pl.Float64)
    aggregates = [pl.len().alias("n"), score.mean().alias("mean"), score.std(ddof=1).alias("sd")]
    per_seat = evaluation_games.group_by(*PAIR, "seat").agg(aggregates).sort(*PAIR, "seat")
    overall = evaluation_games.group_by(*PAIR).agg(aggregates).sort(*PAIR)
    spread = per_seat.group_by(*PAIR).agg((pl.col("mean").max() - pl.col("mean").min()).alias("best_worst_diff"))
    overall = overall.join(spread, on=list(PAIR), how="left")
    rows = _rows(per_seat, lambda group: f"seat {group['seat']}")
    for row, group in zip(_rows(overall, lambda group: OVERALL), overall.iter_rows(named=True)):
        row["best_worst_diff"] = group["best_worst_diff"]
        rows.append(row)
    summary = pl.DataFrame(rows, schema=SUMMARY_SCHEMA)
    return summary.sort(*PAIR, pl.col("seat").is_null(), "seat")


def _overall(summary: pl.DataFrame) -> pl.DataFrame:
    missing = [c for c in SUMMARY_SCHEMA if c not in summary.columns]
    if missing:
        raise ValueError(f"evaluation_summary lacks columns {missing} (has {summary.columns})")
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
    return ranked.filter(pl.col("rank") <= k).select("game", "rank", *TABLE_COLUMNS[1:])


def best_frequency_without_selection(summary: pl.DataFrame) -> pl.DataFrame:
    """Table II: per game, the prototype frequency with the best overall mean when no features are selected."""
    unselected = _overall(summary).filter(pl.col("feature_variant") == NO_SELECTION)
    return _best_first(unselected).group_by("game", maintain_order=True).head(1).select(TABLE_COLUMNS)


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


def effect_sizes(evaluation_games: pl.DataFrame) -> pl.DataFrame:
    """Table III: per game, eta-squared of prototype frequency and of feature variant on the per-game scores."""
    _check_games(evaluation_games, (*PAIR, "score"))
    rows = []
    for game in sorted(evaluation_games["game"].unique().to_list()):
        of_game = evaluation_games.filter(pl.col("game") == game)
        scores = of_game["score"].to_numpy()
        for factor in EFFECT_FACTORS:
            eta = eta_squared(scores, of_game[factor].to_numpy())
            rows.append({"game": game, "factor": factor, "eta_squared": eta})
    return pl.DataFrame(rows, schema=EFFECT_SIZES_SCHEMA)
