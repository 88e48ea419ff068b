"""Run a command and measure it: wall seconds, CPU seconds and peak RSS of it and its child processes.

Linux keeps a process's peak RSS (ru_maxrss) across fork and exec, so a command started by a large process
reports at least that process's peak. The command is therefore started by a small launcher interpreter
(this module run with -m), which waits for it with os.wait4 and writes the figures to a JSON file.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def measure(command: list[str], *, cwd: Path, env: dict, log: Path) -> dict:
    """Run `command` (output to `log`); {"wall", "cpu", "rss_mb", "returncode"} of it and its children."""
    with tempfile.TemporaryDirectory(prefix="jbag-measure-") as folder:
        result = Path(folder) / "result.json"
        launcher = [sys.executable, "-m", "benchmarks.measured", str(result), "--", *command]
        with open(log, "w") as output:
            launched = subprocess.run(launcher, cwd=cwd, env=env, stdout=output, stderr=subprocess.STDOUT)
        if launched.returncode != 0 or not result.exists():
            raise RuntimeError(f"benchmarks.measured: the launcher failed ({launched.returncode}) for {command[:4]}:\n"
                               f"{log.read_text(errors='replace')[-2000:]}")
        return json.loads(result.read_text())


def launch(result: Path, command: list[str]) -> None:
    """In the launcher: run `command` with this process's output, cwd and environment; save its figures."""
    start = time.perf_counter()
    process = subprocess.Popen(command)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    rss_mb = usage.ru_maxrss / (1024 ** 2 if sys.platform == "darwin" else 1024)  # bytes on macOS, KiB on Linux
    result.write_text(json.dumps({"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "rss_mb": rss_mb,
                                  "returncode": os.waitstatus_to_exitcode(status)}))


if __name__ == "__main__":
    if len(sys.argv) < 4 or sys.argv[2] != "--":
        sys.exit("usage: python -m benchmarks.measured RESULT.json -- COMMAND [ARG...]")
    launch(Path(sys.argv[1]), sys.argv[3:])
