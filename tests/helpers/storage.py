"""Lake and catalog shortcuts for tests."""

from __future__ import annotations

from pathlib import Path

from jbag_pipeline.storage.catalog import publish
from jbag_pipeline.storage.lake import lake_dir


def build_catalog(root: Path) -> dict[str, str]:
    """Publish the lake and write <root>/jbag.duckdb; returns view -> table of the views created."""
    return publish(root).views


def table_glob(root: Path, table: str) -> str:
    """Glob matching every partition file of a table (for DuckDB's read_parquet)."""
    return str(lake_dir(root) / table / "**" / "part.parquet")
