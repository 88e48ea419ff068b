"""Proof that nothing is lost: determinism, crash safety, idempotence, SQL during a run, and the UI's launch path.

Every run here is the real `jbag run` or `dagster-webserver` in a subprocess, on the smoke preset's tic-tac-toe
partitions, with DAGSTER_HOME and the data directory inside the test's temporary folder.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import dagster as dg
import numpy as np
import polars as pl
import psutil
import pytest
from dagster._core.storage.dagster_run import DagsterRun

import jbag_pipeline.storage.lake as lake
from jbag_pipeline.storage.catalog import VIEWS, published_dir, publish
from jbag_pipeline.storage.query import open_catalog
from jbag_pipeline.cli.runner import PROCESS_TAG, fail_orphaned_runs, process_tag
from jbag_pipeline.compute import lifeline
from tests.helpers.storage import build_catalog, run_query, table_glob

REPO = Path(__file__).resolve().parents[2]
SMOKE_RUN = ("run", "--preset", "smoke", "--games", "tictactoe")
RUN_TIMEOUT = 600  # seconds; a smoke tic-tac-toe run takes about a minute on a loaded 2-core machine
COUNTED_VIEWS = {"games": "selfplay_games", "tokens": "state_tokens", "bags": "trajectory_bags"}
COUNT_QUERY = "SELECT " + ", ".join(f"(SELECT count(*) FROM {v}) AS {v}" for v in COUNTED_VIEWS)


def subprocess_env(**extra: str) -> dict[str, str]:
    """This environment without the user's jbag/Dagster settings, with the repository importable."""
    env = {k: v for k, v in os.environ.items() if k not in ("DAGSTER_HOME", "JBAG_DATA_DIR", "JBAG_PRESET")}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH")) if p)
    return {**env, **extra}


def jbag(*args: str) -> list[str]:
    return [sys.executable, "-m", "jbag_pipeline.cli", *args]


def start_jbag(*args: str, log: Path) -> subprocess.Popen:
    with open(log, "wb") as out:
        return subprocess.Popen(jbag(*args), cwd=REPO, env=subprocess_env(), stdout=out, stderr=subprocess.STDOUT)


def wait_ok(proc: subprocess.Popen, log: Path, timeout: float = RUN_TIMEOUT) -> None:
    """Wait for `proc`; fail with the tail of its log unless it exits 0 in time."""
    try:
        code = proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        pytest.fail(f"{proc.args} still running after {timeout}s:\n{log.read_text()[-3000:]}")
    assert code == 0, f"{proc.args} exited {code}:\n{log.read_text()[-3000:]}"


