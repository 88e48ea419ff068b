"""`jbag sql`'s interactive prompt (cli/sql.py): dot commands, errors one line each on stderr, the exit code."""

import pytest

import jbag_pipeline.cli.commands as cli
from tests.helpers.storage import add_float_states, catalog_of_two_games


@pytest.fixture
def root(tmp_path):
    return catalog_of_two_games(tmp_path)


@pytest.fixture
def root_with_floats(root):
    return add_float_states(root)


def test_prompt_dot_commands_and_errors_on_stderr(root_with_floats, capsys, monkeypatch):
    lines = iter([".tables", ".schema states", ".schema stats", "SELECT count(*)", "AS n FROM games;",
                  "COPY games TO 'x.csv';", "SELECT '\udcff';", ".nope"])

    def fake_input(prompt=""):
        line = next(lines, None)
        if line is None:
            raise EOFError
        return line

    monkeypatch.setattr("builtins.input", fake_input)
    assert cli.main(["sql", "--format", "csv", "--data-dir", str(root_with_floats)]) == 1  # some query failed
    captured = capsys.readouterr()
    assert "games\nstates\n" in captured.out
    assert "column,type\ngame,VARCHAR\nvalue,DOUBLE\nstep,BIGINT\n" in captured.out
    assert "n\n2\n" in captured.out
    assert captured.err.splitlines() == [
        "jbag sql: SQL error: no view named stats; closest views: states, games (.tables or `jbag sql --list` lists all)",
        "jbag sql: refused: COPY statements are not allowed (jbag sql is read-only: SELECT and EXPLAIN only)",
        "jbag sql: the query is not valid UTF-8 (undecodable byte at character 9)",
        "jbag sql: unknown command '.nope'; .help lists the commands",
    ]
    assert not (root_with_floats / "x.csv").exists()


def test_prompt_exits_zero_when_every_query_succeeded(root, capsys, monkeypatch):
    lines = iter(["SELECT 1;", ".quit"])
    monkeypatch.setattr("builtins.input", lambda prompt="": next(lines))
    assert cli.main(["sql", "--data-dir", str(root)]) == 0
