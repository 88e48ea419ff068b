"""`jbag sql` against attack forms: every one refused in one line, and not a byte written or read outside the lake."""

import hashlib
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import duckdb
import polars as pl
import pytest

import jbag_pipeline.cli.commands as cli
import jbag_pipeline.storage.lake as lake
import jbag_pipeline.storage.query as query
from jbag_pipeline.storage.catalog import catalog_path
from jbag_pipeline.storage.query import QueryRefused, open_catalog
from tests.helpers.storage import build_catalog, run_query

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def root(tmp_path, monkeypatch):
    root = tmp_path / "data"
    games = pl.DataFrame({"game": ["connect4"] * 2, "game_id": [1, 2], "winner": [0, 1]})
    lake.write_table(games, root, "selfplay_games", {"game": "connect4"})
    build_catalog(root)
    pl.DataFrame({"secret": [42]}).write_parquet(root / "outside.parquet")  # in the data dir, not in the lake
    (tmp_path / "elsewhere.txt").write_text("not for jbag sql\n")
    (root / "lakeside").mkdir()  # shares the lake's name as a prefix
    pl.DataFrame({"secret": [7]}).write_parquet(root / "lakeside" / "part.parquet")
    monkeypatch.chdir(root)  # relative paths in a query resolve in the data directory
    return root


def snapshot(top: Path) -> dict[str, tuple[int, str]]:
    """Every file and directory under `top` with its mtime and content hash."""
    entries = {}
    for path in sorted(top.rglob("*")):
        digest = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "dir"
        entries[str(path.relative_to(top))] = (path.stat().st_mtime_ns, digest)
    return entries


def partition(root: Path) -> str:
    return str(lake.partition_path(root, "selfplay_games", {"game": "connect4"}))


