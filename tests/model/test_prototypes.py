"""model.prototypes is the one class-prototype implementation, with its adapters; the pipeline's winner prototypes
(sql/winner_prototypes.sql) are held to a hand computation."""

from collections import Counter, defaultdict

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal
from scipy import sparse

import jbag_pipeline.storage.lake as lake
from jbag_pipeline.assets.model import sampled_states, state_tokens, trajectory_bags
from jbag_pipeline.assets.selfplay import selfplay
from jbag_pipeline.model.prototypes import build_prototypes, class_prototypes, label_count_matrix
from jbag_pipeline.training.value_function import winner_prototypes
from tests.helpers.materialize import GAME, materialize

SCHEMA = {"game": pl.String, "frequency": pl.String, "seat": pl.Int8, "token": pl.String, "count": pl.Int64,
          "p": pl.Float64}


def bags_table(rows):
    return pl.DataFrame(rows, schema={"game": pl.String, "frequency": pl.String, "game_id": pl.Int64,
                                      "token": pl.String, "count": pl.Int64}, orient="row")


def games_table(rows):
    return pl.DataFrame(rows, schema={"game": pl.String, "game_id": pl.Int64, "winner": pl.Int8}, orient="row")


TINY_BAGS = bags_table([("g", "full", 1, "a", 3), ("g", "full", 2, "a", 1), ("g", "full", 2, "b", 4),
                        ("g", "full", 3, "b", 1), ("g", "full", 4, "z", 9), ("g", "random", 1, "a", 2),
                        ("h", "full", 1, "c", 5)])
TINY_GAMES = games_table([("g", 1, 1), ("g", 2, 0), ("g", 3, 1), ("g", 4, None), ("h", 1, 0)])


def prototypes_by_hand(bags: pl.DataFrame, games: pl.DataFrame) -> pl.DataFrame:
    """winner_prototypes in plain Python: per (game, frequency, winning seat) each token's count summed over the
    bags of the games that seat won (draws left out) and its share of the group's total."""
    winner = {(game, game_id): seat for game, game_id, seat in games.select("game", "game_id", "winner").iter_rows()}
    sums: dict[tuple, Counter] = defaultdict(Counter)
    for game, frequency, game_id, token, count in bags.select("game", "frequency", "game_id", "token",
                                                              "count").iter_rows():
        if winner.get((game, game_id)) is not None:
            sums[(game, frequency, winner[(game, game_id)])][token] += count
    rows = [(*group, token, count, count / sum(counts.values()))
            for group, counts in sorted(sums.items()) for token, count in sorted(counts.items())]
    return pl.DataFrame(rows, schema=SCHEMA, orient="row")


def test_winner_prototypes_by_hand():
    # g/full: seat 0 won game 2 (a 1, b 4); seat 1 won games 1 and 3 (a 3, b 1); game 4 is a draw.
    expected = pl.DataFrame(
        {"game": ["g", "g", "g", "g", "g", "h"], "frequency": ["full", "full", "full", "full", "random", "full"],
         "seat": [0, 0, 1, 1, 1, 0], "token": ["a", "b", "a", "b", "a", "c"], "count": [1, 4, 3, 1, 2, 5],
         "p": [1 / 5, 4 / 5, 3 / 4, 1 / 4, 1.0, 1.0]}, schema=SCHEMA)
    assert_frame_equal(winner_prototypes(TINY_BAGS, TINY_GAMES), expected, check_exact=True)
    assert_frame_equal(prototypes_by_hand(TINY_BAGS, TINY_GAMES), expected, check_exact=True)


def test_the_sql_transform_equals_the_hand_computation_on_random_tables():
    rng = np.random.default_rng(0)
    tokens = [f".t{i}" for i in range(40)]
    bags = bags_table([(game, frequency, game_id, token, int(rng.integers(1, 50)))
                       for game in ("g", "h") for frequency in ("full", "interval") for game_id in range(30)
                       for token in rng.choice(tokens, size=int(rng.integers(1, 12)), replace=False)])
    games = games_table([(game, game_id, None if game_id % 7 == 0 else int(rng.integers(0, 3)))
                         for game in ("g", "h") for game_id in range(30)])
    assert_frame_equal(winner_prototypes(bags, games), prototypes_by_hand(bags, games), check_exact=True)


def test_the_sql_transform_equals_the_hand_computation_on_smoke_data(tmp_path):
    materialize([selfplay], tmp_path, partition_key=GAME)
    materialize([state_tokens, sampled_states, trajectory_bags], tmp_path, partition_key=GAME)
    bags = lake.read_table(tmp_path, "trajectory_bags", {"game": GAME})
    games = lake.read_table(tmp_path, "selfplay_games", {"game": GAME})
    table = winner_prototypes(bags, games)
    assert table.height > 100 and table["frequency"].n_unique() == 3
    assert_frame_equal(table, prototypes_by_hand(bags, games), check_exact=True)


def test_class_prototypes_and_its_adapters_agree():
    cells = pl.DataFrame({"label": [1, 0, 1, 1], "token": ["a", "a", "b", "a"], "count": [2, 5, 1, 1]})
    assert class_prototypes(cells, ["label"]).rows() == [(0, "a", 5, 1.0), (1, "a", 3, 0.75), (1, "b", 1, 0.25)]
    counts = sparse.csr_matrix(np.array([[2.0, 0, 1], [0, 3, 0], [1, 1, 0], [0, 0, 4]]))
    labels = np.array([1, 0, 1, 2])
    indicator = sparse.csr_matrix((np.ones(4), (labels, np.arange(4))), shape=(3, 4))
    assert np.array_equal(label_count_matrix(counts, labels, 3), (indicator @ counts).toarray())
    assert label_count_matrix(counts, labels, 4)[3].tolist() == [0.0, 0.0, 0.0]


def test_build_prototypes_sums_counts_and_leaves_draws_out():
    labelled = [({"a": 3}, 1), ({"a": 1, "b": 4}, 0), ({"b": 1}, 1), ({"z": 9}, None), ({}, 2)]
    assert build_prototypes(labelled) == {0: {"a": 0.2, "b": 0.8}, 1: {"a": 0.75, "b": 0.25}, 2: {}}
    assert list(build_prototypes(labelled)) == [0, 1, 2]
    assert build_prototypes(labelled, normalised_mix=True)[1] == {"a": 0.5, "b": 0.5}
    with pytest.raises(ValueError, match="item 0 must be a"):
        build_prototypes([{"a": 1}])
    with pytest.raises(ValueError, match="token 'a' in item 0"):
        build_prototypes([({"a": -1}, 0)])
    with pytest.raises(ValueError, match="mutually sortable"):
        build_prototypes([({"a": 1}, 0), ({"a": 1}, "x")])
