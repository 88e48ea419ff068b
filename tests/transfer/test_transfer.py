"""Transfer between game variants: token anatomy, exact and nearest-path mapping, the random control,
transferred and mixed prototypes, and a tiny end-to-end experiment."""

import random

import numpy as np
import polars as pl
import pytest

from engines import load_game
from jbag_pipeline.analysis.statistics import holm, score_interval, wilson_interval
from jbag_pipeline.model.tokenize import tokenize_state
from jbag_pipeline.transfer.experiment import (CONTROL_METHOD, TRANSFER_RESULTS_SCHEMA, TransferSettings,
                                               mix_prototypes, model_from_tables, selfplay_tables, source_weight,
                                               transfer_experiment, transfer_features, transfer_prototypes)
from jbag_pipeline.transfer.mapping import map_tokens, random_mapping, split_value, token_parts


def _vocabulary(game_name: str, params: dict, n_games: int = 6) -> set[str]:
    """Tokens of every state of seeded random-play games (num_suffix on, as the pipeline tokenizes)."""
    game, tokens = load_game(game_name, **params), set()
    for seed in range(n_games):
        state, rng = game.new_state(seed=seed), random.Random(seed)
        tokens |= set(tokenize_state(state.to_json(), num_suffix=True))
        while not state.is_terminal():
            state.apply(rng.choice(state.legal_actions()))
            tokens |= set(tokenize_state(state.to_json(), num_suffix=True))
    return tokens


def _row(mapping: pl.DataFrame, target: str) -> dict:
    return mapping.filter(pl.col("target_token") == target).row(0, named=True)


# token anatomy

def test_token_parts_split_path_value_shape_and_bare_tokens():
    parts = token_parts([".board..", ".board[0][1].x", ".heights[0]", ".heights[0].3", ".moveCount", ".moveCount.3",
                         ".x", ".x.1", ".x.1.5", ".x.-0.25", ".a.-1", ".name.Eve"])
    assert parts[".board.."] == (".board", ".", ".board", ())
    assert parts[".board[0][1].x"] == (".board[0][1]", "x", ".board[][]", (0, 1))
    assert parts[".heights[0]"].value is None and parts[".heights[0]"].shape == ".heights[]"  # ends with "]"
    assert parts[".heights[0].3"] == (".heights[0]", "3", ".heights[]", (0,))
    assert parts[".moveCount"] == (".moveCount", None, ".moveCount", ())  # bare: .moveCount.3 is beside it
    assert parts[".x.1"] == (".x", "1", ".x", ())  # the value token of bare .x, though .x.1.5 follows it
    assert parts[".x.1.5"].value == "1.5" and parts[".x.-0.25"].value == "-0.25"  # floats stay whole
    assert parts[".a.-1"] == (".a", "-1", ".a", ())
    assert parts[".name.Eve"] == (".name", "Eve", ".name", ())  # nothing beside it: a value, not a bare key


def test_bareness_depends_on_the_vocabulary():
    assert token_parts([".stats.wins"])[".stats.wins"].value == "wins"
    assert token_parts([".stats.wins", ".stats.wins.4"])[".stats.wins"].value is None


def test_split_value_rejects_a_token_without_a_dot():
    with pytest.raises(ValueError, match="no '.'"):
        split_value("board")


# map_tokens

def test_identical_vocabularies_map_to_themselves():
    tokens = _vocabulary("connect4", {"rows": 6, "cols": 7}, n_games=3)
    mapping = map_tokens(tokens, tokens)
    assert mapping["target_token"].to_list() == sorted(tokens)
    assert mapping["source_token"].to_list() == sorted(tokens)
    assert set(mapping["match_kind"]) == {"exact"} and set(mapping["distance"]) == {0.0}


def test_unordered_tokens_map_exactly_across_board_sizes():
    source = _vocabulary("connect4", {"rows": 6, "cols": 7})
    target = _vocabulary("connect4", {"rows": 8, "cols": 8})
    mapping = map_tokens(source, target)
    for token in (".board..", ".board.x", ".board.o", ".gameType.Connect4", ".nPlayers.2", ".heights.0"):
        assert _row(mapping, token) == {"target_token": token, "source_token": token, "match_kind": "exact",
                                        "distance": 0.0}
    unordered = mapping.filter(~pl.col("target_token").str.contains("[", literal=True))
    assert set(unordered["match_kind"]) == {"exact", "unmatched"}  # a token without indices has no near kin
    assert unordered.filter(pl.col("match_kind") == "unmatched")["target_token"].is_in(list(source)).sum() == 0
    ordered = mapping.filter(pl.col("match_kind") == "nearest")
    assert len(ordered) > 0 and ordered["target_token"].str.contains("[", literal=True).all()
    parts_source, parts_target = token_parts(source), token_parts(target)
    for target_token, source_token in ordered.select("target_token", "source_token").iter_rows():
        assert parts_target[target_token].value == parts_source[source_token].value
        assert parts_target[target_token].shape == parts_source[source_token].shape
    # the bottom row of 8x8 (row 7) is nearest to the bottom row of 6x7 (row 5): one edit, index 2 away
    assert _row(mapping, ".board[7][0]..")["source_token"] == ".board[5][0].."


