"""Compute backends for batches of independent games (pure of Dagster; distributed is imported only for dask).

A batch is a picklable task `task(chunk) -> results, one per item` and a list of items (game seeds or
(seat, index) pairs). run_batch cuts the items into chunks of a few, runs the chunks where the backend
says, and returns the results in item order: each game is seeded by its own index, so the assembled
table is the same on every backend and for any number of workers or any chunk size.
"""

from __future__ import annotations

import math
import multiprocessing
import os
import re
import socket
import threading
from concurrent.futures import Future, ProcessPoolExecutor, ThreadPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from typing import Callable, Sequence

from jbag_pipeline.compute.lifeline import bind_to_owner, owner_token
from jbag_pipeline.compute.progress import report_games

ChunkDone = Callable[[int], None]  # called with a chunk's index as its results arrive, in the calling process

BACKENDS = ("inline", "local", "dask")
TASKS_PER_WORKER = 4  # chunks per worker: small enough to balance games of unequal length, few enough to be cheap
DASK_RETRIES = 2  # a task whose code raised is tried again this often; a lost worker's tasks are rescheduled anyway
CONNECT_TIMEOUT = 30.0  # seconds a Dask scheduler has to answer (default of --scheduler-timeout)
TIMEOUT_ENV = "JBAG_SCHEDULER_TIMEOUT"
MAX_WORKERS = 1024  # local processes, or Dask workers to wait for: more is a typo, refused before anything starts
_ADDRESS = re.compile(r"^(tcp|tls)://(\[[0-9a-fA-F:]+\]|[^:/\s]+):(\d{1,5})$")


class ComputeError(RuntimeError):
    """A batch could not run: its workers died, or the Dask scheduler was lost."""


def _cpu_count() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


class Compute:
    """Runs `task` over chunks and returns the chunks' results in order; `workers` is the parallelism.
    `on_chunk(i)` (if given) is called in this process as chunk i's results arrive, in any order."""

    name = "compute"
    workers = 1

    def map(self, task: Callable[[list], list], chunks: list[list], on_chunk: ChunkDone | None = None) -> list[list]:
        raise NotImplementedError

    def chunk_size(self, n_items: int) -> int:
        """Items per task: about TASKS_PER_WORKER tasks per worker, at least one item."""
        return max(1, math.ceil(n_items / (self.workers * TASKS_PER_WORKER)))

    def describe(self) -> str:
        return self.name


class InlineCompute(Compute):
    """Every chunk in this process, one after another."""

    name = "inline"

    def map(self, task, chunks, on_chunk=None):
        results = []
        for i, chunk in enumerate(chunks):
            results.append(task(chunk))
            if on_chunk:
                on_chunk(i)
        return results

    def chunk_size(self, n_items: int) -> int:
        return max(1, n_items)


_POOLS: dict[int, ProcessPoolExecutor] = {}
_POOLS_LOCK = threading.Lock()


def _start_method() -> str:
    # never fork: the parent (Dagster, polars, a Dask client) runs threads, and a forked child inherits their locks
    return "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"


# what unpickling the batches' tasks imports in a worker: seconds of it (scikit-learn, scipy and polars through
# jbag_pipeline.presets). The forkserver imports it once and every worker forks from it ready, instead of each
# worker importing it again at its first task. forkserver_watch comes first: the forkserver dies with this process.
WORKER_PRELOAD = ["jbag_pipeline.compute.forkserver_watch", "jbag_pipeline.play.selfplay",
                  "jbag_pipeline.play.evaluation", "jbag_pipeline.definitions",
                  "jbag_pipeline.cli.runner"]  # the games' Dagster runs (cli.runner)


def _context():
    context = multiprocessing.get_context(_start_method())
    if _start_method() == "forkserver":
        context.set_forkserver_preload(WORKER_PRELOAD)  # no effect once the forkserver runs
    return context


