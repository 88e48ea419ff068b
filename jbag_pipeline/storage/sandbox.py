"""Each `jbag sql` request runs in a child process that cannot change a file and is killed at its memory cap.

The child (this module run with -m) forbids itself every file-system change through Landlock (storage/landlock.py;
RLIMIT_FSIZE 0 where the kernel has no Landlock) before it imports DuckDB, so no function, known or not, can
create, write, rename or delete a file. The parent runs no query: it copies the child's output, forwards Ctrl-C,
and watches the child's resident memory (psutil), killing it past the cap, output buffers included.
"""

from __future__ import annotations

import codecs
import ctypes
import json
import os
import re
import resource
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import TextIO

import psutil

DEFAULT_MEMORY = "2GB"
MIN_MEMORY = 200_000_000  # Python with DuckDB loaded takes about 80 MB before any query
POLL_SECONDS = 0.02  # how often the parent reads the child's memory
GRACE_SECONDS = 10.0  # past --timeout, the parent kills a child whose own timeout did not stop it
_UNITS = {"": 1, "b": 1, "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12,
          "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40}
_SIZE = re.compile(r"\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*", re.IGNORECASE)
_PR_SET_PDEATHSIG = 1


def parse_memory(text: str) -> int:
    """Bytes of a size such as 2GB, 300MB or 1.5GiB (DuckDB's units: KB = 1000 bytes, KiB = 1024)."""
    match = _SIZE.fullmatch(text)
    unit = match.group(2).lower() if match else None
    if unit not in _UNITS:
        raise ValueError(f"--memory must be a size such as 2GB or 300MB, got {text!r}")
    size = int(float(match.group(1)) * _UNITS[unit])
    if size < MIN_MEMORY:
        raise ValueError(f"--memory must be at least {MIN_MEMORY // 10**6}MB, got {text!r}")
    return size


def duckdb_limit(cap: int) -> str:
    """DuckDB's own memory_limit inside a cap: room left for Python and the rows being written out."""
    return f"{(cap - min(512 * 10**6, int(cap * 0.4))) // 10**6}MB"


def run_request(request: dict, memory: str = DEFAULT_MEMORY) -> int:
    """Run one request (see query_output.serve) in a sandboxed child; its output goes to sys.stdout and sys.stderr.

    Returns the child's exit code (0, 1, 2, 130), or 1 with one line when the parent stopped it.
    """
    cap = parse_memory(memory)
    request = {**request, "memory_limit": duckdb_limit(cap)}
    package_parent = str(Path(__file__).resolve().parents[2])  # the child imports this very jbag_pipeline
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1",
           "PYTHONPATH": os.pathsep.join(filter(None, [package_parent, os.environ.get("PYTHONPATH")]))}
    child = subprocess.Popen([sys.executable, "-m", "jbag_pipeline.storage.sandbox", json.dumps(request)],
                             stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                             process_group=0)  # a terminal's Ctrl-C reaches the parent alone, which forwards it once
    broken, complained = threading.Event(), threading.Event()
    pumps = [threading.Thread(target=_pump, args=(child.stdout, sys.stdout, child, broken), daemon=True),
             threading.Thread(target=_pump, args=(child.stderr, sys.stderr, child, broken, complained), daemon=True)]
    for pump in pumps:
        pump.start()
    deadline = time.monotonic() + request["timeout"] + GRACE_SECONDS if request.get("timeout") else None
    try:
        stopped = _watch(child, cap, memory.strip(), deadline)
    finally:
        if child.poll() is None:
            child.kill()
        child.wait()
        for pump in pumps:
            pump.join()
    if broken.is_set():  # the reader of our output went away (`| head`): stop quietly
        _silence(sys.stdout)
        return 0
    if stopped:
        if not complained.is_set():  # a child that already said why it failed (DuckDB's own limit) keeps one line
            print(f"jbag sql: {stopped}", file=sys.stderr)
        return 1
    if child.returncode == -signal.SIGINT:
        return 130
    if child.returncode < 0:
        print(f"jbag sql: the query process died ({signal.Signals(-child.returncode).name})", file=sys.stderr)
        return 1
    return child.returncode


def _watch(child: subprocess.Popen, cap: int, label: str, deadline: float | None) -> str | None:
    """Wait for the child, forwarding Ctrl-C; kill it past the memory cap or the deadline and say why."""
    interrupts: list[float] = []

    def forward(signum, frame) -> None:
        interrupts.append(time.monotonic())
        if child.poll() is None:
            child.send_signal(signal.SIGINT)

    ignored = signal.getsignal(signal.SIGINT) == signal.SIG_IGN  # a background job of a script: leave it so
    previous = signal.SIG_IGN if ignored else _install(signal.SIGINT, forward)
    try:
        process = psutil.Process(child.pid)
        while child.poll() is None:
            try:
                rss = process.memory_info().rss
            except psutil.Error:  # it just ended
                continue
            if rss > cap:
                child.kill()
                return (f"query stopped: it needed more than the {label} memory cap (--memory); "
                        "aggregate or filter first, or raise --memory")
            if deadline is not None and time.monotonic() > deadline:
                child.kill()
                return "query cancelled: it ran longer than the timeout (--timeout) and did not stop when asked"
            if len(interrupts) > 1 or (interrupts and time.monotonic() - interrupts[0] > GRACE_SECONDS):
                child.kill()  # a second Ctrl-C, or one the child did not answer
                return "query cancelled (Ctrl-C)"
            time.sleep(POLL_SECONDS)
        return None
    finally:
        _install(signal.SIGINT, previous)


def _install(signum: int, handler):
    """signal.signal where allowed (the main thread); returns the handler it replaced."""
    try:
        return signal.signal(signum, handler)
    except (ValueError, TypeError):  # not the main thread, or no handler to restore
        return handler


def _pump(source, target: TextIO, child: subprocess.Popen, broken: threading.Event,
          wrote: threading.Event | None = None) -> None:
    """Copy the child's bytes to `target` as they come (a streamed csv never piles up in either process); `wrote`
    is set once anything came."""
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    while chunk := os.read(source.fileno(), 1 << 16):
        if wrote is not None:
            wrote.set()
        if broken.is_set():
            continue  # drain, so the child is not blocked writing
        try:
            target.write(decoder.decode(chunk))
            target.flush()
        except BrokenPipeError:
            broken.set()
            child.kill()
    try:
        target.write(decoder.decode(b"", final=True))
    except BrokenPipeError:
        broken.set()


def _silence(stream: TextIO) -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stream.fileno())
    except (OSError, ValueError, AttributeError):  # a stream without a file descriptor (tests)
        pass


# ---- the child ----

def restrict_child() -> str:
    """Make this process unable to change any file and die with its parent; returns how writes were stopped."""
    ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the size limit fails (EFBIG) instead of killing
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))  # stdout and stderr are pipes, which the limit spares
    from jbag_pipeline.storage.landlock import forbid_writes

    abi = forbid_writes()
    return f"landlock ABI {abi}" if abi else "RLIMIT_FSIZE only (no Landlock in this kernel)"


def _child_main(argv: list[str]) -> int:
    request = json.loads(argv[1])
    signal.signal(signal.SIGINT, signal.default_int_handler)  # only the parent signals it (own process group)
    try:
        restrict_child()
        from jbag_pipeline.storage.query_output import serve

        return serve(request)
    except KeyboardInterrupt:  # Ctrl-C before the query started (while importing or opening the catalog)
        print("jbag sql: query cancelled (Ctrl-C)", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(_child_main(sys.argv))
