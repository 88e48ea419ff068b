"""An ingest that only adds games to a game extends its partitions and its ingested model from the new games
alone (segments, kept prototype sums), in the ingest's transaction, and every table equals a rebuild."""

from __future__ import annotations

from pathlib import Path

import dagster as dg
import orjson
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import jbag_pipeline.assets.ingested_increment as increment
import jbag_pipeline.storage.lake as lake
import jbag_pipeline.storage.staging as staging
from jbag_pipeline.assets.ingested_model import INGESTED_MODEL_ASSETS, MODEL_TABLES
from jbag_pipeline.automation.ingested import changed_games
from jbag_pipeline.cli.ingest import run_ingest
from jbag_pipeline.ingest.store import write_batch
from jbag_pipeline.ingest.trajectories import read_trajectories
from jbag_pipeline.resources import JbagSettings, settings_from_env
from jbag_pipeline.storage.query import open_catalog
from tests.helpers.materialize import materialize_with
from tests.helpers.storage import run_query

TABLES = ["ingested_games", "ingested_states", "ingested_tokens", "ingested_sources", "ingest_quarantine",
          *MODEL_TABLES]
SEGMENTED = ["ingested_games", "ingested_states", "ingested_tokens", "ingested_sampled_states", "ingested_bags"]


def game_file(folder: Path, game_id: int) -> Path:
    """A Nim game whose length, heaps and result (seat 0, seat 1 or a draw) vary with its id."""
    n_states = 3 + (game_id * 7) % 6
    outcome = (game_id * 5) % 7
    results = (["DRAW_GAME"] * 2 if outcome == 6 else
               ["WIN_GAME", "LOSE_GAME"] if outcome % 2 else ["LOSE_GAME", "WIN_GAME"])
    docs = [{"gameType": "Nim", "nPlayers": 2, "turn": t, "heap": [n_states - t, t, game_id % 3 + t % 2],
             "tag": f"k{(game_id + t) % 4}"} for t in range(n_states)]
    docs[-1]["playerResults"] = results
    path = folder / f"nim-{game_id}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(orjson.dumps(docs))
    return path


def files(folder: Path, ids) -> list[str]:
    return [str(game_file(folder, i)) for i in ids]


def sorted_table(root: Path, table: str) -> pl.DataFrame:
    frame = lake.read_table(root, table)
    return frame.sort([c for c, t in frame.schema.items() if t != pl.Float64 and not isinstance(t, pl.List)])


def assert_same_tables(root: Path, rebuilt: Path) -> None:
    for table in TABLES:
        try:
            assert_frame_equal(sorted_table(root, table), sorted_table(rebuilt, table), check_exact=False,
                               rel_tol=0, abs_tol=1e-12)
        except AssertionError as exc:
            raise AssertionError(f"{table}: {exc}") from None


def ingest_at_once(tmp_path: Path, ids) -> Path:
    """The files of `ids` (as they are now) ingested in one batch into a fresh data directory."""
    rebuilt = tmp_path / "rebuilt"
    run_ingest([str(tmp_path / "in" / f"nim-{i}.json") for i in ids], rebuilt, instance=dg.DagsterInstance.ephemeral())
    return rebuilt


BATCHES = [range(2, 31, 2), [7], [31, 32, 33], [1]]  # later batches also hold ids below those stored


def test_ingests_that_add_games_extend_the_model_and_equal_one_ingest_of_all(tmp_path):
    root, instance = tmp_path / "data", dg.DagsterInstance.ephemeral()
    run_ingest(files(tmp_path / "in", BATCHES[0]), root, instance=instance)
    for n, batch in enumerate(BATCHES[1:], start=1):
        runs = len(instance.get_runs())
        run_ingest(files(tmp_path / "in", batch), root, instance=instance)
        assert len(instance.get_runs()) == runs + 2  # the ingest and the catalog: no model run
        for table in SEGMENTED:
            assert len(lake.segment_files(root, table, {"game": "nim"})) == n, table
    assert_same_tables(root, ingest_at_once(tmp_path, [i for batch in BATCHES for i in batch]))
    classification = lake.read_table(root, "ingested_classification")
    assert classification["n_test"].to_list() == [5] * 4 and classification["accuracy"].null_count() == 0
    settings = JbagSettings(preset=settings_from_env().preset)
    assert changed_games(instance, settings, root) == {}  # the recorded fingerprints are the extended partitions'
    for table, check in (("ingested_bags", "bags_sum_to_one"), ("ingested_prototypes", "prototypes_sum_to_one"),
                         ("ingested_classification", "accuracy_in_range")):
        history = instance.event_log_storage.get_asset_check_execution_history(
            dg.AssetCheckKey(dg.AssetKey(table), check), limit=100)
        assert [r.status.value for r in history] == ["SUCCEEDED"] * len(BATCHES), (table, check)  # model run, ingests
    con = open_catalog(root)  # the catalog publishes the segments
    rows = len(lake.read_table(root, "ingested_tokens"))
    assert run_query(con, "SELECT count(*) FROM ingested_tokens")[1] == [(rows,)]


