"""variant_classification materialises for one game from the model and selection tables; its check passes."""

import polars as pl
import pytest

import jbag_pipeline.storage.lake as lake
from jbag_pipeline.assets.classification import variant_classification
from jbag_pipeline.assets.model import sampled_states, state_tokens
from jbag_pipeline.assets.selection import segmented_bags, selected_features
from jbag_pipeline.assets.selfplay import selfplay
from tests.helpers.materialize import GAME, check_results, declared_checks, materialize


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    root = tmp_path_factory.mktemp("classification")
    materialize([selfplay, state_tokens, sampled_states, segmented_bags, selected_features], root, partition_key=GAME)
    return root, materialize([variant_classification], root, partition_key=GAME)


def test_variant_classification_table(run):
    root, _ = run
    table = lake.read_table(root, "variant_classification", {"game": GAME})
    assert {"prefix", "accuracy", "accuracy_low", "accuracy_high"} <= set(table.columns)
    assert 1.0 in set(table["prefix"])
    known = table.filter(pl.col("accuracy").is_not_null())
    assert not known.is_empty()
    assert known.select(pl.col("accuracy").is_between(pl.col("accuracy_low"), pl.col("accuracy_high")).all()).item()


def test_variant_classification_check(run):
    _, result = run
    checks = check_results(result)
    assert set(checks) == declared_checks([variant_classification])
    assert all(checks.values()), checks
