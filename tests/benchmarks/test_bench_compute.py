"""bench_compute: rows of every backend, in the suite's shape, on one cheap game and a one-worker Dask cluster."""

import pytest

pytest.importorskip("distributed", reason="the dask extra is not installed")

from benchmarks import bench_compute  # noqa: E402
from benchmarks.run_all import validate_rows  # noqa: E402
from benchmarks.targets import TARGETS, check  # noqa: E402


@pytest.mark.slow
def test_compute_rows_cover_local_dask_overhead_and_throughput(monkeypatch):
    monkeypatch.setattr(bench_compute, "GAMES_PLAYED", ["tictactoe"])
    monkeypatch.setattr(bench_compute, "DASK_WORKERS", (1,))
    rows = validate_rows("bench_compute", bench_compute.run(repeats=1))
    by = {(r["benchmark"], r["subject"]): r for r in rows}
    inline = by[("compute/smoke_selfplay", "inline (8 games)")]["median"]
    local = by[("compute/smoke_selfplay", "local 2 processes (8 games)")]["median"]
    speedup = by[("compute/smoke_selfplay", "local 2 processes vs inline")]
    assert speedup["median"] == pytest.approx(inline / local)
    assert by[("compute/dask_overhead", "1 workers, batch of 8 empty tasks")]["median"] > 0
    assert by[("compute/dask_throughput", "1 workers")]["metric"] == "games/s"
    target = next(t for t in TARGETS if t.benchmark == r"compute/smoke_selfplay")
    assert check(target, rows).n_rows == 1
