"""Winner classification with P-NNS: held-out accuracy on whole trajectories and on prefixes."""

from __future__ import annotations

import math

import numpy as np
import polars as pl

from jbag_pipeline.bags import Vocabulary, jsd_to_prototypes_sparse
from jbag_pipeline.bags_table import filter_tokens

PREFIXES = (0.25, 0.5, 0.75, 1.0)
CLASSIFICATION_SCHEMA = {
    "game": pl.String, "frequency": pl.String, "prefix": pl.Float64, "n_train": pl.Int32, "n_test": pl.Int32,
    "accuracy": pl.Float64, "majority_accuracy": pl.Float64,
}


def split_games(games: pl.DataFrame, test_share: float) -> tuple[list[int], list[int]]:
    """Decided (non-draw) games sorted by id; the last `test_share` of them are held out."""
    ids = games.filter(pl.col("winner").is_not_null()).sort("game_id")["game_id"].to_list()
    n_test = min(len(ids) - 1, max(1, round(test_share * len(ids)))) if len(ids) >= 2 else 0
    return ids[: len(ids) - n_test], ids[len(ids) - n_test:]


def _bags(tokens: pl.DataFrame) -> pl.DataFrame:
    return tokens.group_by("game_id", "token").agg(pl.col("count").sum()).sort("game_id", "token")


def winner_classification_table(state_tokens: pl.DataFrame, states: pl.DataFrame, games: pl.DataFrame,
                                test_share: float, blacklist: tuple[str, ...]) -> pl.DataFrame:
    """P-NNS accuracy per prefix share of each test trajectory, next to always predicting the train majority seat."""
    game = games["game"][0] if len(games) else ""
    tokens, _ = filter_tokens(state_tokens, blacklist)
    train_ids, test_ids = split_games(games, test_share)
    winner = dict(zip(games["game_id"].to_list(), games["winner"].to_list()))
    rows = []
    if not train_ids or not test_ids:
        return pl.DataFrame([{"game": game, "frequency": "full", "prefix": f, "n_train": len(train_ids),
                              "n_test": len(test_ids), "accuracy": None, "majority_accuracy": None}
                             for f in PREFIXES], schema=CLASSIFICATION_SCHEMA)
    train = _bags(tokens.filter(pl.col("game_id").is_in(train_ids)))
    train = train.with_columns(pl.col("game_id").replace_strict(winner, return_dtype=pl.Int64).alias("seat"))
    protos = train.group_by("seat", "token").agg(pl.col("count").sum()).sort("seat", "token")
    seats = protos["seat"].unique().sort().to_list()
    vocab = Vocabulary(protos["token"].unique().sort().to_list())
    matrix = np.zeros((len(seats), len(vocab)))
    for i, seat in enumerate(seats):
        part = protos.filter(pl.col("seat") == seat)
        matrix[i, vocab.indices(part["token"].to_list())] = part["count"].to_numpy()
    matrix /= matrix.sum(axis=1, keepdims=True)
    train_winners = [winner[g] for g in train_ids]
    majority = max(set(train_winners), key=lambda s: (train_winners.count(s), -s))
    truth = np.array([winner[g] for g in test_ids])
    n_states = dict(states.group_by("game_id").agg(pl.len()).iter_rows())
    for share in PREFIXES:
        cut = pl.DataFrame({"game_id": test_ids, "limit": [math.ceil(share * n_states[g]) for g in test_ids]},
                           schema={"game_id": pl.Int64, "limit": pl.Int64})
        test = _bags(tokens.join(cut, on="game_id").filter(pl.col("state_idx") < pl.col("limit")))
        x = [dict(zip(b["token"], b["count"])) for _, b in test.group_by("game_id", maintain_order=True)]
        order = test["game_id"].unique(maintain_order=True).to_list()
        distances = jsd_to_prototypes_sparse(vocab, x, matrix)
        predicted = np.array(seats)[np.argmin(distances, axis=1)]
        expected = np.array([winner[g] for g in order])
        rows.append({"game": game, "frequency": "full", "prefix": share, "n_train": len(train_ids),
                     "n_test": len(test_ids), "accuracy": float(np.mean(predicted == expected)),
                     "majority_accuracy": float(np.mean(truth == majority))})
    return pl.DataFrame(rows, schema=CLASSIFICATION_SCHEMA)
