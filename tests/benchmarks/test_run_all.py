"""The benchmark harness: module discovery, row validation, targets, RESULTS.md and the exit status."""

import json
import math
import sys
import types

import numpy as np
import pytest

from benchmarks import run_all
from benchmarks.results_md import measured, number, render, table
from benchmarks.targets import TARGETS, Target, check, check_all


def row(benchmark="b", subject="ours", metric="x/s", median=1.0, ratio=None):
    return {"benchmark": benchmark, "subject": subject, "metric": metric, "median": median, "ratio": ratio}


def test_available_modules_follow_the_preferred_order_then_the_alphabet(tmp_path):
    for name in ("bench_zeta", "bench_engines", "bench_alpha", "bench_tokenizer", "helper"):
        (tmp_path / f"{name}.py").write_text("")
    assert run_all.available_modules(tmp_path) == ["bench_tokenizer", "bench_engines", "bench_alpha", "bench_zeta"]


def test_only_accepts_names_with_or_without_the_prefix_and_rejects_unknown_ones():
    available = ["bench_engines", "bench_tokenizer"]
    assert run_all.choose_modules(None, available) == available
    assert run_all.choose_modules("tokenizer, bench_engines", available) == ["bench_tokenizer", "bench_engines"]
    with pytest.raises(ValueError, match="no benchmark module 'nope'"):
        run_all.choose_modules("nope", available)


def test_rows_are_validated_with_the_module_and_row_named():
    assert run_all.validate_rows("m", [row(ratio=2)]) == [row(ratio=2.0)]
    saved = run_all.validate_rows("m", [row(median=np.int64(3), ratio=np.float32(0.5))])
    assert saved == [row(median=3.0, ratio=0.5)] and type(saved[0]["median"]) is float
    bad = [
        ([], "non-empty list"),
        ([{**row(), "extra": 1}], "row 0 must have exactly the keys"),
        ([row(), row(median=math.nan)], r"row 1 \(b\) median must be a finite number"),
        ([row(median=True)], "median must be a finite number"),
        ([row(ratio="2")], "ratio must be a finite number"),
        ([row(subject="")], "subject must be a non-empty string"),
    ]
    for rows, message in bad:
        with pytest.raises(ValueError, match=message):
            run_all.validate_rows("bench_m", rows)


def test_a_target_is_met_only_when_every_matching_row_passes():
    target = Target("t", r"tokenizer/.*", "ours", "states/s", "ratio", ">=", 2.0)
    rows = [row("tokenizer/a", ratio=3.0, metric="states/s"), row("tokenizer/b", ratio=2.5, metric="states/s"),
            row("tokenizer/c", ratio=0.1, metric="tokens/s"), row("tokenizer/c", subject="naive", metric="states/s")]
    verdict = check(target, rows)
    assert (verdict.status, verdict.worst["benchmark"], verdict.n_rows) == ("met", "tokenizer/b", 2)
    rows.append(row("tokenizer/d", ratio=1.9, metric="states/s"))
    verdict = check(target, rows)
    assert (verdict.status, verdict.worst["benchmark"]) == ("missed", "tokenizer/d")
    assert measured(verdict) == "1.9x (tokenizer/d)"
    assert check(target, [row("engines/x")]).status == "not measured"
    assert measured(check(target, [row("engines/x")])) == "-"


def test_an_upper_bound_target_reports_the_largest_value():
    target = Target("t", r"osla/.*", r"ours.*", "ms", "ratio", "<=", 5.0)
    rows = [row("osla/a", "ours (top)", "ms", ratio=4.0), row("osla/b", "ours (none)", "ms", ratio=6.0)]
    verdict = check(target, rows)
    assert (verdict.status, verdict.worst["benchmark"]) == ("missed", "osla/b")


def test_the_issue_targets_match_the_rows_the_modules_emit():
    rows = [row("random_playouts/connect4", metric="playouts/s", ratio=1.0),
            row("mcts_iterations/connect4", metric="iterations/s", median=50_000.0),
            row("pipeline/smoke/all groups", metric="wall s", median=500.0),
            row("pipeline/smoke/one jbag run (estimate)", metric="wall s", median=100.0),
            row("scaling/selfplay/connect4", subject="4x (64 games, 900 actions)", metric="s", median=1.0, ratio=1.1)]
    status = {v.target.name: v.status for v in check_all(rows)}
    assert status["connect4 random playouts >= 0.7x pyspiel"] == "met"
    assert status["MCTS on connect4 >= 40,000 iterations/s"] == "met"
    assert status["smoke preset end to end <= 3 minutes (one jbag run, estimated)"] == "met"
    assert status["self-play time grows linearly (4x games: time per action <= 1.25x of 1x)"] == "met"
    assert status["demo preset end to end <= 20 minutes (one jbag run, estimated)"] == "not measured"
    assert len(status) == len(TARGETS)


