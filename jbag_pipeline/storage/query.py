"""`jbag sql`'s queries: read-only by construction, over copies of the catalog views.

In layers:
- Each statement is classified by DuckDB's own parser; only SELECT (with DESCRIBE, SHOW, SUMMARIZE, FROM-first)
  and EXPLAIN of a SELECT run. EXPLAIN ANALYZE is refused (it executes its statement), so is everything else,
  and so is a SELECT whose syntax tree holds anything but plain query nodes (DuckDB runs COPY, INSERT, UPDATE
  and DELETE written inside a WITH clause) or calls any function, scalar to table, off the reviewed allowlist of
  storage/sql_functions.py. A query whose physical plan (EXPLAIN, which never runs it) holds a writing operator
  is refused too: a second gate.
- The queries run on an in-memory DuckDB holding copies of the catalog's views (relative lake paths anchored in
  the data directory); the catalog file is read once through a short read-only connection and never attached,
  so neither it nor its WAL is an allowed path.
- External access is off; the lake is the one allowed directory. No temp directory, so nothing spills to disk.
  No extension install/load, no Python replacement scans, configuration locked.
- `jbag sql` runs all of this in a child process that cannot change any file and dies at its memory cap
  (storage/sandbox.py): a write no gate foresaw still fails.
A query runs in a worker thread; a timeout or Ctrl-C interrupts it through `connection.interrupt()`. The output
(tables, CSV, JSON) and the answer to each `jbag sql` request are storage/query_output.py's.
"""

from __future__ import annotations

import json
import os
import re
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import duckdb
from rapidfuzz import fuzz, process

import jbag_pipeline.storage.lake as lake
from jbag_pipeline.storage import sql_functions
from jbag_pipeline.storage.catalog import bind_data_dir, catalog_path

MEMORY_LIMIT = "2GB"
DEFAULT_TIMEOUT = 60.0  # seconds per query
PLAIN_QUERY_NODES = {"SELECT_NODE", "SET_OPERATION_NODE", "RECURSIVE_CTE_NODE", "CTE_NODE"}  # DuckDB QueryNode kinds
# words of DuckDB physical operator names (COPY_TO_FILE, INSERT, CREATE_TABLE_AS, ...) that change state; MERGE is
# not one (PIECEWISE_MERGE_JOIN reads), MERGE_INTO is
WRITE_OPERATOR_WORDS = {"COPY", "INSERT", "UPDATE", "DELETE", "CREATE", "EXPORT", "ATTACH", "DETACH", "DROP",
                        "ALTER", "VACUUM", "PRAGMA", "TRANSACTION", "LOAD", "SECRET", "SET", "CHECKPOINT"}
WRITE_OPERATORS = {"MERGE_INTO"}
_UNKNOWN_TABLE = re.compile(r"Table with name (\S+) does not exist")


class QueryRefused(ValueError):
    """A statement the sandbox does not run, or a query DuckDB rejected."""


class QueryCancelled(Exception):
    """The user pressed Ctrl-C while a query ran."""


@dataclass(frozen=True)
class Result:
    columns: list[str]
    rows: list[tuple]


def open_catalog(root: Path, memory_limit: str = MEMORY_LIMIT, warn: bool = True) -> duckdb.DuckDBPyConnection:
    """An in-memory connection holding the views of <root>/jbag.duckdb that reads nothing outside the lake.

    Views that cannot be built (a missing or corrupt file) are left out, named in one line on stderr if `warn`.

    Run statements only after check_query (query_output.stream_query does): that parser gate is what keeps writes
    out (DuckDB's allowed directory, the lake, is writable for COPY, which the gate refuses).
    """
    path = catalog_path(root)
    if not path.exists():
        raise FileNotFoundError(f"no catalog at {path}; run `jbag run` (or materialise the catalog asset) first")
    con = duckdb.connect(config={
        "autoinstall_known_extensions": False, "autoload_known_extensions": False,
        "allow_community_extensions": False, "python_enable_replacements": False,
        "temp_directory": "", "max_temp_directory_size": "0B", "memory_limit": memory_limit,
    })
    try:
        bind_data_dir(con, root)  # the views read the lake beside this catalog, wherever the data directory now is
        unavailable = []
        for name, view_sql in _catalog_view_sql(path):
            try:
                con.execute(_anchored_view_sql(con, view_sql, root))
            except duckdb.Error as exc:  # one broken view (a missing or corrupt file) must not hide the others
                unavailable.append((name, _first_line(exc)))
        if unavailable and warn:
            print(_unavailable_line(unavailable), file=sys.stderr)
        con.execute(f"SET allowed_directories = [{_sql_string(str(lake.lake_dir(root)) + '/')}]")
        con.execute("SET enable_external_access = false")
        con.execute("SET lock_configuration = true")
    except BaseException:
        con.close()
        raise
    return con