# {lake}, {root}, {part} and {catalog} are filled in per test; expected is a fragment of the one-line error.
ATTACKS = [
    # writes, plain and wrapped
    ("COPY games TO '{lake}/x.csv'", "COPY statements are not allowed"),
    ("COPY (SELECT 1 AS game_id) TO '{part}' (FORMAT parquet)", "COPY statements are not allowed"),
    ("EXPLAIN COPY (SELECT 1) TO '{lake}/x.csv'", "EXPLAIN of COPY statements is not allowed"),
    ("EXPLAIN ANALYZE COPY (SELECT 1) TO '{part}' (FORMAT parquet)", "EXPLAIN ANALYZE executes its statement"),
    ("EXPLAIN ANALYZE SELECT 1", "EXPLAIN ANALYZE executes its statement"),
    ("explain /* hidden */ analyse select 1", "EXPLAIN ANALYZE executes its statement"),
    ("EXPLAIN (FORMAT json, ANALYZE) SELECT 1", "EXPLAIN ANALYZE executes its statement"),
    ("EXPLAIN CREATE TABLE t AS SELECT 1", "EXPLAIN of CREATE statements is not allowed"),
    ("WITH t AS (COPY (SELECT 1 AS game_id) TO '{part}' (FORMAT parquet)) SELECT 1", "COPY inside a query"),
    ("WITH t AS (COPY games TO '{lake}/x.csv') SELECT * FROM games", "COPY inside a query"),
    ("SELECT (WITH t AS (COPY (SELECT 1) TO '{lake}/x.csv') SELECT 1)", "COPY inside a query"),
    ("EXPLAIN WITH t AS (COPY (SELECT 1) TO '{lake}/x.csv') SELECT 1", "COPY inside a query"),
    ("WITH t AS (INSERT INTO games VALUES ('x', 3, 0) RETURNING *) SELECT * FROM t", "INSERT inside a query"),
    ("WITH t AS (UPDATE games SET winner = 1 RETURNING *) SELECT * FROM t", "inside a query"),
    ("WITH t AS (DELETE FROM games RETURNING *) SELECT * FROM t", "inside a query"),
    ("SELECT * FROM checkpoint()", "table function checkpoint() is not allowed"),
    ("SELECT * FROM query('WITH t AS (COPY (SELECT 1) TO ''{lake}/x.csv'') SELECT 1')", "table function query()"),
    ("SELECT * FROM json_execute_serialized_sql(json_serialize_sql("
     "'WITH t AS (COPY (SELECT 1) TO ''{lake}/x.csv'') SELECT 1'))", "json_execute_serialized_sql() is not allowed"),
    ("SELECT * FROM (SELECT 1) t, LATERAL (FROM main.json_execute_serialized_sql('{{}}'))", "is not allowed"),
    ("EXPORT DATABASE '{lake}/dump'", "EXPORT statements are not allowed"),
    ("CREATE TABLE t AS SELECT * FROM games", "CREATE statements are not allowed"),
    ("CREATE OR REPLACE VIEW games AS SELECT 1", "CREATE statements are not allowed"),
    ("WITH x AS (SELECT 1) INSERT INTO games SELECT * FROM x", "INSERT statements are not allowed"),
    ("DROP VIEW games", "DROP statements are not allowed"),
    ("ATTACH '{lake}/new.duckdb' AS n", "ATTACH statements are not allowed"),
    ("ATTACH '{catalog}' AS c", "ATTACH statements are not allowed"),
    ("PREPARE p AS COPY games TO '{lake}/x.csv'", "PREPARE statements are not allowed"),
    ("CHECKPOINT", "CALL statements are not allowed"),
    ("VACUUM", "VACUUM statements are not allowed"),
    ("CREATE SECRET s (TYPE s3, KEY_ID 'k', SECRET 's')", "CREATE statements are not allowed"),
    ("PIVOT games ON winner USING count(*)", "this PIVOT runs several statements"),
    # multiple statements: the whole input is refused before anything runs
    ("SELECT 1; COPY games TO '{lake}/x.csv'", "COPY statements are not allowed"),
    ("SELECT 1; DROP VIEW games; SELECT 2", "DROP statements are not allowed"),
    # settings, pragmas, extensions
    ("SET enable_external_access = true", "SET statements are not allowed"),
    ("RESET allowed_directories", "SET statements are not allowed"),
    ("SET VARIABLE x = 1", "SET statements are not allowed"),
    ("PRAGMA enable_profiling", "PRAGMA statements are not allowed"),
    ("CALL enable_logging(storage = 'file', storage_path = '{lake}/log')", "CALL statements are not allowed"),
    ("SELECT * FROM enable_logging(storage = 'file', storage_path = '{lake}/log')", "enable_logging() is not allowed"),
    ("SELECT * FROM enable_profiling()", "enable_profiling() is not allowed"),
    ("INSTALL httpfs", "LOAD statements are not allowed"),
    ("LOAD '{lake}/evil.duckdb_extension'", "LOAD statements are not allowed"),
    ("UPDATE EXTENSIONS", "refused"),
    # the catalog file, its WAL and anything outside the lake
    ("SELECT size FROM read_blob('{catalog}')", "Permission Error"),
    ("SELECT * FROM read_text('{catalog}.wal')", "Permission Error"),
    ("SELECT * FROM read_parquet('{catalog}')", "Permission Error"),
    ("SELECT * FROM 'jbag.duckdb'", "Permission Error"),
    ("SELECT * FROM 'outside.parquet'", "Permission Error"),
    ("SELECT * FROM read_parquet('{root}/outside.parquet')", "Permission Error"),
    ("SELECT size FROM read_blob('{lake}/../jbag.duckdb')", "Permission Error"),
    ("SELECT size FROM read_blob('{lake}/selfplay_games/game=connect4/../../../jbag.duckdb')", "Permission Error"),
    ("SELECT size FROM read_blob('file://{catalog}')", "Permission Error"),
    ("SELECT * FROM read_duckdb('{catalog}')", "read_duckdb() is not allowed"),
    ("SELECT * FROM '{lake}side/part.parquet'", "Permission Error"),
    ("SELECT * FROM read_parquet('https://example.com/x.parquet')", "Permission Error"),
    ("SELECT * FROM glob('{root}/*')", "Permission Error"),
    ("SELECT * FROM glob('{lake}/../**')", "Permission Error"),
    ("SELECT * FROM glob('{lake}*/**')", "Permission Error"),
    ("SELECT * FROM read_text('{root}/../elsewhere.txt')", "Permission Error"),
    ("SELECT * FROM read_csv('/etc/passwd', sep = ':')", "Permission Error"),
    ("SELECT * FROM sniff_csv('/etc/passwd')", "Permission Error"),
    ("SELECT * FROM read_blob('/proc/self/environ')", "Permission Error"),
    ("SELECT * FROM read_blob('~/.bashrc')", "Permission Error"),
    ("SELECT size FROM read_blob('lake/../jbag.duckdb')", "Permission Error"),
    ("SELECT getenv('HOME')", "getenv does not exist"),
    # scalar functions that take SQL text: planning EXPORT DATABASE creates its directory
    ("SELECT json_serialize_plan('EXPORT DATABASE ''{new_part}''')", "json_serialize_plan() is not allowed"),
    ("EXPLAIN SELECT json_serialize_plan('EXPORT DATABASE ''{new_part}''')", "json_serialize_plan() is not allowed"),
    ("SELECT 1; SELECT main.JSON_SERIALIZE_PLAN('EXPORT DATABASE ''{lake}/d''')", "json_serialize_plan() is not"),
    ("SELECT json_serialize_sql('SELECT 1')", "json_serialize_sql() is not allowed"),
    ("SELECT write_log('x')", "write_log() is not allowed"),
    ("SELECT * FROM read_csv('{part}', store_rejects = true, rejects_table = 'games')", "creates tables in the"),
    ('EXPLAIN ("analyze") SELECT 1', "EXPLAIN ANALYZE executes its statement"),
    # input no parser should see
    ("SELECT '\udcff'", "not valid UTF-8"),
    ("SELECT 1\x00; COPY games TO 'x.csv'", "NUL byte"),
    ("/* only a comment */", "empty query"),
]


