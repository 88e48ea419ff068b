"""Train a JSON-Bag value function: winner prototypes of trajectory bags and the tokens a Random Forest selects.

The one composition every trainer calls: the model chain (one asset per step: winner_prototypes, then
feature_selection on the segmented bags), the counters-kept and ablation tables (analysis/ablation.full_tables),
the learning curve's shares (play/learning_curve.training_tables) and the transfer experiment
(transfer/experiment.model_from_tables). They differ only in what they pass: which bags (every frequency or
full only, every game or a share of them), which bags the forest ranks (the segmented datasets D_i, or the whole
trajectories themselves) and the forest's settings.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import polars as pl

from jbag_pipeline.model.selection import FeatureSelection, select_features
from jbag_pipeline.storage.sql import run_sql


@dataclass(frozen=True)
class TrainingSettings:
    """What a training takes besides its tables: the forest's k, trees, seed and adaptive share, DuckDB's memory."""

    k: int = 100
    n_estimators: int = 100
    seed: int = 0
    adaptive_share: float = 0.9
    memory_limit: str = "4GB"

    @classmethod
    def of_preset(cls, preset) -> TrainingSettings:
        """The settings a Preset trains its value functions with (top_k, rf_trees, seed, adaptive_share)."""
        return cls(preset.top_k, preset.rf_trees, preset.seed, preset.adaptive_share, preset.duckdb_memory_limit)


class ValueFunctionTables(NamedTuple):
    """winner_prototypes and selected_features rows: what make_jsonbag_value builds a value from."""

    prototypes: pl.DataFrame
    features: pl.DataFrame


def winner_prototypes(bags: pl.DataFrame | pl.LazyFrame, games: pl.DataFrame,
                      memory_limit: str = "4GB") -> pl.DataFrame:
    """The winner_prototypes table of trajectory bags (game, frequency, game_id, token, count) and games (game,
    game_id, winner; null for a draw): sql/winner_prototypes.sql."""
    return run_sql("winner_prototypes", {"trajectory_bags": bags.lazy().collect(), "games": games},
                   memory_limit=memory_limit)


def feature_selection(ranked_bags: pl.DataFrame | pl.LazyFrame, games: pl.DataFrame,
                      settings: TrainingSettings, accuracy: bool = True) -> FeatureSelection:
    """selected_features and feature_summary rows: the forest's ranking of `ranked_bags` (with a segment column:
    the `_seg` variants too) by the games' winners; the summary's OOB accuracy only if `accuracy`."""
    return select_features(ranked_bags, games, k=settings.k, n_estimators=settings.n_estimators, seed=settings.seed,
                           adaptive_share=settings.adaptive_share, accuracy=accuracy)


def train_value_function(bags: pl.DataFrame | pl.LazyFrame, ranked_bags: pl.DataFrame | pl.LazyFrame,
                         games: pl.DataFrame, settings: TrainingSettings) -> ValueFunctionTables:
    """Winner prototypes of `bags` and the features the forest selects from `ranked_bags` (segmented bags, or
    `bags` themselves), both labelled by `games`' winners."""
    prototypes = winner_prototypes(bags, games, settings.memory_limit)
    # no OOB accuracy: it goes to feature_summary only, and its out-of-bag predictions cost each forest about 15%
    return ValueFunctionTables(prototypes, feature_selection(ranked_bags, games, settings, accuracy=False).features)
