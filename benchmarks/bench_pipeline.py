"""Pipeline: wall time, CPU time and peak RSS of the smoke preset (and the demo preset on request) per asset group.

Each Dagster asset group is materialised by its own `jbag run --preset P --data-dir <tmp> --select <group>`
subprocess, in dependency order into one fresh data directory, so the peak RSS (ru_maxrss, see
benchmarks/measured.py) and the times are the group's own. Assets a plain `jbag run` skips are skipped. Every
subprocess pays the interpreter and Dagster start-up, so "all groups" (the sums; the largest peak) bounds one
`jbag run` from above; "step s" is the time inside the materialisation steps that `jbag run` prints, and
"one jbag run (estimate)" (what the targets check) adds the smallest start-up seen to the steps of all groups. One run
per preset: `repeats` does not apply. CPU s (user + system) is given beside wall s because on a loaded
machine the wall time mostly measures waiting.
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
from pathlib import Path

from benchmarks.measured import measure

ROOT = Path(__file__).resolve().parents[1]
STEP_DONE = re.compile(r"^(?:\[\d+/\d+\] .*?: |\s*)done in ([0-9.]+)s", re.MULTILINE)  # jbag run's step lines
# The total row of jbag run's summary (partitions, rows, seconds, CPU s, peak RSS MB): its CPU s counts the ops'
# worker processes, which the launcher's rusage misses (a demo group whose ops took hundreds of CPU s showed 7-12)
SUMMARY_TOTAL = re.compile(r"^\s*total\s+\S+\s+[\d,]+\s+[0-9.]+\s+([0-9.]+|-)\s+(?:[\d,]+|-)\s*$", re.MULTILINE)


def asset_groups() -> list[tuple[str, list[str]]]:
    """(group, asset keys) of every asset a plain `jbag run` materialises, grouped, upstream groups first."""
    import jbag_pipeline.cli.runner as runner
    from jbag_pipeline.definitions import ALL_ASSETS

    # assets `jbag run` skips unless --select names them: tagged jbag/opt_in (run_policy.py), or listed in
    # cli/runner.py by a checkout from before the tags
    opt_in = {spec.key.to_user_string() for a in ALL_ASSETS for spec in a.specs if "jbag/opt_in" in spec.tags} \
        | getattr(runner, "OPT_IN_ASSETS", set())
    group_of, keys_of, needs = {}, {}, {}
    for assets_def in ALL_ASSETS:
        for key, group in assets_def.group_names_by_key.items():
            group_of[key] = group
            if key.to_user_string() not in opt_in:
                keys_of.setdefault(group, []).append(key.to_user_string())
    for assets_def in ALL_ASSETS:
        for key in assets_def.keys:
            upstream = {group_of[dep] for dep in assets_def.dependency_keys if dep in group_of}
            needs.setdefault(group_of[key], set()).update(upstream - {group_of[key]})
    ordered: list[str] = []
    while len(ordered) < len(keys_of):
        ready = [g for g in keys_of if g not in ordered and needs.get(g, set()) & set(keys_of) <= set(ordered)]
        if not ready:
            raise ValueError(f"bench_pipeline: asset groups depend on each other in a cycle: "
                             f"{sorted(set(keys_of) - set(ordered))}")
        ordered.append(ready[0])  # keeps the Definitions' order among groups that are ready together
    return [(group, keys_of[group]) for group in ordered]


def run_measured(command: list[str], env: dict, log: Path) -> dict:
    """Run `command` to completion; its wall seconds, CPU seconds, peak RSS (MB) and the summed step seconds."""
    figures = measure(command, cwd=ROOT, env=env, log=log)
    output = log.read_text(errors="replace")
    if figures["returncode"] != 0:
        raise RuntimeError(f"bench_pipeline: {' '.join(command[2:])} exited with {figures['returncode']}:\n"
                           f"{output[-3000:]}")
    op_cpu = SUMMARY_TOTAL.findall(output)
    return {**figures, "steps": sum(float(s) for s in STEP_DONE.findall(output)),
            "op_cpu": sum(0.0 if s == "-" else float(s) for s in op_cpu) if op_cpu else None}


def preset_rows(preset: str) -> list[dict]:
    """Materialise every asset group of `preset` into a fresh data directory; rows per group and in all."""
    rows, totals, start_ups = [], {"wall": 0.0, "cpu": 0.0, "steps": 0.0, "op_cpu": None, "rss_mb": 0.0}, []
    with tempfile.TemporaryDirectory(prefix=f"jbag-bench-{preset}-") as folder:
        data = Path(folder) / "data"
        env = {**os.environ, "DAGSTER_HOME": str(data / "dagster_home"),
               "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
        for group, keys in asset_groups():
            command = [sys.executable, "-m", "jbag_pipeline.cli", "run", "--preset", preset,
                       "--data-dir", str(data), "--select", ",".join(keys)]
            measured = run_measured(command, env, Path(folder) / f"{group}.log")
            rows += _rows(f"pipeline/{preset}/{group}", measured)
            for name in ("wall", "cpu", "steps"):
                totals[name] += measured[name]
            if measured["op_cpu"] is not None:  # None: a jbag run without the summary's CPU column (older commits)
                totals["op_cpu"] = (totals["op_cpu"] or 0.0) + measured["op_cpu"]
            totals["rss_mb"] = max(totals["rss_mb"], measured["rss_mb"])
            start_ups.append(measured["wall"] - measured["steps"])
    # One `jbag run` of every group would pay a single start-up: the group steps plus the smallest overhead seen.
    one_run = totals["steps"] + min(start_ups)
    return rows + _rows(f"pipeline/{preset}/all groups", totals) + [
        {"benchmark": f"pipeline/{preset}/one jbag run (estimate)", "subject": "ours", "metric": "wall s",
         "median": one_run, "ratio": None}]


def _rows(benchmark: str, measured: dict) -> list[dict]:
    return [{"benchmark": benchmark, "subject": "ours", "metric": metric, "median": measured[name], "ratio": None}
            for metric, name in (("wall s", "wall"), ("CPU s", "cpu"), ("step s", "steps"), ("op CPU s", "op_cpu"),
                                 ("peak RSS MB", "rss_mb")) if measured[name] is not None]


def run(repeats: int = 5, with_demo: bool = False) -> list[dict]:
    """The smoke preset, then (with_demo) the demo preset, which takes many minutes."""
    rows = preset_rows("smoke")
    if with_demo:
        rows += preset_rows("demo")
    return rows


if __name__ == "__main__":
    for result in run(with_demo="--with-demo" in sys.argv[1:]):
        print(f"{result['benchmark']:36s} {result['median']:10.1f} {result['metric']}")
