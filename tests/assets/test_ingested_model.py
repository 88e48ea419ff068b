"""The ingested_* model assets materialise per ingested game (sampled states, bags, prototypes, P-NNS) and a
second run rebuilds nothing whose inputs did not change. The assets declare no asset checks."""

import polars as pl
import pytest

import jbag_pipeline.storage.lake as lake
from jbag_pipeline.assets.ingest import ingested_games
from jbag_pipeline.assets.ingested_model import INGESTED_MODEL_ASSETS
from tests.helpers.materialize import check_results, materialize
from tests.helpers.nim_files import nim_inbox


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    root = tmp_path_factory.mktemp("ingested_model")
    nim_inbox(root, n_games=12)
    materialize([ingested_games], root)
    return root, materialize(INGESTED_MODEL_ASSETS, root)


def nim(root, table):
    return lake.read_table(root, table, {"game": "nim"})


def test_ingested_bags_and_prototypes_are_distributions(run):
    root, _ = run
    bags = nim(root, "ingested_bags")
    assert set(bags["game_id"]) == set(range(1, 13))
    assert ((bags.group_by("frequency", "game_id").agg(pl.col("p").sum())["p"] - 1).abs() < 1e-9).all()
    prototypes = nim(root, "ingested_prototypes")
    assert set(prototypes["seat"]) == {0, 1}
    assert ((prototypes.group_by("frequency", "seat").agg(pl.col("p").sum())["p"] - 1).abs() < 1e-9).all()
    assert not any("playerResults" in token for token in bags["token"].unique())  # the outcome field is dropped


def test_ingested_classification_accuracy_within_its_interval(run):
    root, _ = run
    table = nim(root, "ingested_classification").filter(pl.col("accuracy").is_not_null())
    assert not table.is_empty()
    assert table.select(pl.col("accuracy").is_between(pl.col("accuracy_low"), pl.col("accuracy_high")).all()).item()


def test_a_second_run_rebuilds_nothing(run):
    root, _ = run
    again = materialize(INGESTED_MODEL_ASSETS, root)
    for asset in ("ingested_sampled_states", "ingested_bags", "ingested_prototypes", "ingested_classification"):
        (event,) = again.asset_materializations_for_node(asset)
        assert event.metadata["games_rebuilt"].value == 0 and event.metadata["games"].value == 1, asset


def test_ingested_model_declares_no_checks(run):
    assert check_results(run[1]) == {}
