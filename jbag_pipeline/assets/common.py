"""What the asset modules share: the game partitions and metadata helpers."""

import dagster as dg
import orjson
import polars as pl

from jbag_pipeline.partitions import game_partitions  # noqa: F401 - the asset modules' name for it
from jbag_pipeline.storage.render import markdown_table


def read_partition(settings, table: str, game: str) -> pl.DataFrame:
    """One game's partition of a lake table, for the data directory of `settings` (a JbagSettings)."""
    import jbag_pipeline.storage.lake as lake

    return lake.read_table(settings.root(), table, {"game": game})


def scan_partition(settings, table: str, game: str) -> pl.LazyFrame:
    """One game's partition of a lake table as a LazyFrame (rows read only as a query needs them)."""
    import jbag_pipeline.storage.lake as lake

    return lake.scan_table(settings.root(), table, {"game": game})


def game_setup(selfplay: pl.DataFrame) -> tuple[int, dict]:
    """(seats, engine params) of a game's self-play rows."""
    return int(selfplay["n_players"][0]), orjson.loads(selfplay["params"][0])


def sum_to_one_check(table: pl.DataFrame | pl.LazyFrame, keys: list[str], check_name: str) -> dg.AssetCheckResult:
    """Passes when `p` sums to 1 (within 1e-9) in every group of `keys`; reports the largest error."""
    sums = table.lazy().group_by(keys).agg(pl.col("p").sum()).collect(engine="streaming")
    worst = float((sums["p"] - 1).abs().max() or 0.0)
    return dg.AssetCheckResult(check_name=check_name, passed=worst < 1e-9, metadata={"max_abs_error": worst})


def preview(df: pl.DataFrame, rows: int = 10) -> dg.MetadataValue:
    """A markdown preview of the first rows of a table, long cells cut to 60 characters."""
    head = df.head(rows)
    return dg.MetadataValue.md(markdown_table(head, max_chars=60) if len(head) else "*(empty)*")


def table_metadata(df: pl.DataFrame | pl.LazyFrame, path) -> dict:
    """Row count, path and preview of a written table (a LazyFrame's from the file it was streamed to)."""
    if isinstance(df, pl.LazyFrame):
        written = pl.scan_parquet(path)
        rows, head = written.select(pl.len()).collect().item(), written.head(10).collect()
    else:
        rows, head = len(df), df
    return {"dagster/row_count": rows, "path": dg.MetadataValue.path(str(path)), "preview": preview(head)}
