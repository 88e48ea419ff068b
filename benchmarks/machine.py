"""What the benchmarks ran on: CPU, cores, memory, load, library versions, and a pure-Python speed probe."""

from __future__ import annotations

import os
import platform
import time
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path

LIBRARIES = ("numpy", "duckdb", "polars", "pyarrow", "scikit-learn", "orjson", "dagster", "open-spiel")


def cpu_model(cpuinfo: Path = Path("/proc/cpuinfo")) -> str:
    """The CPU's model name from /proc/cpuinfo, else what the platform module knows."""
    if cpuinfo.exists():
        for line in cpuinfo.read_text(errors="replace").splitlines():
            if line.lower().startswith("model name") and ":" in line:
                return line.split(":", 1)[1].strip()
    return platform.processor() or platform.machine() or "unknown"


def memory_gb(meminfo: Path = Path("/proc/meminfo")) -> float | None:
    """Total RAM in GB from /proc/meminfo (None where there is none)."""
    if not meminfo.exists():
        return None
    for line in meminfo.read_text().splitlines():
        if line.startswith("MemTotal:"):
            return int(line.split()[1]) / 1024 ** 2
    return None


def library_version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "not installed"


def python_loop_ns(iterations: int = 2_000_000) -> float:
    """Nanoseconds per iteration of an empty Python for-loop: how fast this interpreter runs right now."""
    start = time.perf_counter()
    for _ in range(iterations):
        pass
    return (time.perf_counter() - start) / iterations * 1e9


def machine_info() -> dict:
    """Facts about the machine and interpreter, as strings and numbers ready for a table."""
    cores = os.cpu_count()
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else cores
    ram = memory_gb()
    return {
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "cpu": cpu_model(),
        "cores": f"{cores} ({usable} usable by this process)",
        "memory": f"{ram:.1f} GB" if ram is not None else "unknown",
        "load average (1 min) at start": f"{os.getloadavg()[0]:.1f}" if hasattr(os, "getloadavg") else "unknown",
        "os": platform.platform(),
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "empty Python loop": f"{python_loop_ns():.0f} ns/iteration",
        **{name: library_version(name) for name in LIBRARIES},
    }
