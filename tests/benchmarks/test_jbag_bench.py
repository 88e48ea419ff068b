"""`jbag bench` runs `python -m benchmarks.run_all` as a subprocess in the repository and passes its exit code on."""

import subprocess
import sys
from pathlib import Path

import jbag_pipeline.cli.commands as cli

REPO = Path(__file__).resolve().parents[2]


def test_bench_runs_the_suite_in_a_subprocess_from_the_repository(monkeypatch):
    calls = []

    def fake_run(command, cwd):
        calls.append((command, cwd))
        return subprocess.CompletedProcess(command, 7)

    monkeypatch.setattr(cli.subprocess, "run", fake_run)
    path_before = list(sys.path)
    assert cli.main(["bench", "--only", "engines,tokenizer", "--quick", "--with-demo"]) == 7
    assert cli.main(["bench", "--repeats", "2", "--render-only"]) == 7
    assert calls == [
        ([sys.executable, "-m", "benchmarks.run_all", "--repeats", "5", "--only", "engines,tokenizer", "--quick",
          "--with-demo"], REPO),
        ([sys.executable, "-m", "benchmarks.run_all", "--repeats", "2", "--render-only"], REPO),
    ]
    assert sys.path == path_before


def test_bench_passes_the_suite_exit_code_and_error_on(capfd):
    assert cli.main(["bench", "--only", "nope"]) == 2
    assert "benchmarks: error: --only: no benchmark module 'nope'" in capfd.readouterr().err


def test_bench_without_a_benchmarks_folder_fails_in_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(cli, "__file__", str(tmp_path / "jbag_pipeline" / "cli" / "commands.py"))
    assert cli.main(["bench"]) == 2
    assert capsys.readouterr().err == (f"jbag bench: error: no benchmarks/ folder in {tmp_path}; "
                                       "jbag bench runs from a clone of the repository\n")