def test_at_least_30_attack_forms():
    assert len(ATTACKS) >= 30


@pytest.mark.parametrize("template, expected", ATTACKS, ids=[a[0][:60] for a in ATTACKS])
def test_attack_is_refused_and_changes_nothing(root, capsys, template, expected):
    new_part = lake.lake_dir(root) / "selfplay_games" / "game=zzz" / "part.parquet"  # a directory, before the fix
    query = template.format(lake=lake.lake_dir(root), root=root, part=partition(root), catalog=catalog_path(root),
                            new_part=new_part)
    before = snapshot(root.parent)
    assert cli.main(["sql", query, "--data-dir", str(root)]) == 1
    captured = capsys.readouterr()
    assert expected in captured.err and captured.err.count("\n") == 1, captured.err
    assert "Traceback" not in captured.err and captured.out == ""
    assert snapshot(root.parent) == before  # not one file created, replaced or touched


def test_the_plan_gate_alone_refuses_a_hidden_write(root, capsys, monkeypatch):
    """With the syntax-tree gate switched off, the physical plan still shows the write and nothing is written."""
    monkeypatch.setattr(query, "PLAIN_QUERY_NODES", query.PLAIN_QUERY_NODES | {"COPY_QUERY_NODE"})
    monkeypatch.setattr(query.sql_functions, "refused_call", lambda tree, exists: None)
    con = open_catalog(root)
    before = snapshot(root.parent)
    try:
        for hidden in (f"WITH t AS (COPY (SELECT 1 AS game_id) TO '{partition(root)}' (FORMAT parquet)) SELECT 1",
                       f"EXPLAIN WITH t AS (COPY games TO '{lake.lake_dir(root)}/x.csv') SELECT 1",
                       "SELECT * FROM checkpoint()"):
            with pytest.raises(QueryRefused, match="the query's plan writes"):
                run_query(con, hidden)
    finally:
        con.close()
    assert snapshot(root.parent) == before


