"""Every user mistake or environment fault ends in one short error line (exit 2), tracebacks only with --debug;
`jbag run --select` refreshes the catalog."""

import errno
import json
import os
import subprocess
import sys
from pathlib import Path

import duckdb
import polars as pl
import pytest

import jbag_pipeline.cli.commands as cli
import jbag_pipeline.cli.checks as cli_checks
import jbag_pipeline.storage.lake as lake

REPO = Path(__file__).resolve().parents[2]
TINY_RUN = ["run", "--preset", "smoke", "--select", "selfplay_games", "--games", "tictactoe"]

# (argv, what the error line says); each runs with JBAG_PRESET=bad so `ingest` meets a bad preset
BAD_ARGUMENTS = [
    (["run", "--preset", "nope"], "unknown preset 'nope'"),
    (["run", "--preset", "smoke", "--seed", str(2**64)], "outside 0..2^32-1"),
    (["run", "--preset", "smoke", "--seed", str(2**32)], "outside 0..2^32-1"),
    (["run", "--preset", "smoke", "--seed", "-1"], "outside 0..2^32-1"),
    (["run", "--preset", "smoke", "--seed", "1e3"], "not an integer"),
    (["run", "--preset", "smoke", "--select", "selfplay_gmes"], "did you mean 'selfplay_games'?"),
    (["run", "--preset", "smoke", "--select", ","], "--select names no asset"),
    (["run", "--preset", "smoke", "--games", "connect4,chess"], "unknown game(s) 'chess'"),
    (["run", "--preset", "smoke", "--compute", "gpu"], "unknown backend 'gpu'"),
    (["run", "--preset", "smoke", "--scheduler", "tcp://127.0.0.1:8786"], "only for --compute dask"),
    (["run", "--preset", "smoke", "--compute", "dask"], "needs a scheduler address"),
    (["run", "--preset", "smoke", "--compute", "dask", "--scheduler", "tcp://127.0.0.1:1"],
     "cannot reach the Dask scheduler at tcp://127.0.0.1:1"),
    (["run", "--preset", "smoke", "--workers", "0"], "not a positive number of workers"),
    (["run", "--preset", "smoke", "--workers", str(10**30)], "10000000...(31 digits) is more than 1024 workers"),
    (["run", "--preset", "smoke", "--compute", "dask", "--workers", "1025", "--scheduler", "tcp://127.0.0.1:1"],
     "1025 is more than 1024 workers"),
    (["run", "--preset", "smoke", "--scheduler-timeout", "0"], "not a positive, finite number of seconds"),
    (["report"], "does not exist"),
    (["ingest", "game.json"], "unknown preset 'bad'"),
]

SCRIPT = """
import contextlib, io, json, sys
import jbag_pipeline.cli.commands as cli
out = []
for argv in json.loads(sys.argv[1]):
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        try:
            rc = cli.main(argv)
        except SystemExit as exit:
            rc = exit.code
    out.append([rc, err.getvalue()])
print(json.dumps({"results": out, "dagster_imported": "dagster" in sys.modules}))
"""


def _run_script(argvs: list[list[str]], cwd: Path, **env) -> dict:
    done = subprocess.run([sys.executable, "-c", SCRIPT, json.dumps(argvs)], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(REPO), **env}, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_bad_arguments_fail_in_one_line_before_dagster_is_imported_and_create_nothing(tmp_path):
    data = tmp_path / "data"
    argvs = [argv + ["--data-dir", str(data)] for argv, _ in BAD_ARGUMENTS]
    answer = _run_script(argvs, tmp_path, JBAG_PRESET="bad")
    for (argv, expected), (rc, err) in zip(BAD_ARGUMENTS, answer["results"]):
        assert rc == 2, (argv, err)
        assert err.count("\n") == 1 and err.startswith(f"jbag {argv[0]}: error: "), (argv, err)
        assert expected in err, (argv, err)
    assert not data.exists()
    assert list(tmp_path.iterdir()) == []
    assert not answer["dagster_imported"]


def test_data_directory_that_is_a_file_or_inside_one(tmp_path):
    afile = tmp_path / "afile"
    afile.write_text("not a directory")
    argvs = [["run", "--preset", "smoke", "--data-dir", str(afile)],
             ["ingest", "x.json", "--data-dir", str(afile / "data")],
             ["report", "--data-dir", str(afile)],
             ["ingest", "x.json", "--game", "Bad Name", "--data-dir", str(tmp_path / "data")]]
    answer = _run_script(argvs, tmp_path)
    (rc1, err1), (rc2, err2), (rc3, err3), (rc4, err4) = answer["results"]
    assert (rc1, rc2, rc3, rc4) == (2, 2, 2, 2)
    assert "game name 'Bad Name'" in err4 and err4.count("\n") == 1
    assert err1 == f"jbag run: error: data directory {afile} is a file, not a directory\n"
    assert f"cannot be created: {afile} is a file" in err2
    assert "is a file, not a directory" in err3
    assert afile.read_text() == "not a directory" and sorted(tmp_path.iterdir()) == [afile]
    assert not answer["dagster_imported"]


