"""JSON-Bag value functions against the exact tic-tac-toe values (jbag_pipeline.tictactoe.jsonbag)."""

import math
import random
import time

import numpy as np
import polars as pl
import pytest
from scipy import stats

from engines import load_game
from engines.agents import RandomAgent
from engines.match import play_match
from jbag_pipeline.model.value_tables import make_jsonbag_value
from jbag_pipeline.model.variants import FEATURE_VARIANTS, FREQUENCIES
from jbag_pipeline.tictactoe.agents import greedy_policy
from jbag_pipeline.tictactoe.exact import N_BOARDS, board_index, board_space, exact_values
from jbag_pipeline.tictactoe.jsonbag import (
    STRATA, TIE_TOLERANCE, best_children, best_move_metrics, board_documents, board_seat_values,
    correlations_by_move_count, document_board, first_player_scores, jsonbag_vs_exact_table,
    pearson_within_move_count, plot_jsonbag_vs_compression, spearman_within_move_count,
)
from jbag_pipeline.tictactoe.table import SETTINGS
from jbag_pipeline.model.tokenize import TokenFilter, tokenize_state, tokenize_trajectory
from jbag_pipeline.model.prototypes import build_prototypes
from tests.helpers.sampling import sample_state_indices
from tests.helpers.tictactoe import legal_cells

GAME = load_game("tictactoe")
N_SELFPLAY = 200
K_BY_VARIANT = {"full": 40, "interval": 30, "random": 20, "full_seg": 50, "interval_seg": 45, "random_seg": 35,
                "adaptive": 10}


def _prototype_rows(labelled_bags, frequency):
    prototypes = build_prototypes(labelled_bags)
    return [{"game": "tictactoe", "frequency": frequency, "seat": seat, "token": token, "count": p, "p": p}
            for seat, bag in prototypes.items() for token, p in bag.items()]


@pytest.fixture(scope="module")
def lake_tables():
    """winner_prototypes of 200 random self-play games (all frequencies) and hand-ranked selected_features."""
    records = [play_match(GAME, [RandomAgent(), RandomAgent()], seed=seed) for seed in range(N_SELFPLAY)]
    keep = TokenFilter()
    rows = []
    for frequency in FREQUENCIES:
        labelled = []
        for record in records:
            n = len(record.states)
            kept = sample_state_indices(n, n - 1, 2, frequency, run_seed=0, game_id=record.seed)
            bag = tokenize_trajectory([record.states[i].doc for i in kept], num_suffix=True)
            labelled.append((keep.apply(bag).kept, record.winner))
        rows += _prototype_rows(labelled, frequency)
    prototypes = pl.DataFrame(rows, schema_overrides={"seat": pl.Int8})
    full = prototypes.filter(pl.col("frequency") == "full")
    # A deterministic stand-in for the forest's ranking: the gap between the two seats' shares.
    gap = full.pivot(on="seat", index="token", values="p").fill_null(0.0) \
        .with_columns((pl.col("0") - pl.col("1")).abs().alias("importance")).sort(["importance", "token"],
                                                                                    descending=[True, False])
    features = []
    for variant in FEATURE_VARIANTS:
        kept = gap if variant == "none" else gap.head(K_BY_VARIANT[variant])
        features += [{"game": "tictactoe", "variant": variant, "token": token, "importance": importance,
                      "rank": rank + 1, "segment": None}
                     for rank, (token, importance) in enumerate(kept.select("token", "importance").iter_rows())]
    return prototypes, pl.DataFrame(features, schema_overrides={"rank": pl.Int32, "segment": pl.Int32})


def test_board_documents_cover_exactly_the_valid_boards():
    boards = board_space()
    assert sorted(board_documents()) == np.flatnonzero(boards.valid).tolist()
    for board, document in board_documents().items():
        assert document_board(document) == board


def test_board_document_is_the_json_self_play_records_in_any_move_order():
    rng = random.Random(3)
    checked = 0
    for _ in range(40):
        state = GAME.new_state()
        while not state.is_terminal():
            state.apply(rng.choice(state.legal_actions()))
            doc = state.to_json()
            assert board_documents()[document_board(doc)] == doc
            assert GAME.from_json(board_documents()[document_board(doc)]).to_json() == doc
            checked += 1
    assert checked > 200
    x_row = board_documents()[board_index("111220000")]
    assert x_row["winnerCells"] == [[0, 0], [0, 1], [0, 2]] and x_row["turnOwner"] == -1
    assert board_documents()[board_index("100020000")]["moveCount"] == 2


