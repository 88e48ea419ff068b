"""What the asset modules share: the game partitions and metadata helpers."""

import dagster as dg
import polars as pl

from engines import GAMES

game_partitions = dg.StaticPartitionsDefinition(sorted(GAMES))


def read_partition(settings, table: str, game: str) -> pl.DataFrame:
    """One game's partition of a lake table, for the data directory of `settings` (a JbagSettings)."""
    from jbag_pipeline import lake

    return lake.read_table(settings.root(), table, {"game": game})


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
