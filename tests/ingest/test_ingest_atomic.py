"""An ingest lands all or nothing: failed or killed at any step it leaves the live lake as it was (or, once
committed, finishes whole), and a problem of one file is a quarantine row, never an aborted batch."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import dagster as dg
import polars as pl
import pytest

import jbag_pipeline.ingest.store as store
import jbag_pipeline.ingest.tokens as ingest_tokens
import jbag_pipeline.ingest.trajectories as trajectories
import jbag_pipeline.storage.lake as lake
import jbag_pipeline.storage.staging as staging
from jbag_pipeline.cli.commands import main
from jbag_pipeline.cli.ingest import run_ingest
from jbag_pipeline.ingest.read import BELOW_FLOAT_RANGE, MAX_DEPTH
from jbag_pipeline.ingest.store import write_batch
from jbag_pipeline.ingest.trajectories import MAX_GAME_NAME, read_trajectories
from jbag_pipeline.storage.catalog import catalog_path, publish
from jbag_pipeline.storage.query import open_catalog
from tests.helpers.nim_files import nim_file
from tests.helpers.storage import run_query

REPO = Path(__file__).resolve().parents[2]
INGEST_TABLES = ("ingested_games", "ingested_states", "ingested_tokens", "ingested_sources", "ingest_quarantine")


def live_lake(root: Path) -> dict[str, bytes]:
    """Every live file of the ingest tables, by path: what a catalog build would publish of them."""
    return {str(p.relative_to(root)): p.read_bytes() for table in INGEST_TABLES
            for p in lake.table_files(root, table)}  # segments included


def long_name_file(path: Path) -> Path:
    docs = [{"gameType": "x" * 300, "nPlayers": 2, "heap": [2 - t, t]} for t in range(2)]
    docs[-1]["playerResults"] = ["WIN_GAME", "LOSE_GAME"]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(docs))
    return path


@pytest.fixture
def lake_with_one_game(tmp_path):
    root = tmp_path / "data"
    write_batch(root, read_trajectories([nim_file(tmp_path / "old" / "nim-1.json")]))
    failing = [nim_file(tmp_path / "new" / "nim-2.json", n_states=4), nim_file(tmp_path / "new" / "other-3.json"),
               long_name_file(tmp_path / "new" / "long-4.json")]
    return root, failing


def assert_nothing_of_the_failed_batch_lands(root: Path, tmp_path: Path) -> None:
    write_batch(root, read_trajectories([nim_file(tmp_path / "later" / "nim-9.json")]))  # an unrelated ingest
    assert lake.read_table(root, "ingested_games")["game_id"].to_list() == [1, 9]
    assert lake.read_table(root, "ingested_sources")["game_id"].to_list() == [1, 9]
    assert set(lake.read_table(root, "ingested_tokens")["game_id"]) == {1, 9}
    assert not any("new" in f for f in lake.read_table(root, "ingest_quarantine")["file"])
    assert list(staging.staging_dir(root).iterdir()) == []


def fail_on_call(n: int, real):
    """`real`, failing on its n-th call (1-based)."""
    calls = []

    def failing(*args, **kwargs):
        calls.append(1)
        if len(calls) == n:
            raise OSError("injected failure")
        return real(*args, **kwargs)

    return failing


STAGES_BEFORE_COMMIT = {
    "tokenize": (ingest_tokens, "tokenize_batch", 1),
    "first staged write": (lake, "write_file", 1),
    "a middle staged write": (lake, "write_file", 3),
    "the last staged write (quarantine)": (lake, "write_file", 5),
    "the manifest (commit point)": (staging.json, "dump", 1),
}


@pytest.mark.parametrize("stage", STAGES_BEFORE_COMMIT)
def test_a_failure_before_the_commit_leaves_the_live_lake_as_it_was(lake_with_one_game, tmp_path, monkeypatch,
                                                                     stage):
    root, failing = lake_with_one_game
    before = live_lake(root)
    module, name, n = STAGES_BEFORE_COMMIT[stage]
    batch = read_trajectories(failing)
    target = store if name == "tokenize_batch" else module  # write_batch calls the name it imported
    monkeypatch.setattr(target, name, fail_on_call(n, getattr(module, name)))
    with pytest.raises(OSError, match="injected failure"):
        write_batch(root, batch)
    monkeypatch.undo()
    assert live_lake(root) == before
    assert_nothing_of_the_failed_batch_lands(root, tmp_path)


def test_a_failure_after_the_commit_is_finished_whole_by_the_next_lock_holder(lake_with_one_game, tmp_path,
                                                                            monkeypatch):
    root, failing = lake_with_one_game
    real_replace = os.replace
    moves = []

    def replace_then_fail(source, target):  # after the commit: one staged file moved in, then a failure
        if staging.STAGING in Path(source).parts and Path(source).name == "part.parquet":
            moves.append(target)
            if len(moves) == 2:
                raise OSError("injected failure")
        return real_replace(source, target)

    monkeypatch.setattr(staging.os, "replace", replace_then_fail)
    with pytest.raises(OSError, match="injected failure"):
        write_batch(root, read_trajectories(failing))
    monkeypatch.undo()
    publish(root)  # a catalog build (or the next ingest) finishes the committed batch before it reads the lake
    con = open_catalog(root)
    assert run_query(con, "SELECT game, game_id FROM ingested_games ORDER BY ALL")[1] == [
        ("nim", 1), ("nim", 2), ("nim", 3)]
    assert run_query(con, "SELECT game_id FROM ingested_sources ORDER BY ALL")[1] == [(1,), (2,), (3,)]
    assert run_query(con, "SELECT count(DISTINCT game_id) FROM ingested_tokens")[1] == [(3,)]
    assert list(staging.staging_dir(root).iterdir()) == []


KILLED_INGEST = """
import os, signal, sys
import jbag_pipeline.storage.lake as lake
import jbag_pipeline.storage.staging as staging
from jbag_pipeline.cli.commands import main