def test_document_board_rejects_documents_without_a_board():
    with pytest.raises(ValueError, match="document_board"):
        document_board({"board": 5})
    with pytest.raises(ValueError, match="document_board"):
        document_board({"board": [["x", "?", "."], [".", ".", "."], [".", ".", "."]]})


@pytest.mark.parametrize("variant", ["full", "none"])
def test_seat_values_equal_the_jsonbag_value_of_the_board_state(lake_tables, variant):
    prototypes, features = lake_tables
    value = make_jsonbag_value(prototypes, features, "full", variant, n_players=2)
    seats = board_seat_values(value)
    boards = board_space()
    assert np.isnan(seats[~boards.valid]).all()
    assert np.allclose(seats[boards.valid].sum(axis=1), 1.0)
    for board in np.flatnonzero(boards.valid)[::97].tolist():
        state = GAME.from_json(board_documents()[board])
        value.reset()
        expected = [value.value(state, seat) for seat in (0, 1)]
        assert seats[board] == pytest.approx(expected, abs=1e-12)


def test_greedy_policy_is_osla_on_the_board_value(lake_tables):
    prototypes, features = lake_tables
    value = make_jsonbag_value(prototypes, features, "interval", "full", n_players=2)
    policy = greedy_policy(first_player_scores(board_seat_values(value)), TIE_TOLERANCE)
    boards = board_space()
    for board in np.flatnonzero(boards.valid & ~boards.terminal)[::41].tolist():
        state = GAME.from_json(board_documents()[board])
        seat = state.current_player
        child_values = []
        for cell in legal_cells(board).tolist():  # OSLA's rule: wins +inf, losses -inf, else V (draws too)
            child = state.clone()
            child.apply(cell)
            value.reset()
            child_values.append(math.inf if child.returns()[seat] > 0 else value.value(child, seat))
        best = max(child_values)
        chosen = [cell for cell, v in zip(legal_cells(board).tolist(), child_values) if v >= best - TIE_TOLERANCE]
        assert np.flatnonzero(policy[board]).tolist() == chosen
        assert policy[board, chosen] == pytest.approx([1 / len(chosen)] * len(chosen))


def test_table_rows_hold_correlations_agreement_and_exact_outcomes(lake_tables):
    prototypes, features = lake_tables
    table = jsonbag_vs_exact_table(prototypes.filter(pl.col("frequency") == "full"),
                                   features.filter(pl.col("variant") == "full"))
    assert table.select("frequency", "variant").rows() == [("full", "full"), ("full", "none")]
    for row in table.iter_rows(named=True):
        assert row["n_boards"] == 4520 and row["n_prototypes"] == 2 and row["n_contested_boards"] == 3910
        for column in ("pearson_pooled", "spearman_pooled", "spearman_within_move_count", "pearson_within_move_count",
                       *(f"spearman_moves_{n}" for n in STRATA)):
            assert -1 <= row[column] <= 1
        assert 0 < row["best_move_agreement"] <= 1 and 0 <= row["undecided_share"] < 1
        assert row["random_best_move_probability"] < row["best_move_probability"] <= 1
        # the headline is the board-weighted mean of the strata (every stratum's V varies here)
        weights = [int((board_space().moves[board_space().valid & ~board_space().terminal] == n).sum()) for n in STRATA]
        assert row["spearman_within_move_count"] == pytest.approx(
            sum(w * row[f"spearman_moves_{n}"] for w, n in zip(weights, STRATA)) / sum(weights))
        for setting in SETTINGS:
            total = row[f"{setting}_win"] + row[f"{setting}_draw"] + row[f"{setting}_loss"]
            assert total == pytest.approx(1.0, abs=1e-12)
        assert row["compression_ratio"] == pytest.approx(2 * row["n_tokens"] / N_BOARDS)
    assert table.row(0, named=True)["n_tokens"] == K_BY_VARIANT["full"]
    vocabulary = prototypes.filter(pl.col("frequency") == "full")["token"].n_unique()
    assert table.row(1, named=True)["n_tokens"] == vocabulary


