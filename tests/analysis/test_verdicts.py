"""The verdict table and the stability halves on hand-built summaries."""

from __future__ import annotations

import polars as pl
import pytest

from jbag_pipeline.analysis.stability import split_halves
from jbag_pipeline.analysis.verdicts import stability_table, verdict_table
from jbag_pipeline.storage.schemas import STABILITY_SUMMARY


def overall(game, variant, win_rate, verdict, n=100, mdd=0.08, half=None):
    row = {"game": game, "prototype_frequency": "full", "feature_variant": variant, "scope": "overall", "seat": None,
           "n": n, "win_rate": win_rate, "win_rate_low": win_rate - 0.1, "win_rate_high": win_rate + 0.1,
           "control_win_rate": 0.3, "p_value_vs_control": 0.01, "p_value_holm": 0.03, "verdict": verdict,
           "min_detectable_difference": mdd}
    return row if half is None else {**row, "half": half}


def test_the_best_pair_is_the_highest_win_rate_and_the_sensitivity_row_is_only_reported():
    summary = pl.DataFrame([overall("connect4", "none", 0.40, "no clear difference"),
                            overall("connect4", "full", 0.55, "better"),
                            overall("connect4", "full_counters_kept", 0.80, "better"),
                            {**overall("connect4", "full", 0.9, "better"), "scope": "seat 0", "seat": 0}])
    table = verdict_table(summary, stability_table(None))
    row = table.row(0, named=True)
    assert (row["best_pair"], row["win_rate"], row["verdict"], row["pairs_compared"]) == ("full-full", 0.55, "better", 2)
    assert row["counters_kept_win_rate"] == 0.80 and row["stable"] is None
    assert "turn-order counters" in row["caveat"] and row["paper_claim"].startswith("beats baseline")


def test_small_samples_and_unstable_halves_get_a_caveat():
    summary = pl.DataFrame([overall("dominion", "full", 0.30, "no clear difference", n=8, mdd=0.45)])
    halves = pl.DataFrame([overall("dominion", "full", 0.2, "no clear difference", half="a"),
                           overall("dominion", "full", 0.6, "better", half="b")])
    stability = stability_table(halves)
    assert stability["stable"].to_list() == [False, False]
    row = verdict_table(summary, stability).row(0, named=True)
    assert row["stable"] is False
    assert "n = 8 detects only win-rate differences of 0.45" in row["caveat"]
    assert "changes between halves" in row["caveat"]


def test_stability_table_is_empty_without_stability_games_and_checks_its_input():
    assert stability_table(None).schema == pl.Schema(STABILITY_SUMMARY)
    with pytest.raises(ValueError, match="lacks columns"):
        stability_table(pl.DataFrame({"game": ["x"]}))


def test_halves_are_disjoint_and_cover_every_game():
    halves = split_halves(pl.DataFrame({"game_id": [5, 1, 4, 2, 3]}))
    assert halves == {"a": [1, 3, 5], "b": [2, 4]}


def test_a_control_that_always_wins_leaves_no_room_and_says_so():
    summary = pl.DataFrame([overall("connect4", "full", 0.5, "no clear difference", n=2, mdd=float("nan"))])
    assert "no gain can be detected" in verdict_table(summary, stability_table(None))["caveat"][0]


def test_one_evaluated_half_says_nothing_about_stability():
    stability = stability_table(pl.DataFrame([overall("tictactoe", "full", 0.7, "better", half="a")]))
    assert stability["stable"].to_list() == [None]
    summary = pl.DataFrame([overall("tictactoe", "full", 0.7, "better")])
    assert verdict_table(summary, stability)["stable"][0] is None
