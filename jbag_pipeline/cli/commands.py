"""The `jbag` command: run the pipeline, query the catalog, ingest outside logs, build the report, benchmark."""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

import jbag_pipeline.cli.checks as cli_checks
import jbag_pipeline.cli.interrupt as interrupt
import jbag_pipeline.storage.lake as lake
from jbag_pipeline.cli.asset_names import ASSET_NAMES


def cmd_run(args) -> int:
    from engines import GAMES
    from jbag_pipeline.preset_files import is_preset_file, load_preset, preset_reference

    # every argument is checked before Dagster is imported (seconds) and before anything is created
    reference = preset_reference(args.preset)  # a file travels as its absolute path: each process re-reads it
    preset = load_preset(reference, args.seed)
    select = cli_checks.names("--select", args.select, ASSET_NAMES, "asset")
    games = cli_checks.names("--games", args.games, sorted(GAMES), "game")
    root = lake.data_dir(args.data_dir)
    cli_checks.check_data_dir(root, must_exist=False)
    backend, scheduler, workers = cli_checks.compute_choice(args.compute, args.scheduler, args.workers,
                                                            args.scheduler_timeout)
    if backend == "local":
        from jbag_pipeline.compute import LocalCompute

        LocalCompute(workers).start()  # the workers' imports run beside Dagster's start-up below

    from jbag_pipeline.storage.catalog import catalog_path
    from jbag_pipeline.definitions import ALL_ASSETS
    from jbag_pipeline.resources import JbagCompute, JbagSettings, LakeResource
    from jbag_pipeline.cli.runner import dagster_instance, fail_orphaned_runs, materialize_all

    settings, location = JbagSettings(preset=reference, seed=args.seed), LakeResource(data_dir=str(root))
    compute = JbagCompute(backend=backend, scheduler=scheduler, workers=workers,
                          scheduler_timeout=args.scheduler_timeout)
    source = f" (file {reference})" if is_preset_file(reference) else ""
    print(f"jbag run: preset {preset.name}{source}, seed {preset.seed}, data in {root}, games on "
          f"{compute.get_compute().describe()}")
    instance = dagster_instance(root)
    for run_id in fail_orphaned_runs(instance):
        print(f"marked Dagster run {run_id} failed: the jbag run that started it was killed")
    from rich.console import Console

    from jbag_pipeline.cli.progress import LiveProgress, summary_table

    console = Console()  # not a terminal (CI, a log, a test): plain lines, no bars and no control characters
    display = LiveProgress(console) if console.is_terminal else None
    from jbag_pipeline.cli.stderr_filter import event_log_failures_summed

    start = time.perf_counter()
    with event_log_failures_summed():  # a full disk: one line per Dagster log record otherwise
        results = materialize_all(ALL_ASSETS, settings, location, select, games, instance=instance, compute=compute,
                                  display=display)
    print(f"\nmaterialised {sum(len(r.assets) for r in results)} asset partitions in {time.perf_counter() - start:.0f}s")
    # not a terminal: rich would fold the table to 80 columns, and a log reads better with one line per op
    (console if console.is_terminal else Console(width=132)).print(summary_table(results))
    report = root / "report" / "index.html"
    if report.exists():
        print(f"report:  {report}")
    if catalog_path(root).exists():
        print(f"catalog: {catalog_path(root)}   (query it: jbag sql \"SELECT * FROM games LIMIT 5\")")
    return 0


def cmd_sql(args) -> int:
    from jbag_pipeline.cli.sql import run_query_cli

    if args.list and args.query is not None:
        raise ValueError("--list takes no query")
    return run_query_cli(args.query, lake.data_dir(args.data_dir), args.format, timeout=args.timeout,
                         max_rows=args.max_rows, list_only=args.list, memory=args.memory)


def cmd_ingest(args) -> int:
    from jbag_pipeline.ingest.trajectories import check_game_name
    from jbag_pipeline.preset_files import load_preset

    load_preset()  # JBAG_PRESET names the preset of the ingest run: refuse a bad one before Dagster is imported
    if args.game is not None:
        check_game_name(args.game)
    root = lake.data_dir(args.data_dir)
    cli_checks.check_data_dir(root, must_exist=False)
    from jbag_pipeline.cli.ingest import run_ingest_cli

    return run_ingest_cli(args.paths, root, args.game, args.mode)


def cmd_report(args) -> int:
    root = lake.data_dir(args.data_dir)
    cli_checks.check_data_dir(root, must_exist=True)
    from jbag_pipeline.report import write_report

    path = write_report(root)
    print(f"report: {path}")
    return 0


def bench_command(args) -> list[str]:
    """The `python -m benchmarks.run_all` command line that `jbag bench` with these arguments runs."""
    command = [sys.executable, "-m", "benchmarks.run_all", "--repeats", str(args.repeats)]
    if args.only is not None:
        command += ["--only", args.only]
    flags = {"--quick": args.quick, "--with-demo": args.with_demo, "--render-only": args.render_only}
    return command + [flag for flag, on in flags.items() if on]


