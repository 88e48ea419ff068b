"""Dagster's own complaints on stderr that `jbag run` sums up instead: when a log record cannot be stored (a full
disk), Dagster writes two lines per record to stderr; the run then fails and the CLI says why in one line."""

from __future__ import annotations

import sys
from contextlib import contextmanager
from typing import Iterator

# what dagster._core.instance.types writes (with the storage error's own lines) for each record it could not store
EVENT_LOG_FAILURE = "Exception while writing logger call to event log: "


class FilteredStderr:
    """A stderr that keeps back Dagster's event-log failures (counting them, the first one kept) and passes the rest."""

    def __init__(self, stream):
        self.stream, self.dropped, self.first = stream, 0, None

    def write(self, text: str) -> int:
        if text.startswith(EVENT_LOG_FAILURE):
            self.dropped += 1
            self.first = self.first or text[len(EVENT_LOG_FAILURE):].strip().splitlines()[0]
            return len(text)
        return self.stream.write(text)

    def __getattr__(self, name):
        return getattr(self.stream, name)


@contextmanager
def event_log_failures_summed(command: str = "jbag run") -> Iterator[FilteredStderr]:
    """While the block runs, Dagster's event-log failures are kept off stderr; after a block that succeeded
    anyway, one warning line says how many there were. After a failure, the command's error line says why."""
    filtered = FilteredStderr(sys.stderr)
    sys.stderr = filtered
    try:
        yield filtered
    finally:
        sys.stderr = filtered.stream
    if filtered.dropped:
        print(f"{command}: warning: {filtered.dropped} Dagster log record(s) could not be stored in its event log "
              f"({filtered.first})", file=sys.stderr)