def _unavailable_line(unavailable: list[tuple[str, str]]) -> str:
    """One line for the views that could not be built (deleting lake/.published breaks all of them at once)."""
    if len(unavailable) == 1:
        return f"jbag sql: view {unavailable[0][0]} is unavailable: {unavailable[0][1]}"
    names = ", ".join(name for name, _ in unavailable[:5]) + (", ..." if len(unavailable) > 5 else "")
    return (f"jbag sql: {len(unavailable)} views are unavailable ({names}); the first: {unavailable[0][1]} "
            "(rerun `jbag run` to rebuild the catalog)")


def _catalog_view_sql(path: Path) -> list[tuple[str, str]]:
    """(name, CREATE VIEW statement) of each view stored in the catalog file, in creation order."""
    try:
        catalog = duckdb.connect(str(path), read_only=True)
    except duckdb.Error as exc:
        raise QueryRefused(f"cannot open the catalog {path}: {_first_line(exc)}") from None
    try:
        return catalog.execute("SELECT view_name, sql FROM duckdb_views() WHERE NOT internal "
                               "AND database_name = current_database() ORDER BY view_oid").fetchall()
    finally:
        catalog.close()


def _anchored_view_sql(con: duckdb.DuckDBPyConnection, view_sql: str, root: Path) -> str:
    """`view_sql` with each relative file path its table functions read made absolute inside `root`.

    DuckDB checks allowed_directories against paths made absolute from the process's working directory, so a
    view the catalog stores with paths relative to the data directory would be refused at query time.
    """
    if not view_sql.isascii():  # DuckDB reports byte offsets; with ASCII they are character offsets too
        return view_sql
    start = _select_start(view_sql)
    select = view_sql[start:].rstrip().rstrip(";")
    try:
        tree = json.loads(con.execute("SELECT json_serialize_sql(?)", [select]).fetchone()[0])
    except duckdb.Error:
        return view_sql
    if tree.get("error"):
        return view_sql
    for offset, length, text in sorted(_relative_paths(tree), reverse=True):  # from the end: offsets stay valid
        select = select[:offset] + _sql_string(str(root / text)) + select[offset + length:]
    return view_sql[:start] + select


def _select_start(view_sql: str) -> int:
    """Where the query of `CREATE VIEW name [(columns)] AS query` starts."""
    tokens = duckdb.tokenize(view_sql)
    ends = [start for start, _ in tokens[1:]] + [len(view_sql)]
    depth = 0
    for (start, kind), end in zip(tokens, ends):
        word = view_sql[start:end].strip()
        depth += word == "("
        depth -= word == ")"
        if depth == 0 and kind == duckdb.token_type.keyword and word.upper() == "AS":
            return end
    return len(view_sql)


def _relative_paths(tree) -> list[tuple[int, int, str]]:
    """(offset, length, text) of each relative path constant given to a table function in a serialized query."""
    return [constant for node in sql_functions.json_objects(tree) if node.get("type") == "TABLE_FUNCTION"
            for argument in (node.get("function") or {}).get("arguments", []) if argument.get("name") == ""
            for constant in _path_constants(argument.get("expression") or {})]


def _path_constants(expression: dict) -> list[tuple[int, int, str]]:
    if expression.get("class") == "FUNCTION" and expression.get("function_name") == "list_value":  # ['a', 'b']
        return [c for a in expression.get("arguments", []) for c in _path_constants(a.get("expression") or {})]
    literal = expression.get("literal") or {}
    text = literal.get("text")
    if expression.get("class") != "CONSTANT" or literal.get("kind") not in ("STRING", "VARCHAR") or text is None:
        return []
    if os.path.isabs(text) or "://" in text or text.startswith("~"):
        return []
    return [(expression["query_location"], expression["query_location_length"], text)]