def test_nearest_path_rule_on_hand_built_tokens():
    source = [".a[0].x", ".a[1].x", ".a[2].y", ".a[2].x", ".b[5].x", ".h[5]", ".h[5].3", ".m[0][0].x"]
    target = [".a[7].x", ".a[1].x", ".a[3].y", ".a[3].z", ".c[0].x", ".a[987654].x", ".h[7]", ".h[7].3",
              ".m[0].x", ".m[3][0].x"]
    mapping = map_tokens(source, target)
    assert _row(mapping, ".a[1].x")["match_kind"] == "exact"
    # one edit to each of [0], [1], [2]; the index nearest to 7 wins
    assert _row(mapping, ".a[7].x") == {"target_token": ".a[7].x", "source_token": ".a[2].x", "match_kind": "nearest",
                                        "distance": pytest.approx(1 / 5)}
    assert _row(mapping, ".a[3].y")["source_token"] == ".a[2].y"  # the same value only
    assert _row(mapping, ".a[3].z")["match_kind"] == "unmatched" and _row(mapping, ".a[3].z")["distance"] is None
    assert _row(mapping, ".c[0].x")["source_token"] is None  # another key: another shape
    assert _row(mapping, ".m[0].x")["source_token"] is None  # another depth: another shape
    assert _row(mapping, ".m[3][0].x")["source_token"] == ".m[0][0].x"
    assert _row(mapping, ".h[7]")["source_token"] == ".h[5]"  # bare to bare
    assert _row(mapping, ".h[7].3")["source_token"] == ".h[5].3"
    far = _row(mapping, ".a[987654].x")  # 6 edits over the 10 characters of the longer path
    assert far["match_kind"] == "unmatched" and far["source_token"] is None
    assert far["distance"] == pytest.approx(6 / 10)
    assert _row(map_tokens(source, target, max_distance=0.6), ".a[987654].x")["source_token"] == ".a[2].x"


def test_ties_go_to_the_first_source_token_and_order_does_not_matter():
    source = [".a[2].x", ".a[0].x"]
    mapping = map_tokens(source, [".a[1].x"])  # one edit and index 1 away from both
    assert mapping["source_token"].to_list() == [".a[0].x"]
    tokens_s, tokens_t = _vocabulary("dots_and_boxes", {"rows": 3, "cols": 3}, 3), \
        _vocabulary("dots_and_boxes", {"rows": 5, "cols": 7}, 3)
    shuffled_s, shuffled_t = sorted(tokens_s), sorted(tokens_t)
    random.Random(1).shuffle(shuffled_s)
    random.Random(2).shuffle(shuffled_t)
    assert map_tokens(shuffled_s, shuffled_t).equals(map_tokens(tokens_s, tokens_t))


@pytest.mark.parametrize("call, message", [
    (lambda: map_tokens([".a.1"], [".a.1"], max_distance=1.5), "max_distance"),
    (lambda: map_tokens([".a.1"], [".a.1"], max_distance=True), "max_distance"),
    (lambda: map_tokens(".a.1", [".a.1"]), "not one string"),
    (lambda: map_tokens([".a.1", 3], [".a.1"]), "must be strings"),
    (lambda: random_mapping([], [".a.1"], seed=0), "source_tokens is empty"),
])
def test_bad_mapping_input_raises(call, message):
    with pytest.raises(ValueError, match=message):
        call()


# random mapping

def test_random_mapping_is_seeded_random_and_roughly_uniform():
    tokens = [f".t[{i}].x" for i in range(200)]
    first, again = random_mapping(tokens, tokens, seed=3), random_mapping(tokens, tokens, seed=3)
    assert first.equals(again)
    assert not first.equals(random_mapping(tokens, tokens, seed=4))
    assert set(first["match_kind"]) == {"random"} and first["distance"].null_count() == 200
    assert (first["target_token"] == first["source_token"]).sum() < 10  # the identity would give 200
    sources = [f".s.{i}" for i in range(10)]
    counts = random_mapping(sources, [f".t.{i}" for i in range(20_000)], seed=5)["source_token"].value_counts()
    observed = counts["count"].to_numpy()
    assert len(observed) == 10
    chi_square = float(((observed - 2000) ** 2 / 2000).sum())
    assert chi_square < 27.9  # the 99.9% quantile of chi-square with 9 degrees of freedom


# transferred prototypes and features

