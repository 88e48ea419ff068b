"""The Parquet lake: atomic partition writes, replacement without duplication, clear errors."""

import os
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest

import jbag_pipeline.storage.lake as lake
from jbag_pipeline.compute import lifeline
from jbag_pipeline.storage.catalog import publish


def test_write_replaces_partition_without_duplicates(tmp_path):
    df = pl.DataFrame({"game": ["a", "a"], "x": [1, 2]})
    lake.write_table(df, tmp_path, "t", {"game": "a"})
    lake.write_table(df, tmp_path, "t", {"game": "a"})
    lake.write_table(df.with_columns(pl.lit("b").alias("game")), tmp_path, "t", {"game": "b"})
    assert len(lake.read_table(tmp_path, "t")) == 4
    assert lake.read_table(tmp_path, "t", {"game": "a"}).equals(df)


def test_failed_write_leaves_previous_partition_and_no_temp_files(tmp_path, monkeypatch):
    good = pl.DataFrame({"x": [1, 2, 3]})
    path = lake.write_table(good, tmp_path, "t", {"game": "a"})

    def boom(self, file, **kwargs):
        with open(file, "wb") as fh:
            fh.write(b"PAR1 half written")
        raise OSError("disk full")

    monkeypatch.setattr(pl.DataFrame, "write_parquet", boom)
    with pytest.raises(OSError, match="disk full"):
        lake.write_table(pl.DataFrame({"x": [9]}), tmp_path, "t", {"game": "a"})
    monkeypatch.undo()
    assert lake.read_table(tmp_path, "t", {"game": "a"}).equals(good)
    assert sorted(os.listdir(path.parent)) == ["part.parquet"]


def test_partition_values_are_validated(tmp_path):
    with pytest.raises(ValueError, match="partition value"):
        lake.partition_path(tmp_path, "t", {"game": "../etc"})


def test_missing_table_error_names_the_table(tmp_path):
    with pytest.raises(FileNotFoundError, match="'nope'"):
        lake.read_table(tmp_path, "nope")


def this_host() -> str:
    """This host as temporary file names spell it."""
    return lake.temporary_name().removeprefix(".part-").rsplit("-", 3)[0]


def _temporary(folder, name: str, age_seconds: float = 0):
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_bytes(b"PAR1 half written")
    os.utime(path, (time.time() - age_seconds,) * 2)
    return path


def test_stale_temporaries_are_those_of_dead_writers_on_this_host_and_a_catalog_build_removes_them(tmp_path):
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    start = lifeline.start_of(dead.pid)
    dead.wait()
    folder = lake.partition_path(tmp_path, "t", {"game": "a"}).parent
    host = this_host()
    killed = _temporary(folder, f".part-{host}-{dead.pid}-{start!r}-0123abcd.parquet.tmp")
    reused_pid = _temporary(folder, f".part-{host}-{os.getpid()}-{lifeline.start_of(os.getpid()) + 1!r}-"
                                    "0123abcd.parquet.tmp")  # this pid, but another process's start
    live = _temporary(folder, lake.temporary_name())  # this process writes it now
    elsewhere = _temporary(folder, f".part-other-host-{dead.pid}-{start!r}-0123abcd.parquet.tmp")  # cannot tell
    old_unnamed = _temporary(folder, f".part-{'a' * 16}.parquet.tmp", age_seconds=2 * lake.UNNAMED_TEMP_SECONDS)
    new_unnamed = _temporary(folder, f".part-{'b' * 16}.parquet.tmp", age_seconds=60)
    published = _temporary(tmp_path / "lake" / ".published" / "x", killed.name)  # not a table's folder
    lake.write_table(pl.DataFrame({"x": [1]}), tmp_path, "t", {"game": "a"})

    assert lake.stale_temporaries(tmp_path) == sorted([killed, reused_pid, old_unnamed])
    publish(tmp_path)
    assert sorted(folder.iterdir()) == sorted([folder / "part.parquet", live, elsewhere, new_unnamed])
    assert published.exists()
    assert lake.read_table(tmp_path, "t").height == 1


def test_a_write_names_its_temporary_file_after_the_writing_process(tmp_path, monkeypatch):
    names = []
    real_replace = os.replace

    def replace(source, target):
        names.append(Path(source).name)
        real_replace(source, target)

    monkeypatch.setattr(os, "replace", replace)
    lake.write_table(pl.DataFrame({"x": [1]}), tmp_path, "t", {"game": "a"})
    host = this_host()
    assert names and names[0].startswith(f".part-{host}-{os.getpid()}-{lifeline.start_of(os.getpid())!r}-")
    assert lake.stale_temporaries(tmp_path) == []


def test_read_optional_gives_none_for_a_table_without_files_and_the_table_else(tmp_path):
    assert lake.read_optional(tmp_path, "t") is None
    frame = pl.DataFrame({"x": [1, 2]})
    lake.write_table(frame, tmp_path, "t", {"game": "a"})
    assert lake.read_optional(tmp_path, "t").equals(frame)


def test_appends_land_as_numbered_segments_read_after_the_base_and_a_whole_write_replaces_them(tmp_path):
    from jbag_pipeline.storage.staging import transaction

    game = {"game": "a"}
    with transaction(tmp_path) as tx:  # an empty partition: the first append is its base
        tx.append(pl.DataFrame({"x": [1]}), "t", game)
        tx.append(pl.DataFrame({"x": [2]}), "t", game)
    with transaction(tmp_path) as tx:
        tx.append(pl.DataFrame({"x": [3]}), "t", game)
    assert [p.name for p in lake.partition_files(tmp_path, "t", game)] == [
        "part.parquet", "part-000001.parquet", "part-000002.parquet"]
    assert lake.read_table(tmp_path, "t", game)["x"].to_list() == [1, 2, 3]
    assert [p.name for p in lake.table_files(tmp_path, "t")] == [
        "part.parquet", "part-000001.parquet", "part-000002.parquet"]
    with pytest.raises(OSError, match="injected"), transaction(tmp_path) as tx:  # rolled back: nothing lands
        tx.append(pl.DataFrame({"x": [4]}), "t", game)
        raise OSError("injected")
    assert lake.read_table(tmp_path, "t", game)["x"].to_list() == [1, 2, 3]
    with transaction(tmp_path) as tx:  # a staged whole write removes the segments with its commit
        tx.write(pl.DataFrame({"x": [9]}), "t", game)
    assert lake.partition_files(tmp_path, "t", game) == [lake.partition_path(tmp_path, "t", game)]
    with transaction(tmp_path) as tx:
        tx.append(pl.DataFrame({"x": [10]}), "t", game)
    lake.write_table(pl.DataFrame({"x": [11]}), tmp_path, "t", game)
    assert lake.read_table(tmp_path, "t", game)["x"].to_list() == [11]
    with transaction(tmp_path) as tx:
        tx.append(pl.DataFrame({"x": [12]}), "t", game)
    with transaction(tmp_path) as tx:
        tx.remove("t", game)
    assert lake.partition_files(tmp_path, "t", game) == []
