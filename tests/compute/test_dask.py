"""A real Dask cluster on 127.0.0.1 (a scheduler and two workers as processes, started with the `dask` command):
batches of games played through it give the inline tables byte for byte, also when a worker is killed mid-batch,
and `jbag run --compute dask` writes the lake files the inline run writes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

distributed = pytest.importorskip("distributed", reason="the dask extra is not installed (pip install -e '.[dask]')")

from jbag_pipeline.play.selfplay import play_selfplay, selfplay_seeds  # noqa: E402
from jbag_pipeline.compute import DaskCompute, InlineCompute  # noqa: E402
from jbag_pipeline.presets import GameRun  # noqa: E402
from tests.helpers.compute_tables import parquet_bytes, smoke_tables  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
DASK = Path(sys.executable).with_name("dask")  # the venv's dask command, beside its python
pytestmark = pytest.mark.slow


@dataclass
class Cluster:
    address: str
    workers: dict[str, subprocess.Popen]  # worker name -> its `dask worker` process (the nanny's session)


def _stop(process: subprocess.Popen) -> None:
    """End a `dask` process and its children (a worker's nanny and worker share the session)."""
    if process.poll() is None:
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(process.pid, sig)
                process.wait(timeout=15)
                return
            except ProcessLookupError:
                return
            except subprocess.TimeoutExpired:
                continue


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    if not DASK.exists():
        pytest.skip(f"no dask command at {DASK}")
    folder = tmp_path_factory.mktemp("dask")
    scheduler_file = folder / "scheduler.json"
    env = {**os.environ, "PYTHONPATH": str(REPO)}  # the workers import this checkout's jbag
    started = []

    def start(*args: str, log: str) -> subprocess.Popen:
        process = subprocess.Popen([str(DASK), *args], cwd=folder, env=env, stdout=open(folder / log, "wb"),
                                   stderr=subprocess.STDOUT, start_new_session=True)
        started.append(process)
        return process

    try:
        start("scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard", "--scheduler-file",
              str(scheduler_file), log="scheduler.log")
        deadline = time.monotonic() + 60
        while not scheduler_file.exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        assert scheduler_file.exists(), (folder / "scheduler.log").read_text()
        address = json.loads(scheduler_file.read_text())["address"]
        workers = {name: start("worker", "--scheduler-file", str(scheduler_file), "--nworkers", "1", "--nthreads", "1",
                               "--name", name, "--host", "127.0.0.1", "--no-dashboard", "--memory-limit", "0",
                               "--local-directory", str(folder / name), log=f"{name}.log")
                   for name in ("w0", "w1")}
        DaskCompute(address, min_workers=2, timeout=60).client()
        yield Cluster(address, workers)
    finally:
        if started and scheduler_file.exists():
            DaskCompute(json.loads(scheduler_file.read_text())["address"]).close()
        for process in reversed(started):
            _stop(process)


def test_smoke_selfplay_and_evaluation_through_dask_give_the_inline_parquet_files(cluster):
    dask = DaskCompute(cluster.address)
    assert dask.workers == 2
    through_dask = smoke_tables(dask, n_selfplay=2, games_per_seat=1)
    assert through_dask == smoke_tables(InlineCompute(), n_selfplay=2, games_per_seat=1)


def test_an_error_in_a_dask_task_reaches_the_caller_with_its_type(cluster):
    from jbag_pipeline.play.evaluation import SeatGames
    from jbag_pipeline.compute import run_batch

    with pytest.raises(ValueError, match="unknown game"):
        run_batch(DaskCompute(cluster.address), SeatGames("chess", {}, 0), [(0, 0), (0, 1)])


def test_dask_reports_each_game_once_in_the_calling_process(cluster):
    from jbag_pipeline.compute import run_batch, watching_games
    from tests.compute.test_compute import _square_all

    calls = []
    with watching_games(lambda done, added: calls.append((done, added, os.getpid()))):
        assert run_batch(DaskCompute(cluster.address), _square_all, list(range(10))) == [x * x for x in range(10)]
    assert calls[0][:2] == (0, 10) and sum(c[0] for c in calls) == 10 and len(calls) == 1 + 5  # chunks of 2 games
    assert {c[2] for c in calls} == {os.getpid()}


def _lake_files(root: Path) -> dict[str, bytes]:
    lake = root / "lake"
    return {str(path.relative_to(lake)): path.read_bytes() for path in sorted(lake.rglob("*.parquet"))}


def _jbag_run(data: Path, *compute: str) -> subprocess.CompletedProcess:
    argv = [sys.executable, "-m", "jbag_pipeline.cli", "run", "--preset", "smoke", "--games", "tictactoe",
            "--select", "selfplay_games,evaluation_control", "--data-dir", str(data), *compute]
    return subprocess.run(argv, cwd=data.parent, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PYTHONPATH": str(REPO), "DAGSTER_HOME": str(data.parent / "dh")})


def test_jbag_run_with_compute_dask_writes_the_lake_files_of_an_inline_run(cluster, tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    through_dask = _jbag_run(tmp_path / "a" / "data", "--compute", "dask", "--scheduler", cluster.address)
    assert through_dask.returncode == 0, through_dask.stderr
    assert f"games on dask ({cluster.address})" in through_dask.stdout
    inline = _jbag_run(tmp_path / "b" / "data", "--compute", "inline")
    assert inline.returncode == 0, inline.stderr
    files = _lake_files(tmp_path / "a" / "data")
    assert {name.split("/")[0] for name in files} >= {"selfplay_games", "selfplay_states", "evaluation_control"}
    assert files == _lake_files(tmp_path / "b" / "data")


# kills a worker of the module's cluster: keep it the last test of this file
def _worker_names_processing(client) -> list[str]:
    info = client.scheduler_info(n_workers=-1)["workers"]
    return [info[address]["name"] for address, keys in client.processing().items() if keys and address in info]


def test_a_worker_killed_mid_batch_leaves_the_batch_to_the_other_one(cluster):
    """Kill one worker while it plays; the scheduler reschedules its games on the survivor, same tables."""
    run = GameRun(mcts_iterations=150, rollout_length=40)  # a second or so per game: time to kill mid-batch
    seeds = selfplay_seeds(0, 0, 8)
    dask = DaskCompute(cluster.address)
    outcome = {}

    def play():
        try:
            outcome["tables"] = play_selfplay("connect4", run, seeds, dask)
        except BaseException as exc:  # noqa: BLE001 - reported by the assertion below
            outcome["error"] = exc

    player = threading.Thread(target=play)
    player.start()
    client = dask.client()
    victim, deadline = None, time.monotonic() + 120
    while victim is None and time.monotonic() < deadline and player.is_alive():
        busy = _worker_names_processing(client)
        victim = next((name for name in cluster.workers if any(str(b).startswith(name) for b in busy)), None)
        time.sleep(0.05)
    assert victim is not None, (f"no worker was seen playing (the batch {'ended' if not player.is_alive() else 'ran'};"
                                f" its error: {outcome.get('error')!r})")
    _stop(cluster.workers[victim])
    player.join(timeout=300)
    assert not player.is_alive() and "error" not in outcome, outcome.get("error")
    games, states = outcome["tables"]
    inline_games, inline_states = play_selfplay("connect4", run, seeds, InlineCompute())
    assert len(client.scheduler_info(n_workers=-1)["workers"]) == 1  # the victim is gone for good
    assert parquet_bytes(games) == parquet_bytes(inline_games)
    assert parquet_bytes(states) == parquet_bytes(inline_states)
    assert games["game_id"].to_list() == seeds
