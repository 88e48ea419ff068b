"""The tictactoe_compression table and its plot (jbag_pipeline.tictactoe.table)."""

import time

import numpy as np
import polars as pl
import pytest

from jbag_pipeline.tictactoe.agents import outcome_probabilities, softmax_policy
from jbag_pipeline.tictactoe.exact import exact_values
from jbag_pipeline.tictactoe.table import SETTINGS, compression_table, plot_compression


@pytest.fixture(scope="module")
def timed_table():
    start = time.perf_counter()
    table = compression_table()
    return table, time.perf_counter() - start


def test_whole_computation_is_fast(timed_table):
    assert timed_table[1] < 60.0


def test_table_shape_and_columns(timed_table):
    table = timed_table[0]
    assert table.height == 82 + 28
    assert table.columns[:4] == ["method", "r", "Cr", "E"]
    assert table["method"].unique().sort().to_list() == ["hosvd", "svd"]
    for setting in SETTINGS:
        total = table[f"{setting}_win"] + table[f"{setting}_draw"] + table[f"{setting}_loss"]
        assert np.allclose(total.to_numpy(), 1.0)


def test_rank_zero_agent_plays_randomly(timed_table):
    for row in timed_table[0].filter(pl.col("r") == 0).iter_rows(named=True):
        assert row["vs_random_first_win"] == pytest.approx(737 / 1260)
        assert row["vs_random_second_win"] == pytest.approx(121 / 420)
        assert row["vs_random_first_draw"] == pytest.approx(8 / 63)


def test_full_rank_agent_plays_like_the_uncompressed_agent(timed_table):
    f = exact_values()
    first, draw, second = outcome_probabilities(softmax_policy(f), softmax_policy(f))
    full = timed_table[0].filter(((pl.col("method") == "svd") & (pl.col("r") == 81))
                                 | ((pl.col("method") == "hosvd") & (pl.col("r") == 27)))
    assert full["vs_full_first_win"].to_numpy() == pytest.approx([first, first], abs=1e-9)
    assert full["vs_full_second_win"].to_numpy() == pytest.approx([second, second], abs=1e-9)
    assert full["E"].to_numpy() == pytest.approx([0, 0], abs=1e-12)


def test_better_approximations_win_more_against_random(timed_table):
    svd = timed_table[0].filter(pl.col("method") == "svd").sort("r")
    wins = svd["vs_random_first_win"].to_numpy()
    assert wins[3] > wins[0] + 0.1 and wins[-1] > wins[3]


def test_plot_writes_png(timed_table, tmp_path):
    path = plot_compression(timed_table[0], tmp_path / "plots" / "compression.png")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(ValueError, match="plot_compression"):
        plot_compression(timed_table[0].drop("E"), tmp_path / "bad.png")
