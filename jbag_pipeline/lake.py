"""The Parquet lake: one file per (table, partition), hive-style paths, atomic writes.

Layout: <data_dir>/lake/<table>/game=<game>/part.parquet (or <table>/all/part.parquet when unpartitioned).
A write goes to a temporary file in the same folder and is renamed over the old one, so readers see the
old partition or the new one, never half of either. Files are created 0666 less the umask (as any tool's
output), not mkstemp's 0600, so the group can read a shared lake.

A file written inside a Dagster step carries its generation (the run's preset and effective seed) in its
Parquet key-value metadata, so the catalog can tell a partition left over from another run (see catalog.py).
The stamp depends only on preset and seed, so the same preset and seed still give byte-identical files.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import sys
from pathlib import Path

import polars as pl

DEFAULT_DATA_DIR = "data"
_SAFE_VALUE = re.compile(r"^[A-Za-z0-9_.\-]+$")
GENERATION_KEY = "jbag.generation"  # Parquet key-value metadata: {"preset": ..., "seed": ...} of the writing run


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
    tmp = str(target.parent / f".part-{secrets.token_hex(8)}.parquet.tmp")
    os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))  # the umask applies, as for any new file
    try:
        generation = current_generation()
        metadata = {GENERATION_KEY: json.dumps(generation, sort_keys=True)} if generation else None
        df.write_parquet(tmp, compression="zstd", statistics=True, metadata=metadata)
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


def current_generation() -> dict | None:
    """{"preset", "seed"} of the Dagster step running now (from its `settings` resource), else None."""
    if "dagster" not in sys.modules:  # not inside a Dagster run; importing it here would cost seconds
        return None
    import dagster as dg

    try:
        settings = getattr(dg.OpExecutionContext.get().resources, "settings", None)
    except dg.DagsterInvariantViolationError:  # no step in scope: a plain call (tests, scripts)
        return None
    if settings is None or not hasattr(settings, "get_preset"):
        return None
    preset = settings.get_preset()
    return {"preset": preset.name, "seed": preset.seed}


def read_generation(path: Path) -> dict | None:
    """The generation stamped in one lake file, or None when it has none."""
    value = pl.read_parquet_metadata(path).get(GENERATION_KEY)
    return json.loads(value) if value else None
