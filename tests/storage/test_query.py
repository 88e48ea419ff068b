"""`jbag sql`: read-only and sandboxed; each refusal is one line and a non-zero exit."""

import json
import shutil

import duckdb
import orjson
import polars as pl
import pytest

import jbag_pipeline.storage.catalog as catalog
import jbag_pipeline.cli.commands as cli
import jbag_pipeline.storage.lake as lake
from jbag_pipeline.storage.catalog import catalog_path
from tests.helpers.storage import add_float_states, catalog_of_two_games


@pytest.fixture
def root(tmp_path):
    return catalog_of_two_games(tmp_path)


def test_select_in_each_format(root, capsys):
    assert cli.main(["sql", "SELECT game_id, winner FROM games ORDER BY game_id", "--data-dir", str(root)]) == 0
    out = capsys.readouterr().out
    assert "game_id" in out and "NULL" in out and "(2 rows)" in out
    assert cli.main(["sql", "SELECT count(*) AS n FROM games", "--format", "csv", "--data-dir", str(root)]) == 0
    assert capsys.readouterr().out == "n\n2\n"
    assert cli.main(["sql", "SELECT game_id FROM games ORDER BY 1", "--format", "json", "--data-dir", str(root)]) == 0
    assert '"game_id": 1' in capsys.readouterr().out


@pytest.mark.parametrize("query, message", [
    ("CREATE TABLE x AS SELECT 1", "CREATE statements are not allowed"),
    ("COPY games TO 'out.csv'", "COPY statements are not allowed"),
    ("ATTACH 'other.duckdb' AS o", "ATTACH statements are not allowed"),
    ("INSTALL httpfs", "LOAD statements are not allowed"),
    ("LOAD httpfs", "LOAD statements are not allowed"),
    ("SET enable_external_access = true", "SET statements are not allowed"),
    ("SELECT * FROM read_csv('/etc/passwd')", "SQL error"),
    ("SELECT * FROM no_such_view", "SQL error"),
    ("SELEC 1", "SQL error"),
])
def test_refusals_are_one_line_and_nonzero(root, capsys, query, message):
    assert cli.main(["sql", query, "--data-dir", str(root)]) == 1
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
    assert not (root / "out.csv").exists()


def test_lake_files_readable_but_nothing_outside(root, capsys):
    inside = lake.partition_path(root, "selfplay_games", {"game": "connect4"})
    assert cli.main(["sql", f"SELECT count(*) FROM read_parquet('{inside}')", "--data-dir", str(root)]) == 0
    outside = root / "elsewhere.parquet"
    pl.DataFrame({"x": [1]}).write_parquet(outside)
    assert cli.main(["sql", f"SELECT * FROM read_parquet('{outside}')", "--data-dir", str(root)]) == 1


def test_missing_catalog_is_a_clear_error(tmp_path, capsys):
    assert cli.main(["sql", "SELECT 1", "--data-dir", str(tmp_path)]) == 2
    assert "no catalog at" in capsys.readouterr().err


@pytest.fixture
def root_with_floats(root):
    return add_float_states(root)


def test_floats_readable_in_table_and_full_in_csv_and_json(root_with_floats, capsys):
    query = "SELECT value FROM states ORDER BY step"
    assert cli.main(["sql", query, "--data-dir", str(root_with_floats)]) == 0
    table = capsys.readouterr().out.splitlines()
    assert [line.strip() for line in table[2:5]] == ["0.666667", "1e-09", "123456789"]
    assert cli.main(["sql", query, "--format", "csv", "--data-dir", str(root_with_floats)]) == 0
    assert capsys.readouterr().out.splitlines()[1:] == [repr(2 / 3), repr(1e-9), repr(123456789.123)]
    assert cli.main(["sql", query, "--format", "json", "--data-dir", str(root_with_floats)]) == 0
    assert [r["value"] for r in orjson.loads(capsys.readouterr().out)] == [2 / 3, 1e-9, 123456789.123]


def test_unknown_table_names_the_closest_views(root_with_floats, capsys):
    assert cli.main(["sql", "SELECT * FROM stats", "--data-dir", str(root_with_floats)]) == 1
    err = capsys.readouterr().err
    assert "no view named stats; closest views: states, games" in err and err.count("\n") == 1


def test_list_shows_views_with_row_counts(root_with_floats, capsys):
    assert cli.main(["sql", "--list", "--format", "csv", "--data-dir", str(root_with_floats)]) == 0
    assert capsys.readouterr().out == "view,rows\ngames,2\nstates,3\n"
    assert cli.main(["sql", "SELECT 1", "--list", "--data-dir", str(root_with_floats)]) == 2


