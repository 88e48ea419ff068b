"""`jbag sql`: read-only, sandboxed queries over the catalog views.

The catalog is opened read-only (no write lock, so a running materialisation is never blocked); only SELECT
and EXPLAIN statements run; DuckDB may read files only inside the lake, may not install or load extensions,
and its configuration is locked so a query cannot undo any of this.
"""

from __future__ import annotations

import csv
import io
import sys
from pathlib import Path

import duckdb
import orjson

from jbag_pipeline import lake
from jbag_pipeline.catalog import bind_data_dir, catalog_path

ALLOWED_STATEMENTS = {"StatementType.SELECT", "StatementType.EXPLAIN"}


class QueryRefused(ValueError):
    """A statement the sandbox does not run, or a query DuckDB rejected."""


def open_catalog(root: Path) -> duckdb.DuckDBPyConnection:
    """A read-only, sandboxed connection to <root>/jbag.duckdb."""
    path = catalog_path(root)
    if not path.exists():
        raise FileNotFoundError(f"no catalog at {path}; run `jbag run` (or materialise the catalog asset) first")
    con = duckdb.connect(str(path), read_only=True,
                         config={"autoinstall_known_extensions": False, "autoload_known_extensions": False})
    bind_data_dir(con, root)  # the views read the lake beside this catalog, wherever the data directory now is
    allowed = str(lake.lake_dir(root)).replace("'", "''") + "/"
    con.execute(f"SET allowed_directories = ['{allowed}']")
    con.execute("SET enable_external_access = false")
    con.execute("SET memory_limit = '2GB'")
    con.execute("SET lock_configuration = true")
    return con


def run_query(con: duckdb.DuckDBPyConnection, query: str) -> tuple[list[str], list[tuple]]:
    """Run one or more read-only statements; returns the columns and rows of the last one."""
    try:
        statements = con.extract_statements(query)
    except duckdb.Error as exc:
        raise QueryRefused(f"SQL error: {_first_line(exc)}") from None
    if not statements:
        raise QueryRefused("empty query")
    for st in statements:
        if str(st.type) not in ALLOWED_STATEMENTS:
            kind = str(st.type).removeprefix("StatementType.")
            raise QueryRefused(f"refused: {kind} statements are not allowed (jbag sql is read-only: SELECT and EXPLAIN only)")
    try:
        for st in statements[:-1]:
            con.execute(st.query)
        cursor = con.execute(statements[-1].query)
        columns = [d[0] for d in cursor.description] if cursor.description else []
        return columns, cursor.fetchall()
    except duckdb.Error as exc:
        raise QueryRefused(f"SQL error: {_first_line(exc)}") from None


def _first_line(exc: Exception) -> str:
    return str(exc).strip().splitlines()[0]


def format_rows(columns: list[str], rows: list[tuple], fmt: str) -> str:
    """Rows as an aligned text table, CSV or JSON (a list of objects)."""
    if fmt == "csv":
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(columns)
        writer.writerows(rows)
        return buf.getvalue()
    if fmt == "json":
        return orjson.dumps([dict(zip(columns, r)) for r in rows], default=str,
                            option=orjson.OPT_INDENT_2).decode() + "\n"
    cells = [[str(c) for c in columns]] + [["NULL" if v is None else str(v) for v in r] for r in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(columns))]
    lines = ["  ".join(v.ljust(w) for v, w in zip(row, widths)).rstrip() for row in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines) + f"\n({len(rows)} row{'s' if len(rows) != 1 else ''})\n"


def run_query_cli(query: str | None, root: Path, fmt: str) -> int:
    """One query (exit 0, or 1 with a one-line error), or an interactive prompt when `query` is None."""
    con = open_catalog(root)
    if query is not None:
        try:
            sys.stdout.write(format_rows(*run_query(con, query), fmt))
            return 0
        except QueryRefused as exc:
            print(f"jbag sql: {exc}", file=sys.stderr)
            return 1
    print("jbag sql: read-only SQL over the catalog views; end a query with ';', quit with .quit or Ctrl-D")
    buffer = []
    while True:
        try:
            line = input("jbag> " if not buffer else "  ... ")
        except EOFError:
            print()
            return 0
        if not buffer and line.strip() in (".quit", ".exit", "quit", "exit"):
            return 0
        buffer.append(line)
        if line.rstrip().endswith(";"):
            try:
                sys.stdout.write(format_rows(*run_query(con, "\n".join(buffer)), fmt))
            except QueryRefused as exc:
                print(f"jbag sql: {exc}")
            buffer = []
