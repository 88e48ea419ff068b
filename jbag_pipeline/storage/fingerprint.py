"""What a partition was built from: the identity (name, inode, size, mtime) of each input partition's files, which
every atomic rewrite or appended segment changes, and the preset's parameters, hashed. The lake IO manager records
it with an ingested model partition's materialisation; ingest/refresh.py compares it with the lake's files now."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

import jbag_pipeline.storage.lake as lake

FINGERPRINT_KEY = "jbag/input_fingerprint"  # materialisation metadata: what the partition was built from


def partition_identity(root: Path, table: str, game: str) -> list[str]:
    """One line per file of `table`'s partition of `game` (its inode, size and mtime in ns), or one saying it is
    absent."""
    files = lake.partition_files(root, table, {"game": game})
    try:
        stats = [(f.name, f.stat()) for f in files]
    except FileNotFoundError:  # removed while listed: as absent as a partition that never was
        stats = []
    if not stats:
        return [f"{table}:absent"]
    lines = []
    for name, stat in stats:  # the base's line keeps the form it had before segments
        prefix = table if name == lake.BASE_FILE else f"{table}/{name}"
        lines.append(f"{prefix}:{stat.st_ino}:{stat.st_size}:{stat.st_mtime_ns}")
    return lines


def fingerprint(params: str, identities: Sequence[str]) -> str:
    """SHA-256 over `params` and the input partitions' identity lines, in input order."""
    return hashlib.sha256("\n".join([params, *identities]).encode()).hexdigest()
