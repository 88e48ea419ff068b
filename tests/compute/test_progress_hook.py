"""The games hook of run_batch: every game counted exactly once, in the calling process, as chunks arrive."""

from __future__ import annotations

import os

import pytest

from jbag_pipeline.compute import InlineCompute, LocalCompute, report_games, run_batch, watching_games
from tests.compute.test_compute import OneGamePerTask, _exit_worker, _square_all


def _watched(compute, items):
    calls = []
    with watching_games(lambda done, added: calls.append((done, added, os.getpid()))):
        results = run_batch(compute, _square_all, items)
    return results, calls


@pytest.mark.parametrize("compute", [InlineCompute(), OneGamePerTask(), LocalCompute(2)], ids=["inline", "one", "local"])
def test_every_game_is_counted_once_in_the_calling_process(compute):
    items = list(range(23))
    results, calls = _watched(compute, items)
    assert results == [x * x for x in items]
    assert calls[0][:2] == (0, 23)  # the whole batch is announced before any game ends
    assert sum(done for done, _, _ in calls) == 23 and sum(added for _, added, _ in calls) == 23
    assert {pid for _, _, pid in calls} == {os.getpid()}
    size = compute.chunk_size(23)
    assert sorted(done for done, _, _ in calls[1:]) == sorted(len(items[i:i + size]) for i in range(0, 23, size))


def test_local_reports_chunks_one_by_one_and_nothing_after_the_block():
    _, calls = _watched(LocalCompute(2), list(range(16)))
    assert len(calls) == 1 + 8 and all(done == 2 for done, _, _ in calls[1:])  # 2 workers x 4 chunks of 2 games
    run_batch(LocalCompute(2), _square_all, [1, 2, 3])
    report_games(1, 0)
    assert len(calls) == 9  # the listener left with its block


def test_a_failed_batch_reports_no_game_it_did_not_finish():
    calls = []
    with watching_games(lambda done, added: calls.append((done, added))), pytest.raises(Exception):
        run_batch(LocalCompute(2), _exit_worker, [1, 2, 3, 4])
    assert calls == [(0, 4)]


PROBE = """
import sys
from jbag_pipeline.compute import LocalCompute, run_batch
from tests.helpers.worker_probe import loaded_modules

if __name__ == "__main__":
    LocalCompute(2).start()
    print(run_batch(LocalCompute(2), loaded_modules, ["jbag_pipeline.play.selfplay", "sklearn"] * 2),
          "jbag_pipeline.play.selfplay" in sys.modules)
"""


@pytest.mark.slow  # a fresh interpreter whose forkserver imports scikit-learn and polars
def test_local_workers_fork_from_a_forkserver_that_preloaded_the_tasks_modules(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    script = tmp_path / "probe.py"
    script.write_text(PROBE)
    repo = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, str(script)], cwd=repo, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(repo)})
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["[True,", "True,", "True,", "True]", "False"]  # the workers have them, not us
