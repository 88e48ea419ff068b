"""The evaluation assets materialise for one game on the smoke preset: control arm, pair games, learning curve and
the summary tables (evaluation_summary, paper tables, effect sizes, verdicts); all checks pass."""

from dataclasses import replace

import orjson
import polars as pl
import pytest

import jbag_pipeline.storage.lake as lake
from jbag_pipeline.play.evaluation import play_control
from jbag_pipeline.play.learning_curve import curve_games, training_tables
from jbag_pipeline.analysis.statistics import holm
from jbag_pipeline.assets.evaluation import evaluation_control, evaluation_games, evaluation_tables, summary_of_pairs
from jbag_pipeline.assets.learning_curve import curve_pairs, learning_curve
from jbag_pipeline.assets.leakage import counters_kept
from jbag_pipeline.assets.model import sampled_states, state_tokens, trajectory_bags, winner_prototypes
from jbag_pipeline.assets.selection import segmented_bags, selected_features
from jbag_pipeline.assets.selfplay import selfplay
from jbag_pipeline.presets import PRESETS, game_run, token_filter_for
from jbag_pipeline.schemas import EVALUATION_GAMES_STORED, LEARNING_CURVE
from tests.analysis.test_statistics import control_rows, games_table
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
    results = {"per_game": materialize([evaluation_control, evaluation_games, learning_curve], root,
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


def _lake_curve_games(root, evaluated: pl.DataFrame):
    """curve_games of the smoke lake's tic-tac-toe tables, with `evaluated` as its evaluation_games."""
    preset = PRESETS["smoke"]
    selfplay = lake.read_table(root, "selfplay_games", {"game": GAME})
    bags, segmented = (lake.read_table(root, t, {"game": GAME}) for t in ("trajectory_bags", "segmented_bags"))
    pairs = curve_pairs(preset)

    def build(game_ids):
        return training_tables(bags, segmented, selfplay, game_ids, pairs, k=preset.top_k,
                               n_estimators=preset.rf_trees, seed=preset.seed, adaptive_share=preset.adaptive_share)

    return curve_games(GAME, orjson.loads(selfplay["params"][0]), 2, pairs, preset.learning_curve_shares, selfplay,
                       evaluated, build, token_filter_for(preset, GAME), GAMES_PER_SEAT, preset.seed)


def test_the_learning_curve_of_every_curve_pair(run):
    root, _ = run
    table = lake.read_table(root, "learning_curve", {"game": GAME})
    assert table.schema == pl.Schema(LEARNING_CURVE)
    assert set(table["pair"]) == {"full-none", "full-full"}  # the evaluated pairs but the counters-kept one
    assert set(table["share"]) <= {0.5, 1.0} and 1.0 in set(table["share"])
    n_selfplay = len(lake.read_table(root, "selfplay_games", {"game": GAME}))
    assert table.select(pl.col("train_games") == (pl.col("share") * n_selfplay).ceil().cast(pl.Int32)).to_series().all()
    assert table.select("selfplay_agent", "budget").unique().rows() == [("mcts", "iterations=10,rollout=20")]
    assert (table["n"] == 2 * GAMES_PER_SEAT).all()


def test_the_curve_plays_the_controls_seeds_and_its_last_point_is_the_evaluation(run):
    root, _ = run
    evaluated = lake.read_table(root, "evaluation_games", {"game": GAME})
    replayed = _lake_curve_games(root, evaluated.clear()).games  # nothing to reuse: every point is played
    params = orjson.loads(evaluated["params"][0])
    control = play_control(GAME, params, GAMES_PER_SEAT, PRESETS["smoke"].seed)
    for _, points in replayed.group_by("share", "feature_variant"):
        assert points.select("seat", "game_index", "seed").rows() == control.select("seat", "game_index", "seed").rows()
    stored = list(EVALUATION_GAMES_STORED)
    played_last = replayed.filter(pl.col("share") == 1.0).select(stored)
    curve_pairs_only = evaluated.filter(pl.col("feature_variant") != "full_counters_kept").sort(
        "prototype_frequency", "feature_variant", "seat", "game_index")
    assert played_last.equals(curve_pairs_only)  # the share-1 value function is the evaluation's
    reused = _lake_curve_games(root, evaluated).games
    assert reused.filter(pl.col("share") == 1.0).select(stored).equals(curve_pairs_only)
    assert reused.equals(replayed)


def test_curve_pairs_come_from_the_preset_and_are_checked():
    assert curve_pairs(PRESETS["demo"]) == ["full-full", "full-full_seg", "full-none"]
    assert len(curve_pairs(PRESETS["paper"])) == 24
    assert curve_pairs(replace(PRESETS["demo"], learning_curve_pairs=("interval-full",))) == ["interval-full"]
    with pytest.raises(ValueError, match="not curve pairs"):
        curve_pairs(replace(PRESETS["demo"], learning_curve_pairs=("full-full_counters_kept",)))


def test_the_holm_family_of_the_summary_is_the_selection_pairs():
    scores = {"none": 30, "full": 26, "full_seg": 10, "full_counters_kept": 40}  # wins of 40, seat 0
    games = games_table({("g", "full", v, 0): [1] * w + [-1] * (40 - w) for v, w in scores.items()})
    summary = summary_of_pairs(games, control_rows({("g", 0): (20, 40)})).filter(pl.col("scope") == "overall")
    selection = summary.filter(pl.col("feature_variant") != "full_counters_kept")
    adjusted = holm(selection["p_value_vs_control"].to_list())
    assert selection["p_value_holm"].to_list() == pytest.approx(adjusted.tolist())
    kept = summary.filter(pl.col("feature_variant") == "full_counters_kept").row(0, named=True)
    assert kept["p_value_holm"] == kept["p_value_vs_control"]  # a family of its own
    assert summary["feature_variant"].to_list() == sorted(scores)  # sorted as summarise sorts


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
    verdicts = lake.read_table(root, "verdicts")
    assert verdicts["game"].to_list() == [GAME] and verdicts["decided"].is_not_null().all()
    assert verdicts["curve_note"].str.len_chars().min() > 0 and verdicts["worst_seat"].is_in([0, 1]).all()
    eta = lake.read_table(root, "effect_sizes")["eta_squared"].drop_nans().drop_nulls()
    assert eta.is_between(0, 1).all()


def test_evaluation_checks(run):
    _, results = run
    checks = {}
    for result in results.values():
        checks.update(check_results(result))
    assert set(checks) == declared_checks([evaluation_control, evaluation_games, learning_curve, evaluation_tables])
    assert all(checks.values()), checks
