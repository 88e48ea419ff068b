"""Run the benchmark modules, check the issue's targets and write benchmarks/RESULTS.md (`jbag bench`, `make bench`).

Every module (benchmarks/bench_*.py, each with `run(repeats) -> rows`) runs in its own subprocess of this
command, one after another, so its peak memory can be measured exactly: ru_maxrss of the subprocess and its
children, from os.wait4 in a small launcher (benchmarks/measured.py); tracemalloc would miss C allocations
and slow the timed code down. The latest rows of
every module are kept in benchmarks/results.json, so `--only` refreshes some modules and keeps the rest.
Exit status: 0 when every module ran (missed targets are reported, not errors), 1 when a module failed.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import json
import math
import numbers
import os
import sys
import tempfile
from datetime import datetime, timezone
from pathlib import Path

from benchmarks.machine import machine_info
from benchmarks.measured import measure
from benchmarks.results_md import render, summary
from benchmarks.targets import check_all

ROOT = Path(__file__).resolve().parents[1]
HERE = Path(__file__).resolve().parent
# Cheap, per-topic modules first; the slow end-to-end ones last. Other bench_*.py files run after these.
ORDER = ("bench_tokenizer", "bench_engines", "bench_engines_i", "bench_openspiel_mcts", "bench_dominion",
         "bench_sea_salt_paper", "bench_seven_wonders", "bench_card_engines", "bench_value", "bench_mcts_value",
         "bench_selection", "bench_selection_demo", "bench_scaling", "bench_compute", "bench_pipeline")
QUICK_REPEATS = 1
ROW_KEYS = ("benchmark", "subject", "metric", "median", "ratio")


def available_modules(folder: Path = HERE) -> list[str]:
    """Names of the benchmark modules in `folder`, in ORDER, then the others alphabetically."""
    found = {path.stem for path in folder.glob("bench_*.py")}
    return [name for name in ORDER if name in found] + sorted(found - set(ORDER))


def choose_modules(only: str | None, available: list[str]) -> list[str]:
    """The modules named in `only` (comma-separated, with or without the bench_ prefix), else all of them."""
    if not only:
        return available
    chosen = []
    for name in (part.strip() for part in only.split(",") if part.strip()):
        module = name if name.startswith("bench_") else f"bench_{name}"
        if module not in available:
            raise ValueError(f"--only: no benchmark module {name!r}; available: {', '.join(available)}")
        chosen.append(module)
    return chosen


def validate_rows(module: str, rows) -> list[dict]:
    """Check a module's rows have the shared shape; a one-line ValueError names the module and the row."""
    if not isinstance(rows, list) or not rows:
        raise ValueError(f"{module}: run() must return a non-empty list of rows, got {type(rows).__name__}")
    for i, row in enumerate(rows):
        if not isinstance(row, dict) or set(row) != set(ROW_KEYS):
            raise ValueError(f"{module}: row {i} must have exactly the keys {list(ROW_KEYS)}, got {row!r}")
        for key in ("benchmark", "subject", "metric"):
            if not isinstance(row[key], str) or not row[key]:
                raise ValueError(f"{module}: row {i} {key} must be a non-empty string, got {row[key]!r}")
        for key in ("median", "ratio"):
            value = row[key]
            if value is None and key == "ratio":
                continue
            if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value):
                raise ValueError(f"{module}: row {i} ({row['benchmark']}) {key} must be a finite number, got {value!r}")
    # numpy scalars become plain floats, so the rows can be saved as JSON
    return [{**{key: row[key] for key in ROW_KEYS}, "median": float(row["median"]),
             "ratio": None if row["ratio"] is None else float(row["ratio"])} for row in rows]


def module_doc(module) -> str:
    """The first paragraph of a module's docstring, on one line."""
    doc = inspect.getdoc(module) or ""
    return " ".join(doc.split("\n\n")[0].split())


def run_child(name: str, repeats: int, with_demo: bool, out: Path) -> None:
    """In the subprocess: import benchmarks.<name>, run it, validate and save its rows as JSON."""
    module = importlib.import_module(f"benchmarks.{name}")
    kwargs = {"with_demo": True} if with_demo and "with_demo" in inspect.signature(module.run).parameters else {}
    rows = validate_rows(name, module.run(repeats, **kwargs))
    out.write_text(json.dumps({"doc": module_doc(module), "rows": rows}))


