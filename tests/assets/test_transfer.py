"""transfer materialises one variant pair's token mapping and results on the smoke preset; its check passes."""

import polars as pl
import pytest

import jbag_pipeline.storage.lake as lake
from jbag_pipeline.assets.transfer import transfer
from jbag_pipeline.presets import PRESETS
from jbag_pipeline.schemas import TOKEN_MAPPINGS
from jbag_pipeline.transfer.experiment import CONTROL_METHOD, TRANSFER_RESULTS_SCHEMA
from jbag_pipeline.transfer.mapping import MATCH_KINDS
from tests.helpers.materialize import check_results, declared_checks, materialize

PAIR = "connect4-8x8-to-6x7"


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    root = tmp_path_factory.mktemp("transfer")
    return root, materialize([transfer], root, partition_key=PAIR)


def test_token_mappings(run):
    root, _ = run
    mapping = lake.read_table(root, "token_mappings", {"pair": PAIR})
    assert set(TOKEN_MAPPINGS) <= set(mapping.columns) and set(mapping["pair"]) == {PAIR}
    assert mapping["target_token"].n_unique() == len(mapping)  # one row per target token
    assert set(mapping["match_kind"]) <= set(MATCH_KINDS)
    exact = mapping.filter(pl.col("match_kind") == "exact")
    assert not exact.is_empty() and (exact["source_token"] == exact["target_token"]).all()
    assert mapping["target_token"].str.contains(r"\[6\]").any()  # the target board is 6x7: row index 6 exists


def test_transfer_results(run):
    root, _ = run
    results = lake.read_table(root, "transfer_results", {"pair": PAIR})
    assert set(TRANSFER_RESULTS_SCHEMA) <= set(results.columns)
    assert {"transferred", "random_mapping", "target_trained", CONTROL_METHOD} <= set(results["method"])
    finetuned = results.filter(pl.col("method").str.starts_with("finetuned_"))
    expected = PRESETS["smoke"].transfer["finetune_games"]
    assert sorted(finetuned["method"]) == sorted(f"finetuned_{n}" for n in expected)
    assert sorted(finetuned["n_target_games"]) == sorted(expected)
    assert ((results["wins"] + results["draws"] + results["losses"]) == results["games"]).all()
    assert results.select(pl.col("win_rate").is_between(pl.col("win_rate_low"), pl.col("win_rate_high")).all()).item()


def test_transfer_check(run):
    _, result = run
    checks = check_results(result)
    assert set(checks) == declared_checks([transfer])
    assert all(checks.values()), checks
