"""selfplay materialises one game's games and states tables on the smoke preset; both its checks pass."""

import polars as pl
import pytest

import jbag_pipeline.storage.lake as lake
from jbag_pipeline.assets.selfplay import selfplay
from jbag_pipeline.presets import PRESETS, game_run
from tests.helpers.materialize import GAME, check_results, declared_checks, materialize


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    root = tmp_path_factory.mktemp("selfplay")
    return root, materialize([selfplay], root, partition_key=GAME)


def test_selfplay_tables(run):
    root, _ = run
    games = lake.read_table(root, "selfplay_games", {"game": GAME})
    states = lake.read_table(root, "selfplay_states", {"game": GAME})
    assert len(games) == game_run(PRESETS["smoke"], GAME).selfplay_games
    assert games["game_id"].n_unique() == len(games)
    assert {"game_id", "winner", "n_states", "actions"} <= set(games.columns)
    per_game = states.group_by("game_id").len()
    counts = games.join(per_game, on="game_id").select((pl.col("len") == pl.col("n_states")).all()).item()
    assert counts, "n_states differs from the states recorded"
    assert states.filter("is_terminal").group_by("game_id").len()["len"].to_list() == [1] * len(games)


def test_selfplay_checks(run):
    _, result = run
    checks = check_results(result)
    assert set(checks) == declared_checks([selfplay])
    assert all(checks.values()), checks
