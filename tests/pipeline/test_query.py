"""`jbag sql`: read-only and sandboxed; each refusal is one line and a non-zero exit."""

import polars as pl
import pytest

from jbag_pipeline import cli, lake
from jbag_pipeline.catalog import build_catalog


@pytest.fixture
def root(tmp_path):
    games = pl.DataFrame({"game": ["connect4", "connect4"], "game_id": [1, 2], "winner": [0, None]},
                         schema={"game": pl.String, "game_id": pl.Int64, "winner": pl.Int8})
    lake.write_table(games, tmp_path, "selfplay_games", {"game": "connect4"})
    assert build_catalog(tmp_path) == {"games": "selfplay_games"}
    return tmp_path


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
