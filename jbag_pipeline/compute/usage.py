"""Peak memory and CPU seconds of one op: what this process used since the last mark (mark_start / take).

The peak is exact when the op set the process's record (Linux's VmHWM rose during it); otherwise it is the largest
resident size a sampling thread saw (every SAMPLE_SECONDS), which is below that record anyway. VmHWM is never reset
(/proc/self/clear_refs would also reset the ru_maxrss that /usr/bin/time and benchmarks/measured.py report).
CPU seconds are this process's and its live children's (a pool's game workers), plus the children that ended.
"""

from __future__ import annotations

import os
import re
import resource
import threading
import time
from pathlib import Path

import psutil

SAMPLE_SECONDS = 0.02
_STATUS = Path("/proc/self/status")
_HWM = re.compile(r"^VmHWM:\s+(\d+) kB", re.MULTILINE)
_PAGE_MB = os.sysconf("SC_PAGE_SIZE") / 2**20 if hasattr(os, "sysconf") else 4096 / 2**20


class _Marks:
    """The state since the last mark: CPU seconds, VmHWM and the largest sampled RSS then; the sampler's pid."""

    cpu = 0.0
    hwm = 0.0
    sampled = 0.0
    sampler_pid: int | None = None


def _cpu_seconds() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    ended = resource.getrusage(resource.RUSAGE_CHILDREN)
    seconds = own.ru_utime + own.ru_stime + ended.ru_utime + ended.ru_stime
    for child in psutil.Process().children(recursive=True):
        try:
            times = child.cpu_times()
        except psutil.Error:  # it ended meanwhile: RUSAGE_CHILDREN has it once waited for
            continue
        seconds += times.user + times.system
    return seconds


def _rss_mb() -> float:
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * _PAGE_MB
    except OSError:
        return psutil.Process().memory_info().rss / 2**20


def _hwm_mb() -> float:
    """The process's peak resident memory so far (VmHWM; where /proc has none, ru_maxrss)."""
    try:
        return int(_HWM.search(_STATUS.read_text()).group(1)) / 1024
    except (OSError, AttributeError):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kB on Linux


def _sample() -> None:
    while True:
        _Marks.sampled = max(_Marks.sampled, _rss_mb())
        time.sleep(SAMPLE_SECONDS)


def mark_start() -> None:
    """Start measuring an op: note the CPU seconds and the peak so far; start the sampler in this process."""
    if _Marks.sampler_pid != os.getpid():  # a forked child has no thread of its parent's
        _Marks.sampler_pid = os.getpid()
        threading.Thread(target=_sample, name="jbag-rss-sampler", daemon=True).start()
    _Marks.cpu, _Marks.hwm, _Marks.sampled = _cpu_seconds(), _hwm_mb(), _rss_mb()


def take() -> dict[str, float]:
    """Peak RSS (MB) and CPU seconds since the last mark, then a new mark."""
    hwm, now = _hwm_mb(), _rss_mb()
    peak = hwm if hwm > _Marks.hwm else max(_Marks.sampled, now)
    usage = {"peak_rss_mb": round(peak, 1), "cpu_seconds": round(_cpu_seconds() - _Marks.cpu, 3)}
    mark_start()
    return usage
