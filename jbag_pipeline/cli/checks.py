"""Checks of `jbag` arguments that run before Dagster is imported and before anything is written, and the
one-line message of an error raised later (full disk, read-only directory, corrupt lake file)."""

from __future__ import annotations

import argparse
import difflib
import errno
import os
import re
from pathlib import Path

from jbag_pipeline.compute.backends import MAX_WORKERS, ComputeError, check_timeout
from jbag_pipeline.seeds import MAX_SEED
from jbag_pipeline.storage.lake import UnreadableFile


def seed(text: str) -> int:
    """argparse type of --seed: an integer in 0..MAX_SEED."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if not 0 <= value <= MAX_SEED:
        raise argparse.ArgumentTypeError(f"{value} is outside 0..2^32-1 ({MAX_SEED}), the seeds a Random "
                                         "Forest accepts")
    return value


def positive_int(text: str) -> int:
    """argparse type of --workers: an integer in 1..MAX_WORKERS."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} is not a positive number of workers")
    if value > MAX_WORKERS:
        shown = text if len(text) <= 20 else f"{text[:8]}...({len(text)} digits)"
        raise argparse.ArgumentTypeError(f"{shown} is more than {MAX_WORKERS} workers")
    return value


def seconds(text: str) -> float:
    """argparse type of --scheduler-timeout: positive, finite seconds."""
    try:
        return check_timeout(text, "seconds")
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc).removeprefix("seconds: ")) from None


def compute_choice(backend: str | None, scheduler: str | None, workers: int | None,
                   timeout: float | None = None) -> tuple[str, str | None, int | None]:
    """(backend, scheduler, workers) of `jbag run`, JBAG_COMPUTE / JBAG_SCHEDULER / JBAG_WORKERS filling what the
    flags leave out; refuses an unknown backend, --scheduler without dask and a scheduler that cannot be reached
    or does not answer within `timeout` seconds (default: JBAG_SCHEDULER_TIMEOUT, else 30), each in one line."""
    from jbag_pipeline.compute import make_compute

    backend = backend or os.environ.get("JBAG_COMPUTE") or "local"
    if workers is None and os.environ.get("JBAG_WORKERS"):
        try:
            workers = positive_int(os.environ["JBAG_WORKERS"])
        except argparse.ArgumentTypeError as exc:
            raise ValueError(f"JBAG_WORKERS: {exc}") from None
    if scheduler and backend != "dask":
        raise ValueError(f"--scheduler {scheduler} is only for --compute dask, not --compute {backend}")
    if backend == "dask":
        scheduler = scheduler or os.environ.get("JBAG_SCHEDULER")
    try:
        compute = make_compute(backend, scheduler, workers, timeout)
        if backend == "dask":
            compute.client()  # reach the scheduler now, before Dagster starts
    except ValueError as exc:
        raise ValueError(str(exc).replace("compute: ", "--compute: ", 1)) from None
    return backend, scheduler, workers


def names(option: str, text: str | None, known, what: str) -> list[str] | None:
    """The comma-separated names of `option` (None when it is not given), each one of `known`."""
    if text is None:
        return None
    chosen = [name.strip() for name in text.split(",") if name.strip()]
    if not chosen:
        raise ValueError(f"{option} names no {what}; leave it out to mean every {what}")
    unknown = [name for name in chosen if name not in known]
    if unknown:
        hints = [f"{name!r} (did you mean {close[0]!r}?)" if (close := difflib.get_close_matches(name, known, 1))
                 else repr(name) for name in unknown]
        raise ValueError(f"{option} names unknown {what}(s) {', '.join(hints)}; known: {', '.join(sorted(known))}")
    return chosen


def check_data_dir(root: Path, must_exist: bool) -> None:
    """Refuse a data directory that is a file, is missing (when `must_exist`) or cannot be written."""
    if root.exists() and not root.is_dir():
        raise ValueError(f"data directory {root} is a file, not a directory")
    existing = root
    if not root.exists():
        if must_exist:
            raise ValueError(f"data directory {root} does not exist; `jbag run` or `jbag ingest` creates it")
        existing = next(parent for parent in root.parents if parent.exists())
        if not existing.is_dir():
            raise ValueError(f"data directory {root} cannot be created: {existing} is a file")
    if not os.access(existing, os.W_OK | os.X_OK):  # also False on a read-only mount, even for root
        raise ValueError(f"data directory {root} is not writable ({existing} is read-only); "
                         "choose another with --data-dir or JBAG_DATA_DIR")


