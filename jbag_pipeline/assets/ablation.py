"""The value-function ablation per game: the headline pair with one choice changed, against the control."""

import time

import dagster as dg
import polars as pl

from jbag_pipeline.play.evaluation import play_evaluation, split_pair
from jbag_pipeline.analysis.ablation import (Level, ablation_levels, ablation_table, full_tables,
                                             features_at_k)
from jbag_pipeline.analysis.verdicts import HEADLINE
from jbag_pipeline.assets.common import game_partitions, game_setup, preview
from jbag_pipeline.model.tokenize import TokenFilter
from jbag_pipeline.model.value_tables import make_jsonbag_value
from jbag_pipeline.presets import game_run
from jbag_pipeline.resources import JbagCompute, JbagSettings
from jbag_pipeline.training.value_function import ValueFunctionTables
from jbag_pipeline.schemas import VALUE_FUNCTION_ABLATION


@dg.asset(group_name="evaluation", partitions_def=game_partitions,
          check_specs=[dg.AssetCheckSpec("default_rows_are_the_headline_pair", asset="value_function_ablation")],
          description="The headline pair's value function with one choice changed at a time (top_k, normalisation, "
                      "each turn-order field dropped or kept), each level against the control on the evaluation "
                      "seeds and against its factor's default level (evaluation_games' headline rows).")
def value_function_ablation(context: dg.AssetExecutionContext, settings: JbagSettings, compute: JbagCompute,
                            selfplay_games: pl.DataFrame, evaluation_games: pl.DataFrame,
                            evaluation_control: pl.DataFrame, winner_prototypes: pl.DataFrame,
                            selected_features: pl.DataFrame, state_tokens: pl.LazyFrame, sampled_states: pl.LazyFrame):
    game = context.partition_key
    preset = settings.get_preset()
    n_players, params = game_setup(selfplay_games)
    frequency, variant = split_pair(HEADLINE)
    headline = evaluation_games.filter((pl.col("prototype_frequency") == frequency)
                                       & (pl.col("feature_variant") == variant))
    games_per_seat = game_run(preset, game).eval_games_per_seat
    if headline.is_empty() and games_per_seat > 0:
        raise ValueError(f"value_function_ablation: evaluation_games has no {HEADLINE} rows for {game!r}; "
                         f"materialise evaluation_games first")
    default = ValueFunctionTables(winner_prototypes.filter(pl.col("frequency") == frequency),
                             selected_features.filter(pl.col("variant") == variant))
    builder = _LevelTables(settings, game, selfplay_games, default, selected_features, state_tokens, sampled_states)
    started, played = time.perf_counter(), []
    for level in ablation_levels(preset, game):
        tables = builder.tables(level)
        if level.is_default:
            games = headline  # the default level's games are evaluation_games' headline rows: never replayed
        else:
            def value_factory(tables=tables, level=level):
                return make_jsonbag_value(tables.prototypes, tables.features, frequency, variant, n_players,
                                          token_filter=TokenFilter(level.blacklist), normalisation=level.normalisation)

            games = play_evaluation(game, params, frequency, variant, value_factory, games_per_seat, preset.seed,
                                    compute.get_compute())
        played.append(games.select("game", "seat", "score").with_columns(
            pl.lit(level.factor).alias("factor"), pl.lit(level.level).alias("level"),
            pl.lit(level.is_default).alias("is_default"), pl.lit(len(tables.features)).alias("n_features")))
    seconds = time.perf_counter() - started
    table = ablation_table(pl.concat(played), evaluation_control, HEADLINE) if played else \
        pl.DataFrame(schema=VALUE_FUNCTION_ABLATION)
    yield dg.Output(table, metadata={"seconds": seconds, "levels": len(played), "table": preview(table, 30),
                                     "headline_games": len(headline)})
    defaults = table.filter(pl.col("is_default"))
    yield dg.AssetCheckResult(check_name="default_rows_are_the_headline_pair",
                              passed=bool((defaults["n"] == len(headline)).all()),
                              metadata={"headline_games": len(headline)})


class _LevelTables:
    """Builds (and remembers) each level's prototypes and features from this game's tables (state_tokens and
    sampled_states as scans of the lake: read only when a level needs another blacklist)."""

    def __init__(self, settings: JbagSettings, game: str, games: pl.DataFrame, default: ValueFunctionTables,
                 features: pl.DataFrame, state_tokens: pl.LazyFrame, sampled_states: pl.LazyFrame):
        self.game, self.games, self.default, self.features = game, games, default, features
        self.state_tokens, self.sampled_states = state_tokens, sampled_states
        self.preset = settings.get_preset()
        self._built: dict[tuple, ValueFunctionTables] = {}
        self._tokens: tuple[pl.LazyFrame, pl.DataFrame] | None = None

    def tables(self, level: Level) -> ValueFunctionTables:
        preset, key = self.preset, (level.blacklist, level.k)
        if key == (preset.blacklist_for(self.game), preset.top_k):
            return self.default
        if key not in self._built:
            if level.blacklist == preset.blacklist_for(self.game):  # the same bags, another k
                features = features_at_k(self.features, level.k)
                self._built[key] = ValueFunctionTables(self.default.prototypes, features)
            else:
                if self._tokens is None:  # read once, only when some level needs another blacklist (state_tokens
                    # kept a scan: full_tables takes it a block of games at a time)
                    self._tokens = (self.state_tokens, self.sampled_states.collect())
                self._built[key] = full_tables(
                    *self._tokens, self.games, blacklist=level.blacklist, k=level.k, n_estimators=preset.rf_trees,
                    seed=preset.seed, memory_limit=preset.duckdb_memory_limit)
        return self._built[key]
