"""All-or-nothing writes of several lake partitions: staged, committed by one rename, then moved into place.

A LakeTransaction writes each new partition file under lake/.staging/<id>/ (the same file system as the live
lake, so a move is a rename) and commits by renaming its manifest (staged file -> live file moves, and the
live files to remove) into that folder: the rename is the commit point. The moves follow. `recover`, run under
the lake lock before every ingest and every catalog build, finishes a committed transaction that a crash cut
short and deletes the staging of an uncommitted one, so the live lake holds all of a transaction or none of it.
A transaction may also append a segment to a partition (lake.py: rows added after its files), and run callbacks
once committed, still under the lock (what an ingest records about the files it landed).
"""

from __future__ import annotations

import fcntl
import json
import os
import secrets
import shutil
import time
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path

import polars as pl

import jbag_pipeline.storage.lake as lake

STAGING = ".staging"  # under the lake: renames into the live tables stay on one file system
MANIFEST = "commit.json"
LOCK_FILE = ".ingest.lock"  # the name it had when only ingests took it


def staging_dir(root: Path) -> Path:
    return lake.lake_dir(root) / STAGING


@contextmanager
def lake_lock(root: Path):
    """An exclusive lock on <lake>/.ingest.lock: held by an ingest's read-merge-write and by a catalog build."""
    folder = lake.lake_dir(root)
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / LOCK_FILE, "a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


class LakeTransaction:
    """Partition writes and removals that land together on `commit` (call under `lake_lock`, after `recover`)."""

    def __init__(self, root: Path):
        self.root = Path(root)
        self.folder = staging_dir(self.root) / f"{time.time_ns():020d}-{secrets.token_hex(4)}"
        self.moves: list[tuple[str, str]] = []  # (staged, live), relative to the lake folder
        self.removals: list[str] = []
        self.appended: dict[tuple, int] = {}  # (table, partition items) -> segments staged for it
        self.after_commit: list[Callable[[], None]] = []  # run once committed and moved, under the lock
        self.committed = False

    def write(self, frame: pl.DataFrame, table: str, partition: dict[str, str] | None = None,
              lineage: dict[str, list[dict]] | None = None) -> None:
        """Stage `frame` as the whole of one partition (its segments are removed with the commit), stamped with
        `lineage` if given."""
        self._stage(frame, lake.partition_path(self.root, table, partition), table, lineage)
        self._remove_files(lake.segment_files(self.root, table, partition))

    def append(self, frame: pl.DataFrame, table: str, partition: dict[str, str] | None = None) -> None:
        """Stage `frame` as rows added to one partition: its next segment (its base when it has no file yet)."""
        key = (table, tuple(sorted((partition or {}).items())))
        taken = self.appended.get(key)
        if taken is None and not lake.partition_files(self.root, table, partition):
            target, self.appended[key] = lake.partition_path(self.root, table, partition), 0
        else:
            target = lake.next_segment(self.root, table, partition, taken=taken or 0)
            self.appended[key] = (taken or 0) + 1
        self._stage(frame, target, table)

    def remove(self, table: str, partition: dict[str, str] | None = None) -> None:
        """Remove one partition's files on commit."""
        self._remove_files([lake.partition_path(self.root, table, partition),
                            *lake.segment_files(self.root, table, partition)])

    def _stage(self, frame: pl.DataFrame, target: Path, table: str,
               lineage: dict[str, list[dict]] | None = None) -> None:
        live = target.relative_to(lake.lake_dir(self.root))
        staged = Path(f"{len(self.moves):06d}") / live  # a number per write: the same partition twice stays apart
        lake.write_file(frame, self.folder / staged, table, lineage)
        self.moves.append((staged.as_posix(), live.as_posix()))

    def _remove_files(self, files: list[Path]) -> None:
        self.removals += [f.relative_to(lake.lake_dir(self.root)).as_posix() for f in files]

    def commit(self) -> None:
        """Write the manifest (the commit point), then move the staged files into the live lake."""
        manifest = self.folder / MANIFEST
        self.folder.mkdir(parents=True, exist_ok=True)
        tmp = self.folder / f".{MANIFEST}.tmp"
        with open(tmp, "w") as fh:
            json.dump({"moves": self.moves, "removals": self.removals}, fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, manifest)
        _fsync_dir(self.folder)
        self.committed = True
        _apply(self.root, self.folder)
        for callback in self.after_commit:
            callback()

    def rollback(self) -> None:
        """Forget the staged files (a committed transaction is finished by `recover` instead)."""
        if not self.committed:
            shutil.rmtree(self.folder, ignore_errors=True)


@contextmanager
def transaction(root: Path):
    """A LakeTransaction under the lake lock: committed when the block ends, rolled back if it raises."""
    with lake_lock(root):
        recover(root)
        tx = LakeTransaction(root)
        try:
            yield tx
            tx.commit()
        except BaseException:
            tx.rollback()
            raise


def recover(root: Path) -> list[str]:
    """Finish committed transactions and delete uncommitted ones (under `lake_lock`); returns what was finished."""
    folder = staging_dir(Path(root))
    if not folder.is_dir():
        return []
    finished = []
    for staged in sorted(folder.iterdir()):
        if (staged / MANIFEST).is_file():
            _apply(Path(root), staged)
            finished.append(staged.name)
        else:
            shutil.rmtree(staged, ignore_errors=True)
    return finished


def _apply(root: Path, folder: Path) -> None:
    """Move a committed transaction's files into place and remove its removals; safe to repeat after a crash."""
    manifest = json.loads((folder / MANIFEST).read_text())
    base = lake.lake_dir(root)
    for staged, live in manifest["moves"]:
        source, target = folder / staged, base / live
        if source.exists():  # else it was moved before a crash
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(source, target)
    for live in manifest["removals"]:
        (base / live).unlink(missing_ok=True)
    (folder / MANIFEST).unlink()  # first, so a crash in the rmtree leaves an uncommitted (empty) folder
    shutil.rmtree(folder, ignore_errors=True)


def _fsync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
