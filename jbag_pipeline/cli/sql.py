"""`jbag sql`: one query, `--list` or the interactive prompt; each request runs in a sandboxed child process."""

from __future__ import annotations

import math
import sys
from pathlib import Path

from jbag_pipeline.storage.catalog import catalog_path
from jbag_pipeline.storage.sandbox import DEFAULT_MEMORY, parse_memory, run_request

DEFAULT_TIMEOUT = 60.0  # seconds per query
DEFAULT_MAX_ROWS = 1000  # rows shown in table format

PROMPT_HELP = """.tables          the views, one a line
.schema VIEW     columns and types of a view
.help            this text
.quit            leave (or Ctrl-D); Ctrl-C cancels a running query"""


def run_query_cli(query: str | None, root: Path, fmt: str, timeout: float = DEFAULT_TIMEOUT,
                  max_rows: int = DEFAULT_MAX_ROWS, list_only: bool = False, memory: str = DEFAULT_MEMORY) -> int:
    """One query (exit 0; 1 with a one-line error on stderr; 130 on Ctrl-C), `--list`, or the interactive prompt."""
    if not (math.isfinite(timeout) and timeout > 0):
        raise ValueError(f"--timeout must be a positive, finite number of seconds, got {timeout:g}")
    if max_rows < 0:
        raise ValueError(f"--max-rows must be 0 (no cap) or more, got {max_rows}")
    parse_memory(memory)
    if not catalog_path(root).exists():
        raise FileNotFoundError(f"no catalog at {catalog_path(root)}; run `jbag run` (or materialise the catalog "
                                "asset) first")
    session = _Session(root, fmt, timeout, max_rows, memory)
    if list_only:
        return session.run({"kind": "list"})
    if query is not None:
        return session.run({"kind": "query", "query": query})
    return _prompt(session)


class _Session:
    """The settings every request of one `jbag sql` shares; warns about unavailable views once."""

    def __init__(self, root: Path, fmt: str, timeout: float, max_rows: int, memory: str):
        self.base = {"root": str(root), "format": fmt, "timeout": timeout, "max_rows": max_rows}
        self.memory, self.warn = memory, True

    def run(self, request: dict) -> int:
        code = run_request({**self.base, "warn": self.warn, **request}, self.memory)
        self.warn = False
        return code


def _prompt(session: _Session) -> int:
    """The interactive prompt; exits 1 when any query of the session failed, else 0."""
    if hasattr(sys.stdin, "reconfigure"):
        sys.stdin.reconfigure(errors="surrogateescape")  # a non-UTF-8 byte reaches the query check, which names it
    print("jbag sql: read-only SQL over the catalog views; end a query with ';', .help for commands, "
          "quit with .quit or Ctrl-D")
    buffer: list[str] = []
    failed = False
    while True:
        try:
            line = input("jbag> " if not buffer else "  ... ")
        except EOFError:
            print()
            return 1 if failed else 0
        except KeyboardInterrupt:  # Ctrl-C while typing drops the unfinished query
            print()
            buffer = []
            continue
        command = line.strip()
        if not buffer and command.startswith("."):
            if command in (".quit", ".exit"):
                return 1 if failed else 0
            failed |= _dot_command(session, command) == 1
            continue
        if not buffer and command in ("quit", "exit"):
            return 1 if failed else 0
        buffer.append(line)
        if line.rstrip().endswith(";"):
            failed |= session.run({"kind": "query", "query": "\n".join(buffer)}) == 1
            buffer = []


def _dot_command(session: _Session, command: str) -> int:
    name, _, arg = command.partition(" ")
    if name == ".tables":
        return session.run({"kind": "tables"})
    if name == ".schema" and arg.strip():
        return session.run({"kind": "schema", "view": arg.strip().rstrip(";")})
    if name == ".help":
        print(PROMPT_HELP)
        return 0
    print(f"jbag sql: unknown command {command!r}; {'.schema needs a view name; ' if name == '.schema' else ''}"
          ".help lists the commands", file=sys.stderr)
    return 1
