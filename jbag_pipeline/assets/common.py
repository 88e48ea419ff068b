"""What the asset modules share: the game partitions and metadata helpers."""

import dagster as dg
import orjson
import polars as pl

from jbag_pipeline.partitions import game_partitions  # noqa: F401 - the asset modules' name for it
from jbag_pipeline.resources.metadata import preview

__all__ = ["game_partitions", "game_setup", "preview", "sum_to_one_check"]  # preview: every asset's, kept here


def game_setup(selfplay: pl.DataFrame) -> tuple[int, dict]:
    """(seats, engine params) of a game's self-play rows."""
    return int(selfplay["n_players"][0]), orjson.loads(selfplay["params"][0])


def sum_to_one_check(table: pl.DataFrame | pl.LazyFrame, keys: list[str], check_name: str) -> dg.AssetCheckResult:
    """Passes when `p` sums to 1 (within 1e-9) in every group of `keys`; reports the largest error."""
    sums = table.lazy().group_by(keys).agg(pl.col("p").sum()).collect(engine="streaming")
    worst = float((sums["p"] - 1).abs().max() or 0.0)
    return dg.AssetCheckResult(check_name=check_name, passed=worst < 1e-9, metadata={"max_abs_error": worst})
