"""The verdict table and the rule that decides a verdict, on hand-built summaries and learning curves."""

from __future__ import annotations

import polars as pl
import pytest

from jbag_pipeline.analysis.verdicts import curve_note, decided, verdict_table
from jbag_pipeline.schemas import LEARNING_CURVE, VERDICTS


def overall(game, variant, win_rate, verdict, n=100, mdd=0.08, scope="overall", seat=None, control=0.3):
    return {"game": game, "prototype_frequency": "full", "feature_variant": variant, "scope": scope, "seat": seat,
            "n": n, "win_rate": win_rate, "win_rate_low": win_rate - 0.1, "win_rate_high": win_rate + 0.1,
            "control_win_rate": control, "p_value_vs_control": 0.01, "p_value_holm": 0.03, "verdict": verdict,
            "min_detectable_difference": mdd}


def curve(points, game="connect4", pair="full-full"):
    """learning_curve rows of one pair from (share, train_games, win_rate, half_width, verdict) points."""
    return pl.DataFrame([{"game": game, "share": share, "train_games": games, "selfplay_agent": "mcts(iterations=1)",
                          "budget": "iterations=1", "pair": pair, "n": 100, "wins": round(rate * 100),
                          "win_rate": rate, "win_rate_low": rate - width, "win_rate_high": rate + width,
                          "control_win_rate": 0.5, "p_value_vs_control": 0.01, "p_value_holm": 0.02, "verdict": verdict}
                         for share, games, rate, width, verdict in points], schema=LEARNING_CURVE)


def test_a_verdict_the_same_at_the_last_two_points_and_narrow_is_decided():
    rows = curve([(0.25, 25, 0.45, 0.10, "no clear difference"), (0.5, 50, 0.70, 0.09, "better"),
                  (1.0, 100, 0.72, 0.06, "better")])
    assert decided(rows) is True
    assert curve_note(rows) == ("better from 50 training games on (verdict the same at the last two points, +-0.06)")
    assert decided(rows.reverse()) is True  # the rule orders the points by share itself


def test_a_flipped_verdict_is_not_decided():
    rows = curve([(0.5, 25, 0.30, 0.07, "worse"), (1.0, 50, 0.50, 0.07, "no clear difference")])
    assert decided(rows) is False
    assert curve_note(rows) == "not settled at this budget: worse at 25 games, no clear difference at 50"


def test_an_interval_too_wide_at_the_last_point_is_not_decided():
    rows = curve([(0.5, 25, 0.70, 0.05, "better"), (1.0, 50, 0.72, 0.081, "better")])
    assert decided(rows) is False
    assert decided(rows, max_half_width=0.09) is True
    assert "+-0.08 is wider than +-0.08" in curve_note(rows)  # 0.081 rounds to 0.08 but is not within it


def test_no_curve_is_null_and_a_single_point_is_not_decided():
    assert decided(curve([])) is None and curve_note(curve([])) is None
    single = curve([(1.0, 50, 0.72, 0.05, "better")])
    assert decided(single) is False and "a single curve point" in curve_note(single)
    with pytest.raises(ValueError, match="lacks columns"):
        decided(pl.DataFrame({"share": [1.0]}))


def test_the_verdicts_columns():
    assert list(VERDICTS) == [
        "game", "paper_claim", "best_pair", "pairs_compared", "n", "win_rate", "win_rate_low", "win_rate_high",
        "control_win_rate", "p_value_holm", "verdict", "worst_seat", "worst_seat_win_rate",
        "worst_seat_control_win_rate", "counters_kept_win_rate", "decided", "curve_note", "caveat"]
    assert VERDICTS["worst_seat"] == pl.Int8 and VERDICTS["decided"] == pl.Boolean


def test_the_best_pair_its_worst_seat_and_its_curve():
    summary = pl.DataFrame([overall("connect4", "none", 0.40, "no clear difference"),
                            overall("connect4", "full", 0.55, "better"),
                            overall("connect4", "full_counters_kept", 0.80, "better"),
                            overall("connect4", "full", 0.90, "better", scope="seat 0", seat=0, control=0.40),
                            overall("connect4", "full", 0.20, "worse", scope="seat 1", seat=1, control=0.60),
                            overall("connect4", "none", 0.00, "worse", scope="seat 1", seat=1, control=0.60)])
    points = curve([(0.5, 50, 0.5, 0.07, "better"), (1.0, 100, 0.55, 0.07, "better")])
    other = curve([(0.5, 50, 0.5, 0.07, "worse"), (1.0, 100, 0.55, 0.07, "better")], pair="full-none")
    row = verdict_table(summary, pl.concat([points, other])).row(0, named=True)
    assert (row["best_pair"], row["win_rate"], row["verdict"]) == ("full-full", 0.55, "better")
    assert row["pairs_compared"] == 2
    assert (row["worst_seat"], row["worst_seat_win_rate"], row["worst_seat_control_win_rate"]) == (1, 0.20, 0.60)
    assert row["decided"] is True and row["curve_note"].startswith("better from 50 training games on")
    assert row["counters_kept_win_rate"] == 0.80 and "turn-order counters" in row["caveat"]
    assert row["paper_claim"].startswith("beats baseline")
    assert verdict_table(summary, None).row(0, named=True)["decided"] is None  # no learning curve


def test_small_samples_get_a_caveat():
    summary = pl.DataFrame([overall("dominion", "full", 0.30, "no clear difference", n=8, mdd=0.45)])
    row = verdict_table(summary).row(0, named=True)
    assert "n = 8 detects only win-rate differences of 0.45" in row["caveat"]
    assert row["worst_seat"] is None  # no seat rows


def test_a_control_that_always_wins_leaves_no_room_and_says_so():
    summary = pl.DataFrame([overall("connect4", "full", 0.5, "no clear difference", n=2, mdd=float("nan"))])
    assert "no gain can be detected" in verdict_table(summary)["caveat"][0]
