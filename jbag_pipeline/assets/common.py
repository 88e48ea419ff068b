"""What the asset modules share: the game partitions and metadata helpers."""

import dagster as dg
import polars as pl

from engines import GAMES

game_partitions = dg.StaticPartitionsDefinition(sorted(GAMES))


def read_partition(settings, table: str, game: str) -> pl.DataFrame:
    """One game's partition of a lake table, for the data directory of `settings` (a JbagSettings)."""
    import jbag_pipeline.storage.lake as lake

    return lake.read_table(settings.root(), table, {"game": game})


def sum_to_one_check(table: pl.DataFrame, keys: list[str], check_name: str) -> dg.AssetCheckResult:
    """Passes when `p` sums to 1 (within 1e-9) in every group of `keys`; reports the largest error."""
    sums = table.group_by(keys).agg(pl.col("p").sum())
    worst = float((sums["p"] - 1).abs().max() or 0.0)
    return dg.AssetCheckResult(check_name=check_name, passed=worst < 1e-9, metadata={"max_abs_error": worst})


def preview(df: pl.DataFrame, rows: int = 10) -> dg.MetadataValue:
    """A markdown preview of the first rows of a table."""
    head = df.head(rows)
    if head.is_empty():
        return dg.MetadataValue.md("*(empty)*")
    cols = head.columns
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for row in head.iter_rows():
        lines.append("| " + " | ".join(_cell(v) for v in row) + " |")
    return dg.MetadataValue.md("\n".join(lines))


def _cell(value) -> str:
    text = f"{value:.4g}" if isinstance(value, float) else str(value)
    text = text.replace("|", "\\|").replace("\n", " ")
    return text if len(text) <= 60 else text[:57] + "..."


def table_metadata(df: pl.DataFrame, path) -> dict:
    return {"dagster/row_count": len(df), "path": dg.MetadataValue.path(str(path)), "preview": preview(df)}
