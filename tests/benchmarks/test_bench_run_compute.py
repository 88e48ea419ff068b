"""bench_run_compute alternates the backends run by run and reports the median of each pair's ratio."""

import pytest

from benchmarks import bench_run_compute


def test_runs_alternate_and_the_ratio_is_the_median_of_back_to_back_pairs(monkeypatch):
    calls = []
    walls = iter([10.0, 4.0, 5.0, 12.0, 9.0, 6.0])  # (inline, local), (local, inline), (inline, local)

    def fake(preset, backend, folder):
        calls.append((preset, backend))
        return {"wall": next(walls), "cpu": 1.0, "returncode": 0}

    monkeypatch.setattr(bench_run_compute, "jbag_run_seconds", fake)
    rows = {(r["subject"], r["metric"]): r["median"] for r in bench_run_compute.run(3)}
    assert calls == [("smoke", "inline"), ("smoke", "local"), ("smoke", "local"), ("smoke", "inline"),
                     ("smoke", "inline"), ("smoke", "local")]
    assert rows[("local (2 processes) vs inline", "speedup x")] == pytest.approx(2.4)  # of 2.5, 2.4, 1.5
    assert rows[("inline (one process)", "wall s")] == 10.0 and rows[("local (2 processes)", "wall s")] == 5.0


def test_a_failed_run_is_an_error_with_its_log(tmp_path, monkeypatch):
    monkeypatch.setattr(bench_run_compute, "measure", lambda command, **kw: (kw["log"].write_text("boom"), {
        "wall": 1.0, "cpu": 1.0, "returncode": 2})[1])
    with pytest.raises(RuntimeError, match="jbag run --preset smoke --compute local failed:\nboom"):
        bench_run_compute.jbag_run_seconds("smoke", "local", tmp_path)
