"""Batches of games on the inline and local backends: the same tables for any backend, worker count and chunk size."""

from __future__ import annotations

import os
import pickle

import polars as pl
import pytest

from jbag_pipeline.play.evaluation import SeatGames
from jbag_pipeline.play.jsonbag_agent import JsonBagOSLAAgent
from jbag_pipeline.model.value_tables import make_jsonbag_value
from jbag_pipeline.compute import (ComputeError, DaskCompute, InlineCompute, LocalCompute, check_scheduler_address,
                                   make_compute, run_batch)
from jbag_pipeline.resources import JbagCompute
from tests.helpers.compute_tables import NO_FEATURES, smoke_tables


class OneGamePerTask(InlineCompute):
    """Inline, but every item its own chunk: a chunk boundary between every two games."""

    def chunk_size(self, n_items: int) -> int:
        return 1


def _square_all(chunk: list) -> list:
    return [x * x for x in chunk]


def _drop_last(chunk: list) -> list:
    return chunk[:-1]


def test_run_batch_keeps_item_order_for_every_chunk_size():
    items = list(range(23))
    for compute in (None, InlineCompute(), OneGamePerTask(), LocalCompute(2)):
        assert run_batch(compute, _square_all, items) == [x * x for x in items]
    assert run_batch(LocalCompute(2), _square_all, []) == []
    assert LocalCompute(3).chunk_size(25) == 3 and LocalCompute(3).chunk_size(1) == 1


def test_a_task_that_loses_results_fails_the_batch():
    with pytest.raises(ComputeError, match="returned 2 results for 3 items"):
        run_batch(InlineCompute(), _drop_last, [1, 2, 3])


def test_one_game_per_chunk_gives_the_tables_of_one_chunk():
    assert smoke_tables(OneGamePerTask()) == smoke_tables(InlineCompute())


def test_local_with_two_processes_gives_the_inline_tables_byte_for_byte():
    inline = smoke_tables(InlineCompute(), n_selfplay=4, games_per_seat=2)
    local = smoke_tables(LocalCompute(2), n_selfplay=4, games_per_seat=2)
    assert local == inline and all(len(v) > 0 for v in inline.values())


def test_an_error_in_a_worker_process_reaches_the_caller_with_its_type():
    with pytest.raises(ValueError, match="unknown game"):
        run_batch(LocalCompute(2), SeatGames("chess", {}, 0), [(0, 0), (0, 1)])


def test_the_evaluation_task_pickles_with_its_jsonbag_agent():
    prototypes = pl.DataFrame(
        {"game": "tictactoe", "frequency": "full", "seat": [0, 1], "token": ["a", "b"], "count": 1.0, "p": 1.0})
    agent = JsonBagOSLAAgent(make_jsonbag_value(prototypes, NO_FEATURES, "full", "none", 2))
    task = pickle.loads(pickle.dumps(SeatGames("tictactoe", {}, 3, agent, {"game": "tictactoe"})))
    assert [row["seed"] for row in task([(0, 0), (1, 0)])] == [row["seed"] for row in
                                                                SeatGames("tictactoe", {}, 3, agent)([(0, 0), (1, 0)])]


@pytest.mark.parametrize(("args", "message"), [
    (("gpu",), "unknown backend 'gpu'"),
    (("local", "tcp://127.0.0.1:8786"), "only for the dask backend"),
    (("dask",), "needs a scheduler address"),
    (("dask", "127.0.0.1:8786"), "is not tcp://HOST:PORT"),
    (("dask", "tcp://127.0.0.1:99999"), "is not tcp://HOST:PORT"),
    (("inline", None, 2), "needs --compute local"),
    (("local", None, 0), "positive integer"),
])
def test_bad_compute_settings_fail_in_one_line(args, message):
    with pytest.raises(ValueError, match=message):
        make_compute(*args)


def test_a_scheduler_nobody_listens_on_is_refused_at_connect():
    with pytest.raises(ValueError, match=r"cannot reach the Dask scheduler at tcp://127.0.0.1:1 "):
        DaskCompute("tcp://127.0.0.1:1").client()


def test_scheduler_addresses():
    assert check_scheduler_address("tcp://10.0.0.5:8786") == ("10.0.0.5", 8786)
    assert check_scheduler_address("tls://jbag-dask-scheduler.jbag.svc:8786") == ("jbag-dask-scheduler.jbag.svc", 8786)


def test_the_dagster_resource_builds_its_backend(monkeypatch):
    assert isinstance(JbagCompute().get_compute(), LocalCompute)
    assert isinstance(JbagCompute(backend="inline").get_compute(), InlineCompute)
    assert JbagCompute(backend="local", workers=3).get_compute().workers == 3
    from jbag_pipeline.resources import compute_from_env

    monkeypatch.setenv("JBAG_COMPUTE", "dask")
    monkeypatch.setenv("JBAG_SCHEDULER", "tcp://10.1.2.3:8786")
    monkeypatch.setenv("JBAG_WORKERS", "4")
    resource = compute_from_env()
    assert (resource.backend, resource.scheduler, resource.workers) == ("dask", "tcp://10.1.2.3:8786", 4)


def _exit_worker(chunk: list) -> list:
    os._exit(3)  # a worker process killed mid-batch (as by the OOM killer)


def test_a_worker_process_dying_fails_the_batch_in_one_line_and_the_next_batch_gets_a_new_pool():
    from jbag_pipeline.cli.checks import error_line

    local = LocalCompute(2)
    with pytest.raises(ComputeError, match="a worker process died mid-batch") as caught:
        run_batch(local, _exit_worker, [1, 2, 3, 4])
    try:
        raise RuntimeError("Error occurred while executing op 'selfplay'") from caught.value
    except RuntimeError as wrapped:  # as Dagster wraps an asset's error
        line = error_line(wrapped, None)
    assert line.startswith("compute local: a worker process died mid-batch") and "\n" not in line
    assert run_batch(local, _square_all, [1, 2, 3]) == [1, 4, 9]
