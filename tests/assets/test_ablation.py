"""value_function_ablation materialises for one game on the smoke preset: every factor's levels, the default rows
taken from evaluation_games' headline rows, the statistics columns; its check passes."""

import polars as pl
import pytest

import jbag_pipeline.storage.lake as lake
from jbag_pipeline.analysis.ablation import ablation_levels
from jbag_pipeline.analysis.statistics import OVERALL, summarise
from jbag_pipeline.assets.ablation import value_function_ablation
from jbag_pipeline.assets.evaluation import evaluation_control, evaluation_games
from jbag_pipeline.assets.leakage import counters_kept
from jbag_pipeline.assets.model import sampled_states, state_tokens, trajectory_bags, winner_prototypes
from jbag_pipeline.assets.selection import segmented_bags, selected_features
from jbag_pipeline.assets.selfplay import selfplay
from jbag_pipeline.presets import PRESETS, game_run
from jbag_pipeline.schemas import VALUE_FUNCTION_ABLATION
from tests.helpers.materialize import GAME, check_results, declared_checks, materialize

UPSTREAM = [selfplay, state_tokens, sampled_states, trajectory_bags, winner_prototypes, segmented_bags,
            selected_features, counters_kept, evaluation_control, evaluation_games]
PRESET = PRESETS["smoke"]


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    root = tmp_path_factory.mktemp("ablation")
    materialize(UPSTREAM, root, partition_key=GAME)
    return root, materialize([value_function_ablation], root, partition_key=GAME)


def test_every_level_is_a_row_with_the_schema(run):
    root, _ = run
    table = lake.read_table(root, "value_function_ablation", {"game": GAME})
    assert table.schema == pl.Schema(VALUE_FUNCTION_ABLATION)
    levels = ablation_levels(PRESET, GAME)
    assert table.select("factor", "level", "is_default").rows() == \
        [(level.factor, level.level, level.is_default) for level in levels]
    assert {"top_k", "normalisation"} | {f"turn_order:{f}" for f in ("turnCounter", "turnOwner", "moveCount")} \
        == set(table["factor"])
    assert set(table["pair"]) == {"full-full"}
    n = 2 * game_run(PRESET, GAME).eval_games_per_seat
    assert (table["n"] == n).all()
    top_k = dict(table.filter(pl.col("factor") == "top_k").select("level", "n_features").rows())
    assert set(top_k) == {"20", "40"} and top_k["40"] >= top_k["20"]
    assert table.filter(pl.col("is_default"))["p_value_vs_default"].is_null().all()


def test_default_rows_are_evaluation_games_headline_rows(run):
    root, _ = run
    table = lake.read_table(root, "value_function_ablation", {"game": GAME})
    games = lake.read_table(root, "evaluation_games", {"game": GAME})
    control = lake.read_table(root, "evaluation_control", {"game": GAME})
    full_full = (pl.col("prototype_frequency") == "full") & (pl.col("feature_variant") == "full")
    headline = summarise(games.filter(full_full), control).filter(pl.col("scope") == OVERALL)
    columns = ["n", "wins", "win_rate", "win_rate_low", "win_rate_high", "control_win_rate", "p_value_vs_control"]
    for row in table.filter(pl.col("is_default")).select(columns).rows():
        assert row == headline.select(columns).row(0)


def test_ablation_check(run):
    _, result = run
    checks = check_results(result)
    assert set(checks) == declared_checks([value_function_ablation])
    assert all(checks.values()), checks
