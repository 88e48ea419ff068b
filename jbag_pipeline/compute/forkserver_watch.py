"""Imported first by the forkserver (backends.WORKER_PRELOAD): the forkserver exits as soon as the process that
started it is gone, even during its seconds of preload imports, when it does not yet look at its alive pipe."""

from __future__ import annotations

import os
import sys
import threading
import time

WATCH_SECONDS = 0.25
# set (to "1") by the process starting the forkserver from its main thread: the kernel kills a PR_SET_PDEATHSIG
# process when the thread that started it ends, which for the main thread is when the process ends
DEATHSIG_ENV = "JBAG_FORKSERVER_DEATHSIG"


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:  # a dead parent's children are re-parented (to init or a subreaper)
        time.sleep(WATCH_SECONDS)
    os._exit(1)  # its workers then die too (lifeline: PR_SET_PDEATHSIG, their owner watch)


def _in_forkserver() -> bool:
    return sys.argv == ["-c"] and "multiprocessing.forkserver" in sys.modules


if _in_forkserver():
    if os.environ.get(DEATHSIG_ENV) == "1":
        from jbag_pipeline.compute.lifeline import die_with_parent

        die_with_parent()  # the kernel's kill needs no GIL: it lands in the middle of a long C import too
    threading.Thread(target=_watch_parent, args=(os.getppid(),), name="jbag-parent-watch", daemon=True).start()