def parquet_files(root: Path) -> dict[str, bytes]:
    """Every partition file of the lake: relative path -> bytes."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(lake.lake_dir(root).rglob("part.parquet"))}


def copy_data_dir(src: Path, dst: Path) -> Path:
    """A copy of a data directory (lake, catalog, DAGSTER_HOME), used as it is: the views resolve the lake beside
    the catalog they are opened from."""
    shutil.copytree(src, dst)
    return dst


def expected_counts(root: Path) -> str:
    """What `jbag sql COUNT_QUERY --format csv` prints for the lake under `root`."""
    counts = [str(lake.read_table(root, table).height) for table in COUNTED_VIEWS.values()]
    return ",".join(COUNTED_VIEWS) + "\n" + ",".join(counts) + "\n"


@pytest.fixture(scope="module")
def baseline(tmp_path_factory) -> Path:
    """A data directory after one `jbag run` of the smoke preset on tic-tac-toe; never modified afterwards."""
    root = tmp_path_factory.mktemp("baseline") / "data"
    log = root.parent / "run.log"
    wait_ok(start_jbag(*SMOKE_RUN, "--data-dir", str(root), log=log), log)
    assert (root / "dagster_home" / "dagster.yaml").exists()  # the persistent instance the CLI uses
    return root


@pytest.fixture(scope="module")
def rerun(baseline, tmp_path_factory):
    """The same `jbag run` again over a copy of the baseline (same DAGSTER_HOME history), with `jbag sql`
    queries in a loop while it runs."""
    root = copy_data_dir(baseline, tmp_path_factory.mktemp("rerun") / "data")
    inodes = {name: (root / name).stat().st_ino for name in parquet_files(root)}
    log = root.parent / "run.log"
    run = start_jbag(*SMOKE_RUN, "--data-dir", str(root), log=log)
    queries = []  # (exit code, stdout, stderr, the run was still going when the query ended)
    deadline = time.monotonic() + RUN_TIMEOUT
    while run.poll() is None and time.monotonic() < deadline:
        sql = subprocess.run(jbag("sql", COUNT_QUERY, "--format", "csv", "--data-dir", str(root)), cwd=REPO,
                             env=subprocess_env(), capture_output=True, text=True, timeout=120)
        queries.append((sql.returncode, sql.stdout, sql.stderr, run.poll() is None))
    wait_ok(run, log)
    return {"root": root, "inodes": inodes, "queries": queries}


@pytest.mark.slow
def test_cli_rerun_gives_byte_identical_parquet(baseline, rerun):
    before, after = parquet_files(baseline), parquet_files(rerun["root"])
    assert len(before) > 20 and sorted(after) == sorted(before)
    assert [name for name in before if before[name] != after[name]] == []
    # every partition was really written again (os.replace gives a new inode), not skipped
    rewritten = [name for name in after if (rerun["root"] / name).stat().st_ino != rerun["inodes"][name]]
    assert sorted(rewritten) == sorted(after)


@pytest.mark.slow
def test_materialising_twice_does_not_duplicate_rows(baseline, rerun):
    root = rerun["root"]
    for table in sorted({Path(name).parts[1] for name in parquet_files(root)}):
        assert lake.read_table(root, table).height == lake.read_table(baseline, table).height, table
    games = lake.read_table(root, "selfplay_games")
    assert games.height == 8 and games["game_id"].n_unique() == 8  # the smoke preset plays 8 games per game
    assert len(list((lake.lake_dir(root) / "selfplay_games").rglob("*.parquet"))) == 1
    con = open_catalog(root)
    try:
        heights = tuple(lake.read_table(baseline, table).height for table in COUNTED_VIEWS.values())
        assert run_query(con, COUNT_QUERY)[1] == [heights]
    finally:
        con.close()


@pytest.mark.slow
def test_sql_queries_succeed_while_a_run_materialises(baseline, rerun):
    queries = rerun["queries"]
    failures = [(code, err) for code, _, err, _ in queries if code != 0]
    assert failures == []
    during = [out for _, out, _, running in queries if running]
    assert len(during) >= 3, f"only {len(during)} queries finished while the run was going"
    # the same seed rewrites the same rows, so every query, before or after a partition swap, sees the same counts
    assert {out for _, out, _, _ in queries} == {expected_counts(baseline)}


def kill_at_first_lake_write(proc: subprocess.Popen, root: Path, timeout: float = RUN_TIMEOUT) -> Path | None:
    """SIGKILL `proc` as soon as a lake temp file exists; the temp file seen, or None if the run ended first."""
    deadline = time.monotonic() + timeout
    while proc.poll() is None and time.monotonic() < deadline:
        for folder, _, names in os.walk(lake.lake_dir(root)):
            temp = next((n for n in names if n.startswith(".part-") and n.endswith(".tmp")), None)
            if temp:
                proc.send_signal(signal.SIGKILL)
                proc.wait()
                return Path(folder) / temp
    if proc.poll() is None:
        proc.kill()
        proc.wait()
        pytest.fail(f"{proc.args} wrote nothing to the lake within {timeout}s")
    return None


@pytest.mark.slow
def test_run_killed_mid_write_leaves_previous_partitions_and_rerun_succeeds(baseline, tmp_path):
    before = parquet_files(baseline)
    for attempt in range(5):  # the kill usually lands inside the first write; retry if that write won the race
        root = copy_data_dir(baseline, tmp_path / f"attempt{attempt}")
        log = tmp_path / f"attempt{attempt}.log"
        seen = kill_at_first_lake_write(start_jbag(*SMOKE_RUN, "--data-dir", str(root), log=log), root)
        stale = sorted(lake.lake_dir(root).rglob(".part-*.tmp"))
        if seen is not None and stale:
            break
    assert stale, "no SIGKILL landed while a lake write was in progress in 5 attempts"

    assert parquet_files(root) == before  # every partition is the previous one, readable and unchanged
    table = stale[0].relative_to(lake.lake_dir(root)).parts[0]
    assert lake.read_table(root, table).equals(lake.read_table(baseline, table))
    view = {t: v for v, t in VIEWS.items()}[table]
    con = open_catalog(root)
    try:
        assert run_query(con, f"SELECT count(*) FROM {view}")[1] == [(lake.read_table(baseline, table).height,)]
    finally:
        con.close()

    wait_ok(start_jbag(*SMOKE_RUN, "--data-dir", str(root), log=log), log)
    assert parquet_files(root) == before
    assert not list(lake.lake_dir(root).rglob(".part-*.tmp"))  # the killed writer's half file is cleaned up
    # the killed run is marked failed, so it no longer holds one of the UI queue's max_concurrent_runs slots
    instance = dg.DagsterInstance.from_config(str(root / "dagster_home"))
    killed = [run for run in instance.get_runs() if run.status == dg.DagsterRunStatus.FAILURE]
    assert len(killed) == 1 and PROCESS_TAG in killed[0].tags
    assert f"marked Dagster run {killed[0].run_id} failed" in log.read_text()
    assert {run.status for run in instance.get_runs()} == {dg.DagsterRunStatus.SUCCESS, dg.DagsterRunStatus.FAILURE}


KILL_POINTS = ("selfplay_states", "trajectory_bags", "evaluation_games", "catalog")  # SIGKILL once this is written


def kill_after(proc: subprocess.Popen, root: Path, point: str, timeout: float = RUN_TIMEOUT) -> None:
    """SIGKILL `proc` as soon as it has replaced a partition of table `point` (or, for "catalog", has started a
    publication): the run then stops between two assets, or inside the catalog step."""
    def files() -> set:
        if point == "catalog":
            return set(published_dir(root).iterdir()) if published_dir(root).exists() else set()
        return {(f, f.stat().st_ino) for f in (lake.lake_dir(root) / point).rglob("part.parquet")}

    before, deadline = files(), time.monotonic() + timeout
    while proc.poll() is None and time.monotonic() < deadline:
        try:
            if files() - before:
                break
        except FileNotFoundError:  # a file renamed between listing and stat
            pass
        time.sleep(0.01)
    if proc.poll() is not None:
        pytest.fail(f"{proc.args} ended (exit {proc.returncode}) before it wrote {point}")
    proc.send_signal(signal.SIGKILL)
    proc.wait()


def view_rows(root: Path) -> dict[str, set[str]]:
    """Every catalog view's rows, each as text: view -> set of rows."""
    con = open_catalog(root)
    try:
        views = [name for (name,) in run_query(con, "SELECT view_name FROM duckdb_views() WHERE NOT internal")[1]]
        return {view: {row for (row,) in run_query(con, f"SELECT t::VARCHAR FROM {view} AS t")[1]} for view in views}
    finally:
        con.close()