_RUST_OS_ERROR = re.compile(r"\(os error (\d+)\)")  # how polars reports an errno
_SQLITE_FULL = 13  # sqlite3.OperationalError.sqlite_errorcode of "database or disk is full" (Dagster's run storage)
_MAPPED = (errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EPERM, errno.ENOTDIR, errno.EISDIR)


def _errno_of(exc: BaseException) -> int | None:
    """The errno behind `exc`: an OSError's, one named in the message (polars, DuckDB), or SQLite's full disk."""
    if isinstance(exc, OSError) and exc.errno:
        return exc.errno
    if getattr(exc, "sqlite_errorcode", None) == _SQLITE_FULL:
        return errno.ENOSPC
    text = str(exc)
    if found := _RUST_OS_ERROR.search(text):
        return int(found.group(1))
    return next((code for code in _MAPPED if os.strerror(code) in text), None)


# DuckDB's words for a file that is not Parquet (the catalog binds its views by reading every lake file)
_DUCKDB_BAD_PARQUET = re.compile(r"(?:No magic bytes found at end of file|File) '([^']+\.parquet)'(?: too small)?")


def _unreadable_line(path: Path, reason: str) -> str:
    table = path.parts[path.parts.index("lake") + 1] if "lake" in path.parts[:-2] else path.stem
    return (f"lake file {path} is not readable Parquet ({_first_line(reason)}); delete it and re-materialise the "
            f"asset that writes table {table!r}")


def _corrupt_parquet(exc: BaseException) -> str | None:
    """The line for a lake file polars (lake.UnreadableFile) or DuckDB could not read as Parquet, else None."""
    if isinstance(exc, UnreadableFile):
        return _unreadable_line(Path(exc.path), exc.reason)
    found = _DUCKDB_BAD_PARQUET.search(str(exc))
    if found is None or not ("magic bytes" in found.group(0) or "too small" in found.group(0)):
        return None
    return _unreadable_line(Path(found.group(1)), str(exc))


def _chain(exc: BaseException):
    """`exc` and its causes and contexts, each once (Dagster re-raises with cyclic contexts)."""
    seen, todo = set(), [exc]
    while todo:
        current = todo.pop(0)
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        yield current
        todo += [current.__cause__, current.__context__]


def _first_line(text: str, limit: int = 1000) -> str:
    line = next((part.strip() for part in text.splitlines() if part.strip()), "")
    return line if len(line) <= limit else line[:limit - 3] + "..."


class ReportedError(RuntimeError):
    """An error already put in one line by error_line, where its causes were (a worker process); the cause chained."""


def error_line(exc: BaseException, root: Path | None) -> str:
    """One line saying what went wrong and what to do, for an exception that ended a command."""
    where = f"data directory {root}" if root is not None else "the data directory"
    if isinstance(exc, ReportedError):
        return str(exc)
    for cause in _chain(exc):
        if corrupt := _corrupt_parquet(cause):
            return corrupt
        if isinstance(cause, ComputeError):  # a batch of games that could not finish (inside a Dagster error)
            return _first_line(str(cause))
        code = _errno_of(cause)
        filename = getattr(cause, "filename", None)
        target = filename or where
        if code in (errno.ENOSPC, errno.EDQUOT):
            writing = f" (writing {filename})" if filename else ""
            return f"no space left on the device of {where}{writing}; free some space and rerun"
        if code == errno.EROFS:
            return f"{target} is on a read-only file system; choose another --data-dir"
        if code in (errno.EACCES, errno.EPERM):
            return f"permission denied writing {target}; make {where} writable or choose another --data-dir"
        if code in (errno.ENOTDIR, errno.EISDIR):
            return f"{target}: {os.strerror(code)}; is {where} (or a folder inside it) a file?"
    if isinstance(exc, (ValueError, FileNotFoundError)):
        return _first_line(str(exc))
    return f"{type(exc).__name__}: {_first_line(str(exc))} (rerun with --debug for the traceback)"
