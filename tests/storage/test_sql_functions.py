"""Every function DuckDB lists is either on jbag sql's reviewed allowlist or refused; the query child cannot write."""

import json
import os
import subprocess
import sys
from pathlib import Path

import duckdb
import polars as pl
import pytest

import jbag_pipeline.storage.lake as lake
from jbag_pipeline.storage import sql_functions
from jbag_pipeline.storage.query import QueryRefused, check_query, open_catalog
from tests.helpers.storage import build_catalog
from tests.storage.test_sql_sandbox import snapshot

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def listed() -> dict[str, set[str]]:
    """Every function name duckdb_functions() lists (lower case), with its kinds."""
    con = duckdb.connect()
    rows = con.execute("SELECT lower(function_name), list(DISTINCT function_type) FROM duckdb_functions() "
                       "GROUP BY ALL").fetchall()
    con.close()
    return {name: set(kinds) for name, kinds in rows}


@pytest.fixture
def root(tmp_path):
    root = tmp_path / "data"
    games = pl.DataFrame({"game": ["connect4"] * 2, "game_id": [1, 2], "winner": [0, 1]})
    lake.write_table(games, root, "selfplay_games", {"game": "connect4"})
    build_catalog(root)
    return root


def test_every_listed_function_is_allowed_or_refused(listed):
    pragmas = {name for name, kinds in listed.items() if kinds == {"pragma"}}  # only PRAGMA statements call these
    unreviewed = sorted(name for name in set(listed) - pragmas
                        if name not in sql_functions.ALLOWED and sql_functions.refused_reason(name) is None)
    assert not unreviewed
    both = sorted(name for name in sql_functions.ALLOWED if name in sql_functions.REFUSED
                  or name.startswith(tuple(sql_functions._REFUSED_PREFIXES)))
    assert not both
    assert sql_functions.ALLOWED <= set(listed)  # no stale entry
    # the known dangers are not on the allowlist
    for name in ("json_serialize_plan", "query", "query_table", "json_execute_serialized_sql", "checkpoint",
                 "enable_logging", "write_log", "copy_database", "read_duckdb", "python_map_function"):
        assert sql_functions.refused_reason(name), name


def test_every_refused_function_is_refused_before_anything_runs(root, listed):
    """Call each refused function the way its kind is called; each is refused and the data directory is unchanged."""
    con = open_catalog(root)
    before = snapshot(root.parent)
    calls = []
    for name, kinds in sorted(listed.items()):
        if name in sql_functions.ALLOWED:
            continue
        if kinds == {"pragma"}:
            calls.append(f"PRAGMA {name}")
        if kinds & {"table", "table_macro"}:
            calls.append(f"SELECT * FROM {name}()")
        if kinds & {"scalar", "aggregate", "window", "macro"}:
            calls.append(f'SELECT "{name}"()' if not name.isidentifier() else f"SELECT {name}()")
    try:
        for call in calls:  # (a PRAGMA without its argument is already a parser error: it never runs either)
            with pytest.raises(QueryRefused, match="refused|Parser Error"):
                check_query(con, call)
            with pytest.raises(QueryRefused, match="refused|Parser Error"):
                check_query(con, f"EXPLAIN {call}")
    finally:
        con.close()
    assert len(calls) > 80  # DuckDB 2.0.1 lists about 130 such calls
    assert snapshot(root.parent) == before


def test_a_name_duckdb_does_not_know_gets_duckdbs_own_error(root):
    con = open_catalog(root)
    try:
        with pytest.raises(QueryRefused, match="does not exist"):
            check_query(con, "SELECT cout(*) FROM games")
    finally:
        con.close()


CHILD = """
import json, os, sys
import duckdb
from jbag_pipeline.storage.sandbox import restrict_child
lake = sys.argv[1]
how = restrict_child()
con = duckdb.connect()
outcomes = {"how": how}
for name, sql in [
    ("plan", f"SELECT json_serialize_plan('EXPORT DATABASE ''{lake}/selfplay_games/game=zzz/part.parquet''')"),
    ("export", f"EXPORT DATABASE '{lake}/dump'"),
    ("copy", f"COPY (SELECT 1) TO '{lake}/x.csv'"),
    ("attach", f"ATTACH '{lake}/new.duckdb' AS n"),
]:
    try:
        outcomes[name] = str(con.execute(sql).fetchall())
    except duckdb.Error as exc:
        outcomes[name] = "error: " + str(exc).splitlines()[0]
for name, action in [("mkdir", lambda: os.mkdir(f"{lake}/made")),
                     ("create", lambda: open(f"{lake}/made.txt", "w").write("x")),
                     ("append", lambda: open(f"{lake}/selfplay_games/game=connect4/part.parquet", "ab").write(b"x")),
                     ("remove", lambda: os.remove(f"{lake}/selfplay_games/game=connect4/part.parquet")),
                     ("rename", lambda: os.rename(f"{lake}/selfplay_games", f"{lake}/moved"))]:
    try:
        action()
        outcomes[name] = "done"
    except OSError as exc:
        outcomes[name] = "error: " + exc.strerror
print(json.dumps(outcomes))
"""


def test_the_query_child_cannot_change_a_file_whatever_it_runs(root):
    """The layer under the gates: after restrict_child, DuckDB and Python alike fail at every write."""
    before = snapshot(root.parent)
    done = subprocess.run([sys.executable, "-c", CHILD, str(lake.lake_dir(root))], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(REPO)}, timeout=120)
    assert done.returncode == 0, done.stderr
    outcomes = json.loads(done.stdout)
    assert outcomes.pop("how").startswith("landlock ABI")  # this kernel has Landlock; the README names the fallback
    assert all(outcome.startswith("error") or '"error":true' in outcome for outcome in outcomes.values()), outcomes
    assert snapshot(root.parent) == before