def seeds_shown(rows: dict[str, set[str]], references: dict[int, dict[str, set[str]]]) -> set[int]:
    """The seeds whose run could have produced every view's rows (each view's rows a subset of that seed's)."""
    return {seed for seed, reference in references.items()
            if all(shown <= reference.get(view, set()) for view, shown in rows.items())}


@pytest.mark.slow
def test_runs_killed_between_assets_never_show_a_mix_of_seeds_and_the_rerun_completes(baseline, tmp_path):
    root = copy_data_dir(baseline, tmp_path / "data")
    seed1_run = (*SMOKE_RUN, "--seed", "1", "--data-dir", str(root))
    after_kill, after_rebuild = {}, {}
    for point in KILL_POINTS:
        live = parquet_files(root)
        log = tmp_path / f"kill-{point}.log"
        kill_after(start_jbag(*seed1_run, log=log), root, point)
        assert parquet_files(root) != live, f"the run killed after {point} changed nothing"
        after_kill[point] = view_rows(root)
        publish(root)  # what `jbag ingest` or `--select catalog` would do next: publish the live, mixed lake
        after_rebuild[point] = view_rows(root)

    log = tmp_path / "rerun.log"
    wait_ok(start_jbag(*seed1_run, log=log), log)
    assert publish(root).withheld == {}
    references = {0: view_rows(baseline), 1: view_rows(root)}
    assert references[0]["games"] != references[1]["games"] and references[0]["bags"] != references[1]["bags"]
    assert sorted(references[1]) == sorted(references[0])  # every view is back after the rerun
    for point in KILL_POINTS:  # one tic-tac-toe run: every view, summaries included, from one seed
        assert seeds_shown(after_kill[point], references), f"views mix seeds after the kill at {point}"
        assert seeds_shown(after_rebuild[point], references), f"views mix seeds after rebuilding at {point}"
    assert seeds_shown(after_kill["selfplay_states"], references) == {0}  # the previous, complete publication
    # the killed run's self-play is live, so the rebuilt catalog shows seed 1's games and withholds seed 0's rest
    assert seeds_shown(after_rebuild["trajectory_bags"], references) == {1}
    assert after_rebuild["trajectory_bags"]["games"] == references[1]["games"]