class LocalCompute(Compute):
    """Chunks over `workers` processes of this machine (default: every core this process may use).

    The pool is started once per worker count and kept for the process's lifetime, so a run of many
    batches pays the workers' start-up (imports) once. Tasks and results travel by pickle.
    """

    name = "local"

    def __init__(self, workers: int | None = None):
        check_workers("local", workers)
        self.workers = workers or _cpu_count()

    def _pool(self) -> ProcessPoolExecutor:
        with _POOLS_LOCK:
            pool = _POOLS.get(self.workers)
            if pool is None:
                # each worker dies with this process (a killed `jbag run` leaves no worker playing on)
                pool = _POOLS[self.workers] = ProcessPoolExecutor(self.workers, mp_context=_context(),
                                                                  initializer=bind_to_owner, initargs=owner_token())
            return pool

    def start(self) -> None:
        """Start the forkserver now, without waiting: it imports WORKER_PRELOAD while this process goes on (with
        Dagster's start-up, say), so the first batch's workers fork ready. Nothing to do for one worker."""
        if self.workers > 1 and _start_method() == "forkserver":
            from multiprocessing import forkserver

            from jbag_pipeline.compute.forkserver_watch import DEATHSIG_ENV

            if threading.current_thread() is threading.main_thread():
                os.environ[DEATHSIG_ENV] = "1"  # the forkserver dies with this process, killed by the kernel
            try:
                _context()
                forkserver.ensure_running()
            finally:  # read by the forkserver as it starts: no later process inherits it
                os.environ.pop(DEATHSIG_ENV, None)

    def submit(self, fn, *args) -> Future:
        """fn(*args) in one of the workers: a task bigger than a chunk (a whole Dagster run of one game)."""
        return self._pool().submit(fn, *args)

    def map(self, task, chunks, on_chunk=None):
        if len(chunks) <= 1 or self.workers == 1:
            return InlineCompute().map(task, chunks, on_chunk)  # nothing to run side by side: skip the round trip
        pool = self._pool()
        futures = []
        try:
            futures = [pool.submit(task, chunk) for chunk in chunks]
            index = {future: i for i, future in enumerate(futures)}
            for future in as_completed(futures):
                future.result()  # the first error ends the batch
                if on_chunk:
                    on_chunk(index[future])
            return [future.result() for future in futures]
        except BrokenProcessPool as exc:
            with _POOLS_LOCK:
                _POOLS.pop(self.workers, None)
            raise ComputeError(f"compute local: a worker process died mid-batch ({exc}); nothing was written, "
                               "rerun (with --compute inline to see the error in this process)") from exc
        finally:
            for future in futures:  # after a failure: the rest of the batch is not wanted
                future.cancel()

    def describe(self) -> str:
        return f"local ({self.workers} processes)"


def check_workers(backend: str, workers) -> None:
    """ValueError in one line unless `workers` is None or an integer in 1..MAX_WORKERS."""
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
        raise ValueError(f"compute {backend}: workers must be a positive integer, got {workers!r}")
    if workers is not None and workers > MAX_WORKERS:
        raise ValueError(f"compute {backend}: {workers} workers is more than {MAX_WORKERS}")


def check_timeout(timeout, what: str = "scheduler timeout") -> float:
    """`timeout` as positive, finite seconds; ValueError in one line naming `what` else."""
    try:
        seconds = float(timeout)
    except (TypeError, ValueError):
        raise ValueError(f"{what}: {timeout!r} is not a number of seconds") from None
    if not 0 < seconds < math.inf:
        raise ValueError(f"{what}: {timeout!r} is not a positive, finite number of seconds")
    return seconds


def scheduler_timeout(timeout: float | None = None) -> float:
    """Seconds a Dask scheduler has to answer: `timeout`, else JBAG_SCHEDULER_TIMEOUT, else CONNECT_TIMEOUT."""
    if timeout is not None:
        return check_timeout(timeout)
    if os.environ.get(TIMEOUT_ENV):
        return check_timeout(os.environ[TIMEOUT_ENV], TIMEOUT_ENV)
    return CONNECT_TIMEOUT


