"""The learning_curve asset: the curve's pairs rebuilt from nested shares of a game's self-play games, each evaluated
against the control on the evaluation's seeds (play/learning_curve.py)."""

import time

import dagster as dg
import polars as pl

from jbag_pipeline.play.evaluation import split_pair
from jbag_pipeline.play.learning_curve import curve_games, curve_table, training_tables
from jbag_pipeline.assets.common import game_partitions, game_setup, preview
from jbag_pipeline.assets.evaluation import PAIRS, evaluated_pairs
from jbag_pipeline.model.variants import SENSITIVITY_VARIANT
from jbag_pipeline.presets import Preset, game_run, token_filter_for
from jbag_pipeline.resources import JbagCompute, JbagSettings


def curve_pairs(preset: Preset) -> list[str]:
    """The pairs a preset's learning curve rebuilds, sorted: learning_curve_pairs, else the evaluated pairs without
    the counters-kept sensitivity pair (its tables keep the counters, so no share of them is rebuilt)."""
    pairs = preset.learning_curve_pairs or [p for p in evaluated_pairs(preset)
                                            if split_pair(p)[1] != SENSITIVITY_VARIANT]
    known = [p for p in PAIRS if split_pair(p)[1] != SENSITIVITY_VARIANT]
    unknown = sorted(set(pairs) - set(known))
    if unknown:
        raise ValueError(f"preset {preset.name!r}: learning_curve_pairs {unknown} are not curve pairs; known: {known}")
    return sorted(pairs)


@dg.asset(group_name="evaluation", partitions_def=game_partitions,
          check_specs=[dg.AssetCheckSpec("last_point_is_the_evaluation", asset="learning_curve")],
          description="Learning curve: each curve pair's value function built from the first share of the self-play "
                      "games (nested shares), evaluated against the control on the same seeds; the share-1 point is "
                      "evaluation_games itself.")
def learning_curve(context: dg.AssetExecutionContext, settings: JbagSettings, compute: JbagCompute,
                   selfplay_games: pl.DataFrame, trajectory_bags: pl.LazyFrame, segmented_bags: pl.LazyFrame,
                   evaluation_games: pl.DataFrame, evaluation_control: pl.DataFrame):
    game = context.partition_key
    preset = settings.get_preset()
    pairs = curve_pairs(preset)
    n_players, params = game_setup(selfplay_games)

    def build(game_ids: list[int]):
        return training_tables(trajectory_bags, segmented_bags, selfplay_games, game_ids, pairs, k=preset.top_k,
                               n_estimators=preset.rf_trees, seed=preset.seed, adaptive_share=preset.adaptive_share,
                               memory_limit=preset.duckdb_memory_limit)

    started = time.perf_counter()
    played = curve_games(game, params, n_players, pairs, preset.learning_curve_shares, selfplay_games,
                         evaluation_games, build, token_filter_for(preset, game),
                         game_run(preset, game).eval_games_per_seat, preset.seed, compute.get_compute())
    seconds = time.perf_counter() - started
    table = curve_table(played.games, evaluation_control, selfplay_games["agents"].explode().drop_nulls().to_list())
    yield dg.Output(table, metadata={"table": preview(table, 40), "seconds": seconds, "pairs": pairs,
                                     "shares": list(preset.learning_curve_shares),
                                     "note": "; ".join(played.notes) or "every share evaluated"})
    last = table.filter(pl.col("share") == 1.0).select("pair", "n", "wins")
    evaluated = evaluation_games.group_by(pl.concat_str("prototype_frequency", "feature_variant", separator="-")
                                          .alias("pair")).agg(pl.len().cast(pl.Int64).alias("n"),
                                                              (pl.col("score") == 1).sum().cast(pl.Int64).alias("wins"))
    mismatched = last.join(evaluated, on="pair", how="inner", suffix="_evaluation").filter(
        (pl.col("n") != pl.col("n_evaluation")) | (pl.col("wins") != pl.col("wins_evaluation")))
    differing = ", ".join(mismatched["pair"]) or "none"
    yield dg.AssetCheckResult(check_name="last_point_is_the_evaluation", passed=mismatched.is_empty(),
                              metadata={"pairs_differing_from_evaluation_games": differing})
