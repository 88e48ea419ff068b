"""The evaluation assets materialise for one game on the smoke preset: control arm, pair games, stability halves
and the summary tables (evaluation_summary, paper tables, effect sizes, stability, verdicts); all checks pass."""

import polars as pl
import pytest

import jbag_pipeline.storage.lake as lake
from jbag_pipeline.assets.evaluation import evaluation_control, evaluation_games, evaluation_tables, stability_games
from jbag_pipeline.assets.leakage import counters_kept
from jbag_pipeline.assets.model import sampled_states, state_tokens, trajectory_bags, winner_prototypes
from jbag_pipeline.assets.selection import segmented_bags, selected_features
from jbag_pipeline.assets.selfplay import selfplay
from jbag_pipeline.presets import PRESETS, game_run
from tests.helpers.materialize import GAME, check_results, declared_checks, materialize

UPSTREAM = [selfplay, state_tokens, sampled_states, trajectory_bags, winner_prototypes, segmented_bags,
            selected_features, counters_kept]
PAIRS = PRESETS["smoke"].evaluation_pairs
SEATS = [0, 1]
GAMES_PER_SEAT = game_run(PRESETS["smoke"], GAME).eval_games_per_seat


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """(lake root, {step: run result}) after every evaluation asset ran once on the tic-tac-toe smoke lake."""
    root = tmp_path_factory.mktemp("evaluation")
    materialize(UPSTREAM, root, partition_key=GAME)
    results = {"per_game": materialize([evaluation_control, evaluation_games, stability_games], root,
                                       partition_key=GAME)}
    results["tables"] = materialize([evaluation_tables], root)
    return root, results


def test_evaluation_control_has_every_seat(run):
    root, _ = run
    control = lake.read_table(root, "evaluation_control", {"game": GAME})
    assert control["seat"].to_list() == SEATS
    assert (control["games"] == GAMES_PER_SEAT).all()
    assert ((control["wins"] + control["draws"] + control["losses"]) == control["games"]).all()


def test_evaluation_games_one_row_per_game_and_seat(run):
    root, _ = run
    games = lake.read_table(root, "evaluation_games")
    pairs = games.select((pl.col("prototype_frequency") + "-" + pl.col("feature_variant")).alias("pair"))["pair"]
    assert set(pairs) == set(PAIRS)
    per_pair_seat = games.group_by("prototype_frequency", "feature_variant", "seat").len()
    assert (per_pair_seat["len"] == GAMES_PER_SEAT).all() and set(per_pair_seat["seat"]) == set(SEATS)
    assert games["score"].is_between(-1, 1).all()


def test_stability_games_halves(run):
    root, _ = run
    stability = lake.read_table(root, "stability_games", {"game": GAME})
    assert set(stability["half"]) <= {"a", "b"}
    assert "seconds" not in stability.columns


def test_summary_tables(run):
    root, _ = run
    summary = lake.read_table(root, "evaluation_summary")
    overall = summary.filter(pl.col("scope") == "overall")
    assert len(overall) == len(PAIRS)
    assert overall.select(pl.col("win_rate").is_between(pl.col("win_rate_low"), pl.col("win_rate_high")).all()).item()
    table_1 = lake.read_table(root, "paper_table_1")
    assert table_1["rank"].to_list() == list(range(1, len(table_1) + 1)) and len(table_1) <= 3
    assert "full_counters_kept" not in set(table_1["feature_variant"])  # the sensitivity pair is not ranked
    assert lake.read_table(root, "paper_table_2")["feature_variant"].to_list() == ["none"]
    assert lake.read_table(root, "verdicts")["game"].to_list() == [GAME]
    eta = lake.read_table(root, "effect_sizes")["eta_squared"].drop_nans().drop_nulls()
    assert eta.is_between(0, 1).all()


def test_evaluation_checks(run):
    _, results = run
    checks = {}
    for result in results.values():
        checks.update(check_results(result))
    assert set(checks) == declared_checks([evaluation_control, evaluation_games, stability_games, evaluation_tables])
    assert all(checks.values()), checks