def test_the_connection_itself_cannot_reach_outside_the_lake(root):
    """Beneath the parser gate: the DuckDB connection cannot read the catalog or change its own settings."""
    con = open_catalog(root)
    try:
        settings = dict(con.execute("SELECT name, value FROM duckdb_settings() WHERE name IN "
                                    "('allowed_directories', 'allowed_paths', 'temp_directory', 'enable_external_access',"
                                    " 'lock_configuration', 'memory_limit')").fetchall())
        assert settings["allowed_directories"] == f"[{lake.lake_dir(root)}/]"
        assert settings["allowed_paths"] == "[]" and settings["temp_directory"] == ""
        assert settings["enable_external_access"] == "false" and settings["lock_configuration"] == "true"
        assert con.execute("SELECT count(*) FROM duckdb_databases() WHERE path IS NOT NULL").fetchone() == (0,)
        with pytest.raises(duckdb.PermissionException):
            con.execute(f"SELECT size FROM read_blob('{catalog_path(root)}')")
        with pytest.raises(duckdb.InvalidInputException, match="locked"):
            con.execute("SET enable_external_access = true")
        with pytest.raises(duckdb.InvalidInputException, match="locked"):
            con.execute("SET temp_directory = '/tmp'")
        assert con.execute(f"SELECT count(*) FROM read_parquet('{partition(root)}')").fetchone() == (2,)
    finally:
        con.close()


def test_explain_of_a_query_still_runs(root, capsys):
    assert cli.main(["sql", "EXPLAIN SELECT * FROM games WHERE winner = 1", "--data-dir", str(root)]) == 0
    assert "physical_plan" in capsys.readouterr().out
    assert cli.main(["sql", "EXPLAIN (FORMAT json) SELECT 1", "--data-dir", str(root)]) == 0
    for plain in ("DESCRIBE games", "SUMMARIZE games", "FROM games", "SHOW TABLES", "SELECT * FROM (DESCRIBE games)",
                  "PIVOT games ON winner IN (0, 1) USING count(*)", "WITH t AS MATERIALIZED (FROM games) FROM t",
                  "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3) FROM r",
                  "SELECT game_id, row_number() OVER (ORDER BY game_id) FROM games QUALIFY game_id > 0",
                  f"SELECT count(*) FROM glob('{lake.lake_dir(root)}/**')", "SELECT * FROM duckdb_views()",
                  "SELECT 1 UNION ALL SELECT 2", "EXPLAIN DESCRIBE games"):
        assert cli.main(["sql", plain, "--data-dir", str(root)]) == 0, (plain, capsys.readouterr().err)
    capsys.readouterr()


def test_huge_result_is_cut_in_table_format_and_streamed_otherwise(root, capsys):
    start = time.perf_counter()
    assert cli.main(["sql", "SELECT * FROM range(1000000000) t(i)", "--max-rows", "5", "--data-dir", str(root)]) == 0
    out = capsys.readouterr().out
    assert "first 5 rows shown; more rows were cut" in out and out.count("\n") == 2 + 5 + 1
    assert cli.main(["sql", "SELECT * FROM range(1000000000) t(i)", "--data-dir", str(root)]) == 0
    assert "first 1000 rows shown" in capsys.readouterr().out  # the default cap
    assert time.perf_counter() - start < 10  # neither fetched the billion rows
    assert cli.main(["sql", "SELECT * FROM range(5000) t(i)", "--format", "csv", "--data-dir", str(root)]) == 0
    assert capsys.readouterr().out.splitlines()[1:] == [str(i) for i in range(5000)]  # csv: every row, several batches