def catalog_views(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Names of the views a query can use, sorted."""
    rows = con.execute("SELECT view_name FROM duckdb_views() WHERE NOT internal ORDER BY view_name").fetchall()
    return [name for (name,) in rows]


# ---- statement classification ----

def check_query(con: duckdb.DuckDBPyConnection, query: str) -> list[duckdb.Statement]:
    """The statements of `query`, each checked by DuckDB's parser to be a plain query; raises QueryRefused otherwise."""
    try:
        query.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise QueryRefused(f"the query is not valid UTF-8 (undecodable byte at character {exc.start + 1})") from None
    if "\x00" in query:
        raise QueryRefused(f"the query contains a NUL byte (at character {query.index(chr(0)) + 1})")
    statements = _parse(con, query)
    if not statements:
        raise QueryRefused("empty query")
    for statement in statements:
        _check_statement(con, statement)
    return statements


def _parse(con: duckdb.DuckDBPyConnection, text: str) -> list[duckdb.Statement]:
    try:
        statements = con.extract_statements(text)
    except (duckdb.Error, RuntimeError) as exc:
        raise QueryRefused(f"SQL error: {_first_line(exc)}") from None
    for statement in statements:
        try:
            statement.type
        except ValueError as exc:  # the Python client has no StatementType for a few kinds (UPDATE EXTENSIONS)
            raise QueryRefused(f"refused: a statement kind the client cannot classify ({exc}); "
                               "jbag sql is read-only: SELECT and EXPLAIN only") from None
    return statements


def _check_statement(con: duckdb.DuckDBPyConnection, statement: duckdb.Statement) -> None:
    kind = statement.type
    if kind == duckdb.StatementType.SELECT:
        _check_plain_query(con, statement.query)
        return
    if kind == duckdb.StatementType.EXPLAIN:
        inner = _parse(con, _explained_text(statement.query))
        if len(inner) != 1 or inner[0].type != duckdb.StatementType.SELECT:
            inner_kind = inner[0].type.name if len(inner) == 1 else "several"
            raise QueryRefused(f"refused: EXPLAIN of {inner_kind} statements is not allowed (only EXPLAIN of a query)")
        _check_plain_query(con, inner[0].query)
        return
    if kind == duckdb.StatementType.MULTI:  # PIVOT without an IN list: DuckDB first creates an ENUM type
        raise QueryRefused("refused: this PIVOT runs several statements; list its values: PIVOT t ON col IN (...)")
    raise QueryRefused(f"refused: {kind.name} statements are not allowed "
                       "(jbag sql is read-only: SELECT and EXPLAIN only)")


def _check_plain_query(con: duckdb.DuckDBPyConnection, select: str) -> None:
    """Refuse a SELECT that hides a write: DuckDB runs COPY, INSERT, UPDATE and DELETE placed in a WITH clause.

    DuckDB's own syntax tree (json_serialize_sql, parsing only) is walked; every query node in it must be one
    a plain query is made of.
    """
    try:
        tree = json.loads(con.execute("SELECT json_serialize_sql(?)", [select]).fetchone()[0])
    except duckdb.Error as exc:
        raise QueryRefused(f"SQL error: {_first_line(exc)}") from None
    if tree.get("error"):
        raise QueryRefused(f"SQL error: {tree.get('error_message', 'the query cannot be parsed')}")
    hidden = sorted(_query_node_types(tree) - PLAIN_QUERY_NODES)
    if hidden:
        kinds = ", ".join(t.removesuffix("_NODE").removesuffix("_QUERY") for t in hidden)
        raise QueryRefused(f"refused: {kinds} inside a query is not allowed "
                           "(jbag sql is read-only: SELECT and EXPLAIN only)")
    refusal = sql_functions.refused_call(tree, lambda name: _function_exists(con, name))  # scalar to table
    if refusal:
        raise QueryRefused(refusal)
    _check_plan(con, select)


def _function_exists(con: duckdb.DuckDBPyConnection, name: str) -> bool:
    return con.execute("SELECT count(*) > 0 FROM duckdb_functions() WHERE lower(function_name) = lower(?)",
                       [name]).fetchone()[0]


def _check_plan(con: duckdb.DuckDBPyConnection, select: str) -> None:
    """A second, independent gate: DuckDB's physical plan of the query (EXPLAIN plans, never runs) has no writer."""
    try:
        plan = json.loads(con.execute(f"EXPLAIN (FORMAT json) {select}").fetchall()[0][1])
    except duckdb.Error as exc:
        raise QueryRefused(explain_error(con, exc)) from None
    writers = sorted({name for name in _operator_names(plan) if _writes(name)})
    if writers:
        raise QueryRefused(f"refused: the query's plan writes ({', '.join(writers)}); "
                           "jbag sql is read-only: SELECT and EXPLAIN only")


def _writes(operator: str) -> bool:
    """Whether a physical operator (COPY_TO_FILE, PIECEWISE_MERGE_JOIN, a table function's scan) changes state."""
    function = operator.lower()  # a table function's scan carries its name (PRAGMA_TABLE_INFO, CHECKPOINT)
    if function in sql_functions.ALLOWED:
        return False
    if function in sql_functions.REFUSED or operator in WRITE_OPERATORS:
        return True
    return bool(WRITE_OPERATOR_WORDS & set(operator.split("_")))


def _operator_names(plan) -> list[str]:
    names = []
    for node in plan if isinstance(plan, list) else [plan]:
        if isinstance(node, dict):
            names.append(str(node.get("name", "")))
            names.extend(_operator_names(node.get("children", [])))
    return names


def _query_node_types(tree) -> set[str]:
    """The QueryNode kinds (SELECT_NODE, COPY_QUERY_NODE, ...) anywhere in a serialized query."""
    kinds = (node.get("type") for node in sql_functions.json_objects(tree))
    return {kind for kind in kinds if isinstance(kind, str) and kind.endswith("_NODE")}


def _explained_text(explain: str) -> str:
    """The text of the statement an EXPLAIN explains; refuses EXPLAIN ANALYZE, which executes that statement."""
    tokens = duckdb.tokenize(explain)  # (start, kind); a token's text runs to the next token's start
    ends = [start for start, _ in tokens[1:]] + [len(explain)]
    words = [(explain[start:end].strip(), start) for (start, kind), end in zip(tokens, ends)
             if kind != duckdb.token_type.comment]
    rest = words[1:]  # words[0] is EXPLAIN itself
    if rest and rest[0][0] == "(":  # an options list: EXPLAIN (FORMAT json) ...
        close = next((i for i, (w, _) in enumerate(rest) if w == ")"), len(rest) - 1)
        options, rest = rest[1:close], rest[close + 1:]
        if any(w.strip('"').upper() in ("ANALYZE", "ANALYSE") for w, _ in options):  # also ("analyze")
            raise QueryRefused("refused: EXPLAIN ANALYZE executes its statement; use EXPLAIN without ANALYZE")
    if rest and rest[0][0].upper() in ("ANALYZE", "ANALYSE"):
        raise QueryRefused("refused: EXPLAIN ANALYZE executes its statement; use EXPLAIN without ANALYZE")
    if not rest:
        raise QueryRefused("SQL error: EXPLAIN of nothing")
    return explain[rest[0][1]:]


# ---- execution ----

def guarded(con: duckdb.DuckDBPyConnection, work: Callable[[], object], timeout: float | None,
            stop: threading.Event | None = None):
    """work() in a worker thread, with the connection interrupted after `timeout` seconds or on Ctrl-C.

    DuckDB errors become QueryRefused (one line); Ctrl-C becomes QueryCancelled. `stop` is set on either, for
    work that checks it between batches.
    """
    stop = stop or threading.Event()
    finished = threading.Event()
    outcome: dict[str, object] = {}

    def target() -> None:
        try:
            outcome["value"] = work()
        except BaseException as exc:  # carried to the caller's thread
            outcome["error"] = exc
        finally:
            finished.set()

    worker = threading.Thread(target=target, name="jbag-sql-query", daemon=True)
    try:
        worker.start()
        worker.join(timeout)
    except KeyboardInterrupt:  # may land inside worker.start(), before the worker counts as alive
        _cancel(con, stop, finished)
        raise QueryCancelled("query cancelled (Ctrl-C)") from None
    if not finished.is_set():
        _cancel(con, stop, finished)
        raise QueryRefused(f"query cancelled: it ran longer than the {timeout:g} s timeout (--timeout)")
    error = outcome.get("error")
    if error is None:
        return outcome["value"]
    if isinstance(error, QueryRefused):
        raise error
    if isinstance(error, duckdb.Error):
        raise QueryRefused(explain_error(con, error)) from None
    if isinstance(error, BrokenPipeError) or not isinstance(error, Exception):
        raise error
    # e.g. a value the Python client cannot convert: still one line, never a traceback
    raise QueryRefused(f"SQL error: {type(error).__name__}: {_first_line(error)}") from None


def _cancel(con: duckdb.DuckDBPyConnection, stop: threading.Event, finished: threading.Event) -> None:
    """Stop the worker: interrupt() only reaches a statement already running, so repeat it until the worker ends."""
    stop.set()
    deadline = time.monotonic() + 5.0  # an interrupted query returns within milliseconds; a blocked write may not
    while not finished.is_set() and time.monotonic() < deadline:
        con.interrupt()
        finished.wait(0.05)


def explain_error(con: duckdb.DuckDBPyConnection, exc: duckdb.Error) -> str:
    """One line for a DuckDB error; an unknown table names the closest views."""
    message = _first_line(exc)
    unknown = _UNKNOWN_TABLE.search(message) if isinstance(exc, duckdb.CatalogException) else None
    if unknown:
        name = unknown.group(1).strip('"')
        views = catalog_views(con)
        if not views:
            return f"SQL error: no view named {name}; the catalog has no views yet (run `jbag run` first)"
        closest = [v for v, _, _ in process.extract(name, views, scorer=fuzz.ratio, limit=3)]
        return (f"SQL error: no view named {name}; closest views: {', '.join(closest)} "
                "(.tables or `jbag sql --list` lists all)")
    if isinstance(exc, duckdb.OutOfMemoryException):
        limit = con.execute("SELECT current_setting('memory_limit')").fetchone()[0]
        return f"SQL error: {message} (the query needs more than memory_limit {limit}; aggregate or filter first)"
    return f"SQL error: {message}"


def _first_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__


def column_names(cursor: duckdb.DuckDBPyConnection) -> list[str]:
    return [d[0] for d in cursor.description] if cursor.description else []


def _sql_string(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"