def test_read_only_data_directory_is_refused_before_anything_runs(tmp_path, monkeypatch, capsys):
    # tests run as root here, where chmod cannot make a directory read-only; os.access is what reports a read-only
    # mount (even for root), so it stands in for one
    monkeypatch.setattr(os, "access", lambda path, mode: Path(path) != tmp_path)
    assert cli.main(TINY_RUN + ["--data-dir", str(tmp_path / "data")]) == 2
    err = capsys.readouterr().err
    assert err == (f"jbag run: error: data directory {tmp_path / 'data'} is not writable ({tmp_path} is "
                   "read-only); choose another with --data-dir or JBAG_DATA_DIR\n")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into a mode-0555 directory")
def test_mode_0555_data_directory_is_refused(tmp_path, capsys):
    tmp_path.chmod(0o555)
    try:
        assert cli.main(["report", "--data-dir", str(tmp_path)]) == 2
    finally:
        tmp_path.chmod(0o755)
    assert "is not writable" in capsys.readouterr().err


@pytest.mark.parametrize("fault, expected", [
    # what polars raises when the disk fills during write_parquet (measured on a full tmpfs)
    (pl.exceptions.ComputeError("parquet: File out of specification: underlying IO error: No space left on device "
                                "(os error 28)"), "no space left on the device of data directory"),
    (OSError(errno.EROFS, "Read-only file system", "part.parquet"), "part.parquet is on a read-only file system"),
    (PermissionError(errno.EACCES, "Permission denied", "part.parquet"), "permission denied writing part.parquet"),
])
def test_write_faults_during_a_run_end_in_one_line(tmp_path, monkeypatch, capsys, fault, expected):
    def failing_write(self, *args, **kwargs):
        raise fault

    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "dagster_home"))  # restored after the test
    monkeypatch.setattr(pl.DataFrame, "write_parquet", failing_write)
    root = tmp_path / "data"
    assert cli.main(TINY_RUN + ["--data-dir", str(root)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("jbag run: error: ") and expected in err, err
    assert list(root.rglob("*.parquet*")) == []  # the failed write left no temporary file behind
    with pytest.raises(type(fault)):  # --debug lets the exception (and its traceback) through
        cli.main(TINY_RUN + ["--data-dir", str(root), "--debug"])


def test_run_select_refreshes_the_catalog_and_a_truncated_file_is_named(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "dagster_home"))
    root = tmp_path / "data"
    assert cli.main(TINY_RUN + ["--data-dir", str(root)]) == 0
    with duckdb.connect(str(root / "jbag.duckdb"), read_only=True) as con:
        assert con.execute("SELECT game, count(*) FROM games GROUP BY game").fetchall() == [("tictactoe", 8)]
        assert con.execute("SELECT count(DISTINCT game_id) FROM states").fetchone()[0] == 8
    part = lake.partition_path(root, "selfplay_games", {"game": "tictactoe"})
    part.write_bytes(part.read_bytes()[:200])
    capsys.readouterr()
    assert cli.main(["report", "--data-dir", str(root)]) == 2  # polars meets it
    assert capsys.readouterr().err == (
        f"jbag report: error: lake file {part} is not readable Parquet (parquet: File out of specification: The file "
        "must end with PAR1 or PARE); delete it and re-materialise the asset that writes table 'selfplay_games'\n")
    assert cli.main(["run", "--preset", "smoke", "--select", "catalog", "--data-dir", str(root)]) == 2  # DuckDB does
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"lake file {part} is not readable Parquet" in err
    assert "re-materialise the asset that writes table 'selfplay_games'" in err


def test_report_on_a_missing_data_directory_creates_nothing(tmp_path):
    from jbag_pipeline.report import write_report

    with pytest.raises(FileNotFoundError, match="does not exist"):
        write_report(tmp_path / "missing")
    assert list(tmp_path.iterdir()) == []


def test_seed_bounds():
    assert cli_checks.seed("0") == 0
    assert cli_checks.seed(str(2**32 - 1)) == 2**32 - 1
    for bad in (str(2**32), str(2**63), "-1", "seven"):
        with pytest.raises(Exception, match="outside|not an integer"):
            cli_checks.seed(bad)


def test_select_plans_the_catalog_last_in_a_step_of_its_own():
    from jbag_pipeline.definitions import ALL_ASSETS
    from jbag_pipeline.cli.runner import CHANGED_INGESTED_GAMES, plan

    assert plan(ALL_ASSETS, ["reference_reproduction"], None) == [(["reference_reproduction"], None), (["catalog"], None)]
    assert plan(ALL_ASSETS, ["reference_reproduction", "catalog"], None)[-1] == (["catalog"], None)
    published = ["published_value_functions", "published_vf_evaluation"]
    assert plan(ALL_ASSETS, published, None) == [(published, None), (["catalog"], None)]
    assert not {key for keys, _ in plan(ALL_ASSETS, None, None) for key in keys} & set(published)  # opt-in
    assert "ingested_vf_evaluation" not in {key for keys, _ in plan(ALL_ASSETS, None, None) for key in keys}
    steps = plan(ALL_ASSETS, ["ingested_vf_evaluation", "ingested_prototypes"], None)  # after the ingested model
    assert [keys for keys, _ in steps] == [["ingested_prototypes"], ["ingested_vf_evaluation"], ["catalog"]]
    assert steps[0][1] is CHANGED_INGESTED_GAMES
    steps = plan(ALL_ASSETS, ["selfplay_games"], ["tictactoe"])  # selfplay writes both tables: selected together
    assert [(sorted(keys), key) for keys, key in steps] == [(["selfplay_games", "selfplay_states"], "tictactoe"),
                                                            (["catalog"], None)]


def test_error_line_of_foreign_errors():
    assert cli_checks.error_line(RuntimeError("boom\nmore"), None) == \
        "RuntimeError: boom (rerun with --debug for the traceback)"
    cycle = ValueError("outer")
    inner = OSError(errno.ENOSPC, "No space left on device")
    cycle.__context__, inner.__context__ = inner, cycle  # Dagster re-raises with cyclic contexts
    assert cli_checks.error_line(cycle, Path("/d")).startswith("no space left on the device of data directory /d")


def test_dagster_event_log_failures_are_summed_in_one_warning_line(capsys):
    from jbag_pipeline.cli.stderr_filter import EVENT_LOG_FAILURE, event_log_failures_summed

    with event_log_failures_summed():
        for _ in range(5):
            sys.stderr.write(f"{EVENT_LOG_FAILURE}(sqlite3.OperationalError) database or disk is full\n"
                             "(Background on this error at: https://sqlalche.me/e/21/e3q8)\n")
        sys.stderr.write("another line\n")
    assert capsys.readouterr().err == ("another line\njbag run: warning: 5 Dagster log record(s) could not be stored "
                                       "in its event log ((sqlite3.OperationalError) database or disk is full)\n")
    with pytest.raises(OSError), event_log_failures_summed():  # a failed run: its error line says why
        sys.stderr.write(f"{EVENT_LOG_FAILURE}disk is full\n")
        raise OSError(errno.ENOSPC, "No space left on device")
    assert capsys.readouterr().err == ""


@pytest.mark.skipif(os.geteuid() != 0, reason="mounting a small tmpfs needs root")
def test_a_full_disk_on_a_fresh_run_is_one_line_naming_the_data_directory(tmp_path):
    # 1 MB fills while the catalog is written, after Dagster failed to store some of its log records (each of
    # which was two more stderr lines)
    disk = tmp_path / "disk"
    disk.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(disk)],
                      capture_output=True).returncode != 0:
        pytest.skip("cannot mount a tmpfs here")
    try:
        done = subprocess.run([sys.executable, "-m", "jbag_pipeline.cli", *TINY_RUN, "--compute", "inline",
                               "--data-dir", str(disk / "data")], cwd=tmp_path, capture_output=True, text=True,
                              timeout=600, env={**os.environ, "PYTHONPATH": str(REPO),
                                                "DAGSTER_HOME": str(disk / "data" / "dagster_home")})
    finally:
        subprocess.run(["umount", str(disk)], check=True)
    assert done.returncode == 2
    assert done.stderr == (f"jbag run: error: no space left on the device of data directory {disk / 'data'}; "
                           "free some space and rerun\n")


def test_run_help_names_every_built_in_preset():
    from jbag_pipeline.presets import PRESET_NAMES

    run_parser = cli.build_parser()._subparsers._group_actions[0].choices["run"]
    preset_help = next(a.help for a in run_parser._actions if a.dest == "preset")
    assert all(name in preset_help.split(" | ") for name in PRESET_NAMES)