def test_only_runs_of_dead_processes_on_this_host_are_marked_failed():
    instance = dg.DagsterInstance.ephemeral()
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        dead = f"{socket.gethostname()}:{child.pid}:{lifeline.start_of(child.pid)!r}"
    finally:
        child.kill()
        child.wait()
    tags = {"dead": {PROCESS_TAG: dead}, "alive": process_tag(), "elsewhere": {PROCESS_TAG: "other-host:1:0.000"},
            "untagged": {}}
    for name, run_tags in tags.items():
        instance.add_run(DagsterRun(job_name="j", run_id=f"run-{name}", status=dg.DagsterRunStatus.STARTED,
                                    tags=run_tags))
    instance.add_run(DagsterRun(job_name="j", run_id="run-done", status=dg.DagsterRunStatus.SUCCESS,
                                tags={PROCESS_TAG: dead}))
    assert fail_orphaned_runs(instance) == ["run-dead"]
    statuses = {run.run_id: run.status.value for run in instance.get_runs()}
    assert statuses == {"run-dead": "FAILURE", "run-alive": "STARTED", "run-elsewhere": "STARTED",
                        "run-untagged": "STARTED", "run-done": "SUCCESS"}
    assert fail_orphaned_runs(instance) == []


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the clock-proof start time is Linux's /proc")
def test_a_clock_change_does_not_mark_a_live_run_failed(monkeypatch):
    # psutil's create_time adds the boot time, which moves when the clock is set or a virtual machine is restored;
    # a run's process is recognised by its start in clock ticks since boot, as the lifeline recognises an owner
    instance = dg.DagsterInstance.ephemeral()
    instance.add_run(DagsterRun(job_name="j", run_id="run-alive", status=dg.DagsterRunStatus.STARTED,
                                tags=process_tag()))
    monkeypatch.setattr(psutil.Process, "create_time", lambda self: 12345.0)
    assert fail_orphaned_runs(instance) == []
    assert process_tag()[PROCESS_TAG].endswith(f":{lifeline.start_of(os.getpid())!r}")


