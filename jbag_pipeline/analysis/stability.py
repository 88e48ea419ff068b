"""Stability of the headline value function: prototypes and features rebuilt from two disjoint halves of self-play.

A verdict that flips between the halves says more about the training games than about the method, so the
report shows both halves' win rates next to each other.
"""

from __future__ import annotations

from typing import NamedTuple

import polars as pl

from jbag_pipeline.model.selection import select_features
from jbag_pipeline.storage.sql import run_sql

HALVES = ("a", "b")


class HalfTables(NamedTuple):
    """winner_prototypes and selected_features rows built from one half of the self-play games."""

    prototypes: pl.DataFrame
    features: pl.DataFrame


def split_halves(games: pl.DataFrame) -> dict[str, list[int]]:
    """Self-play game ids sorted, alternately into half a and half b (interleaved, so seeds and drift are shared)."""
    if "game_id" not in games.columns:
        raise ValueError(f"selfplay_games lacks column game_id (has {games.columns})")
    ids = sorted(games["game_id"].to_list())
    return {"a": ids[0::2], "b": ids[1::2]}


def half_tables(trajectory_bags: pl.DataFrame, segmented_bags: pl.DataFrame, games: pl.DataFrame,
                game_ids: list[int], frequency: str, *, k: int, n_estimators: int, seed: int,
                memory_limit: str = "4GB") -> HalfTables | None:
    """Winner prototypes at `frequency` and its Random-Forest variant, from the games `game_ids` only; None when
    fewer than two seats won a game of the half (a forest needs two classes)."""
    in_half = pl.col("game_id").is_in(game_ids)
    of_half = games.filter(in_half)
    if of_half["winner"].drop_nulls().n_unique() < 2:
        return None
    prototypes = run_sql("winner_prototypes", {
        "trajectory_bags": trajectory_bags.filter(in_half & (pl.col("frequency") == frequency)),
        "games": of_half,
    }, memory_limit=memory_limit)
    bags = segmented_bags.filter(in_half & (pl.col("frequency") == frequency))
    selection = select_features(bags, of_half, k=k, n_estimators=n_estimators, seed=seed)
    return HalfTables(prototypes, selection.features.filter(pl.col("variant") == frequency))
