"""Lake and catalog shortcuts for tests."""

from __future__ import annotations

import threading
from pathlib import Path

import duckdb
import polars as pl

from jbag_pipeline.storage.catalog import publish
from jbag_pipeline.storage.lake import lake_dir, write_table
from jbag_pipeline.storage.query import DEFAULT_TIMEOUT, Result, check_query, column_names, guarded


def build_catalog(root: Path) -> dict[str, str]:
    """Publish the lake and write <root>/jbag.duckdb; returns view -> table of the views created."""
    return publish(root).views


def table_glob(root: Path, table: str) -> str:
    """Glob matching every partition file of a table (for DuckDB's read_parquet)."""
    return str(lake_dir(root) / table / "**" / "part.parquet")


def catalog_of_two_games(root: Path) -> Path:
    """A lake of two Connect4 self-play games (one a draw) and its catalog (view `games`)."""
    games = pl.DataFrame({"game": ["connect4", "connect4"], "game_id": [1, 2], "winner": [0, None]},
                         schema={"game": pl.String, "game_id": pl.Int64, "winner": pl.Int8})
    write_table(games, root, "selfplay_games", {"game": "connect4"})
    assert build_catalog(root) == {"games": "selfplay_games"}
    return root


def add_float_states(root: Path) -> Path:
    """Adds three self-play states with awkward floats (view `states`) and republishes the catalog."""
    states = pl.DataFrame({"game": ["connect4"] * 3, "value": [2 / 3, 1e-9, 123456789.123], "step": [0, 1, 2]})
    write_table(states, root, "selfplay_states", {"game": "connect4"})
    build_catalog(root)
    return root


def run_query(con: duckdb.DuckDBPyConnection, query: str,
              timeout: float | None = DEFAULT_TIMEOUT) -> tuple[list[str], list[tuple]]:
    """The columns and every row of the last of `query`'s statements, each checked and run as `jbag sql` does."""
    stop = threading.Event()

    def work() -> Result:
        statements = check_query(con, query)
        for statement in statements[:-1]:
            con.execute(statement).fetchall()
            if stop.is_set():
                return Result([], [])
        cursor = con.execute(statements[-1])
        return Result(column_names(cursor), cursor.fetchall())

    result = guarded(con, work, timeout, stop)
    return result.columns, result.rows