WRITE_BIG_FRAME = """
import sys
from pathlib import Path
import numpy as np, polars as pl
import jbag_pipeline.storage.lake as lake
rng = np.random.default_rng(0)
rows = int(sys.argv[2])
lake.write_table(pl.DataFrame({"x": rng.random(rows), "y": rng.integers(0, 2**62, rows)}), Path(sys.argv[1]), "big",
                 {"game": "a"})
"""


@pytest.mark.slow
def test_writer_killed_with_half_a_file_written_leaves_readers_unaffected(tmp_path):
    previous = pl.DataFrame({"x": [0.5, 0.25], "y": [1, 2]})
    target = lake.write_table(previous, tmp_path, "big", {"game": "a"})
    build_catalog(tmp_path)
    writer = subprocess.Popen([sys.executable, "-c", WRITE_BIG_FRAME, str(tmp_path), "4000000"], cwd=REPO,
                              env=subprocess_env())
    deadline = time.monotonic() + 120
    partial = None
    while writer.poll() is None and time.monotonic() < deadline and partial is None:
        for temp in target.parent.glob(".part-*.tmp"):
            try:
                if temp.stat().st_size > 0:
                    writer.send_signal(signal.SIGKILL)
                    partial = temp
            except FileNotFoundError:
                pass
        time.sleep(0.002)
    writer.kill()
    writer.wait()
    assert partial is not None and writer.returncode == -signal.SIGKILL, "the writer finished before it was killed"
    assert partial.exists() and partial.stat().st_size > 0  # half a Parquet file, left behind by the kill

    assert lake.read_table(tmp_path, "big").equals(previous)
    assert lake.read_table(tmp_path, "big", {"game": "a"}).equals(previous)
    con = open_catalog(tmp_path)
    try:
        con.execute(f"SELECT count(*) FROM read_parquet('{table_glob(tmp_path, 'big')}')")
        assert con.fetchall() == [(2,)]
    finally:
        con.close()
    replacement = pl.DataFrame({"x": np.linspace(0, 1, 5), "y": np.arange(5)})
    lake.write_table(replacement, tmp_path, "big", {"game": "a"})
    assert lake.read_table(tmp_path, "big").equals(replacement)


# ---- (e) the Dagster webserver, driven over GraphQL the way the UI drives it ----

INSTANCE_YAML = """telemetry:
  enabled: false
run_coordinator:
  module: dagster._core.run_coordinator
  class: DefaultRunCoordinator
"""
LOCATION = "jbag_pipeline.definitions"
SELFPLAY_ASSETS = ("selfplay_games", "selfplay_states")
LAUNCH_RUN = """mutation LaunchRun($params: ExecutionParams!) {
  launchRun(executionParams: $params) {
    __typename
    ... on LaunchRunSuccess { run { runId } }
    ... on PythonError { message }
    ... on InvalidSubsetError { message }
    ... on RunConfigValidationInvalid { errors { message } }
  }
}"""


