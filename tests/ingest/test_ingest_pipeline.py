"""Ingest into the lake: merging batches, crash safety, the Dagster assets, `jbag ingest`, bounded memory."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import dagster as dg
import orjson
import polars as pl
import pytest

import jbag_pipeline.storage.lake as lake
from jbag_pipeline.cli.commands import main
from jbag_pipeline.ingest.trajectories import read_trajectories
from jbag_pipeline.cli.ingest import run_ingest
from jbag_pipeline.ingest.store import write_batch
from jbag_pipeline.storage.query import open_catalog
from tests.helpers.nim_files import nim_file as game_file
from tests.helpers.storage import run_query

REPO = Path(__file__).resolve().parents[2]
REFERENCE = REPO.parent / "shared" / "data" / "jsonbag_reference" / "example_trajectories"


def ingest(root: Path, *paths, **options):
    return write_batch(root, read_trajectories(list(paths), **options))


def table(root: Path, name: str) -> pl.DataFrame:
    return lake.read_table(root, name)


def lake_files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(lake.lake_dir(root).rglob("*.parquet"))}


def test_batches_accumulate_and_reingesting_a_file_replaces_it(tmp_path):
    root = tmp_path / "data"
    a, b = game_file(tmp_path / "in" / "nim-1.json"), game_file(tmp_path / "in" / "nim-2.json", winner=0)
    summary = ingest(root, a)
    assert summary.games == {"nim": 1} and summary.states == {"nim": 3}
    ingest(root, b)
    before = lake_files(root)
    ingest(root, a, b)
    assert lake_files(root) == before  # idempotent, byte for byte
    game_file(a, n_states=5)
    ingest(root, a)
    games = table(root, "ingested_games")
    assert games.select("game_id", "winner", "n_states").rows() == [(1, 1, 5), (2, 0, 3)]
    states = table(root, "ingested_states")
    assert states.group_by("game_id").len().sort("game_id").rows() == [(1, 5), (2, 3)]
    assert table(root, "ingested_sources").select("game_id", "file").rows() == [(1, str(a)), (2, str(b))]


def test_an_id_from_another_file_is_quarantined_and_the_first_stays(tmp_path):
    root = tmp_path / "data"
    first = game_file(tmp_path / "x" / "nim-7.json")
    other = game_file(tmp_path / "y" / "nim-7.json", n_states=4)
    ingest(root, first)
    summary = ingest(root, other)
    assert summary.games == {}
    assert table(root, "ingested_games")["n_states"].to_list() == [3]
    assert table(root, "ingest_quarantine").select("file", "reason").rows() == [
        (str(other), f"duplicate game_id 7 of game 'nim': already ingested from {first}")]
    ingest(root, game_file(tmp_path / "y" / "nim-8.json"))
    assert table(root, "ingested_games")["game_id"].to_list() == [7, 8]


def test_fixing_a_file_clears_its_quarantine_and_moving_a_game_empties_the_old_partition(tmp_path):
    root = tmp_path / "data"
    path = tmp_path / "in" / "nim-3.json"
    path.parent.mkdir()
    path.write_bytes(b"[{")
    ingest(root, path)
    assert table(root, "ingest_quarantine")["file"].to_list() == [str(path)]
    game_file(path)
    ingest(root, path)
    assert table(root, "ingest_quarantine").is_empty()
    ingest(root, path, game="misere")
    assert table(root, "ingested_games")["game"].to_list() == ["misere"]
    assert not lake.partition_path(root, "ingested_states", {"game": "nim"}).exists()


def test_one_token_mode_per_game(tmp_path):
    root = tmp_path / "data"
    ingest(root, game_file(tmp_path / "in" / "nim-1.json"), mode="ordered")
    before = lake_files(root)
    with pytest.raises(ValueError, match=r"game 'nim' already holds games ingested with mode \['ordered'\]"):
        ingest(root, game_file(tmp_path / "in2" / "nim-2.json"), mode="both")
    assert lake_files(root) == before
    ingest(root, tmp_path / "in" / "nim-1.json", mode="both")  # re-ingesting all of a game's files may switch
    assert table(root, "ingested_sources")["mode"].to_list() == ["both"]


def test_a_crash_mid_ingest_leaves_whole_files_and_a_rerun_repairs(tmp_path, monkeypatch):
    root = tmp_path / "data"
    first = game_file(tmp_path / "in" / "nim-1.json")
    ingest(root, first)
    second = game_file(tmp_path / "in" / "nim-2.json", n_states=4)
    real_write = lake.write_file
    before = lake_files(root)

    def crash_on_games(df, target, name, partition=None):
        if name == "ingested_games":
            raise OSError("killed")
        return real_write(df, target, name, partition)

    monkeypatch.setattr(lake, "write_file", crash_on_games)
    with pytest.raises(OSError, match="killed"):
        ingest(root, first, second)
    monkeypatch.undo()
    assert lake_files(root) == before  # the staged tokens and states were rolled back with it
    assert not list(lake.lake_dir(root).rglob("*.tmp"))
    ingest(root, first, second)
    games, states = table(root, "ingested_games"), table(root, "ingested_states")
    assert games.select("game_id", "n_states").rows() == [(1, 3), (2, 4)]
    assert states.group_by("game_id").len().sort("game_id").rows() == [(1, 3), (2, 4)]


@pytest.fixture
def reference_dirs():
    if not REFERENCE.is_dir():
        pytest.skip(f"{REFERENCE} is absent (it exists beside the repository only in the team's workspace and CI)")
    return [REFERENCE / "Connect4", REFERENCE / "DotsAndBoxes"]


def test_assets_run_tokens_to_classification_on_reference_games_and_the_catalog_shows_them(tmp_path, reference_dirs):
    root = tmp_path / "data"
    per_game, problems = run_ingest([str(p) for p in reference_dirs], root, mode="ordered",
                                    instance=dg.DagsterInstance.ephemeral())
    assert problems == [] and per_game.rows() == [("connect4", 3, 61), ("dotsandboxes", 3, 76)]
    tokens = table(root, "ingested_tokens")  # mode ordered: list items always indexed
    assert tokens.filter(pl.col("token").str.starts_with(".gridBoard.grid[")).height > 0
    assert tokens.filter(pl.col("token").str.starts_with(".gridBoard.grid.")).is_empty()
    bags = table(root, "ingested_bags")
    assert (bags.group_by("game", "frequency", "game_id").agg(pl.col("p").sum())["p"] - 1).abs().max() < 1e-9
    assert not bags["token"].str.contains("playerResults").any()
    prototypes = table(root, "ingested_prototypes")
    assert set(prototypes["game"]) == {"connect4", "dotsandboxes"}
    classification = table(root, "ingested_classification")
    assert classification.select("game", "n_train", "n_test").unique().sort("game").rows() == [
        ("connect4", 2, 1), ("dotsandboxes", 2, 1)]
    con = open_catalog(root)
    columns, rows = run_query(con, "SELECT game, count(*) FROM ingested_games GROUP BY game ORDER BY game")
    assert rows == [("connect4", 3), ("dotsandboxes", 3)]
    assert run_query(con, "SELECT count(*) FROM quarantine")[1] == [(0,)]


@pytest.mark.slow  # a persistent Dagster instance (sqlite) is created and used: about 10 s on a busy machine
def test_cli_ingest_exit_codes_and_messages(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "home"))
    root = tmp_path / "data"
    good = game_file(tmp_path / "in" / "nim-1.json")
    bad = tmp_path / "in" / "nim-2.json"
    bad.write_text('{"not": "an array"}')
    assert main(["ingest", str(tmp_path / "in"), "--data-dir", str(root), "--mode", "unordered"]) == 3
    captured = capsys.readouterr()
    assert "jbag ingest: nim: 1 games, 3 states" in captured.out  # the good file landed
    assert f"jbag ingest: quarantined: {bad}: the top-level value is an object" in captured.err
    assert table(root, "ingested_games")["game_id"].to_list() == [1]
    assert main(["ingest", str(tmp_path / "nowhere"), "--data-dir", str(root)]) == 2
    assert "no such file or folder" in capsys.readouterr().err
    assert main(["ingest", str(good), "--data-dir", str(root), "--game", "Bad Name"]) == 2
    assert "game name 'Bad Name'" in capsys.readouterr().err


PEAK_SCRIPT = """
import resource, sys
from jbag_pipeline.ingest.trajectories import read_trajectories
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
batch = read_trajectories([sys.argv[1]], game="big")
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(len(batch.states), len(batch.quarantine), (after - before) * 1024)
"""


def big_state(i: int) -> dict:
    cells = [[{"owner": (i + r * c) % 3, "tags": ["a", "b"], "n": {}} for c in range(8)] for r in range(8)]
    return {"gameType": "Big", "nPlayers": 2, "tick": i, "grid": cells, "text": "x" * 200}


@pytest.mark.slow
@pytest.mark.parametrize("suffix", [".json", ".jsonl"])
def test_a_50_mb_file_is_read_with_memory_bounded_by_its_documents(tmp_path, suffix):
    size = 50 * 1024 * 1024
    path = tmp_path / f"big-1{suffix}"
    n = 0
    with open(path, "wb") as fh:
        fh.write(b"[" if suffix == ".json" else b"")
        while fh.tell() < size:
            doc = big_state(n)
            if n == 0 and suffix == ".json":
                fh.write(orjson.dumps(doc))
            elif suffix == ".json":
                fh.write(b",\n" + orjson.dumps(doc))
            else:
                fh.write(orjson.dumps({"game_id": n // 50, "state": doc}) + b"\n")
            n += 1
        fh.write(b"]" if suffix == ".json" else b"")
    result = subprocess.run([sys.executable, "-c", PEAK_SCRIPT, str(path)], cwd=REPO, capture_output=True, text=True,
                            env={**os.environ, "PYTHONPATH": str(REPO)}, timeout=300)
    assert result.returncode == 0, result.stderr
    states, quarantined, peak_growth = map(int, result.stdout.split())
    assert (states, quarantined) == (n, 0)
    # the kept documents themselves (Arrow text, about the file's size) plus a 16 MB buffer and one state;
    # parsing the whole file at once would hold its Python objects, several times its size
    assert peak_growth < path.stat().st_size + 48 * 1024 * 1024, peak_growth


def test_without_paths_the_asset_ingests_the_inbox_and_an_empty_inbox_is_a_no_op(tmp_path):
    from jbag_pipeline.assets.ingest import ingested_games
    from jbag_pipeline.resources import JbagSettings, LakeResource
    from jbag_pipeline.resources.io_manager import lake_resources

    instance = dg.DagsterInstance.ephemeral()

    def materialize():
        return dg.materialize([ingested_games], instance=instance,
                              resources=lake_resources(JbagSettings(preset="smoke"),
                                                       LakeResource(data_dir=str(tmp_path))))

    assert materialize().success  # what `jbag run` does when nobody dropped files in data/inbox
    assert table(tmp_path.resolve(), "ingested_sources").is_empty()
    assert not lake.table_exists(tmp_path.resolve(), "ingested_tokens")
    assert instance.get_dynamic_partitions("ingested_game") == []
    game_file(tmp_path / "inbox" / "nim-1.json")
    game_file(tmp_path / "inbox" / "nim-2.json", winner=0)
    assert materialize().success
    assert table(tmp_path.resolve(), "ingested_games")["game_id"].to_list() == [1, 2]
    assert set(table(tmp_path.resolve(), "ingested_tokens")["game_id"]) == {1, 2}
    assert instance.get_dynamic_partitions("ingested_game") == ["nim"]
