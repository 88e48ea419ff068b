"""`jbag sql`'s answers in the sandboxed child (storage/sandbox.py): a query's rows streamed as a table, CSV or JSON,
the view list and a view's schema; the checks and the guarded execution are storage/query.py's."""

from __future__ import annotations

import csv
import io
import json
import os
import sys
import threading
from pathlib import Path
from typing import Callable, TextIO

import duckdb
import orjson

from jbag_pipeline.storage.query import (DEFAULT_TIMEOUT, QueryCancelled, QueryRefused, Result, catalog_views,
                                         check_query, column_names, explain_error, guarded, open_catalog)
from jbag_pipeline.storage.render import terminal_lines

DEFAULT_MAX_ROWS = 1000  # rows shown in table format
BATCH_ROWS = 2048  # rows fetched from DuckDB at a time when streaming output


# ---- output ----

def format_rows(columns: list[str], rows: list[tuple], fmt: str) -> str:
    """Rows as an aligned text table, CSV or JSON (a list of objects)."""
    out = io.StringIO()
    writer = _writer(fmt, out, columns)
    writer.rows(rows)
    writer.finish(cut=False)
    return out.getvalue()


class _Table:
    """The aligned text table of storage.render with a row-count footer (csv and json keep full precision)."""

    def __init__(self, out: TextIO, columns: list[str]):
        self.out, self.columns, self.buffered = out, columns, []

    def rows(self, rows: list[tuple]) -> None:
        self.buffered.extend(rows)  # widths need every row; the row cap bounds how many

    def finish(self, cut: bool) -> None:
        rows = self.buffered
        lines = terminal_lines(self.columns, rows)
        n = len(rows)
        footer = f"({n} row{'s' if n != 1 else ''})"
        if cut:
            footer = (f"(first {n} row{'s' if n != 1 else ''} shown; more rows were cut: raise --max-rows, "
                      "or use --format csv or json for every row)")
        self.out.write("\n".join(lines) + "\n" + footer + "\n")


class _Csv:
    def __init__(self, out: TextIO, columns: list[str]):
        self.writer = csv.writer(out, lineterminator="\n")
        self.writer.writerow(columns)

    def rows(self, rows: list[tuple]) -> None:
        self.writer.writerows(rows)

    def finish(self, cut: bool) -> None:
        pass


class _Json:
    """A JSON list of objects, written one object at a time."""

    def __init__(self, out: TextIO, columns: list[str]):
        self.out, self.columns, self.first = out, columns, True
        out.write("[")

    def rows(self, rows: list[tuple]) -> None:
        for r in rows:
            obj = dict(zip(self.columns, r))
            try:
                item = orjson.dumps(obj, default=str, option=orjson.OPT_INDENT_2).decode()
            except TypeError:  # an integer beyond 64 bits (HUGEINT): the json module writes any integer
                item = json.dumps(obj, default=str, indent=2, ensure_ascii=False)
            self.out.write(("\n" if self.first else ",\n") + "\n".join("  " + s for s in item.splitlines()))
            self.first = False

    def finish(self, cut: bool) -> None:
        self.out.write("]\n" if self.first else "\n]\n")


def _writer(fmt: str, out: TextIO, columns: list[str]):
    return {"table": _Table, "csv": _Csv, "json": _Json}[fmt](out, columns)


def stream_query(con: duckdb.DuckDBPyConnection, query: str, fmt: str, out: TextIO,
                 timeout: float | None = DEFAULT_TIMEOUT, max_rows: int = DEFAULT_MAX_ROWS) -> None:
    """Run `query` and write each statement's result to `out` in batches; table format stops after max_rows rows."""
    stop = threading.Event()
    cap = max_rows if fmt == "table" and max_rows > 0 else None

    def work() -> None:
        statements = check_query(con, query)  # in the worker too: planning a query can take time
        for i, statement in enumerate(statements):
            if stop.is_set():
                return
            cursor = con.execute(statement)
            writer = _writer(fmt, out, column_names(cursor))
            written, cut = 0, False
            while not stop.is_set():
                want = BATCH_ROWS if cap is None else min(BATCH_ROWS, cap + 1 - written)
                batch = cursor.fetchmany(want)
                if cap is not None and written + len(batch) > cap:
                    batch, cut = batch[:cap - written], True
                writer.rows(batch)
                written += len(batch)
                if cut or len(batch) < want:
                    break
            if stop.is_set():
                return
            writer.finish(cut)
            if i < len(statements) - 1 and fmt == "table":
                out.write("\n")
            out.flush()

    guarded(con, work, timeout, stop)


# ---- the command ----

def list_views(con: duckdb.DuckDBPyConnection, timeout: float | None = DEFAULT_TIMEOUT) -> Result:
    """Every view with its row count."""
    views = catalog_views(con)

    def work() -> Result:
        counts = [con.execute(f"SELECT count(*) FROM {_sql_identifier(v)}").fetchone()[0] for v in views]
        return Result(["view", "rows"], list(zip(views, counts)))

    return guarded(con, work, timeout)


def view_schema(con: duckdb.DuckDBPyConnection, view: str) -> Result:
    """Columns and types of one view."""
    if view not in catalog_views(con):
        raise QueryRefused(explain_error(con, duckdb.CatalogException(f"Table with name {view} does not exist!")))
    rows = con.execute("SELECT column_name, data_type FROM duckdb_columns() WHERE table_name = ? ORDER BY column_index",
                       [view]).fetchall()
    return Result(["column", "type"], rows)


def serve(request: dict) -> int:
    """Answer one request of `jbag sql` in the sandboxed child (storage/sandbox.py); exit 0, 1, 2 or 130.

    request: root, memory_limit, warn, timeout, and kind query (query, format, max_rows), list, tables or
    schema (view).
    """
    root, kind, fmt, timeout = Path(request["root"]), request["kind"], request["format"], request["timeout"]
    try:
        con = open_catalog(root, request["memory_limit"], warn=request.get("warn", True))
    except (QueryRefused, FileNotFoundError) as exc:
        print(f"jbag sql: error: {exc}", file=sys.stderr)
        return 2
    try:
        if kind == "query":
            return _one(lambda: stream_query(con, request["query"], fmt, sys.stdout, timeout, request["max_rows"]))
        if kind == "list":
            return _one(lambda: _print(list_views(con, timeout), fmt))
        if kind == "tables":
            print("\n".join(catalog_views(con)) or "(no views yet: run `jbag run` first)")
            return 0
        return _one(lambda: _print(view_schema(con, request["view"]), fmt))
    finally:
        try:
            sys.stdout.flush()
            con.close()
        except (duckdb.Error, OSError, ValueError):  # a cancelled worker still holds it; the process ends anyway
            pass


def _print(result: Result, fmt: str) -> None:
    sys.stdout.write(format_rows(result.columns, result.rows, fmt))


def _one(action: Callable[[], object]) -> int:
    try:
        action()
        return 0
    except QueryRefused as exc:
        print(f"jbag sql: {exc}", file=sys.stderr)
        return 1
    except QueryCancelled as exc:
        print(f"jbag sql: {exc}", file=sys.stderr)
        return 130
    except KeyboardInterrupt:  # Ctrl-C outside a running query (while writing its output)
        print("jbag sql: cancelled (Ctrl-C)", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader went away: stop quietly, as other Unix tools do
        _silence_stdout()
        return 0


def _silence_stdout() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, io.UnsupportedOperation):  # stdout without a file descriptor (tests)
        pass


def _sql_identifier(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'
