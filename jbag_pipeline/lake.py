"""The Parquet lake: one file per (table, partition), hive-style paths, atomic writes.

Layout: <data_dir>/lake/<table>/game=<game>/part.parquet (or <table>/all/part.parquet when unpartitioned).
A write goes to a temporary file in the same folder and is renamed over the old one, so readers see the
old partition or the new one, never half of either.
"""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

import polars as pl

DEFAULT_DATA_DIR = "data"
_SAFE_VALUE = re.compile(r"^[A-Za-z0-9_.\-]+$")


def data_dir(override: str | os.PathLike | None = None) -> Path:
    """The data directory: an explicit override, else JBAG_DATA_DIR, else ./data."""
    return Path(override or os.environ.get("JBAG_DATA_DIR") or DEFAULT_DATA_DIR).resolve()


def lake_dir(root: Path) -> Path:
    return root / "lake"


def partition_path(root: Path, table: str, partition: dict[str, str] | None = None) -> Path:
    """Path of the single Parquet file of one (table, partition)."""
    folder = lake_dir(root) / table
    if partition:
        for key, value in partition.items():
            if not _SAFE_VALUE.match(str(value)):
                raise ValueError(f"partition value {value!r} of {table}.{key} has characters other than [A-Za-z0-9_.-]")
            folder = folder / f"{key}={value}"
    else:
        folder = folder / "all"
    return folder / "part.parquet"


def table_glob(root: Path, table: str) -> str:
    """Glob matching every partition file of a table (for DuckDB's read_parquet)."""
    return str(lake_dir(root) / table / "**" / "part.parquet")


def table_exists(root: Path, table: str) -> bool:
    return any((lake_dir(root) / table).glob("**/part.parquet"))


def write_table(df: pl.DataFrame, root: Path, table: str, partition: dict[str, str] | None = None) -> Path:
    """Write `df` as the whole of one partition, atomically replacing what was there."""
    target = partition_path(root, table, partition)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".part-", suffix=".parquet.tmp", dir=target.parent)
    os.close(fd)
    try:
        df.write_parquet(tmp, compression="zstd", statistics=True)
        with open(tmp, "rb") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target


def read_table(root: Path, table: str, partition: dict[str, str] | None = None) -> pl.DataFrame:
    """Read one partition, or every partition of a table when `partition` is None."""
    if partition is not None:
        path = partition_path(root, table, partition)
        if not path.exists():
            raise FileNotFoundError(f"table {table!r} has no partition {partition} under {lake_dir(root)}; materialise it first")
        return pl.read_parquet(path)
    files = sorted((lake_dir(root) / table).glob("**/part.parquet"))
    if not files:
        raise FileNotFoundError(f"table {table!r} has no data under {lake_dir(root)}; materialise it first")
    return pl.concat([pl.read_parquet(f) for f in files], how="vertical_relaxed")
