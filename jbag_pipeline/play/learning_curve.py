"""Learning curves: the value functions of the curve's pairs rebuilt from nested shares of the self-play games and
evaluated against the control on the evaluation's seeds.

A share keeps the first ceil(share * N) self-play games by game_id (seeds are sequential, so a share is "what if we
had played fewer games"), so a smaller share's games are a subset of a larger's. The share-1 point is the
evaluation itself: its rows come from evaluation_games (same value function, same seeds), not a replay.
"""

from __future__ import annotations

import math
from typing import Callable, NamedTuple

import polars as pl

from jbag_pipeline.play.evaluation import play_evaluation, split_pair
from jbag_pipeline.analysis.statistics import OVERALL, summarise
from jbag_pipeline.compute import Compute
from jbag_pipeline.model.tokenize import TokenFilter
from jbag_pipeline.model.value_tables import make_jsonbag_value
from jbag_pipeline.model.variants import FREQUENCIES
from jbag_pipeline.schemas import EVALUATION_GAMES_STORED, LEARNING_CURVE, conform
from jbag_pipeline.training.value_function import TrainingSettings, ValueFunctionTables, train_value_function

SEGMENTED = "_seg"


class CurveGames(NamedTuple):
    """The curve's evaluation games (evaluation_games rows with share and train_games), a note per skipped share."""

    games: pl.DataFrame
    notes: list[str]


def nested_shares(game_ids: list[int], shares: tuple[float, ...]) -> dict[float, list[int]]:
    """Per share, the first ceil(share * N) of the sorted self-play game ids: each share's games hold the smaller's."""
    ids = sorted(game_ids)
    return {share: ids[:math.ceil(share * len(ids))] for share in shares}


def selection_frequency(variant: str) -> str:
    """The frequency whose bags a feature variant is selected on: `f` and `f_seg` on f, none and adaptive on full."""
    base = variant.removesuffix(SEGMENTED)
    return base if base in FREQUENCIES else "full"


def training_tables(trajectory_bags: pl.DataFrame | pl.LazyFrame, segmented_bags: pl.DataFrame | pl.LazyFrame,
                    games: pl.DataFrame, game_ids: list[int], pairs: list[str], *, k: int, n_estimators: int, seed: int,
                    adaptive_share: float, memory_limit: str = "4GB") -> ValueFunctionTables | None:
    """Winner prototypes of the pairs' frequencies and the pairs' feature variants, from the games `game_ids` only:
    train_value_function on those games' trajectory bags, the forest ranking their segmented bags, as the model
    chain does; None when fewer than two seats won one of those games (a forest needs two classes). Of LazyFrames
    only the games and frequencies needed are read."""
    chosen = pl.col("game_id").is_in(game_ids)
    of_share = games.filter(chosen)
    if of_share["winner"].drop_nulls().n_unique() < 2:
        return None
    frequencies = sorted({split_pair(pair)[0] for pair in pairs})
    variants = sorted({split_pair(pair)[1] for pair in pairs})
    bags = trajectory_bags.lazy().filter(chosen & pl.col("frequency").is_in(frequencies)).collect()
    selected_on = sorted({selection_frequency(variant) for variant in variants})
    ranked = segmented_bags.lazy().filter(chosen & pl.col("frequency").is_in(selected_on))
    settings = TrainingSettings(k=k, n_estimators=n_estimators, seed=seed, adaptive_share=adaptive_share,
                                memory_limit=memory_limit)
    prototypes, features = train_value_function(bags, ranked, of_share, settings)
    return ValueFunctionTables(prototypes, features.filter(pl.col("variant").is_in(variants)))


def _pair_column() -> pl.Expr:
    return (pl.col("prototype_frequency") + "-" + pl.col("feature_variant")).alias("pair")


def curve_games(game: str, params: dict, n_players: int, pairs: list[str], shares: tuple[float, ...],
                selfplay_games: pl.DataFrame, evaluation_games: pl.DataFrame,
                build: Callable[[list[int]], ValueFunctionTables | None], token_filter: TokenFilter,
                games_per_seat: int, base_seed: int, compute: Compute | None = None) -> CurveGames:
    """Every curve point's evaluation games of `game`: per share and pair, the value function of build(share's game
    ids) played by play_evaluation on the control's seeds; at share 1 the pairs evaluation_games holds are taken
    from it, and only the others are played."""
    evaluated = evaluation_games.filter(pl.col("game") == game).with_columns(_pair_column())
    played, notes = [], []
    for share, game_ids in nested_shares(selfplay_games["game_id"].to_list(), shares).items():
        columns = [pl.lit(share, pl.Float64).alias("share"), pl.lit(len(game_ids), pl.Int32).alias("train_games")]
        reused = evaluated.filter(pl.col("pair").is_in(pairs)) if share == 1.0 else evaluated.clear()
        to_play = [pair for pair in pairs if pair not in set(reused["pair"])]
        if not reused.is_empty():
            played.append(reused.select(list(EVALUATION_GAMES_STORED)).with_columns(columns))
        if not to_play:
            continue
        tables = build(game_ids)
        if tables is None:
            notes.append(f"share {share} ({len(game_ids)} games) skipped: its games were won by fewer than two seats, "
                         "so no feature selection")
            continue
        for pair in to_play:
            frequency, variant = split_pair(pair)

            def value_factory(frequency=frequency, variant=variant):
                return make_jsonbag_value(tables.prototypes, tables.features, frequency, variant, n_players,
                                          token_filter=token_filter)

            games = play_evaluation(game, params, frequency, variant, value_factory, games_per_seat, base_seed, compute)
            played.append(games.drop("seconds").with_columns(columns))
    schema = {**EVALUATION_GAMES_STORED, "share": pl.Float64, "train_games": pl.Int32}
    games = pl.concat(played).sort("share", "prototype_frequency", "feature_variant", "seat", "game_index") \
        if played else pl.DataFrame(schema=schema)
    return CurveGames(games.select(list(schema)), notes)


def agent_and_budget(labels: list[str]) -> tuple[str, str]:
    """(agent, budget) of the self-play games' `agents` labels: 'mcts(iterations=10,rollout=20)' -> ('mcts',
    'iterations=10,rollout=20'); labels that differ between seats are listed whole as the agent."""
    distinct = sorted(set(labels))
    if len(distinct) != 1:
        return ", ".join(distinct), ""
    name, _, budget = distinct[0].partition("(")
    return name, budget.removesuffix(")")


def curve_table(games: pl.DataFrame, control: pl.DataFrame, agent_labels: list[str]) -> pl.DataFrame:
    """learning_curve rows: per share and pair the overall row of summarise (stratified by seat) against the control,
    Holm across the curve's pairs at the same share; selfplay_agent and budget from the self-play `agents` labels."""
    if games.is_empty():
        return pl.DataFrame(schema=LEARNING_CURVE)
    summary = summarise(games, control, keys=("game", "share", "train_games", "prototype_frequency",
                                              "feature_variant"), family=("game", "share"))
    overall = summary.filter(pl.col("scope") == OVERALL).with_columns(
        _pair_column(), *(pl.lit(value).alias(name) for name, value in
                          zip(("selfplay_agent", "budget"), agent_and_budget(agent_labels))))
    return conform(overall, LEARNING_CURVE, "learning_curve").sort("game", "share", "pair")
