"""Evaluation assets: JSON-Bag OSLA against baseline OSLAs per (game, prototype frequency x feature variant)."""

import time

import dagster as dg
import orjson
import polars as pl

from engines import GAMES
from jbag_pipeline import lake
from jbag_pipeline.assets.common import preview, table_metadata
from jbag_pipeline.evaluation import play_evaluation
from jbag_pipeline.jsonbag_agent import FEATURE_VARIANTS, make_jsonbag_value
from jbag_pipeline.presets import game_run
from jbag_pipeline.resources import JbagSettings
from jbag_pipeline.sampling import FREQUENCIES
from jbag_pipeline.statistics import best_frequency_without_selection, effect_sizes, summarise, top_pairs

PAIRS = [f"{frequency}-{variant}" for frequency in FREQUENCIES for variant in FEATURE_VARIANTS]
evaluation_partitions = dg.MultiPartitionsDefinition({
    "game": dg.StaticPartitionsDefinition(sorted(GAMES)),
    "pair": dg.StaticPartitionsDefinition(PAIRS),
})


def split_pair(pair: str) -> tuple[str, str]:
    """'interval-full_seg' -> ('interval', 'full_seg')."""
    frequency, variant = pair.split("-", 1)
    return frequency, variant


@dg.asset(group_name="evaluation", partitions_def=evaluation_partitions,
          deps=["winner_prototypes", "selected_features", "selfplay_games"],
          check_specs=[dg.AssetCheckSpec("every_seat_played", asset="evaluation_games")],
          description="One row per evaluation game: the JSON-Bag OSLA in one seat, baseline OSLAs in the others.")
def evaluation_games(context: dg.AssetExecutionContext, settings: JbagSettings):
    keys = context.partition_key.keys_by_dimension
    game, pair = keys["game"], keys["pair"]
    frequency, variant = split_pair(pair)
    root, preset = settings.root(), settings.get_preset()
    run = game_run(preset, game)
    prototypes = lake.read_table(root, "winner_prototypes", {"game": game})
    features = lake.read_table(root, "selected_features", {"game": game})
    selfplay = lake.read_table(root, "selfplay_games", {"game": game})
    n_players = int(selfplay["n_players"][0])
    params = orjson.loads(selfplay["params"][0])

    def value_factory():
        return make_jsonbag_value(prototypes, features, frequency, variant, n_players, seed=preset.seed)

    started = time.perf_counter()
    games = play_evaluation(game, params, frequency, variant, value_factory, run.eval_games_per_seat, preset.seed)
    seconds = time.perf_counter() - started
    games = games.drop("seconds")  # wall time would make reruns differ; it goes to the metadata instead
    path = lake.write_table(games, root, "evaluation_games", {"game": game, "pair": pair})
    per_seat = games.group_by("seat").agg(pl.col("score").mean().alias("mean_score"), pl.len().alias("games")).sort("seat")
    yield dg.MaterializeResult(metadata={**table_metadata(games.drop("actions"), path), "seconds": seconds,
                                         "mean_score": float(games["score"].mean() or 0.0),
                                         "per_seat": preview(per_seat)})
    seats = set(games["seat"].to_list())
    yield dg.AssetCheckResult(check_name="every_seat_played",
                              passed=run.eval_games_per_seat == 0 or seats == set(range(n_players)))


@dg.multi_asset(
    specs=[
        dg.AssetSpec("evaluation_summary", group_name="evaluation", deps=["evaluation_games"],
                     description="Mean score, 95% CI and t-test against 0 per pair and seat, overall, Best-Worst Diff."),
        dg.AssetSpec("paper_table_1", group_name="evaluation", deps=["evaluation_games"],
                     description="Table I: the top-3 (prototype frequency, feature variant) pairs per game."),
        dg.AssetSpec("paper_table_2", group_name="evaluation", deps=["evaluation_games"],
                     description="Table II: the best prototype frequency without feature selection per game."),
        dg.AssetSpec("effect_sizes", group_name="evaluation", deps=["evaluation_games"],
                     description="Table III: eta-squared of prototype frequency and of feature selection per game."),
    ],
    check_specs=[dg.AssetCheckSpec("eta_squared_in_unit_interval", asset="effect_sizes")],
)
def evaluation_tables(settings: JbagSettings):
    root = settings.root()
    games = lake.read_table(root, "evaluation_games")
    summary = summarise(games)
    tables = {"evaluation_summary": summary, "paper_table_1": top_pairs(summary, 3),
              "paper_table_2": best_frequency_without_selection(summary), "effect_sizes": effect_sizes(games)}
    for name, table in tables.items():
        path = lake.write_table(table, root, name)
        shown = table.filter(pl.col("scope") == "overall") if name == "evaluation_summary" else table
        yield dg.MaterializeResult(asset_key=name, metadata={**table_metadata(table, path),
                                                             "table": preview(shown, 40)})
    eta = tables["effect_sizes"]["eta_squared"].drop_nans().drop_nulls()
    yield dg.AssetCheckResult(asset_key="effect_sizes", check_name="eta_squared_in_unit_interval",
                              passed=bool(eta.is_between(0, 1).all()))
