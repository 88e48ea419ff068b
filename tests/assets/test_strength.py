"""selfplay_strength and the opt-in selfplay_tuning materialise one game's table on the smoke preset."""

import pytest

import jbag_pipeline.storage.lake as lake
from jbag_pipeline.assets.selfplay import selfplay
from jbag_pipeline.assets.strength import selfplay_strength
from jbag_pipeline.assets.tuning import selfplay_tuning
from jbag_pipeline.run_policy import OPT_IN
from jbag_pipeline.cli.runner import tagged
from jbag_pipeline.presets import PRESETS, game_run, tuning_candidates
from jbag_pipeline.schemas import SELFPLAY_STRENGTH, SELFPLAY_TUNING
from tests.helpers.materialize import GAME, check_results, declared_checks, materialize


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    root = tmp_path_factory.mktemp("strength")
    materialize([selfplay], root, partition_key=GAME)
    return root, materialize([selfplay_strength, selfplay_tuning], root, partition_key=GAME)


def test_strength_table(run):
    root, _ = run
    table = lake.read_table(root, "selfplay_strength", {"game": GAME})
    assert table.columns == list(SELFPLAY_STRENGTH)
    row = table.row(0, named=True)
    smoke = game_run(PRESETS["smoke"], GAME)
    assert row["n"] == 2 * smoke.strength_games_per_seat
    assert row["selfplay_games"] == smoke.selfplay_games
    assert row["win_rate_low"] <= row["win_rate"] <= row["win_rate_high"]
    assert row["chance_rate"] == 0.5


def test_tuning_table(run):
    root, _ = run
    table = lake.read_table(root, "selfplay_tuning", {"game": GAME})
    assert table.columns == list(SELFPLAY_TUNING)
    assert sorted(table["candidate"]) == sorted(c.label() for c in tuning_candidates(PRESETS["smoke"], GAME))
    assert table["rank"].to_list() == list(range(1, len(table) + 1))
    opt_in = tagged([selfplay_strength, selfplay_tuning], OPT_IN)
    assert "selfplay_tuning" in opt_in and "selfplay_strength" not in opt_in


def test_checks(run):
    _, result = run
    checks = check_results(result)
    assert set(checks) == declared_checks([selfplay_strength])
    assert all(checks.values()), checks