def test_prototype_of_three_x_in_a_row_correlates_positively():
    x_wins = tokenize_state(board_documents()[board_index("111220000")], num_suffix=True)
    o_wins = tokenize_state(board_documents()[board_index("110222100")], num_suffix=True)
    prototypes = pl.DataFrame([{"game": "tictactoe", "frequency": "full", "seat": seat, "token": token,
                                "count": float(count), "p": 0.0}
                               for seat, bag in enumerate((x_wins, o_wins)) for token, count in bag.items()],
                              schema_overrides={"seat": pl.Int8})
    row = jsonbag_vs_exact_table(prototypes).row(0, named=True)
    assert row["variant"] == "none"
    assert row["pearson_pooled"] > 0.1 and row["spearman_pooled"] > 0.1


def test_a_value_that_only_sees_the_mark_count_has_no_within_stratum_signal():
    # Prototypes and features of moveCount tokens only: V depends on the mark count and nothing else, the
    # demo's `adaptive` case (best-move agreement on decided boards, about half the boards undecided).
    bags = ({f".moveCount.{n}": 1.0 for n in (1, 3, 5, 7, 9)}, {f".moveCount.{n}": 3.0 for n in (2, 4, 6, 8)})
    prototypes = pl.DataFrame([{"game": "tictactoe", "frequency": "full", "seat": seat, "token": token, "count": count,
                                "p": 0.0} for seat, bag in enumerate(bags) for token, count in bag.items()],
                              schema_overrides={"seat": pl.Int8})
    features = pl.DataFrame([{"game": "tictactoe", "variant": "adaptive", "token": f".moveCount.{n}", "rank": n + 1}
                             for n in range(10)], schema_overrides={"rank": pl.Int32})
    row = jsonbag_vs_exact_table(prototypes, features).row(0, named=True)
    assert row["variant"] == "adaptive"
    assert row["spearman_within_move_count"] == 0.0 and row["pearson_within_move_count"] == 0.0
    assert all(row[f"spearman_moves_{n}"] is None for n in STRATA)
    assert row["spearman_pooled"] is not None  # V does differ between mark counts
    assert row["undecided_share"] > 0.3  # children share a mark count: V ties them unless one wins at once
    assert row["random_best_move_probability"] < row["best_move_probability"] < 1


def test_within_move_count_spearman_ignores_offsets_between_counts():
    y = np.array([1.0, 2.0, 3.0, 4.0, 10.0, 11.0, 12.0, 13.0])
    x = np.array([5.0, 6.0, 7.0, 8.0, 1.0, 2.0, 3.0, 4.0])  # ordered within each count, reversed between
    moves = np.array([2, 2, 2, 2, 3, 3, 3, 3])
    assert spearman_within_move_count(correlations_by_move_count(x, y, moves)) == pytest.approx(1.0)
    assert pearson_within_move_count(correlations_by_move_count(x, y, moves)) == pytest.approx(1.0)
    assert stats.spearmanr(x, y).statistic < 0  # pooled, the offset between counts reverses the sign


def test_a_constant_stratum_counts_zero_in_the_weighted_mean():
    y = np.array([1.0, 2.0, 3.0, 4.0, 10.0, 11.0, 12.0, 13.0, 20.0, 21.0])
    x = np.array([1.0, 2.0, 3.0, 4.0, 7.0, 7.0, 7.0, 7.0, 0.0, 1.0])
    moves = np.array([2, 2, 2, 2, 3, 3, 3, 3, 4, 4])  # 4 marks: two boards only, too few to rank
    strata = correlations_by_move_count(x, y, moves)
    assert sorted(strata) == [2, 3] and strata[3] == (4, None, None)
    assert strata[2] == (4, pytest.approx(1.0), pytest.approx(1.0))
    assert spearman_within_move_count(strata) == pytest.approx(0.5)  # (4 * 1 + 4 * 0) / 8
    assert spearman_within_move_count(correlations_by_move_count(np.zeros(10), y, moves)) == 0.0
    assert spearman_within_move_count(correlations_by_move_count(x, np.ones(10), moves)) is None  # nothing to rank


