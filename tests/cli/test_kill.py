"""A SIGKILLed `jbag run` takes its worker processes with it: none outlives it by more than a few seconds, and
none writes a lake file after it died."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from jbag_pipeline.compute import lifeline

REPO = Path(__file__).resolve().parents[2]
GRACE_SECONDS = 5.0  # how long a worker may outlive its killed run
SETTLE_SECONDS = 3.0  # then nothing more may appear in the lake
IN_FLIGHT_SECONDS = 0.5  # a temporary file's write under way at the run's death may end this much after it


def _lake_files(data: Path) -> dict[Path, float]:
    return {path: path.stat().st_mtime for path in (data / "lake").rglob("*") if path.is_file()}


def _kill_when(tmp_path: Path, games: str, ready) -> None:
    """Start `jbag run --preset smoke --games GAMES --workers 2`, SIGKILL it once ready(data, descendants) holds,
    then check that its descendants are gone within GRACE_SECONDS and the lake did not change after the kill."""
    data = tmp_path / "data"
    env = {**os.environ, "PYTHONPATH": str(REPO), "DAGSTER_HOME": str(tmp_path / "dagster_home")}
    run = subprocess.Popen([sys.executable, "-m", "jbag_pipeline.cli", "run", "--preset", "smoke", "--games", games,
                            "--compute", "local", "--workers", "2", "--data-dir", str(data)], env=env, cwd=tmp_path,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    parent = psutil.Process(run.pid)
    try:
        deadline = time.monotonic() + 600
        while True:
            assert run.poll() is None, f"the run ended before the kill point: {run.stderr.read().decode()[-2000:]}"
            assert time.monotonic() < deadline, "the kill point never came"
            descendants = parent.children(recursive=True)
            if ready(data, descendants):
                break
            time.sleep(0.05)
        descendants = parent.children(recursive=True)
        commands = {p.pid: " ".join(p.cmdline())[:200] for p in descendants if _alive(p)}
        os.kill(run.pid, signal.SIGKILL)
        run.wait()
        died_at = time.time()  # the kill is asynchronous: the run is dead once reaped (a file its worker finished
        # before that is not written after its death)
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()
        run.stderr.close()
    assert len(descendants) >= 2  # the workers (and the forkserver) were there to be killed
    deadline = time.monotonic() + GRACE_SECONDS
    while (alive := [p for p in descendants if _alive(p)]) and time.monotonic() < deadline:
        time.sleep(0.1)
    for process in alive:  # do not leave them to the next test
        process.kill()
    assert not alive, f"still alive {GRACE_SECONDS}s after the kill: {[commands.get(p.pid) for p in alive]}"
    files = _lake_files(data)
    time.sleep(SETTLE_SECONDS)
    assert _lake_files(data) == files
    published = [str(path) for path, mtime in files.items() if mtime > died_at and path.name == "part.parquet"]
    assert not published, f"published after the run died: {published}"
    # a temporary file being written when the run died is cut off as the kernel kills its writer (milliseconds)
    late = [(str(path), mtime - died_at) for path, mtime in files.items() if mtime > died_at + IN_FLIGHT_SECONDS]
    assert not late, f"written after the run died: {late}"


def _has(data: Path, table: str) -> bool:
    return any((data / "lake" / table).rglob("part.parquet"))


def _workers_started(descendants) -> bool:
    """Whether a pool worker (a child of the forkserver, not the run's own child) runs: the first batch began."""
    pids = {p.pid for p in descendants}
    return any(_alive(p) and p.ppid() in pids and "forkserver" in " ".join(p.cmdline()) for p in descendants)


def _alive(process) -> bool:
    """Running and not a zombie (a dead child that init has not reaped yet: it runs and writes nothing)."""
    try:
        return process.is_running() and process.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


@pytest.mark.parametrize("games, ready", [
    # one game: this process runs Dagster and the workers play its batches (killed mid self-play; Can't Stop's
    # smoke self-play lasts seconds, tic-tac-toe's could end between two polls)
    ("cant_stop", lambda data, procs: not _has(data, "selfplay_games") and _workers_started(procs)),
    # one game: killed while the evaluation games are played
    ("tictactoe", lambda data, procs: _has(data, "selected_features") and not _has(data, "evaluation_games")),
    # two games on two workers: each worker runs a game's whole Dagster run, writing the lake itself
    ("tictactoe,connect4", lambda data, procs: _has(data, "selfplay_games") and not _has(data, "evaluation_games")),
], ids=["selfplay", "evaluation", "side-by-side"])
def test_a_killed_run_leaves_no_worker_and_no_later_lake_file(tmp_path, games, ready):
    _kill_when(tmp_path, games, ready)


def test_a_worker_refuses_lake_writes_once_its_owner_is_gone(tmp_path, monkeypatch):
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    owner = (dead.pid, lifeline.start_of(dead.pid))
    dead.wait()
    assert not lifeline.owner_alive(owner) and lifeline.owner_alive(lifeline.owner_token())
    import polars as pl

    import jbag_pipeline.storage.lake as lake

    monkeypatch.setattr(lifeline, "_OWNER", owner)
    with pytest.raises(lifeline.OrphanedWorker, match=f"pid {dead.pid}"):
        lake.write_table(pl.DataFrame({"a": [1]}), tmp_path, "selfplay_games", {"game": "tictactoe"})
    assert list(tmp_path.rglob("*")) == []
    monkeypatch.setattr(lifeline, "_OWNER", lifeline.owner_token())
    lake.write_table(pl.DataFrame({"a": [1]}), tmp_path, "selfplay_games", {"game": "tictactoe"})
    assert lake.table_exists(tmp_path, "selfplay_games")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the clock-proof start time is Linux's /proc")
def test_a_clock_change_does_not_orphan_a_live_owner(monkeypatch):
    # psutil's create_time adds the boot time, which moves when the clock is set or a virtual machine is restored
    # (a demo run's workers killed themselves after such a jump); the owner's start in clock ticks does not
    token = lifeline.owner_token()
    monkeypatch.setattr(psutil.Process, "create_time", lambda self: 12345.0)
    assert lifeline.owner_alive(token)
