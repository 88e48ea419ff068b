"""segmented_bags and selected_features materialise for one game; their checks pass."""

import polars as pl
import pytest

import jbag_pipeline.storage.lake as lake
from jbag_pipeline.assets.model import sampled_states, state_tokens
from jbag_pipeline.assets.selection import segmented_bags, selected_features
from jbag_pipeline.assets.selfplay import selfplay
from jbag_pipeline.presets import PRESETS
from tests.helpers.materialize import GAME, check_results, declared_checks, materialize

SELECTION = [segmented_bags, selected_features]
VARIANTS = {"full", "interval", "random", "full_seg", "interval_seg", "random_seg", "none", "adaptive"}


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    root = tmp_path_factory.mktemp("selection")
    materialize([selfplay, state_tokens, sampled_states], root, partition_key=GAME)
    return root, materialize(SELECTION, root, partition_key=GAME)


def test_segmented_bags_are_distributions_per_segment(run):
    root, _ = run
    bags = lake.read_table(root, "segmented_bags", {"game": GAME})
    assert set(bags["segment"]) == set(range(1, PRESETS["smoke"].segments + 1))
    sums = bags.group_by("frequency", "segment", "game_id").agg(pl.col("p").sum())["p"]
    assert ((sums - 1).abs() < 1e-9).all()


def test_selected_features_per_variant(run):
    root, _ = run
    features = lake.read_table(root, "selected_features", {"game": GAME})
    summary = lake.read_table(root, "feature_summary", {"game": GAME})
    assert set(summary["variant"]) == VARIANTS
    top_k = PRESETS["smoke"].top_k
    per_variant = features.group_by("variant").len()
    assert per_variant.filter(pl.col("variant") == "full")["len"].item() <= top_k
    assert not features.filter(pl.col("variant") == "none").is_empty()


def test_selection_checks(run):
    _, result = run
    checks = check_results(result)
    assert set(checks) == declared_checks(SELECTION)
    assert all(checks.values()), checks