def check_scheduler_address(address: str) -> tuple[str, int]:
    """(host, port) of a scheduler address 'tcp://HOST:PORT' (or tls://); ValueError naming the address else."""
    found = _ADDRESS.match(address or "")
    if not found or not 0 < int(found.group(3)) < 65536:
        raise ValueError(f"compute dask: scheduler address {address!r} is not tcp://HOST:PORT")
    return found.group(2).strip("[]"), int(found.group(3))


def _reachable(address: str, timeout: float) -> None:
    host, port = check_scheduler_address(address)
    try:
        socket.create_connection((host, port), timeout=timeout).close()
    except OSError as exc:
        raise ValueError(f"compute dask: cannot reach the Dask scheduler at {address} "
                         f"({exc.strerror or exc}); start it (dask scheduler) or fix --scheduler") from None


def _identify(address: str, timeout: float) -> None:
    """Ask `address` who it is (Dask's identity call) within `timeout` seconds; ValueError in one line unless a
    Dask scheduler answers. Client() itself waits for ever on a server that reads the handshake and says
    nothing (an HTTP server, say)."""
    import asyncio

    from distributed.comm import connect

    async def ask():
        comm = await connect(address, timeout=timeout)
        try:
            await comm.write({"op": "identity"})
            return await comm.read()
        finally:
            comm.abort()

    async def ask_in_time():
        return await asyncio.wait_for(ask(), timeout)

    with ThreadPoolExecutor(1) as thread:  # a loop of its own, even when the caller's thread runs one
        try:
            reply = thread.submit(asyncio.run, ask_in_time()).result()
        except (TimeoutError, asyncio.TimeoutError):
            raise ValueError(f"compute dask: {address} did not answer as a Dask scheduler within {timeout:g}s; is "
                             f"it the scheduler's port (not its dashboard's)? fix --scheduler, or raise "
                             f"--scheduler-timeout") from None
        except Exception as exc:  # noqa: BLE001 - a reply that is not Dask's protocol fails in any way
            reply = f"{type(exc).__name__}: {_first_line(str(exc))}"
    if not (isinstance(reply, dict) and reply.get("type") == "Scheduler"):
        what = reply if isinstance(reply, str) else f"it says it is {str(reply)[:80]!r}"
        raise ValueError(f"compute dask: {address} is not a Dask scheduler ({what}); fix --scheduler")


def _first_line(text: str, limit: int = 200) -> str:
    line = next((part.strip() for part in text.splitlines() if part.strip()), "")
    return line if len(line) <= limit else line[:limit - 3] + "..."


_CLIENTS: dict[str, object] = {}
_CLIENTS_LOCK = threading.Lock()


