"""What the asset modules share: the game partitions and metadata helpers."""

import dagster as dg
import orjson
import polars as pl

from engines import GAMES
from jbag_pipeline.storage.render import markdown_table

game_partitions = dg.StaticPartitionsDefinition(sorted(GAMES))


def read_partition(settings, table: str, game: str) -> pl.DataFrame:
    """One game's partition of a lake table, for the data directory of `settings` (a JbagSettings)."""
    import jbag_pipeline.storage.lake as lake

    return lake.read_table(settings.root(), table, {"game": game})


def game_setup(selfplay: pl.DataFrame) -> tuple[int, dict]:
    """(seats, engine params) of a game's self-play rows."""
    return int(selfplay["n_players"][0]), orjson.loads(selfplay["params"][0])


def sum_to_one_check(table: pl.DataFrame, keys: list[str], check_name: str) -> dg.AssetCheckResult:
    """Passes when `p` sums to 1 (within 1e-9) in every group of `keys`; reports the largest error."""
    sums = table.group_by(keys).agg(pl.col("p").sum())
    worst = float((sums["p"] - 1).abs().max() or 0.0)
    return dg.AssetCheckResult(check_name=check_name, passed=worst < 1e-9, metadata={"max_abs_error": worst})


def preview(df: pl.DataFrame, rows: int = 10) -> dg.MetadataValue:
    """A markdown preview of the first rows of a table, long cells cut to 60 characters."""
    head = df.head(rows)
    return dg.MetadataValue.md(markdown_table(head, max_chars=60) if len(head) else "*(empty)*")


def table_metadata(df: pl.DataFrame, path) -> dict:
    return {"dagster/row_count": len(df), "path": dg.MetadataValue.path(str(path)), "preview": preview(df)}