def test_best_move_rule_on_hand_built_boards():
    legal = np.array([[1, 1, 1, 0]] * 6, dtype=bool)
    exact = np.array([[1, 0, 0, 0],   # agrees: V's only best move is the exact best
                      [1, 0, 0, 0],   # undecided: V ties the best move with a worse one
                      [1, 0, 0, 0],   # disagrees: V's best is not an exact best move
                      [1, 1, 0, 0],   # agrees: V's best moves are both exact best
                      [1, 1, 0, 0],   # agrees: one of two exact best moves, V sure of it
                      [1, 1, 1, 0]],  # uncontested: f_all ties every legal move, left out
                     dtype=bool)
    value = np.array([[1, 0, 0, 0], [1, 1, 0, 0], [0, 0, 1, 0], [1, 1, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0]],
                     dtype=bool)
    metrics = best_move_metrics(value, exact, legal)
    assert metrics["n_contested_boards"] == 5
    assert metrics["best_move_agreement"] == pytest.approx(3 / 4)
    assert metrics["undecided_share"] == pytest.approx(1 / 5)
    assert metrics["best_move_probability"] == pytest.approx((1 + 0.5 + 0 + 1 + 1) / 5)
    assert metrics["random_best_move_probability"] == pytest.approx((1 / 3 * 3 + 2 / 3 * 2) / 5)
    with pytest.raises(ValueError, match="best_move_metrics"):
        best_move_metrics(value[:, :3], exact, legal)
    with pytest.raises(ValueError, match="best_move_metrics"):
        best_move_metrics(np.eye(6, 4, 3, dtype=bool), exact, legal)  # a best move that is not legal


def test_a_value_that_ties_every_move_decides_nothing_and_the_exact_value_everything():
    f = exact_values()
    exact, legal = best_children(f)
    constant = best_move_metrics(best_children(np.zeros(N_BOARDS))[0], exact, legal)
    assert constant["best_move_agreement"] is None and constant["undecided_share"] == 1.0
    assert constant["best_move_probability"] == pytest.approx(constant["random_best_move_probability"])
    perfect = best_move_metrics(exact, exact, legal)
    assert (perfect["best_move_agreement"], perfect["undecided_share"], perfect["best_move_probability"]) == (1, 0, 1)


def test_bad_inputs_raise(lake_tables):
    prototypes, features = lake_tables
    with pytest.raises(ValueError, match="game"):
        jsonbag_vs_exact_table(prototypes.with_columns(pl.lit("connect4").alias("game")))
    with pytest.raises(ValueError, match="frequencies"):
        jsonbag_vs_exact_table(prototypes.with_columns(pl.lit("weekly").alias("frequency")))
    with pytest.raises(ValueError, match="variant"):
        jsonbag_vs_exact_table(prototypes, features.with_columns(pl.lit("best").alias("variant")))
    with pytest.raises(ValueError, match="empty"):
        jsonbag_vs_exact_table(prototypes.clear())


def test_plot_writes_a_png_and_rejects_missing_columns(tmp_path):
    jsonbag = pl.DataFrame({"frequency": ["full", "random"], "variant": ["none", "full"],
                            "compression_ratio": [0.01, 0.005], "vs_random_first_win": [0.9, 0.8]})
    compression = pl.DataFrame({"method": ["svd", "svd", "hosvd", "hosvd"], "Cr": [0.0, 0.02, 0.0, 0.01],
                                "vs_random_first_win": [0.58, 0.9, 0.58, 0.85]})
    path = plot_jsonbag_vs_compression(jsonbag, compression, tmp_path / "plots" / "jsonbag.png")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(ValueError, match="compression_ratio"):
        plot_jsonbag_vs_compression(jsonbag.drop("compression_ratio"), compression, tmp_path / "x.png")


@pytest.mark.slow
def test_whole_table_for_every_frequency_and_variant_is_fast(lake_tables):
    prototypes, features = lake_tables
    start = time.perf_counter()
    table = jsonbag_vs_exact_table(prototypes, features)
    seconds = time.perf_counter() - start
    assert table.height == len(FREQUENCIES) * len(FEATURE_VARIANTS)
    assert (table["n_boards"] == 4520).all()
    assert seconds < 30.0, f"the 24-row table took {seconds:.1f} s"