PROTOTYPES = pl.DataFrame({
    "game": ["g"] * 5, "frequency": ["full"] * 5, "seat": [0, 0, 0, 1, 1],
    "token": [".a[0].x", ".a[1].x", ".b.1", ".a[0].x", ".c.2"], "count": [2, 6, 2, 1, 3],
    "p": [0.2, 0.6, 0.2, 0.25, 0.75]})
MAPPING = pl.DataFrame({"target_token": [".a[0].x", ".a[1].x", ".a[2].x", ".b.1", ".d.1"],
                        "source_token": [".a[0].x", ".a[1].x", ".a[1].x", ".b.1", None],
                        "match_kind": ["exact", "exact", "nearest", "exact", "unmatched"],
                        "distance": [0.0, 0.0, 0.2, 0.0, None]})


def test_transferred_prototypes_copy_mass_and_sum_to_one_per_seat():
    moved = transfer_prototypes(PROTOTYPES, MAPPING, game="g2")
    seat0 = dict(moved.filter(pl.col("seat") == 0).select("token", "p").iter_rows())
    assert seat0 == pytest.approx({".a[0].x": 2 / 16, ".a[1].x": 6 / 16, ".a[2].x": 6 / 16, ".b.1": 2 / 16})
    seat1 = moved.filter(pl.col("seat") == 1)
    assert seat1["token"].to_list() == [".a[0].x"] and seat1["p"].to_list() == [1.0]  # .c.2 has no target
    assert set(moved["game"]) == {"g2"} and ".d.1" not in moved["token"].to_list()
    sums = moved.group_by("frequency", "seat").agg(pl.col("p").sum())["p"].to_numpy()
    assert np.allclose(sums, 1.0)


def test_transferred_features_follow_their_source_ranks():
    features = pl.DataFrame({"game": ["g"] * 3, "variant": ["full"] * 3, "token": [".a[1].x", ".b.1", ".c.2"],
                             "importance": [0.5, 0.3, 0.2], "rank": [1, 2, 3], "segment": [None] * 3},
                            schema={"game": pl.String, "variant": pl.String, "token": pl.String,
                                    "importance": pl.Float64, "rank": pl.Int32, "segment": pl.Int32})
    moved = transfer_features(features, MAPPING)
    assert moved["token"].to_list() == [".a[1].x", ".a[2].x", ".b.1"]
    assert moved["rank"].to_list() == [1, 2, 3] and moved["importance"].to_list() == [0.5, 0.5, 0.3]
    assert moved.schema == features.schema


def test_a_mapping_listing_a_target_twice_raises():
    twice = pl.DataFrame({"target_token": [".a", ".a"], "source_token": [".a", ".b"]})
    with pytest.raises(ValueError, match="twice"):
        transfer_prototypes(PROTOTYPES, twice)


def test_mix_weights_shares_and_keeps_a_side_that_is_alone():
    transferred = pl.DataFrame({"game": "g", "frequency": "full", "seat": [0, 0, 1], "token": [".a", ".b", ".a"],
                                "count": [1, 3, 2], "p": [0.25, 0.75, 1.0]})
    target = pl.DataFrame({"game": "g", "frequency": "full", "seat": [0, 0], "token": [".b", ".c"],
                           "count": [1, 1], "p": [0.5, 0.5]})
    mixed = mix_prototypes(transferred, target, 0.5)
    seat0 = dict(mixed.filter(pl.col("seat") == 0).select("token", "p").iter_rows())
    assert seat0 == pytest.approx({".a": 0.125, ".b": 0.625, ".c": 0.25})
    assert dict(mixed.filter(pl.col("seat") == 1).select("token", "p").iter_rows()) == {".a": 1.0}
    only_source = mix_prototypes(transferred, target, 1.0).filter(pl.col("seat") == 0)
    assert dict(only_source.select("token", "p").iter_rows()) == pytest.approx({".a": 0.25, ".b": 0.75})
    only_target = mix_prototypes(transferred, target, 0.0).filter(pl.col("seat") == 0)
    assert dict(only_target.select("token", "p").iter_rows()) == pytest.approx({".b": 0.5, ".c": 0.5})
    with pytest.raises(ValueError, match="weight"):
        mix_prototypes(transferred, target, 1.5)


def test_source_weight_counts_the_source_as_m_games():
    assert source_weight(40, 0) == 1.0 and source_weight(40, 10) == 0.8 and source_weight(0, 10) == 0.0
    with pytest.raises(ValueError, match="source_weight"):
        source_weight(0, 0)


# end to end

TINY = TransferSettings(source_games=6, target_games=6, finetune_games=(0, 3, 6), mcts_iterations=8,
                        rollout_length=20, games_per_seat=1, top_k=20, rf_trees=10)


