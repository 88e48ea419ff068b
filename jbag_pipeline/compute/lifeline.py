"""Worker processes that die with the process that started them (the `jbag run`), and write nothing after it died.

A pool's initializer binds each worker to its owner: on Linux the kernel kills the worker when its parent (the
forkserver, which exits as soon as the owner is gone) dies (prctl PR_SET_PDEATHSIG), and on every platform a
thread kills it within WATCH_SECONDS of the owner's death. A lake write asks refuse_if_orphaned() first, so a
worker caught between the two writes nothing either.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time

import psutil

WATCH_SECONDS = 0.25  # how often a worker looks for its owner
_PR_SET_PDEATHSIG = 1  # from <sys/prctl.h>

Owner = tuple[int, float]  # (pid, start) of the owning process (start_of): a reused pid is not mistaken for it
_OWNER: Owner | None = None  # None: this process is nobody's worker


class OrphanedWorker(RuntimeError):
    """This worker's owner is gone: what it would write now belongs to no run."""


def start_of(pid: int) -> float:
    """When process `pid` started, in a unit that wall-clock changes do not move: on Linux its start in clock ticks
    since boot (/proc/PID/stat field 22; psutil's create_time adds the boot time, which shifts when the clock is set
    or a virtual machine is restored); elsewhere psutil's create_time."""
    if sys.platform.startswith("linux"):
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()  # after the command name, which may hold spaces
        return float(fields[19])
    return psutil.Process(pid).create_time()


def owner_token() -> Owner:
    """What bind_to_owner needs to recognise this process (pass it as the pool's initargs)."""
    return os.getpid(), start_of(os.getpid())


def owner_alive(owner: Owner | None = None) -> bool:
    """Whether `owner` (default: this worker's owner) still runs; True for a process that is nobody's worker."""
    owner = owner or _OWNER
    if owner is None:
        return True
    pid, created = owner
    try:
        # a killed owner not yet reaped by its own parent is a zombie: gone for us
        return start_of(pid) == created and psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except (psutil.NoSuchProcess, FileNotFoundError, ProcessLookupError):
        return False


def refuse_if_orphaned(what: str) -> None:
    """Raise OrphanedWorker (naming `what`) when this process is a worker whose owner is gone."""
    if not owner_alive():
        raise OrphanedWorker(f"not writing {what}: the jbag process that started this worker (pid {_OWNER[0]}) "
                             "is gone")


def die_with_parent() -> None:
    """Linux: the kernel SIGKILLs this process when the thread that started it ends (elsewhere nothing)."""
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG) failed")


def _watch_owner() -> None:
    while owner_alive():
        time.sleep(WATCH_SECONDS)
    os.kill(os.getpid(), signal.SIGKILL)  # not sys.exit: nothing of this process (atexit, finally) may run on


def bind_to_owner(pid: int, created: float) -> None:
    """Pool initializer: this worker dies with the process (pid, created) and refuses lake writes after it."""
    global _OWNER
    _OWNER = (pid, created)
    die_with_parent()
    if not owner_alive():  # died before the prctl took effect
        os.kill(os.getpid(), signal.SIGKILL)
    threading.Thread(target=_watch_owner, name="jbag-owner-watch", daemon=True).start()
