"""Which game partitions of a table derived from ingested games must be rebuilt: those whose inputs changed.

A derived partition records the fingerprint of what it was built from: the identity (inode, size, mtime) of
each input partition file, which every atomic rewrite changes, and the preset's parameters. The records
live in <lake>/<table>/_built_from.json, written after the partition itself, so a crash in between only
makes the next run rebuild that partition.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

from collections.abc import Callable

import polars as pl

import jbag_pipeline.storage.lake as lake
from jbag_pipeline.ingest.store import GAMES_TABLE, partitions, replace_partition

BUILT_FROM = "_built_from.json"


def input_fingerprint(root: Path, inputs: tuple[str, ...], game: str, params: str) -> str:
    """SHA-256 over each input partition file's (inode, size, mtime in ns), or its absence, and `params`."""
    parts = [params]
    for table in inputs:
        try:
            stat = lake.partition_path(root, table, {"game": game}).stat()
            parts.append(f"{table}:{stat.st_ino}:{stat.st_size}:{stat.st_mtime_ns}")
        except FileNotFoundError:
            parts.append(f"{table}:absent")
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def built_from(root: Path, table: str) -> dict[str, str]:
    """game -> fingerprint of the inputs each partition of `table` was built from ({} when unknown)."""
    try:
        data = json.loads((lake.lake_dir(root) / table / BUILT_FROM).read_text())
    except (FileNotFoundError, ValueError):
        return {}
    return {str(game): str(value) for game, value in data.items()} if isinstance(data, dict) else {}


def record_built_from(root: Path, table: str, fingerprints: dict[str, str]) -> None:
    """Replace the record of `table` atomically."""
    folder = lake.lake_dir(root) / table
    folder.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".built-", suffix=".json.tmp", dir=folder)
    try:
        with os.fdopen(fd, "w") as fh:
            json.dump(dict(sorted(fingerprints.items())), fh, indent=1)
        os.replace(tmp, folder / BUILT_FROM)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def refresh_per_game(root: Path, table: str, inputs: tuple[str, ...], params: str,
                     compute: Callable[[str], pl.DataFrame]) -> tuple[list[str], list[str]]:
    """Write compute(game) as the partition of `table` of each ingested game whose `inputs` (or `params`) changed
    since it was built, and remove the partitions of games no longer ingested; returns (games, games rebuilt)."""
    games = partitions(root, GAMES_TABLE)
    built = built_from(root, table)
    rebuilt = []
    for game in games:
        fingerprint = input_fingerprint(root, inputs, game, params)
        if built.get(game) == fingerprint and lake.partition_path(root, table, {"game": game}).exists():
            continue
        lake.write_table(compute(game), root, table, {"game": game})
        built[game] = fingerprint
        record_built_from(root, table, built)
        rebuilt.append(game)
    for stale in sorted(set(partitions(root, table)) - set(games)):
        replace_partition(root, table, stale, pl.DataFrame())
        built.pop(stale, None)
        record_built_from(root, table, built)
    return games, rebuilt
