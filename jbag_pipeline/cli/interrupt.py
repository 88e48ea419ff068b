"""Ctrl-C of `jbag run`: one line on stderr ("jbag run: interrupted") and exit 130 at any moment, from the first
import to the last exit handler, with no traceback from this process or any process it started.

Before anything else runs, the process blocks SIGINT; every thread and child process (forkserver, workers, the
run's manager) inherits the block, so none of them is interrupted halfway through its work. One thread waits for
the signal, prints the line and ends the process at once; its workers die with it (compute/lifeline.py) and what the
run left half done is recovered by the next run, as after a kill. A command that handles KeyboardInterrupt itself
(jbag sql's prompt cancels a query with it) gets Python's Ctrl-C back once its arguments are parsed.
"""

from __future__ import annotations

import os
import signal
import sys
import threading

COMMANDS = ("run", "sql", "ingest", "report", "bench")
_SIGNALS = {signal.SIGINT}
_waiter: dict = {"thread": None, "handed_back": False, "command": ""}  # POSIX only, as the lake's fcntl lock


def command_in(argv: list[str]) -> str:
    """The subcommand named in `argv`, '' before one is (a message before parsing needs it)."""
    return next((word for word in argv if word in COMMANDS), "")


def exit_at_once(command: str) -> None:
    """From now on a Ctrl-C prints 'jbag COMMAND: interrupted' and ends this process with exit 130. Call it from the
    main thread before any other thread or process starts, so that they inherit the block."""
    # first the handler, then the block: a Ctrl-C in between, or one a library lets through to the main thread
    # later, ends the process just as quietly (between two bytecodes)
    signal.signal(signal.SIGINT, lambda signum, frame: _exit_interrupted(_waiter["command"]))
    _waiter.update(command=command, handed_back=False)
    signal.pthread_sigmask(signal.SIG_BLOCK, _SIGNALS)
    if command == "run":
        # CPython's resource tracker unblocks SIGINT in the thread that starts it (after shielding its own start),
        # so its process is started now and the block set again, before the forkserver and workers inherit it
        from multiprocessing import resource_tracker

        resource_tracker.ensure_running()
        signal.pthread_sigmask(signal.SIG_BLOCK, _SIGNALS)
    thread = threading.Thread(target=_wait_for_interrupt, name="jbag-interrupt", daemon=True)
    thread.start()
    _waiter["thread"] = thread


def hand_back() -> None:
    """Python's own Ctrl-C again (KeyboardInterrupt in the main thread), for a command that handles it; nothing to
    do when exit_at_once was not called (jbag's main called in-process, by a test)."""
    thread = _waiter["thread"]
    if thread is None:
        return
    _waiter.update(thread=None, handed_back=True)
    signal.pthread_kill(thread.ident, signal.SIGINT)  # wakes the waiter, which sees it was handed back
    thread.join()
    signal.signal(signal.SIGINT, signal.default_int_handler)
    # a Ctrl-C that came meanwhile is pending for the process: the main thread receives it as soon as it unblocks
    signal.pthread_sigmask(signal.SIG_UNBLOCK, _SIGNALS)


def _wait_for_interrupt() -> None:
    signal.sigwait(_SIGNALS)
    if not _waiter["handed_back"]:
        _exit_interrupted(_waiter["command"])


def _exit_interrupted(command: str) -> None:
    try:
        sys.stdout.flush()  # what the run printed so far (a pipe buffers it)
    except Exception:  # noqa: BLE001 - a closed or broken stdout must not stop the exit
        pass
    if os.isatty(1):
        os.write(1, b"\x1b[?25h\n")  # the live progress display hides the cursor while it runs
    os.write(2, f"jbag{' ' + command if command else ''}: interrupted\n".encode())
    os._exit(130)  # at once: no exit handler may wait for workers or print a traceback
