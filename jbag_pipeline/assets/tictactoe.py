"""Tic-tac-toe asset group: the exact evaluation function and its SVD/HOSVD compression (the one exact truth)."""

import time

import dagster as dg
import polars as pl

from jbag_pipeline.assets.common import preview
from jbag_pipeline.assets.conditions import SUMMARY_CONDITION
from jbag_pipeline.presets import token_filter_for
from jbag_pipeline.resources import JbagSettings, LakeResource
from jbag_pipeline.run_policy import GAME
from jbag_pipeline.tictactoe.exact import evaluation_table
from jbag_pipeline.tictactoe.jsonbag import jsonbag_vs_exact_table, plot_jsonbag_vs_compression
from jbag_pipeline.tictactoe.table import compression_table, plot_compression


class TicTacToeConfig(dg.Config):
    """terminal_as_zero reproduces the original authors' data (terminal boards stored as 0)."""

    terminal_as_zero: bool = False
    inverse_temperature: float = 10.0


@dg.asset(group_name="tictactoe", check_specs=[dg.AssetCheckSpec("valid_board_count", asset="tictactoe_values")],
          description="f_all over all 3^9 boards: terminal results, mean of children under random play, invalid 0.")
def tictactoe_values(config: TicTacToeConfig):
    table = evaluation_table(terminal_as_zero=config.terminal_as_zero)
    empty = table.filter(pl.col("board") == 0)["f_all"][0]
    yield dg.Output(table, metadata={"f_all_empty_board": float(empty), "valid_boards": int(table["valid"].sum())})
    yield dg.AssetCheckResult(check_name="valid_board_count", passed=int(table["valid"].sum()) == 5478)


@dg.asset(group_name="tictactoe", deps=["tictactoe_values"],
          check_specs=[dg.AssetCheckSpec("error_bounds", asset="tictactoe_compression")],
          description="SVD (r=0..81) and HOSVD (r=0..27) of f_all: Cr, E and exact softmax-agent outcomes "
                      "(probabilities computed over every board, not sampled: no intervals or verdicts).")
def tictactoe_compression(config: TicTacToeConfig, lake: LakeResource):
    start = time.perf_counter()
    table = compression_table(w=config.inverse_temperature, terminal_as_zero=config.terminal_as_zero)
    root = lake.root()
    (root / "report").mkdir(parents=True, exist_ok=True)
    plot = plot_compression(table, root / "report" / "tictactoe_compression.png")
    heads = table.filter(pl.col("r").is_in([1, 2, 3])).select("method", "r", "Cr", "E", "vs_random_first_win",
                                                               "vs_random_second_win")
    yield dg.Output(table, metadata={"seconds": time.perf_counter() - start, "ranks_1_to_3": preview(heads),
                                     "plot": dg.MetadataValue.path(str(plot))})
    full = table.group_by("method").agg(pl.col("E").min().alias("min_e"), pl.col("E").max().alias("max_e"))
    ok = bool(((full["min_e"] < 1e-9) & ((full["max_e"] - 1).abs() < 1e-9)).all())
    yield dg.AssetCheckResult(check_name="error_bounds", passed=ok, metadata={"E_range": preview(full)})


METRICS_NOTE = (
    "Correlations compare the mover's V_mover - V_other with the mover-signed f_all over the 4,520 boards in "
    "play. Headline: within each mark count (1-8), board-weighted mean, a stratum where V is constant counting "
    "0; `*_pooled` over all boards at once is dominated by the mark count. Best moves count only the boards "
    "where f_all separates the legal moves (`n_contested_boards`); ties within 1e-12 are all best moves. A "
    "board is undecided when V ties an exact best move with a worse one; `best_move_agreement` = boards where "
    "every V-best move is exact best / boards not undecided; `best_move_probability` = chance that V's policy "
    "(ties split evenly) plays an exact best move, beside `random_best_move_probability` for random play.")


TICTACTOE = dg.SpecificPartitionsPartitionMapping(["tictactoe"])  # the tic-tac-toe partition of a per-game table


@dg.asset(group_name="tictactoe", tags={GAME: "tictactoe"}, automation_condition=SUMMARY_CONDITION,
          ins={"winner_prototypes": dg.AssetIn(partition_mapping=TICTACTOE),
               "selected_features": dg.AssetIn(partition_mapping=TICTACTOE), "tictactoe_compression": dg.AssetIn()},
          check_specs=[dg.AssetCheckSpec("board_count", asset="tictactoe_jsonbag")],
          description="JSON-Bag value functions of tic-tac-toe self-play against f_all: correlation within "
                      "move-count strata (headline) and pooled, best-move agreement beside the undecided share, "
                      "exact win rates (computed, not sampled: no intervals or verdicts), compression ratio.")
def tictactoe_jsonbag(config: TicTacToeConfig, settings: JbagSettings, lake: LakeResource,
                      winner_prototypes: pl.DataFrame, selected_features: pl.DataFrame,
                      tictactoe_compression: pl.DataFrame):
    root = lake.root()
    table = jsonbag_vs_exact_table(winner_prototypes, selected_features, w=config.inverse_temperature,
                                   token_filter=token_filter_for(settings.get_preset(), "tictactoe"))
    (root / "report").mkdir(parents=True, exist_ok=True)
    plot = plot_jsonbag_vs_compression(table, tictactoe_compression, root / "report" / "tictactoe_jsonbag.png")
    headline = table.select("frequency", "variant", "spearman_within_move_count", "pearson_within_move_count",
                            "best_move_agreement", "undecided_share", "best_move_probability",
                            "random_best_move_probability", "spearman_pooled")
    yield dg.Output(table, metadata={"results": preview(headline, 30), "metrics": dg.MetadataValue.md(METRICS_NOTE),
                                     "plot": dg.MetadataValue.path(str(plot))})
    yield dg.AssetCheckResult(check_name="board_count", passed=bool((table["n_boards"] == 4520).all()))
