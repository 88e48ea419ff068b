"""The ingested_* model assets materialise per `ingested_game` partition (sampled states, bags, prototypes, P-NNS);
ingested_games adds and removes those dynamic partitions, and only the partitions of changed games are rebuilt.
Their asset checks (sum to one, accuracy in range) are the self-play chain's."""

import dagster as dg
import polars as pl
import pytest

import jbag_pipeline.storage.lake as lake
from jbag_pipeline.assets.ingest import ingested_games
from jbag_pipeline.assets.ingested_model import INGESTED_GAMES, INGESTED_MODEL_ASSETS, MODEL_TABLES
from jbag_pipeline.automation.ingested import ROOT_INPUTS, changed_games
from jbag_pipeline.cli.ingest import run_ingest
from jbag_pipeline.resources import JbagSettings, settings_from_env
from tests.helpers.materialize import check_results, declared_checks, materialize_with
from tests.helpers.nim_files import nim_file, nim_inbox


def partition_keys(instance) -> list[str]:
    return sorted(instance.get_dynamic_partitions(INGESTED_GAMES.name))


def builds(instance, table: str, game: str) -> int:
    """How many times the partition `game` of `table` was materialised."""
    records = instance.fetch_materializations(
        dg.AssetRecordsFilter(asset_key=dg.AssetKey(table), asset_partitions=[game]), limit=100).records
    return len(records)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    root = tmp_path_factory.mktemp("ingested_model")
    nim_inbox(root, n_games=12)
    settings, instance = JbagSettings(preset="smoke"), dg.DagsterInstance.ephemeral()
    assert materialize_with([ingested_games], settings, root, instance=instance).success
    result = materialize_with(INGESTED_MODEL_ASSETS, settings, root, partition_key="nim", instance=instance)
    assert result.success
    return root, result, settings, instance


def nim(root, table):
    return lake.read_table(root, table, {"game": "nim"})


def test_ingested_bags_and_prototypes_are_distributions(run):
    root, *_ = run
    bags = nim(root, "ingested_bags")
    assert set(bags["game_id"]) == set(range(1, 13))
    assert ((bags.group_by("frequency", "game_id").agg(pl.col("p").sum())["p"] - 1).abs() < 1e-9).all()
    prototypes = nim(root, "ingested_prototypes")
    assert set(prototypes["seat"]) == {0, 1}
    assert ((prototypes.group_by("frequency", "seat").agg(pl.col("p").sum())["p"] - 1).abs() < 1e-9).all()
    assert not any("playerResults" in token for token in bags["token"].unique())  # the outcome field is dropped


def test_ingested_classification_accuracy_within_its_interval(run):
    root, *_ = run
    table = nim(root, "ingested_classification").filter(pl.col("accuracy").is_not_null())
    assert not table.is_empty()
    assert table.select(pl.col("accuracy").is_between(pl.col("accuracy_low"), pl.col("accuracy_high")).all()).item()


def test_each_asset_writes_its_games_lake_partition_and_nothing_is_stale_after(run):
    root, result, settings, instance = run
    assert partition_keys(instance) == ["nim"]
    for table in MODEL_TABLES:
        (event,) = result.asset_materializations_for_node(table)
        assert event.partition == "nim"
        assert event.metadata["path"].value == str(lake.partition_path(root, table, {"game": "nim"}))
    assert changed_games(instance, settings, root) == {}


def test_ingested_model_checks_run_and_pass(run):
    checks = check_results(run[1])
    assert set(checks) == declared_checks(INGESTED_MODEL_ASSETS) == {
        ("ingested_bags", "bags_sum_to_one"), ("ingested_prototypes", "prototypes_sum_to_one"),
        ("ingested_classification", "accuracy_in_range")}
    assert all(checks.values()), checks


def test_a_newly_ingested_game_appears_as_a_dynamic_partition_and_a_removed_one_goes(tmp_path):
    root, instance = tmp_path / "data", dg.DagsterInstance.ephemeral()
    run_ingest([str(nim_file(tmp_path / "in" / "nim-1.json"))], root, instance=instance)
    assert partition_keys(instance) == ["nim"]
    chess = nim_file(tmp_path / "in" / "chess-1.json")
    run_ingest([str(chess)], root, game="chess", instance=instance)
    assert partition_keys(instance) == ["chess", "nim"]
    assert lake.partition_path(root, "ingested_bags", {"game": "chess"}).exists()
    run_ingest([str(chess)], root, game="othello", instance=instance)  # the file's games move to another game
    assert partition_keys(instance) == ["nim", "othello"]
    for table in MODEL_TABLES:
        assert not lake.partition_path(root, table, {"game": "chess"}).exists(), table
        assert lake.partition_path(root, table, {"game": "othello"}).exists(), table


def test_reingesting_an_unchanged_inbox_materialises_no_model_partition(tmp_path):
    root, instance = tmp_path / "data", dg.DagsterInstance.ephemeral()
    inbox = nim_inbox(tmp_path, n_games=4)
    run_ingest([str(inbox)], root, instance=instance)
    assert {builds(instance, table, "nim") for table in MODEL_TABLES} == {1}
    ingested = {t: lake.partition_path(root, t, {"game": "nim"}).stat().st_ino for t in ROOT_INPUTS}
    runs = len(instance.get_runs())
    run_ingest([str(inbox)], root, instance=instance)
    assert len(instance.get_runs()) == runs + 2  # the ingest and the catalog
    assert {builds(instance, table, "nim") for table in MODEL_TABLES} == {1}
    assert {t: lake.partition_path(root, t, {"game": "nim"}).stat().st_ino for t in ROOT_INPUTS} == ingested
    assert changed_games(instance, JbagSettings(preset=settings_from_env().preset), root) == {}


def test_a_changed_game_rebuilds_only_its_partition(tmp_path):
    root, instance = tmp_path / "data", dg.DagsterInstance.ephemeral()
    run_ingest([str(nim_file(tmp_path / "in" / "nim-1.json")), str(nim_file(tmp_path / "in" / "nim-2.json", winner=0))],
               root, instance=instance)
    run_ingest([str(nim_file(tmp_path / "other" / "chess-1.json"))], root, game="chess", instance=instance)
    files = {table: lake.partition_path(root, table, {"game": "chess"}).stat().st_ino for table in MODEL_TABLES}
    runs = len(instance.get_runs())
    run_ingest([str(nim_file(tmp_path / "in" / "nim-3.json"))], root, instance=instance)
    assert len(instance.get_runs()) == runs + 2  # the ingest (which extends nim's model partition), the catalog
    assert {builds(instance, table, "nim") for table in MODEL_TABLES} == {2}
    assert {builds(instance, table, "chess") for table in MODEL_TABLES} == {1}
    assert {table: lake.partition_path(root, table, {"game": "chess"}).stat().st_ino for table in MODEL_TABLES} == files
    assert set(lake.read_table(root, "ingested_bags", {"game": "nim"})["game_id"]) == {1, 2, 3}
