"""The Parquet lake: atomic partition writes, replacement without duplication, clear errors."""

import os

import polars as pl
import pytest

import jbag_pipeline.storage.lake as lake


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


def test_write_removes_an_older_finer_split_of_the_partition(tmp_path):
    """evaluation_games was once split game=<g>/pair=<p>/; a whole-game write must not leave those to be read twice."""
    for pair in ("x", "y"):
        lake.write_table(pl.DataFrame({"v": [pair]}), tmp_path, "t", {"game": "a", "pair": pair})
    lake.write_table(pl.DataFrame({"v": ["other"]}), tmp_path, "t", {"game": "b", "pair": "x"})
    lake.write_table(pl.DataFrame({"v": ["x", "y"]}), tmp_path, "t", {"game": "a"})
    assert sorted(lake.read_table(tmp_path, "t")["v"].to_list()) == ["other", "x", "y"]
    assert lake.partition_path(tmp_path, "t", {"game": "b", "pair": "x"}).exists()  # another game's files stay


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
