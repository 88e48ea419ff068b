"""The Parquet lake: one file per (table, partition), hive-style paths, atomic writes.

Layout: <data_dir>/lake/<table>/game=<game>/part.parquet (or <table>/all/part.parquet when unpartitioned).
A partition that an ingest extends also holds segments beside it, part-000001.parquet, ... (rows appended
after part.parquet, in that order; storage/staging.py adds them), and a write of the whole partition replaces
them too. A write goes to a temporary file in the same folder and is renamed over the old one, so readers see the
old partition or the new one, never half of either; the temporary file's name says which process on which host
writes it, so a killed writer's leftover is told from a live one's and removed (stale_temporaries, at the next
catalog build). A worker process whose `jbag run` is gone writes nothing (compute/lifeline.py). Files are created
0666 less the umask (as any tool's output), not mkstemp's 0600, so the group can read a shared lake.

A file can carry its lineage in its Parquet key-value metadata: per game, the generations (preset and effective
seed) of the self-play it derives from. The lake IO manager (resources/io_manager.py) gathers it from the files a
step loads and passes it to write_table; this module only stores and reads it, and knows nothing of Dagster. So the
catalog can tell a table built from another run's upstream (see catalog.py). Lineage depends only on preset and
seed, so the same preset and seed still give byte-identical files.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import socket
import time
from pathlib import Path

import polars as pl

from jbag_pipeline.compute.lifeline import owner_alive, owner_token, refuse_if_orphaned
from jbag_pipeline.schemas import TABLE_SCHEMAS

DEFAULT_DATA_DIR = "data"
_SAFE_VALUE = re.compile(r"^[A-Za-z0-9_.\-]+$")
BASE_FILE = "part.parquet"
SEGMENT_FILE = re.compile(r"^part-(\d{6})\.parquet$")  # part-000001.parquet, ...: rows appended to a partition
LINEAGE_KEY = "jbag.lineage"  # Parquet key-value metadata: {game: [{"preset": ..., "seed": ...}, ...]}
UNSEEDED_PREFIX = "ingest"  # ingested_* and ingest_quarantine come from outside files, not from a seed
# .part-<host>-<pid>-<start>-<random>.parquet.tmp: the writing process (start: lifeline.start_of), so a later
# build can tell a killed writer's leftover from a file being written now
_TEMP_NAME = re.compile(r"^\.part-(?P<host>.+)-(?P<pid>\d+)-(?P<start>[0-9.]+)-[0-9a-f]{8}\.parquet\.tmp$")
_UNNAMED_TEMP = re.compile(r"^\.part-[0-9a-f]{16}\.parquet\.tmp$")  # written before names said whose it is
UNNAMED_TEMP_SECONDS = 24 * 3600  # an unnamed temporary untouched this long has no writer (a write takes minutes)


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


def is_lake_file(path: Path) -> bool:
    """Whether `path` names a partition's file: its part.parquet or one of its segments."""
    return path.name == BASE_FILE or SEGMENT_FILE.match(path.name) is not None


def _files_under(folder: Path, pattern: str) -> list[Path]:
    """Partition files matching the glob `pattern` under `folder`, each partition's base before its segments."""
    return sorted((p for p in folder.glob(pattern) if is_lake_file(p)),
                  key=lambda p: (p.with_name(BASE_FILE), p.name != BASE_FILE, p.name))


def segment_files(root: Path, table: str, partition: dict[str, str] | None = None) -> list[Path]:
    """The segments of one partition, in the order they were appended."""
    return _files_under(partition_path(root, table, partition).parent, "part-*.parquet")


def partition_files(root: Path, table: str, partition: dict[str, str] | None = None) -> list[Path]:
    """Every file of one partition: part.parquet (when there is one), then its segments in order."""
    base = partition_path(root, table, partition)
    return ([base] if base.exists() else []) + segment_files(root, table, partition)


