"""Peak memory and CPU seconds of one op: what this process used since the last mark (mark_start / take).

The peak is Linux's VmHWM, which writing 5 to /proc/self/clear_refs resets, so each op gets its own peak; where
/proc cannot reset it, ru_maxrss (the process's peak so far: an upper bound). CPU seconds are this process's
and its live children's (a pool's game workers), plus the children that ended.
"""

from __future__ import annotations

import re
import resource
import sys
from pathlib import Path

import psutil

_STATUS = Path("/proc/self/status")
_CLEAR_REFS = Path("/proc/self/clear_refs")
_HWM = re.compile(r"^VmHWM:\s+(\d+) kB", re.MULTILINE)
_since_cpu = 0.0


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


def peak_rss_mb() -> float:
    """This process's peak resident memory in MB since the last reset (else since it started)."""
    try:
        return int(_HWM.search(_STATUS.read_text()).group(1)) / 1024
    except (OSError, AttributeError):
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # kB on Linux, bytes on macOS
        return peak / (1024 * 1024 if sys.platform == "darwin" else 1024)


def mark_start() -> None:
    """Start measuring: reset the peak to the present resident memory and note the CPU seconds so far."""
    global _since_cpu
    try:
        _CLEAR_REFS.write_text("5")
    except OSError:
        pass  # no resettable peak here: peak_rss_mb falls back to the process's peak so far
    _since_cpu = _cpu_seconds()


def take() -> dict[str, float]:
    """Peak RSS (MB) and CPU seconds since the last mark, then a new mark."""
    usage = {"peak_rss_mb": round(peak_rss_mb(), 1), "cpu_seconds": round(_cpu_seconds() - _since_cpu, 3)}
    mark_start()
    return usage