def test_row_cap_says_when_rows_were_cut(root_with_floats, capsys):
    assert cli.main(["sql", "SELECT * FROM states", "--max-rows", "2", "--data-dir", str(root_with_floats)]) == 0
    out = capsys.readouterr().out
    assert "first 2 rows shown; more rows were cut" in out and out.count("connect4") == 2
    assert cli.main(["sql", "SELECT * FROM states", "--max-rows", "3", "--data-dir", str(root_with_floats)]) == 0
    assert "(3 rows)" in capsys.readouterr().out  # exactly the cap: nothing cut
    assert cli.main(["sql", "SELECT * FROM range(5000)", "--max-rows", "0", "--data-dir", str(root_with_floats)]) == 0
    assert "(5000 rows)" in capsys.readouterr().out
    assert cli.main(["sql", "SELECT 1", "--max-rows", "-1", "--data-dir", str(root_with_floats)]) == 2
    for timeout in ("0", "-1", "nan", "inf"):
        assert cli.main(["sql", "SELECT 1", "--timeout", timeout, "--data-dir", str(root_with_floats)]) == 2
    assert capsys.readouterr().err.count("--timeout must be a positive, finite number of seconds") == 4


def test_a_broken_view_is_reported_and_the_others_still_answer(root_with_floats, capsys):
    published = list(catalog.published_dir(root_with_floats).glob("*/selfplay_states/**/" + catalog.PUBLISHED_FILE))
    assert published  # the views read the published links, not the live files
    for path in published:
        path.unlink()
    assert cli.main(["sql", "SELECT count(*) AS n FROM games", "--format", "csv", "--data-dir", str(root_with_floats)]) == 0
    captured = capsys.readouterr()
    assert captured.out == "n\n2\n" and captured.err.startswith("jbag sql: view states is unavailable: ")
    assert captured.err.count("\n") == 1


def test_nested_values_and_huge_integers(root, capsys):
    query = "SELECT [1/3, 0.5::DOUBLE] AS l, {'x': 2/3, 'y': 'a'} AS s, 1::HUGEINT << 100 AS h"
    assert cli.main(["sql", query, "--data-dir", str(root)]) == 0
    assert "[0.333333, 0.5]  {x: 0.666667, y: 'a'}  1267650600228229401496703205376" in capsys.readouterr().out
    assert cli.main(["sql", query, "--format", "json", "--data-dir", str(root)]) == 0
    assert json.loads(capsys.readouterr().out) == [{"l": [1 / 3, 0.5], "s": {"x": 2 / 3, "y": "a"}, "h": 1 << 100}]


def test_views_with_paths_relative_to_the_data_dir_answer_from_anywhere(root, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(root)  # DuckDB binds a relative path against the working directory when the view is created
    con = duckdb.connect(str(catalog_path(root)))
    con.execute("CREATE OR REPLACE VIEW games AS SELECT * FROM read_parquet('lake/selfplay_games/**/part.parquet')")
    con.execute("CREATE VIEW pair AS SELECT * FROM read_parquet(['lake/selfplay_games/game=connect4/part.parquet',"
                " 'lake/selfplay_games/game=connect4/part.parquet'])")
    con.execute("CREATE VIEW sneaky AS SELECT size FROM read_blob('lake/../jbag.duckdb')")
    con.close()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert cli.main(["sql", "SELECT (SELECT count(*) FROM games) AS g, (SELECT count(*) FROM pair) AS p",
                     "--format", "csv", "--data-dir", str(root)]) == 0
    assert capsys.readouterr().out == "g,p\n2,4\n"
    assert cli.main(["sql", "SELECT * FROM sneaky", "--data-dir", str(root)]) == 1  # a view cannot leave the lake
    assert "Permission Error" in capsys.readouterr().err


def test_deleting_the_published_links_is_one_line_not_one_per_view(root_with_floats, capsys):
    shutil.rmtree(catalog.published_dir(root_with_floats))
    assert cli.main(["sql", "SELECT 42 AS answer", "--format", "csv", "--data-dir", str(root_with_floats)]) == 0
    captured = capsys.readouterr()
    assert captured.out == "answer\n42\n"
    assert captured.err.startswith("jbag sql: 2 views are unavailable (games, states); the first: ")
    assert captured.err.count("\n") == 1 and "rerun `jbag run`" in captured.err
