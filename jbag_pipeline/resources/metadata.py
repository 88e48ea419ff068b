"""Materialisation metadata of lake tables: a markdown preview and the row count, path and preview the lake IO
manager adds to every output."""

import dagster as dg
import polars as pl

from jbag_pipeline.storage.render import markdown_table


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