def cmd_bench(args) -> int:
    repository = Path(__file__).resolve().parents[2]
    if not (repository / "benchmarks" / "run_all.py").is_file():
        raise FileNotFoundError(f"no benchmarks/ folder in {repository}; jbag bench runs from a clone of the repository")
    # benchmarks/ sits beside the packages, not inside the installed ones: run it from the repository
    return subprocess.run(bench_command(args), cwd=repository).returncode


EXIT_CODES = """exit codes:
  0    done
  1    jbag sql: the query was refused or failed
  2    error, reported in one line on stderr (bad argument; data directory missing, a file, read-only or full;
       corrupt lake file; a failed asset); --debug shows the traceback
  3    jbag ingest: done, but some records were quarantined (the good games landed)
  130  interrupted (Ctrl-C)"""


class OneLineParser(argparse.ArgumentParser):
    """argparse with its usage errors in one line (`jbag run: error: ...`), exit 2."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(prog="jbag", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="materialise the asset graph (what the Dagster UI would do)")
    run.add_argument("--preset", help="smoke | demo | reproduce | paper | a TOML preset file, FILE.toml (default: JBAG_PRESET, "
                     "else demo)")
    run.add_argument("--seed", type=cli_checks.seed, help="run seed in 0..2^32-1 (default: the preset's)")
    run.add_argument("--data-dir", help="data directory (default: JBAG_DATA_DIR, else ./data)")
    run.add_argument("--select", help="comma-separated asset names (default: every asset); the catalog's "
                     "views are refreshed after them")
    run.add_argument("--games", help="comma-separated game partitions (default: every registered game)")
    run.add_argument("--compute", help="where the games run: inline (this process) | local (processes on every "
                     "core) | dask (a Dask cluster; needs --scheduler) (default: JBAG_COMPUTE, else local)")
    run.add_argument("--scheduler", help="the Dask scheduler, tcp://HOST:PORT (default: JBAG_SCHEDULER)")
    run.add_argument("--workers", type=cli_checks.positive_int,
                     help="local: worker processes (default: every core); dask: wait until this many workers joined"
                     " (at most 1024)")
    run.add_argument("--scheduler-timeout", type=cli_checks.seconds, metavar="SECONDS",
                     help="seconds the Dask scheduler has to answer (default: JBAG_SCHEDULER_TIMEOUT, else 30)")
    run.set_defaults(func=cmd_run)
    sql = sub.add_parser("sql", help="read-only SQL over the catalog views; no query = interactive prompt")
    sql.add_argument("query", nargs="?")
    sql.add_argument("--format", choices=["table", "csv", "json"], default="table")
    sql.add_argument("--data-dir")
    sql.add_argument("--timeout", type=float, default=60.0, help="seconds a query may run before it is cancelled (default 60)")
    sql.add_argument("--max-rows", type=int, default=1000,
                     help="rows shown in table format, 0 for all (default 1000); csv and json print every row")
    sql.add_argument("--list", action="store_true", help="list the views with their row counts")
    sql.add_argument("--memory", default="2GB",
                     help="memory cap of the query process, output included (default 2GB); past it the query stops")
    sql.set_defaults(func=cmd_sql)
    ingest = sub.add_parser("ingest", help="ingest trajectory files recorded elsewhere (JSON arrays or JSON Lines)")
    ingest.add_argument("paths", nargs="+", metavar="PATH", help="files, or folders searched for .json/.jsonl/.ndjson")
    ingest.add_argument("--data-dir")
    ingest.add_argument("--game", help="game name (default: the states' gameType lower-cased, else the folder name)")
    ingest.add_argument("--mode", choices=["ordered", "unordered", "both"], default="both",
                        help="JSON-Bag tokenization mode of these games (default: both)")
    ingest.set_defaults(func=cmd_ingest)
    report = sub.add_parser("report", help="regenerate data/report/ from the lake")
    report.add_argument("--data-dir")
    report.set_defaults(func=cmd_report)
    bench = sub.add_parser("bench", help="run the benchmark suite and write benchmarks/RESULTS.md")
    bench.add_argument("--only", help="comma-separated benchmark module names")
    bench.add_argument("--repeats", type=int, default=5)
    bench.add_argument("--quick", action="store_true", help="fewer repeats")
    bench.add_argument("--with-demo", action="store_true", help="also time the demo preset end to end (minutes)")
    bench.add_argument("--render-only", action="store_true", help="rewrite RESULTS.md from results.json only")
    bench.set_defaults(func=cmd_bench)
    for command in (parser, *sub.choices.values()):
        command.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                             help="print the traceback of an error instead of one line")
        command.epilog, command.formatter_class = EXIT_CODES, argparse.RawDescriptionHelpFormatter
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command != "run" or getattr(args, "debug", False):
        interrupt.hand_back()  # jbag sql's prompt cancels a query on KeyboardInterrupt; --debug shows where it was
    if getattr(args, "debug", False):
        return args.func(args)
    try:
        return args.func(args)
    except KeyboardInterrupt:
        print(f"jbag {args.command}: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # noqa: BLE001 - every failure ends in one line; --debug shows the traceback
        root = lake.data_dir(args.data_dir) if hasattr(args, "data_dir") else None
        print(f"jbag {args.command}: error: {cli_checks.error_line(exc, root)}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