def next_segment(root: Path, table: str, partition: dict[str, str] | None = None, taken: int = 0) -> Path:
    """The path of the partition's next segment, after its live ones and `taken` more (numbered, so deterministic)."""
    numbers = [int(SEGMENT_FILE.match(p.name).group(1)) for p in segment_files(root, table, partition)]
    return partition_path(root, table, partition).with_name(f"part-{max(numbers, default=0) + 1 + taken:06d}.parquet")


def table_exists(root: Path, table: str) -> bool:
    return bool(table_files(root, table))


def table_files(root: Path, table: str) -> list[Path]:
    """The live partition files of a table, sorted (each partition's base before its segments)."""
    return _files_under(lake_dir(root) / table, "**/part*.parquet")


def write_table(df: pl.DataFrame | pl.LazyFrame, root: Path, table: str, partition: dict[str, str] | None = None,
                lineage: dict[str, list[dict]] | None = None) -> Path:
    """Write `df` as the whole of one partition, atomically replacing what was there, then remove its segments.
    A LazyFrame is streamed to the file (Polars' sink), never held whole. `lineage`, when given, is stamped in the
    file's metadata."""
    target = partition_path(root, table, partition)
    replaced = segment_files(root, table, partition)
    write_file(df, target, table, lineage)
    for stale in replaced:
        stale.unlink(missing_ok=True)
    return target


def write_file(df: pl.DataFrame | pl.LazyFrame, target: Path, table: str,
               lineage: dict[str, list[dict]] | None = None) -> None:
    """Write `df` to `target` as a lake file of `table` (with `lineage`, if any), atomically: a temporary file in the
    same folder, fsynced, renamed over `target`."""
    refuse_if_orphaned(str(target))
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = str(target.parent / temporary_name())
    os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))  # the umask applies, as for any new file
    try:
        metadata = {LINEAGE_KEY: json.dumps(lineage, sort_keys=True)} if lineage else None
        if isinstance(df, pl.LazyFrame):
            df.sink_parquet(tmp, compression="zstd", statistics=True, metadata=metadata)
        else:
            df.write_parquet(tmp, compression="zstd", statistics=True, metadata=metadata)
        with open(tmp, "rb") as fh:
            os.fsync(fh.fileno())
        refuse_if_orphaned(str(target))  # the write took a while: the run may have been killed meanwhile
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _host() -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", socket.gethostname())[:64]


def temporary_name() -> str:
    """The name of a temporary lake file this process writes: its host, pid and start, then a random part."""
    pid, start = owner_token()
    return f".part-{_host()}-{pid}-{start!r}-{secrets.token_hex(4)}.parquet.tmp"


def stale_temporaries(root: Path) -> list[Path]:
    """Temporary lake files no live process will rename: their writer on this host is gone (killed mid-write), or,
    for an unnamed one of an older jbag, untouched for UNNAMED_TEMP_SECONDS. Another host's are never listed."""
    stale = []
    for folder, subfolders, names in os.walk(lake_dir(root)):
        subfolders[:] = [name for name in subfolders if not name.startswith(".")]  # publications, staging
        for name in names:
            named = _TEMP_NAME.match(name)
            path = Path(folder) / name
            if named and named["host"] == _host():
                if not owner_alive((int(named["pid"]), float(named["start"]))):
                    stale.append(path)
            elif _UNNAMED_TEMP.match(name):
                try:
                    if time.time() - path.stat().st_mtime > UNNAMED_TEMP_SECONDS:
                        stale.append(path)
                except FileNotFoundError:  # renamed or removed since it was listed
                    pass
    return sorted(stale)


def read_table(root: Path, table: str, partition: dict[str, str] | None = None) -> pl.DataFrame:
    """Read one partition (its base, then its segments), or every partition of a table when `partition` is None."""
    files = table_files(root, table) if partition is None else partition_files(root, table, partition)
    if partition is not None and not files:
        raise FileNotFoundError(f"table {table!r} has no partition {partition} under {lake_dir(root)}; materialise it first")
    if not files:
        raise FileNotFoundError(f"table {table!r} has no data under {lake_dir(root)}; materialise it first")
    frames = [_read_parquet(f) for f in files]
    return frames[0] if len(frames) == 1 else pl.concat(frames, how="vertical_relaxed")