def test_prototypes_from_real_tables_transfer_onto_the_target_vocabulary():
    source = model_from_tables(*selfplay_tables("connect4", {"rows": 4, "cols": 4}, 6, 0, TINY), rf_trees=10, top_k=20)
    target = model_from_tables(*selfplay_tables("connect4", {"rows": 5, "cols": 5}, 6, 1, TINY), with_features=False)
    assert target.features is None and target.n_games == 6
    assert not any("gameStatus" in t or "playerResults" in t for t in source.vocabulary)  # outcome tokens filtered
    moved = transfer_prototypes(source.prototypes, map_tokens(source.vocabulary, target.vocabulary))
    assert set(moved["token"]) <= set(target.vocabulary)
    assert set(moved["seat"]) == set(source.prototypes["seat"])
    sums = moved.group_by("frequency", "seat").agg(pl.col("p").sum())["p"].to_numpy()
    assert np.allclose(sums, 1.0)


def test_tiny_transfer_experiment_produces_every_method_row():
    results = transfer_experiment(("connect4", {"rows": 4, "cols": 4}), ("connect4", {"rows": 5, "cols": 5}),
                                  settings=TINY)
    assert results.schema == TRANSFER_RESULTS_SCHEMA
    assert results["method"].to_list() == ["transferred", "random_mapping", "target_trained", "finetuned_0",
                                           "finetuned_3", "finetuned_6", CONTROL_METHOD]
    assert results["n_target_games"].to_list() == [0, 0, 6, 0, 3, 6, 0]
    assert set(results["source"]) == {"connect4(cols=4,rows=4)"}
    assert set(results["target"]) == {"connect4(cols=5,rows=5)"}
    assert results["games"].to_list() == [2] * 7  # one game in each of the two seats
    assert results.select((pl.col("wins") + pl.col("draws") + pl.col("losses") == pl.col("games")).all()).item()
    for row in results.iter_rows(named=True):
        assert row["mean_score"] == (row["wins"] - row["losses"]) / row["games"]
        assert (row["ci_low"], row["ci_high"]) == score_interval(row["wins"], row["draws"], row["losses"])
        assert -1 <= row["ci_low"] <= row["mean_score"] <= row["ci_high"] <= 1
        assert row["win_rate"] == row["wins"] / row["games"]
        assert (row["win_rate_low"], row["win_rate_high"]) == wilson_interval(row["wins"], row["games"])
    methods, control = results.filter(pl.col("method") != CONTROL_METHOD), results.row(-1, named=True)
    assert set(methods["control_win_rate"]) == {control["win_rate"]}  # every method against the same control
    assert methods["p_value_holm"].to_list() == pytest.approx(holm(methods["p_value_vs_control"].to_list()).tolist())
    assert methods.select(pl.col("p_value_vs_control").is_between(0, 1).all()).item()
    assert set(methods["verdict"]) == {"no clear difference"}  # two games per method decide nothing
    assert control["p_value_vs_control"] is None and control["verdict"] is None


def test_experiment_needs_enough_target_games_for_its_curve():
    tables = selfplay_tables("connect4", {"rows": 4, "cols": 4}, 2, 1, TINY)
    with pytest.raises(ValueError, match="more target games"):
        transfer_experiment(("connect4", {"rows": 4, "cols": 4}), ("connect4", {"rows": 4, "cols": 4}),
                            settings=TINY, source_tables=tables, target_tables=tables)
    with pytest.raises(ValueError, match="games_per_seat"):
        TransferSettings(games_per_seat=0)


def test_the_transfer_asset_writes_results_with_the_control_and_verdicts(tmp_path):
    import dagster as dg

    import jbag_pipeline.storage.lake as lake
    from jbag_pipeline.assets.transfer import transfer
    from jbag_pipeline.resources import JbagSettings, LakeResource
    from jbag_pipeline.resources.io_manager import lake_resources

    resources = lake_resources(JbagSettings(preset="smoke"), LakeResource(data_dir=str(tmp_path)))
    result = dg.materialize([transfer], partition_key="connect4-8x8-to-6x7", resources=resources,
                            instance=dg.DagsterInstance.ephemeral())
    assert result.success
    checks = result.get_asset_check_evaluations()
    assert [c.check_name for c in checks] == ["every_method_played"] and checks[0].passed
    results = lake.read_table(tmp_path.resolve(), "transfer_results", {"pair": "connect4-8x8-to-6x7"})
    assert set(TRANSFER_RESULTS_SCHEMA) <= set(results.columns) and CONTROL_METHOD in set(results["method"])
    metadata = next(m.metadata for m in result.asset_materializations_for_node("transfer")
                    if m.asset_key == dg.AssetKey("transfer_results"))
    assert "verdict" in metadata["results"].value and "no clear difference" in metadata["verdicts"].value