def test_the_value_targets_hold_top100_to_3x_and_all_tokens_to_5x():
    by_name = {t.name: t for t in TARGETS}
    top100 = by_name["JSON-Bag OSLA per decision, top-100 features, within 3x of baseline OSLA (issue 25)"]
    every = by_name["JSON-Bag OSLA per decision, all tokens, within 5x of baseline OSLA (issue 25)"]
    rows = [row("osla_decision/dominion", "ours (top100)", "ms/decision", ratio=3.5),
            row("osla_decision/dominion", "ours (none)", "ms/decision", ratio=4.5),
            row("osla_decision/dominion", "baseline heuristic", "ms/decision", ratio=None)]
    assert (check(top100, rows).status, check(top100, rows).n_rows) == ("missed", 1)
    assert (check(every, rows).status, check(every, rows).n_rows) == ("met", 1)
    group = by_name["evaluation group CPU s >= 2x faster than 4412511 (issue 25), every measured game"]
    ops = [row("evaluation_ops/dominion/total", "ours", "CPU s", ratio=2.1),
           row("evaluation_ops/dominion/evaluation_games", "ours", "CPU s", ratio=1.5),
           row("evaluation_ops/dominion/total", "4412511", "CPU s", ratio=None)]
    assert (check(group, ops).status, check(group, ops).n_rows) == ("met", 1)


def test_numbers_and_tables_render_compactly():
    assert (number(None), number(12345.6), number(0.012345), number(2.0)) == ("", "12,346", "0.0123", "2")
    assert table(["a", "b"], [["x|y", 1]]) == ["| a | b |", "|---|---|", "| x\\|y | 1 |"]


def test_run_child_runs_a_module_and_saves_its_rows(tmp_path, monkeypatch):
    fake = types.ModuleType("benchmarks.bench_fake")
    fake.__doc__ = "Fake benchmark: first paragraph\nspans two lines.\n\nDetails."
    seen = {}

    def fake_run(repeats, with_demo=False):
        seen.update(repeats=repeats, with_demo=with_demo)
        return [row(median=repeats)]

    fake.run = fake_run
    monkeypatch.setitem(sys.modules, "benchmarks.bench_fake", fake)
    run_all.run_child("bench_fake", 3, True, tmp_path / "out.json")
    saved = json.loads((tmp_path / "out.json").read_text())
    assert saved == {"doc": "Fake benchmark: first paragraph spans two lines.", "rows": [row(median=3)]}
    assert seen == {"repeats": 3, "with_demo": True}


def test_a_failing_module_subprocess_is_reported_with_its_output():
    result = run_all.run_module("bench_does_not_exist", 1, False)
    assert result["rows"] == [] and "exit status 1" in result["error"]
    assert "No module named 'benchmarks.bench_does_not_exist'" in result["error"]
    assert result["peak_rss_mb"] > 1 and result["wall_s"] > 0


def fake_results(rows, error=None):
    return {"doc": "Doc.", "rows": rows, "error": error, "wall_s": 1.0, "cpu_s": 0.5, "peak_rss_mb": 30.0,
            "repeats": 1, "measured_at": "now"}


def test_main_merges_earlier_results_writes_results_md_and_exits_by_errors_only(tmp_path, monkeypatch):
    monkeypatch.setattr(run_all, "available_modules", lambda: ["bench_engines", "bench_tokenizer"])
    monkeypatch.setattr(run_all, "machine_info", lambda: {"cpu": "test cpu"})
    outcomes = {"bench_engines": fake_results([row("mcts_iterations/connect4", metric="iterations/s", median=10.0)]),
                "bench_tokenizer": fake_results([row("tokenizer/x", metric="states/s", median=5.0, ratio=3.0)])}
    calls = []
    monkeypatch.setattr(run_all, "run_module",
                        lambda name, repeats, demo: calls.append((name, repeats)) or outcomes[name])
    printed = []
    assert run_all.main(repeats=2, results_dir=tmp_path, progress=printed.append) == 0  # a missed target is no error
    assert calls == [("bench_engines", 2), ("bench_tokenizer", 2)]
    text = (tmp_path / "RESULTS.md").read_text()
    assert "| cpu | test cpu |" in text and "## bench_tokenizer" in text
    assert "| MCTS on connect4 >= 40,000 iterations/s | 10 iterations/s | missed |" in text
    assert "MCTS on connect4 >= 40,000 iterations/s: 10 iterations/s" in "\n".join(printed)
    assert "| tokenizer >= 2x the naive reference, every game | 3x | met |" in text

    outcomes["bench_engines"] = fake_results([], error="exit status 1\nTraceback: boom")
    calls.clear()
    assert run_all.main("engines", quick=True, results_dir=tmp_path, progress=lambda *_: None) == 1
    assert calls == [("bench_engines", run_all.QUICK_REPEATS)]
    text = (tmp_path / "RESULTS.md").read_text()
    assert "Traceback: boom" in text and "| tokenizer >= 2x the naive reference, every game | 3x | met |" in text
    saved = json.loads((tmp_path / "results.json").read_text())["modules"]
    assert list(saved) == ["bench_engines", "bench_tokenizer"] and saved["bench_engines"]["error"]

    calls.clear()
    (tmp_path / "RESULTS.md").unlink()
    assert run_all.main(render_only=True, results_dir=tmp_path, progress=lambda *_: None) == 0
    assert calls == [] and "Traceback: boom" in (tmp_path / "RESULTS.md").read_text()


def test_main_rejects_bad_repeats(tmp_path):
    with pytest.raises(ValueError, match="--repeats must be a positive int"):
        run_all.main(repeats=0, results_dir=tmp_path)


def test_render_marks_module_errors():
    text = render({"cpu": "c"}, {"bench_a": fake_results([], error="exit status 2\nbad")}, [], "jbag bench")
    assert "```\nexit status 2\nbad\n```" in text and "| bench_a | now | 1 | 1 | 0.5 | 30 | error |" in text