def test_memory_limit_is_honoured(root):
    con = open_catalog(root, memory_limit="64MB")
    try:
        with pytest.raises(QueryRefused, match="Out of Memory.*memory_limit"):
            run_query(con, "SELECT list(i) FROM range(100000000) t(i)")
        assert run_query(con, "SELECT 42")[1] == [(42,)]
    finally:
        con.close()


def test_long_query_times_out_cleanly(root, capsys):
    start = time.perf_counter()
    assert cli.main(["sql", "SELECT count(*) FROM range(1000000000000)", "--timeout", "1", "--data-dir", str(root)]) == 1
    err = capsys.readouterr().err
    assert "longer than the 1 s timeout (--timeout)" in err and err.count("\n") == 1
    assert time.perf_counter() - start < 8  # 1 s, plus opening the catalog on a busy machine
    con = open_catalog(root)
    try:  # the same connection answers the next query
        with pytest.raises(QueryRefused, match="timeout"):
            run_query(con, "SELECT count(*) FROM range(1000000000000)", timeout=0.5)
        assert run_query(con, "SELECT count(*) FROM games")[1] == [(2,)]
    finally:
        con.close()


def test_ctrl_c_cancels_a_one_shot_query_with_exit_130(root):
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen([sys.executable, "-m", "jbag_pipeline.cli", "sql", "--format", "csv", "--data-dir", str(root),
                             "SELECT 1 AS started; SELECT count(*) FROM range(1000000000000)"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert proc.stdout.readline() == "started\n"  # the second statement is running now
        proc.send_signal(signal.SIGINT)
        err = proc.communicate(timeout=10)[1]
    finally:
        proc.kill()
    assert proc.returncode == 130 and err == "jbag sql: query cancelled (Ctrl-C)\n"


def test_ctrl_c_in_the_prompt_returns_to_the_prompt(root, capsys, monkeypatch):
    lines = iter(["SELECT count(*) FROM range(1000000000000);", "SELECT 42 AS answer;"])

    def fake_input(prompt=""):
        line = next(lines, None)
        if line is None:
            raise EOFError
        if "range" in line:  # Ctrl-C half a second into the long query
            threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT)).start()
        return line

    monkeypatch.setattr("builtins.input", fake_input)
    # a terminal's Ctrl-C handler, as an interactive session has it (a background job inherits SIGINT ignored, which
    # jbag sql deliberately leaves so)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        assert cli.main(["sql", "--data-dir", str(root)]) == 0
    finally:
        signal.signal(signal.SIGINT, previous)
    captured = capsys.readouterr()
    assert "query cancelled (Ctrl-C)" in captured.err and "42" in captured.out


def test_non_utf8_bytes_from_argv_and_stdin_give_one_line(root):
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    command = [os.fsencode(sys.executable), b"-m", b"jbag_pipeline.cli", b"sql", b"--data-dir", os.fsencode(root)]
    one_shot = subprocess.run(command + [b"SELECT '\xff\xfe'"], capture_output=True, env=env, timeout=60)
    assert one_shot.returncode == 1
    assert one_shot.stderr == b"jbag sql: the query is not valid UTF-8 (undecodable byte at character 9)\n"
    prompt = subprocess.run(command, input=b"SELECT '\xc3(';\nSELECT 7 AS seven;\n", capture_output=True, env=env,
                            timeout=60)
    assert prompt.returncode == 1 and b"seven" in prompt.stdout  # the prompt carried on after the bad line
    assert prompt.stderr == b"jbag sql: the query is not valid UTF-8 (undecodable byte at character 9)\n"


MEASURED = ("import resource, subprocess, sys; code = subprocess.run(sys.argv[1:]).returncode; "
            "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024, file=sys.stderr); sys.exit(code)")