def free_loopback_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def graphql(port: int, query: str, variables: dict | None = None) -> dict:
    request = urllib.request.Request(f"http://127.0.0.1:{port}/graphql",
                                     json.dumps({"query": query, "variables": variables or {}}).encode(),
                                     {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as response:
        body = json.load(response)
    assert "errors" not in body, body["errors"]
    return body["data"]


def wait_for_code_location(server: subprocess.Popen, port: int, log: Path, timeout: float = 300) -> None:
    """Poll until the webserver answers and has loaded the code location (bounded)."""
    query = "{ workspaceOrError { ... on Workspace { locationEntries { name loadStatus } } } }"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert server.poll() is None, f"dagster-webserver exited {server.returncode}:\n{log.read_text()[-3000:]}"
        try:
            entries = graphql(port, query)["workspaceOrError"]["locationEntries"]
            if any(e["name"] == LOCATION and e["loadStatus"] == "LOADED" for e in entries):
                return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        time.sleep(1)
    pytest.fail(f"dagster-webserver did not load {LOCATION} within {timeout}s:\n{log.read_text()[-3000:]}")


def stop(server: subprocess.Popen) -> None:
    """SIGTERM the webserver, then SIGKILL whatever is left of the process group the test started."""
    server.terminate()
    try:
        server.wait(timeout=30)
    except subprocess.TimeoutExpired:
        pass
    try:
        os.killpg(server.pid, signal.SIGKILL)  # its code server and run workers, if any outlived it
    except ProcessLookupError:
        pass
    server.wait()


@pytest.mark.slow
def test_webserver_serves_the_asset_graph_and_launches_a_smoke_run(baseline, tmp_path):
    home, data, log = tmp_path / "dagster_home", tmp_path / "data", tmp_path / "webserver.log"
    home.mkdir()
    (home / "dagster.yaml").write_text(INSTANCE_YAML)
    port = free_loopback_port()
    env = subprocess_env(DAGSTER_HOME=str(home), JBAG_PRESET="smoke", JBAG_DATA_DIR=str(data))
    with open(log, "wb") as out:
        server = subprocess.Popen([sys.executable, "-m", "dagster_webserver", "-w", str(REPO / "workspace.yaml"),
                                   "-h", "127.0.0.1", "-p", str(port)], cwd=REPO, env=env, stdout=out,
                                  stderr=subprocess.STDOUT, start_new_session=True)
    try:
        wait_for_code_location(server, port, log)
        nodes = graphql(port, """{ assetNodes { assetKey { path } isPartitioned
            assetChecksOrError { ... on AssetChecks { checks { name } } } } }""")["assetNodes"]
        by_key = {"/".join(n["assetKey"]["path"]): n for n in nodes}
        assert {"selfplay_games", "selfplay_states", "state_tokens", "trajectory_bags", "winner_prototypes",
                "selected_features", "evaluation_games", "tictactoe_values", "catalog", "report"} <= set(by_key)
        assert by_key["selfplay_games"]["isPartitioned"] and not by_key["catalog"]["isPartitioned"]

        # the UI's "Materialize" of one partition: the asset job, the assets with their checks, a partition tag
        checks = [{"assetKey": {"path": [key]}, "name": check["name"]}
                  for key in SELFPLAY_ASSETS for check in by_key[key]["assetChecksOrError"]["checks"]]
        assert len(checks) == 2
        params = {"selector": {"repositoryLocationName": LOCATION, "repositoryName": "__repository__",
                               "jobName": "__ASSET_JOB", "assetSelection": [{"path": [k]} for k in SELFPLAY_ASSETS],
                               "assetCheckSelection": checks},
                  "executionMetadata": {"tags": [{"key": "dagster/partition", "value": "tictactoe"}]}}
        launched = graphql(port, LAUNCH_RUN, {"params": params})["launchRun"]
        assert launched["__typename"] == "LaunchRunSuccess", launched
        run_id = launched["run"]["runId"]

        status, deadline = None, time.monotonic() + RUN_TIMEOUT
        while status not in ("SUCCESS", "FAILURE", "CANCELED") and time.monotonic() < deadline:
            time.sleep(1)
            status = graphql(port, "query Run($id: ID!) { runOrError(runId: $id) { ... on Run { status } } }",
                             {"id": run_id})["runOrError"]["status"]
        assert status == "SUCCESS", f"run {run_id} ended {status}:\n{log.read_text()[-3000:]}"

        materialised = graphql(port, """{ assetOrError(assetKey: {path: ["selfplay_games"]}) {
            ... on Asset { assetMaterializations(partitions: ["tictactoe"]) { runId } } } }""")
        assert [m["runId"] for m in materialised["assetOrError"]["assetMaterializations"]] == [run_id]
    finally:
        stop(server)
    # the UI's run wrote the same bytes as `jbag run` with the same preset and seed
    for table in SELFPLAY_ASSETS:
        relative = lake.partition_path(data, table, {"game": "tictactoe"}).relative_to(data)
        assert (data / relative).read_bytes() == (baseline / relative).read_bytes()