def read_optional(root: Path, table: str) -> pl.DataFrame | None:
    """Every partition of `table`, or None when the lake has none yet (an input a table or report may lack)."""
    return read_table(root, table) if table_exists(root, table) else None


def scan_table(root: Path, table: str, partition: dict[str, str]) -> pl.LazyFrame:
    """One partition (its base, then its segments) as a LazyFrame: read_table's checks, but the rows are read only
    as a query needs them, so a step can take a large table a block of games at a time."""
    files = partition_files(root, table, partition)
    if not files:
        raise FileNotFoundError(f"table {table!r} has no partition {partition} under {lake_dir(root)}; materialise it first")
    for path in files:
        try:
            pl.read_parquet_schema(path)  # a truncated or garbled file fails here, not in the middle of a step
        except (pl.exceptions.PolarsError, OSError) as exc:
            raise UnreadableFile(path, str(exc).strip().splitlines()[0]) from None
    return pl.scan_parquet(files)


def _read_parquet(path: Path) -> pl.DataFrame:
    try:
        return pl.read_parquet(path)
    except pl.exceptions.PolarsError as exc:  # polars raises ComputeError for a truncated or garbled file
        raise UnreadableFile(path, str(exc).strip().splitlines()[0]) from None


class UnreadableFile(ValueError):
    """A lake file that is not readable Parquet (truncated, corrupt)."""

    def __init__(self, path: Path, reason: str):
        super().__init__(f"{path} is not a readable Parquet file ({reason}); re-materialise the asset that writes it")
        self.path, self.reason = path, reason


class WrongTable(ValueError):
    """A readable Parquet file in a table's folder that lacks that table's columns (another table's file)."""


def check_table_file(path: Path, table: str) -> None:
    """WrongTable, naming the file and the table, if the Parquet file at `path` lacks a column of `table`'s schema."""
    schema = TABLE_SCHEMAS.get(table)
    if schema is None:
        return
    try:
        columns = pl.read_parquet_schema(path)
    except (pl.exceptions.PolarsError, OSError) as exc:
        raise UnreadableFile(Path(path), str(exc).strip().splitlines()[0]) from None
    missing = [name for name in schema if name not in columns]
    if missing:
        raise WrongTable(f"{path} is not a file of table {table}: it lacks the columns {missing} (it has "
                         f"{list(columns)[:8]}); move it out of the lake or re-materialise {table}")


def is_seeded(table: str) -> bool:
    """Whether `table` derives from a seeded self-play (ingested tables come from outside files: no lineage)."""
    return not table.startswith(UNSEEDED_PREFIX)


def lineage_of(files: list[Path]) -> dict[str, list[dict]]:
    """The lineage stamped in `files`, merged ({} for a file that is unreadable: the read that follows reports it)."""
    merged: dict[str, list[dict]] = {}
    for path in files:
        try:
            merge_lineage(merged, read_lineage(path))
        except UnreadableFile:
            pass
    return merged


def merge_lineage(into: dict[str, list[dict]], lineage: dict[str, list[dict]]) -> None:
    """Add `lineage`'s generations to `into`, each game's kept sorted and without repeats."""
    for game, generations in lineage.items():
        known = into.setdefault(game, [])
        known.extend(g for g in generations if g not in known)
        known.sort(key=lambda g: json.dumps(g, sort_keys=True))


def read_lineage(path: Path) -> dict[str, list[dict]]:
    """The lineage stamped in one lake file ({} when it has none)."""
    try:
        value = pl.read_parquet_metadata(path).get(LINEAGE_KEY)
    except (pl.exceptions.PolarsError, OSError) as exc:
        raise UnreadableFile(Path(path), str(exc).strip().splitlines()[0]) from None
    return json.loads(value) if value else {}