@pytest.mark.parametrize("query, options", [
    ("SELECT repeat('x', 3000000000) AS s", []),
    ("SELECT * FROM range(100000000) t(i)", ["--max-rows", "0"]),
    ("SELECT repeat('x', 1000000) AS s FROM range(100000)", ["--format", "csv"]),
    ("SELECT repeat('x', 1000000) AS s FROM range(100000)", ["--format", "json"]),
    ("SELECT list_sort(list(i)) FROM range(400000000) t(i)", []),
], ids=["repeat", "max-rows-0", "csv", "json", "list_sort"])
def test_the_memory_cap_holds_for_the_whole_process(root, query, options):
    """The cases that passed 5 GB under a 2 GB cap: with --memory 300MB each stops near 300 MB, in one line."""
    command = [sys.executable, "-c", MEASURED, sys.executable, "-m", "jbag_pipeline.cli", "sql", query,
               "--memory", "300MB", "--data-dir", str(root), *options]
    done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(REPO)})
    *lines, peak = done.stderr.splitlines()
    assert done.returncode == 1 and len(lines) == 1, done.stderr
    assert "memory cap (--memory)" in lines[0] or "memory_limit" in lines[0]  # the watchdog, or DuckDB's own limit
    assert int(peak) < 450 * 10**6  # a poll of the child's memory every 20 ms: it stops within a step of the cap


def test_bad_memory_sizes_are_one_line_exit_2(root, capsys):
    for size in ("lots", "10MB", "-1GB", "2 parsecs"):
        assert cli.main(["sql", "SELECT 1", f"--memory={size}", "--data-dir", str(root)]) == 2
    assert capsys.readouterr().err.count("--memory must be") == 4


def test_plain_reads_are_not_refused(root, capsys):
    """Inequality and range joins plan a PIECEWISE_MERGE_JOIN; pragma_* table functions are scans, not PRAGMAs."""
    reads = ["SELECT count(*) AS n FROM games a JOIN games b ON a.game_id < b.game_id",
             "SELECT count(*) AS n FROM games a JOIN games b ON a.game_id BETWEEN b.game_id - 1 AND b.game_id + 1",
             "SELECT count(*) AS n FROM games a, games b WHERE a.game_id <> b.game_id AND a.winner >= b.winner",
             "SELECT count(*) AS n FROM pragma_table_info('games')",
             "SELECT count(*) AS n FROM pragma_version()", "SELECT count(*) AS n FROM pragma_database_size()",
             "SELECT count(*) AS n FROM duckdb_functions() WHERE function_name = 'abs'",
             "SELECT count(*) AS n FROM histogram(games, winner)",
             "SELECT count(*) AS n FROM (SELECT abs(-1), list_sort([2, 1]), 'a' LIKE 'a%', {'x': 1}.x)"]
    assert cli.main(["sql", ";".join(reads), "--format", "csv", "--data-dir", str(root)]) == 0, capsys.readouterr().err
    out = capsys.readouterr().out.splitlines()
    assert out[:6] == ["n", "1", "n", "4", "n", "1"] and out.count("n") == len(reads)


def test_control_characters_are_escaped_in_table_output(root, capsys):
    query = "SELECT chr(27) || ']0;owned' || chr(7) || chr(27) || '[2J' AS \"t\x1b[31m\", {'k\x1b': chr(155)} AS s"
    assert cli.main(["sql", query, "--data-dir", str(root)]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out and "\x9b" not in out
    assert "\\x1b]0;owned\\x07\\x1b[2J" in out and "t\\x1b[31m" in out and "k\\x1b" in out


def test_the_prompt_refuses_sql_text_functions(root, capsys, monkeypatch):
    target = lake.lake_dir(root) / "selfplay_games" / "game=zzz" / "part.parquet"
    lines = iter([f"SELECT json_serialize_plan('EXPORT DATABASE ''{target}''');", ".quit"])
    monkeypatch.setattr("builtins.input", lambda prompt="": next(lines))
    before = snapshot(root.parent)
    assert cli.main(["sql", "--data-dir", str(root)]) == 1
    assert "json_serialize_plan() is not allowed" in capsys.readouterr().err
    assert snapshot(root.parent) == before and not target.parent.exists()