where, n = sys.argv[1], int(sys.argv[2])
module, name = (lake, "write_file") if where == "stage" else (os, "replace")
real, calls = getattr(module, name), []

def is_kill_point(*args):
    if where == "stage":
        return True
    source = os.path.basename(args[0])
    if where == "commit":
        return source == ".commit.json.tmp"
    return staging.STAGING in args[0] and source == "part.parquet"

def killing(*args, **kwargs):
    if is_kill_point(*map(str, args[:1])):
        calls.append(1)
        if len(calls) == n:
            os.kill(os.getpid(), signal.SIGKILL)
    return real(*args, **kwargs)

setattr(module, name, killing)
sys.exit(main(["ingest", *sys.argv[3:]]))
"""


@pytest.mark.slow  # three `jbag ingest` processes (about 10 s each on a busy machine)
@pytest.mark.parametrize("where, n, landed", [("stage", 2, False), ("commit", 1, False), ("move", 2, True)])
def test_a_killed_jbag_ingest_lands_nothing_or_everything(tmp_path, monkeypatch, where, n, landed):
    """SIGKILL mid-staging or on the commit rename: the live lake is as it was; after the commit (mid-move): the
    next ingest finishes the batch whole, with its source rows."""
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "home"))
    root = tmp_path / "data"
    assert main(["ingest", str(nim_file(tmp_path / "old" / "nim-1.json")), "--data-dir", str(root)]) == 0
    before = live_lake(root)
    new = [str(nim_file(tmp_path / "new" / "nim-2.json", n_states=4)),
           str(long_name_file(tmp_path / "new" / "l-4.json"))]
    killed = subprocess.run([sys.executable, "-c", KILLED_INGEST, where, str(n), *new, "--data-dir", str(root)],
                            cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)}, capture_output=True, timeout=600)
    assert killed.returncode == -signal.SIGKILL, killed.stderr[-2000:]
    if not landed:
        assert live_lake(root) == before
    assert main(["ingest", str(nim_file(tmp_path / "later" / "nim-9.json")), "--data-dir", str(root)]) == 0
    con = open_catalog(root)
    expected = [(1,), (2,), (9,)] if landed else [(1,), (9,)]
    assert run_query(con, "SELECT game_id FROM ingested_games ORDER BY ALL")[1] == expected
    assert run_query(con, "SELECT game_id FROM ingested_sources ORDER BY ALL")[1] == expected
    quarantined = run_query(con, "SELECT count(*) FROM quarantine WHERE file LIKE '%/new/%'")[1]
    assert quarantined == [(1,) if landed else (0,)]  # the long game name, only with its batch
    assert list(staging.staging_dir(root).iterdir()) == []


# --- one bad file is a quarantine row, never an aborted batch -------------------------------------------------

def test_the_reported_batch_a_good_file_and_a_300_character_game_name(tmp_path):
    root = tmp_path / "data"
    good, long = nim_file(tmp_path / "in" / "nim-1.json"), long_name_file(tmp_path / "in" / "long-2.json")
    per_game, problems = run_ingest([str(good), str(long)], root, instance=dg.DagsterInstance.ephemeral())
    assert per_game.rows() == [("nim", 1, 3)]
    assert problems == [f"{long}: the game name (the gameType of the first state) has 300 characters, at most "
                        f"{MAX_GAME_NAME}; pass a shorter one (--game)"]


def test_unreadable_and_non_utf8_named_files_are_quarantined_by_name(tmp_path, monkeypatch):
    good = nim_file(tmp_path / "in" / "nim-1.json")
    locked = nim_file(tmp_path / "in" / "nim-2.json")
    odd = Path(os.fsdecode(bytes(tmp_path / "in") + b"/nim-\xff3.json"))
    odd.write_bytes(good.read_bytes())
    real_open = open

    def open_refusing_locked(path, *args, **kwargs):  # root may read any file: refuse this one as chmod 0 would
        if Path(path) == locked:
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(trajectories, "open", open_refusing_locked, raising=False)
    batch = read_trajectories([tmp_path / "in"])
    assert batch.games["game_id"].to_list() == [1]
    assert batch.quarantine.select("file", "reason").rows() == [
        (str(locked), "cannot read the file: Permission denied; none of its games is ingested"),
        (str(tmp_path / "in") + "/nim-\\xff3.json", "the file name is not valid UTF-8; rename the file and ingest "
                                                    "it again")]
    summary = write_batch(tmp_path / "data", batch)  # the escaped name is a string the lake can store
    assert summary.games == {"nim": 1} and len(summary.quarantined) == 2


@pytest.mark.parametrize("depth", [490, MAX_DEPTH - 1])
def test_nesting_near_the_limit_is_tokenized_inside_a_dagster_step(tmp_path, depth):
    """Mode both recurses twice per level: 490 objects deep, under Dagster's stack, raised RecursionError."""
    deep = json.loads('{"a":' * depth + "1" + "}" * depth)
    docs = [{"gameType": "Nim", "nPlayers": 2, "x": deep, "playerResults": ["WIN_GAME", "LOSE_GAME"]}]
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "deep-1.json").write_text(json.dumps(docs))
    root = tmp_path / "data"
    per_game, problems = run_ingest([str(tmp_path / "in")], root, instance=dg.DagsterInstance.ephemeral())
    assert problems == [] and per_game.rows() == [("nim", 1, 1)]
    token = ".x" + ".a" * depth + ".1"
    assert lake.read_table(root, "ingested_tokens").filter(pl.col("token") == token).height == 1


