"""bench_evaluation: side-by-side rows (CPU s, the base's over ours), tables compared, and a base without the ops."""

import pytest

from benchmarks import bench_evaluation


def _result(control: float, pair: float, digest: str = "same") -> dict:
    return {"cpu": {"control": control, "full-full": pair}, "digests": {"control": "c", "full-full": digest}}


def test_rows_give_our_median_cpu_and_the_speed_up_and_flag_differing_tables(monkeypatch, tmp_path):
    calls = []
    figures = {"base": [_result(4.0, 9.0, "other"), _result(6.0, 11.0, "other")],
               "ours": [_result(2.0, 3.0), _result(2.0, 5.0)]}

    def fake(tree, kind, game, data, settings, scratch):
        calls.append(tree.name)
        return figures[tree.name].pop(0)

    monkeypatch.setattr(bench_evaluation, "measure_once", fake)
    monkeypatch.setattr(bench_evaluation, "ROOT", tmp_path / "ours")
    rows = bench_evaluation._side_by_side("games", "dominion", "abc", tmp_path / "base", tmp_path, {}, 2, tmp_path)
    assert calls == ["base", "ours", "ours", "base"]  # alternating which goes first
    ours = {r["benchmark"]: r for r in rows if r["subject"] == "ours"}
    assert ours["evaluation_games/dominion/control"]["median"] == 2.0
    assert ours["evaluation_games/dominion/control"]["ratio"] == pytest.approx(2.5)  # median of 2 and 3
    assert ours["evaluation_games/dominion/full-full (tables differ)"]["ratio"] == pytest.approx((3 + 2.2) / 2)
    assert ours["evaluation_games/dominion/total"]["median"] == pytest.approx(6.0)
    assert {r["subject"] for r in rows} == {"ours", "abc"}


def test_a_base_without_the_ops_is_skipped(monkeypatch, tmp_path):
    monkeypatch.setattr(bench_evaluation, "measure_once", lambda tree, *args: {} if tree.name == "old" else
                        _result(1.0, 1.0))
    rows = bench_evaluation._side_by_side("ops", "connect4", "old", tmp_path / "old", tmp_path, {}, 1, tmp_path)
    assert [r["metric"] for r in rows] == ["skipped: no such ops"]
