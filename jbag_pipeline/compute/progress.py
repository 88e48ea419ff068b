"""Games done in this process's batches, for a progress display.

Listeners are called in the process that calls run_batch (never pickled, never in a worker), once when a
batch starts (its games added) and once per chunk as that chunk's results arrive (its games done).
"""

from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import Callable, Iterator

GamesListener = Callable[[int, int], None]  # (games done now, games added to the work now)

_LISTENERS: list[GamesListener] = []
_LOCK = threading.Lock()


@contextmanager
def watching_games(listener: GamesListener) -> Iterator[None]:
    """Call `listener(done, added)` for every batch that runs in this process while the block runs."""
    with _LOCK:
        _LISTENERS.append(listener)
    try:
        yield
    finally:
        with _LOCK:
            _LISTENERS.remove(listener)


def report_games(done: int, added: int) -> None:
    """Tell the listeners that `done` games finished and `added` games joined the work."""
    with _LOCK:
        listeners = list(_LISTENERS)
    for listener in listeners:
        listener(done, added)