def test_a_model_not_up_to_date_is_rebuilt_whole_not_extended(tmp_path):
    root, instance = tmp_path / "data", dg.DagsterInstance.ephemeral()
    run_ingest(files(tmp_path / "in", BATCHES[0]), root, instance=instance)
    write_batch(root, read_trajectories(files(tmp_path / "in", BATCHES[1])))  # no model update: it is stale now
    runs = len(instance.get_runs())
    run_ingest(files(tmp_path / "in", BATCHES[2]), root, instance=instance)
    assert len(instance.get_runs()) == runs + 3  # the ingest, the game's model run, the catalog
    for table in MODEL_TABLES:
        assert lake.partition_files(root, table, {"game": "nim"}) == [
            lake.partition_path(root, table, {"game": "nim"})], table
    assert_same_tables(root, ingest_at_once(tmp_path, [*BATCHES[0], *BATCHES[1], *BATCHES[2]]))


def test_reingesting_a_file_and_rebuilding_the_model_replace_segments_whole(tmp_path):
    root, instance = tmp_path / "data", dg.DagsterInstance.ephemeral()
    run_ingest(files(tmp_path / "in", BATCHES[0]), root, instance=instance)
    run_ingest(files(tmp_path / "in", BATCHES[2]), root, instance=instance)
    settings = JbagSettings(preset=settings_from_env().preset)
    assert materialize_with(INGESTED_MODEL_ASSETS, settings, root, partition_key="nim", instance=instance).success
    for table in MODEL_TABLES:  # the model's own run: one file per partition again
        assert lake.segment_files(root, table, {"game": "nim"}) == [], table
    changed = tmp_path / "in" / "nim-32.json"
    changed.write_bytes(orjson.dumps(orjson.loads(changed.read_bytes())[:-1] + [{"gameType": "Nim", "nPlayers": 2,
                                                                                  "playerResults": ["WIN_GAME",
                                                                                                    "LOSE_GAME"]}]))
    run_ingest([str(changed)], root, instance=instance)  # replaces a stored game: the partitions are merged whole
    for table in SEGMENTED:
        assert lake.segment_files(root, table, {"game": "nim"}) == [], table
    assert_same_tables(root, ingest_at_once(tmp_path, [*BATCHES[0], *BATCHES[2]]))


@pytest.mark.parametrize("where", ["the model update", "the commit"])
def test_a_failed_extension_leaves_the_live_lake_and_its_model_as_they_were(tmp_path, monkeypatch, where):
    root, instance = tmp_path / "data", dg.DagsterInstance.ephemeral()
    run_ingest(files(tmp_path / "in", BATCHES[0]), root, instance=instance)
    before = {p: p.read_bytes() for p in sorted(lake.lake_dir(root).rglob("*.parquet"))}

    def fail(*args, **kwargs):
        raise OSError("injected failure")

    if where == "the model update":
        monkeypatch.setattr(increment, "classification_from_sums", fail)
    else:
        monkeypatch.setattr(staging.json, "dump", fail)
    with pytest.raises(Exception, match="injected failure"):
        run_ingest(files(tmp_path / "in", BATCHES[1]), root, instance=instance)
    monkeypatch.undo()
    assert {p: p.read_bytes() for p in sorted(lake.lake_dir(root).rglob("*.parquet"))} == before
    assert list(staging.staging_dir(root).iterdir()) == []
    run_ingest(files(tmp_path / "in", BATCHES[1]), root, instance=instance)
    assert_same_tables(root, ingest_at_once(tmp_path, [*BATCHES[0], *BATCHES[1]]))
