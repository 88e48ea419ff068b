"""training.value_function: one value function's prototypes and features from bag tables, without Dagster."""

import numpy as np
import polars as pl
from polars.testing import assert_frame_equal

from jbag_pipeline.model.selection import select_features
from jbag_pipeline.presets import PRESETS
from jbag_pipeline.training.value_function import (TrainingSettings, feature_selection, train_value_function,
                                                   winner_prototypes)

GAMES = pl.DataFrame({"game": "g", "game_id": list(range(40)), "winner": [i % 2 if i % 9 else None for i in range(40)]},
                     schema={"game": pl.String, "game_id": pl.Int64, "winner": pl.Int8})
SETTINGS = TrainingSettings(k=3, n_estimators=10, seed=1, adaptive_share=0.5)


def bags(frequencies=("full", "interval"), segments: int | None = None, seed: int = 0) -> pl.DataFrame:
    """Random bags of GAMES: token .w<seat> is more common in the games that seat won."""
    rng = np.random.default_rng(seed)
    rows = []
    for frequency in frequencies:
        for game_id, winner in GAMES.select("game_id", "winner").iter_rows():
            for segment in range(1, (segments or 1) + 1):
                counts = {f".t{i}": int(rng.integers(1, 6)) for i in rng.choice(12, size=6, replace=False)}
                if winner is not None:
                    counts[f".w{winner}"] = int(rng.integers(3, 9))
                total = sum(counts.values())
                rows += [("g", frequency, game_id, segment, token, count, count / total)
                         for token, count in sorted(counts.items())]
    table = pl.DataFrame(rows, schema={"game": pl.String, "frequency": pl.String, "game_id": pl.Int64,
                                       "segment": pl.Int32, "token": pl.String, "count": pl.Int64, "p": pl.Float64},
                         orient="row")
    return table if segments else table.drop("segment")


def test_prototypes_come_from_the_bags_and_features_from_the_ranked_bags():
    trajectories, segmented = bags(), bags(frequencies=("full",), segments=2, seed=1)
    prototypes, features = train_value_function(trajectories, segmented.lazy(), GAMES, SETTINGS)
    assert_frame_equal(prototypes, winner_prototypes(trajectories, GAMES))
    assert sorted(prototypes["frequency"].unique()) == ["full", "interval"]
    assert sorted(features["variant"].unique()) == ["adaptive", "full", "full_seg", "none"]  # ranked: full only
    expected = select_features(segmented, GAMES, k=3, n_estimators=10, seed=1, adaptive_share=0.5).features
    assert_frame_equal(features, expected)
    assert features.filter(pl.col("variant") == "full").height == 3  # the settings' k


def test_whole_trajectories_ranked_give_no_segmented_variants_and_the_settings_count():
    trajectories = bags()
    features = train_value_function(trajectories, trajectories, GAMES, SETTINGS).features
    assert not features["variant"].str.ends_with("_seg").any()
    wider = feature_selection(trajectories, GAMES, TrainingSettings(k=5, n_estimators=10, seed=1)).features
    assert wider.filter(pl.col("variant") == "full").height == 5
    assert set(features.filter(pl.col("variant") == "full")["token"]) < set(
        wider.filter(pl.col("variant") == "full")["token"])  # one forest ranking, cut at another k


def test_a_seat_that_wins_a_token_gets_it_in_its_prototype():
    prototypes = winner_prototypes(bags(frequencies=("full",)), GAMES)
    tokens = {seat: set(rows["token"]) for (seat,), rows in prototypes.partition_by("seat", as_dict=True).items()}
    assert ".w0" in tokens[0] and ".w0" not in tokens[1] and ".w1" in tokens[1] and ".w1" not in tokens[0]
    assert np.allclose(prototypes.group_by("seat").agg(pl.col("p").sum())["p"].to_numpy(), 1.0)
    assert prototypes["count"].sum() == bags(frequencies=("full",)).join(
        GAMES.drop_nulls("winner"), on=["game", "game_id"])["count"].sum()  # draws left out, every won count kept


def test_a_preset_trains_with_its_forest_and_memory_settings():
    preset = PRESETS["smoke"]
    assert TrainingSettings.of_preset(preset) == TrainingSettings(
        preset.top_k, preset.rf_trees, preset.seed, preset.adaptive_share, preset.duckdb_memory_limit)