def test_a_number_below_the_float_range_is_quarantined_not_stored_as_zero(tmp_path):
    array = tmp_path / "nim" / "tiny-1.json"
    array.parent.mkdir()
    array.write_text('[{"nPlayers": 1, "x": [0.5, 1e-400]}]')
    lines = tmp_path / "nim" / "tiny.jsonl"
    lines.write_text('{"game_id": 2, "state": {"nPlayers": 1, "x": 2.5E-0400}}\n'
                     '{"game_id": 3, "state": {"nPlayers": 1, "x": 0e-400, "y": 1e-300}}\n')
    batch = read_trajectories([array, lines])
    assert batch.games["game_id"].to_list() == [3]  # 0e-400 is zero as written, 1e-300 a float
    assert batch.quarantine.select("line_or_index", "reason").rows() == [
        (0, f"{BELOW_FLOAT_RANGE} (1e-400)"), (1, f"{BELOW_FLOAT_RANGE} (2.5E-0400) (game_id 2 is not ingested)")]


def test_a_parquet_file_of_another_table_is_refused_naming_file_and_table(tmp_path):
    root = tmp_path / "data"
    write_batch(root, read_trajectories([nim_file(tmp_path / "in" / "nim-1.json")]))
    wrong = lake.partition_path(root, "ingested_games", {"game": "nim"})
    wrong.write_bytes(lake.partition_path(root, "ingested_tokens", {"game": "nim"}).read_bytes())
    message = f"{wrong} is not a file of table ingested_games: it lacks the columns"
    with pytest.raises(lake.WrongTable, match=message):
        publish(root)
    with pytest.raises(lake.WrongTable, match=message):
        write_batch(root, read_trajectories([nim_file(tmp_path / "in" / "nim-2.json")]))


def test_a_temporary_catalog_left_by_a_killed_build_is_removed(tmp_path):
    root = tmp_path / "data"
    write_batch(root, read_trajectories([nim_file(tmp_path / "in" / "nim-1.json")]))
    left = [root / ".jbag-abc123.duckdb", root / ".jbag-abc123.duckdb.wal"]
    for path in left:
        path.write_bytes(b"half a catalog")
    publish(root)
    assert sorted(p.name for p in root.iterdir()) == ["jbag.duckdb", "lake"]
    assert catalog_path(root).is_file()