def run_module(name: str, repeats: int, with_demo: bool) -> dict:
    """Run one module in a subprocess: its rows (or error), wall and CPU seconds and peak RSS."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    with tempfile.TemporaryDirectory(prefix="jbag-bench-") as folder:
        out, log = Path(folder) / "rows.json", Path(folder) / "output.log"
        command = [sys.executable, "-m", "benchmarks.run_all", "--child", name, "--repeats", str(repeats),
                   "--out", str(out)] + (["--with-demo"] if with_demo else [])
        figures = measure(command, cwd=ROOT, env=env, log=log)
        code = figures["returncode"]
        result = json.loads(out.read_text()) if code == 0 and out.exists() else None
        error = None if result else f"exit status {code}\n{log.read_text(errors='replace')[-4000:]}"
    return {
        "doc": result["doc"] if result else "", "rows": result["rows"] if result else [], "error": error,
        "wall_s": figures["wall"], "cpu_s": figures["cpu"], "peak_rss_mb": figures["rss_mb"], "repeats": repeats,
        "measured_at": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
    }


def load_previous(path: Path) -> tuple[dict, dict[str, dict]]:
    """The machine and the module results saved by earlier runs (empty when there are none or unreadable)."""
    try:
        saved = json.loads(path.read_text())
        return dict(saved["machine"]), dict(saved["modules"])
    except (OSError, ValueError, KeyError, TypeError):
        return {}, {}


def main(only: str | None = None, repeats: int = 5, *, with_demo: bool = False, quick: bool = False,
         render_only: bool = False, results_dir: Path = HERE, progress=print) -> int:
    """Run the chosen modules, merge with earlier results, write RESULTS.md and results.json, print a summary.

    render_only runs nothing: RESULTS.md is rewritten from results.json (after a change to the targets, say).
    """
    if quick:
        repeats = QUICK_REPEATS
    if type(repeats) is not int or repeats < 1:
        raise ValueError(f"--repeats must be a positive int, got {repeats!r}")
    available = available_modules()
    chosen = [] if render_only else choose_modules(only, available)
    results_path = Path(results_dir) / "results.json"
    saved_machine, saved_modules = load_previous(results_path)
    machine = saved_machine if render_only and saved_machine else machine_info()
    modules = {name: m for name, m in saved_modules.items() if name in available}
    failed = []
    for name in chosen:
        progress(f"{name} (repeats {repeats}) ...")
        modules[name] = run_module(name, repeats, with_demo)
        m = modules[name]
        progress(f"    {'FAILED' if m['error'] else 'done'} in {m['wall_s']:.0f}s, peak RSS {m['peak_rss_mb']:.0f} MB")
        if m["error"]:
            failed.append(name)
            progress(m["error"])
    modules = {name: modules[name] for name in available if name in modules}
    verdicts = check_all([row for m in modules.values() for row in m["rows"]])
    options = f"--repeats {repeats}" + (f" --only {only}" if only else "") + (" --with-demo" if with_demo else "")
    command = "python -m benchmarks.run_all --render-only" if render_only else f"jbag bench {options}"
    results_path.write_text(json.dumps({"machine": machine, "modules": modules}, indent=1) + "\n")
    (Path(results_dir) / "RESULTS.md").write_text(render(machine, modules, verdicts, command))
    progress(summary(modules, verdicts))
    progress(f"\nwrote {Path(results_dir) / 'RESULTS.md'}")
    if failed:
        progress(f"benchmark modules failed: {', '.join(failed)}")
    return 1 if failed else 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.run_all", description=__doc__.split("\n")[0])
    parser.add_argument("--only", help="comma-separated module names (e.g. engines,tokenizer)")
    parser.add_argument("--repeats", type=int, default=5, help="repetitions per measurement (default 5)")
    parser.add_argument("--quick", action="store_true", help=f"{QUICK_REPEATS} repetition per measurement")
    parser.add_argument("--with-demo", action="store_true", help="also time the demo preset (many minutes)")
    parser.add_argument("--render-only", action="store_true", help="rewrite RESULTS.md from results.json, run nothing")
    parser.add_argument("--child", help=argparse.SUPPRESS)  # internal: run one module in this process
    parser.add_argument("--out", help=argparse.SUPPRESS)
    return parser


def cli(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.child:
        run_child(args.child, args.repeats, args.with_demo, Path(args.out))
        return 0
    try:
        return main(args.only, args.repeats, with_demo=args.with_demo, quick=args.quick, render_only=args.render_only)
    except ValueError as exc:
        print(f"benchmarks: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(cli())
