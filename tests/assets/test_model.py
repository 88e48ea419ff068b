"""The model assets materialise one game's tokens, samples, bags, prototypes and P-NNS accuracy; all checks pass."""

import polars as pl
import pytest

import jbag_pipeline.storage.lake as lake
from jbag_pipeline.assets.model import (sampled_states, state_tokens, trajectory_bags, winner_classification,
                                        winner_prototypes)
from jbag_pipeline.assets.selfplay import selfplay
from jbag_pipeline.presets import PRESETS
from tests.helpers.materialize import GAME, check_results, declared_checks, materialize

MODEL = [state_tokens, sampled_states, trajectory_bags, winner_prototypes, winner_classification]


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    root = tmp_path_factory.mktemp("model")
    materialize([selfplay], root, partition_key=GAME)
    return root, materialize(MODEL, root, partition_key=GAME)


def table(root, name):
    return lake.read_table(root, name, {"game": GAME})


def test_state_tokens_cover_every_state(run):
    root, _ = run
    tokens, states = table(root, "state_tokens"), table(root, "selfplay_states")
    assert {"game_id", "state_idx", "token", "count"} <= set(tokens.columns)
    assert tokens.select("game_id", "state_idx").unique().height == states.height
    assert tokens["count"].min() >= 1


def test_bags_and_prototypes_are_distributions_without_blacklisted_fields(run):
    root, _ = run
    bags, prototypes = table(root, "trajectory_bags"), table(root, "winner_prototypes")
    sums = bags.group_by("frequency", "game_id").agg(pl.col("p").sum())["p"]
    assert ((sums - 1).abs() < 1e-9).all()
    assert set(bags["frequency"]) == set(table(root, "sampled_states")["frequency"])
    winners = set(table(root, "selfplay_games")["winner"].drop_nulls())
    assert set(prototypes["seat"]) == winners
    blacklist = PRESETS["smoke"].blacklist_for(GAME)
    assert not any(field in token for token in bags["token"].unique() for field in blacklist)


def test_winner_classification_accuracy_within_its_interval(run):
    root, _ = run
    result = table(root, "winner_classification").filter(pl.col("accuracy").is_not_null())
    assert not result.is_empty()
    assert result.select(pl.col("accuracy").is_between(pl.col("accuracy_low"), pl.col("accuracy_high")).all()).item()


def test_model_checks(run):
    _, result = run
    checks = check_results(result)
    assert set(checks) == declared_checks(MODEL)
    assert all(checks.values()), checks