class DaskCompute(Compute):
    """Chunks as tasks on a Dask cluster through a `distributed.Client` connected to `scheduler`.

    The workers must import this jbag (the same image or the same checkout). A worker lost mid-batch
    has its tasks rescheduled on the others by the scheduler; a task whose code raised is retried
    DASK_RETRIES times, then its error ends the batch. Results are gathered whole before any table is
    written. `min_workers` waits (up to `timeout`) until that many workers have joined.
    """

    name = "dask"

    def __init__(self, scheduler: str, min_workers: int | None = None, timeout: float | None = None):
        check_scheduler_address(scheduler)
        check_workers("dask", min_workers)
        self.scheduler, self.min_workers, self.timeout = scheduler, min_workers, scheduler_timeout(timeout)

    def client(self):
        """The (cached) client of this scheduler; raises ValueError in one line when it cannot be reached."""
        with _CLIENTS_LOCK:
            client = _CLIENTS.get(self.scheduler)
            if client is not None and client.status == "running":
                return client
            _reachable(self.scheduler, self.timeout)
            try:
                from distributed import Client
            except ImportError:
                raise ValueError("compute dask: the distributed package is missing; "
                                 "pip install -e '.[dask]'") from None
            _identify(self.scheduler, self.timeout)
            try:
                client = Client(self.scheduler, timeout=self.timeout, set_as_default=False)
            except (OSError, TimeoutError) as exc:
                raise ValueError(f"compute dask: cannot connect to the Dask scheduler at {self.scheduler} "
                                 f"({exc})") from None
            _CLIENTS[self.scheduler] = client
        if self.min_workers:
            try:
                client.wait_for_workers(self.min_workers, timeout=max(self.timeout, 60.0))
            except TimeoutError:
                raise ValueError(f"compute dask: fewer than {self.min_workers} workers joined {self.scheduler}"
                                 f" within {max(self.timeout, 60.0):.0f}s") from None
        return client

    def close(self) -> None:
        """Close this scheduler's cached client (the cluster keeps running)."""
        with _CLIENTS_LOCK:
            client = _CLIENTS.pop(self.scheduler, None)
        if client is not None:
            client.close()

    @property
    def workers(self) -> int:
        return max(1, len(self.client().scheduler_info(n_workers=-1)["workers"]))

    def map(self, task, chunks, on_chunk=None):
        if not chunks:
            return []
        from distributed import KilledWorker, as_completed as dask_completed

        client = self.client()
        futures = client.map(task, chunks, pure=False, retries=DASK_RETRIES)
        try:
            if on_chunk:
                index = {future.key: i for i, future in enumerate(futures)}
                for future in dask_completed(futures, loop=client.loop):  # our client is not the default
                    if future.status != "finished":
                        break  # gather raises its error
                    on_chunk(index[future.key])
            return client.gather(futures)
        except KilledWorker as exc:
            raise ComputeError(f"compute dask: a task killed every worker that ran it ({exc}); "
                               "nothing was written") from exc
        except OSError as exc:  # CommClosedError and friends: the scheduler went away
            raise ComputeError(f"compute dask: lost the Dask scheduler at {self.scheduler} mid-batch ({exc}); "
                               "nothing was written") from exc
        finally:
            pending = [f for f in futures if not f.done()]
            if pending:  # after a failure: stop the rest of the batch
                client.cancel(pending)

    def describe(self) -> str:
        return f"dask ({self.scheduler})"


def make_compute(backend: str = "local", scheduler: str | None = None, workers: int | None = None,
                 timeout: float | None = None) -> Compute:
    """The backend named `backend`; scheduler only for dask (required there), workers = processes (local) or
    workers to wait for (dask), timeout = seconds the scheduler has to answer (dask; see scheduler_timeout). Bad
    combinations raise ValueError in one line."""
    if backend not in BACKENDS:
        raise ValueError(f"compute: unknown backend {backend!r}; choose one of {', '.join(BACKENDS)}")
    if scheduler and backend != "dask":
        raise ValueError(f"compute: a scheduler address ({scheduler}) is only for the dask backend, not {backend!r}")
    if backend == "dask":
        if not scheduler:
            raise ValueError("compute dask: needs a scheduler address (--scheduler tcp://HOST:PORT)")
        return DaskCompute(scheduler, workers, timeout)
    if backend == "inline":
        if workers not in (None, 1):
            raise ValueError(f"compute inline: runs in this process; workers={workers} needs --compute local")
        return InlineCompute()
    return LocalCompute(workers)


def run_batch(compute: Compute | None, task: Callable[[list], list], items: Sequence) -> list:
    """task over `items` in chunks on `compute` (None: inline); one result per item, in item order. The games
    are reported to jbag_pipeline.compute.progress's listeners: all added at the start, each chunk's done as it
    arrives."""
    items = list(items)
    compute = compute or InlineCompute()
    size = compute.chunk_size(len(items))
    chunks = [items[start:start + size] for start in range(0, len(items), size)]
    report_games(0, len(items))
    done = compute.map(task, chunks, lambda i: report_games(len(chunks[i]), 0))
    results = []
    for chunk, chunk_results in zip(chunks, done, strict=True):
        if len(chunk_results) != len(chunk):
            raise ComputeError(f"compute {compute.name}: a task returned {len(chunk_results)} results for "
                               f"{len(chunk)} items")
        results.extend(chunk_results)
    return results
