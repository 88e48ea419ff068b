"""Which ingested model partitions of a game must be rebuilt: those whose inputs (or the preset) changed.

A model partition is built from its input partitions of the same game; their fingerprint is the identity
(name, inode, size, mtime) of each input partition file (its segments included), which every atomic rewrite or
appended segment changes, and the preset's parameters. The fingerprint a partition was built from is recorded with its materialisation (Dagster metadata
FINGERPRINT_KEY); a partition is stale when it is missing, unrecorded, recorded with another fingerprint, or
downstream of a stale one in its chain.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import jbag_pipeline.storage.lake as lake
from jbag_pipeline.ingest.store import partitions
from jbag_pipeline.storage.fingerprint import FINGERPRINT_KEY, fingerprint, partition_identity

__all__ = ["FINGERPRINT_KEY", "input_fingerprint", "remove_games_not_in", "stale_tables"]


def input_fingerprint(root: Path, inputs: Sequence[str], game: str, params: str) -> str:
    """SHA-256 over each input partition file's (inode, size, mtime in ns), or its absence, and `params`."""
    return fingerprint(params, [line for table in inputs for line in partition_identity(root, table, game)])


def stale_tables(root: Path, chain: Sequence[tuple[str, Sequence[str]]], game: str, params: str,
                 recorded: Callable[[str], str | None]) -> list[str]:
    """The tables of `chain` ((table, inputs) in build order) whose partition of `game` must be rebuilt;
    recorded(table) is the fingerprint that partition was last built from (None when unknown)."""
    stale: list[str] = []
    for table, inputs in chain:
        if (any(source in stale for source in inputs)
                or not lake.partition_files(root, table, {"game": game})
                or recorded(table) != input_fingerprint(root, inputs, game, params)):
            stale.append(table)
    return stale


def remove_games_not_in(root: Path, tables: Sequence[str], games: Sequence[str]) -> list[str]:
    """Remove the partitions of `tables` of games outside `games` (no longer ingested); returns those games."""
    gone = set()
    for table in tables:
        for game in sorted(set(partitions(root, table)) - set(games)):
            for path in lake.partition_files(root, table, {"game": game}):
                path.unlink(missing_ok=True)
            gone.add(game)
    return sorted(gone)
