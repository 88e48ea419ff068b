"""The tic-tac-toe assets materialise: the exact values, their compression, and JSON-Bag against f_all."""

import polars as pl
import pytest

import jbag_pipeline.storage.lake as lake
from jbag_pipeline.assets.model import sampled_states, state_tokens, trajectory_bags, winner_prototypes
from jbag_pipeline.assets.selection import segmented_bags, selected_features
from jbag_pipeline.assets.selfplay import selfplay
from jbag_pipeline.assets.tictactoe import tictactoe_compression, tictactoe_jsonbag, tictactoe_values
from tests.helpers.materialize import GAME, check_results, declared_checks, materialize

TICTACTOE = [tictactoe_values, tictactoe_compression, tictactoe_jsonbag]


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    root = tmp_path_factory.mktemp("tictactoe")
    materialize([selfplay, state_tokens, sampled_states, trajectory_bags, winner_prototypes, segmented_bags,
                 selected_features], root, partition_key=GAME)
    return root, materialize(TICTACTOE, root)


def test_tictactoe_values(run):
    root, _ = run
    values = lake.read_table(root, "tictactoe_values")
    assert len(values) == 3 ** 9 and values["board"].n_unique() == 3 ** 9
    assert int(values["valid"].sum()) == 5478
    assert (values.filter(~pl.col("valid"))["f_all"] == 0).all()
    assert values["f_all"].is_between(-1, 1).all()


def test_tictactoe_compression(run):
    root, _ = run
    table = lake.read_table(root, "tictactoe_compression")
    for method, top in (("svd", 81), ("hosvd", 27)):
        rows = table.filter(pl.col("method").str.to_lowercase() == method).sort("r")
        assert rows["r"].to_list() == list(range(top + 1)), method
        assert abs(rows["E"][0] - 1) < 1e-9 and rows["E"][-1] < 1e-9, method
    assert (root / "report" / "tictactoe_compression.png").stat().st_size > 0


def test_tictactoe_jsonbag(run):
    root, _ = run
    table = lake.read_table(root, "tictactoe_jsonbag")
    assert not table.is_empty() and (table["n_boards"] == 4520).all()
    assert table["spearman_within_move_count"].drop_nulls().is_between(-1, 1).all()
    assert table["best_move_probability"].is_between(0, 1).all()
    assert (root / "report" / "tictactoe_jsonbag.png").stat().st_size > 0


def test_tictactoe_checks(run):
    _, result = run
    checks = check_results(result)
    assert set(checks) == declared_checks(TICTACTOE)
    assert all(checks.values()), checks
