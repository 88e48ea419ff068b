"""Winner classification with P-NNS: held-out accuracy per prototype frequency and feature variant, on whole
trajectories and on prefixes, beside always predicting the training majority seat.

Decided games are split by id (the last `test_share` held out). A frequency's prototypes are the summed
token counts of the training games each seat won, over the states that frequency samples; a test game's bag
is its sampled states within the first `prefix` share of its recorded states. P-NNS predicts the seat whose
prototype is nearest by JSD (ties go to the lowest seat; an empty bag is 1 from every prototype, so it ties).
Variant `none` is exact JSD over every token; a feature variant restricts prototypes and bags to its tokens
and normalises them there, as the JSON-Bag agent does.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
import polars as pl
from scipy import sparse

from jbag_pipeline.model.bags import jsd_matrix
from jbag_pipeline.model.prototypes import class_prototypes
from jbag_pipeline.transforms.bags_table import filter_tokens
from jbag_pipeline.transforms.game_blocks import detached, game_blocks
from jbag_pipeline.model.variants import FEATURE_VARIANTS, FREQUENCIES, NO_SELECTION
from jbag_pipeline.model.selection import select_features
from jbag_pipeline.analysis.statistics import wilson_interval
from jbag_pipeline.model.tables import require_columns
from jbag_pipeline.schemas import CLASSIFICATION

PREFIXES = (0.25, 0.5, 0.75, 1.0)


def split_games(games: pl.DataFrame, test_share: float) -> tuple[list[int], list[int]]:
    """Decided (non-draw) games sorted by id; the last `test_share` of them are held out."""
    ids = games.filter(pl.col("winner").is_not_null()).sort("game_id")["game_id"].to_list()
    n_test = min(len(ids) - 1, max(1, round(test_share * len(ids)))) if len(ids) >= 2 else 0
    return ids[: len(ids) - n_test], ids[len(ids) - n_test:]


def majority_seat(train_winners: Sequence[int]) -> int:
    """The seat that won most training games (ties to the lowest seat)."""
    return max(set(train_winners), key=lambda s: (train_winners.count(s), -s))


def accuracy_row(correct: int, n_test: int, majority_accuracy: float) -> dict:
    """accuracy with its 95% Wilson interval, and whether the whole interval lies above the majority baseline."""
    low, high = wilson_interval(correct, n_test)
    return {"correct": correct, "accuracy": correct / n_test, "accuracy_low": low, "accuracy_high": high,
            "majority_accuracy": majority_accuracy, "above_majority": low > majority_accuracy}


def _count_matrix(bags: pl.DataFrame, key: str, keys: Sequence[int],
                  vocabulary: Sequence[str]) -> tuple[sparse.csr_matrix, np.ndarray]:
    """(len(keys), len(vocabulary)) counts of long bags (key, token, count) and each row's count outside it."""
    rows = pl.DataFrame({key: list(keys), "row": range(len(keys))}, schema={key: pl.Int64, "row": pl.Int64})
    columns = pl.DataFrame({"token": list(vocabulary), "column": range(len(vocabulary))},
                           schema={"token": pl.String, "column": pl.Int64})
    placed = bags.with_columns(pl.col(key).cast(pl.Int64)).join(rows, on=key).join(columns, on="token", how="left")
    inside = placed.filter(pl.col("column").is_not_null())
    matrix = sparse.csr_matrix((inside["count"].cast(pl.Float64).to_numpy(),
                                (inside["row"].to_numpy(), inside["column"].to_numpy())),
                               shape=(len(keys), len(vocabulary)))
    outside = placed.filter(pl.col("column").is_null())
    mass = np.bincount(outside["row"].to_numpy(), outside["count"].cast(pl.Float64).to_numpy(), len(keys))
    return matrix, mass


def predict_winners(train_bags: pl.DataFrame, test_bags: pl.DataFrame, test_ids: Sequence[int],
                    features: Sequence[str] | None) -> np.ndarray:
    """P-NNS seat of every test game from long bags (game_id, token, count); train_bags also has `seat`.

    features None: prototypes over the training tokens, JSD exact over each bag's full tokens. Otherwise
    prototypes and test bags are both restricted to `features` (a bag without any of them is empty).
    """
    return predict_from_counts(class_prototypes(train_bags, ["seat"]).select("seat", "token", "count"), test_bags,
                               test_ids, features)


def predict_from_counts(prototype_counts: pl.DataFrame, test_bags: pl.DataFrame, test_ids: Sequence[int],
                        features: Sequence[str] | None) -> np.ndarray:
    """predict_winners from the training games' summed counts per seat (seat, token, count), every count > 0."""
    if features is None:
        vocabulary, restricted = sorted(prototype_counts["token"].unique().to_list()), False
    else:
        vocabulary, restricted = sorted(set(features)), True
    seats = sorted(prototype_counts["seat"].unique().to_list())
    prototypes, _ = _count_matrix(prototype_counts, "seat", seats, vocabulary)
    matrix, outside = _count_matrix(test_bags, "game_id", test_ids, vocabulary)
    distances = jsd_matrix(matrix, prototypes.toarray(), None if restricted else outside)
    return np.array(seats)[np.argmin(distances, axis=1)]


def _bags(tokens: pl.DataFrame) -> pl.DataFrame:
    return tokens.group_by("game_id", "token").agg(pl.col("count").sum()).sort("game_id", "token")


def _n_tokens(features: Sequence[str] | None) -> int | None:
    return None if features is None else len(set(features))


def _empty_rows(game: str, combos: Sequence[tuple[str, str, Sequence[str] | None]], n_train: int,
                n_test: int) -> pl.DataFrame:
    blank = dict.fromkeys(("correct", "accuracy", "accuracy_low", "accuracy_high", "majority_accuracy",
                           "above_majority"))
    return pl.DataFrame([{"game": game, "frequency": frequency, "feature_variant": variant, "prefix": share,
                          "n_tokens": _n_tokens(features), "n_train": n_train,
                          "n_test": n_test, **blank}
                         for frequency, variant, features in combos for share in PREFIXES],
                        schema=CLASSIFICATION)


def classification_rows(state_tokens: pl.DataFrame, states: pl.DataFrame, games: pl.DataFrame,
                        sampled_states: pl.DataFrame | None, test_share: float, blacklist: tuple[str, ...],
                        combos: Sequence[tuple[str, str, Sequence[str] | None]]) -> pl.DataFrame:
    """One row per (frequency, feature_variant, prefix) of `combos` (frequency, variant name, its tokens or None).

    sampled_states (game_id, frequency, state_idx) says which states each frequency keeps; None: every state
    (then only frequency full is possible).
    """
    for name, frame, needed in (("state_tokens", state_tokens, ("game_id", "state_idx", "token", "count")),
                                ("states", states, ("game_id", "state_idx")),
                                ("games", games, ("game_id", "winner")),
                                ("sampled_states", sampled_states, ("frequency", "game_id", "state_idx"))):
        if frame is not None:
            require_columns(frame, f"winner classification: {name}", needed)
    by_frequency: dict[str, list[tuple[str, Sequence[str] | None]]] = {}
    for frequency, variant, features in combos:
        if frequency not in FREQUENCIES:
            raise ValueError(f"winner classification: unknown frequency {frequency!r}; expected one of {FREQUENCIES}")
        by_frequency.setdefault(frequency, []).append((variant, features))
    if sampled_states is None and set(by_frequency) - {"full"}:
        raise ValueError(f"winner classification: frequencies {sorted(set(by_frequency) - {'full'})} "
                         f"need sampled_states")
    game = games["game"][0] if "game" in games.columns and len(games) else ""
    train_ids, test_ids = split_games(games, test_share)
    if not train_ids or not test_ids:
        return _empty_rows(game, combos, len(train_ids), len(test_ids))
    n_states = dict(states.lazy().group_by("game_id").agg(pl.len()).collect().iter_rows())
    winner, truth, majority_accuracy = _held_out_truth(games, train_ids, test_ids, n_states)
    train, test = _train_and_test_bags(state_tokens, sampled_states, by_frequency, blacklist, train_ids, test_ids,
                                       n_states)
    rows = []
    for frequency, variants in by_frequency.items():
        train_bags = train[frequency].with_columns(
            pl.col("game_id").replace_strict(winner, return_dtype=pl.Int64).alias("seat"))
        for share in PREFIXES:
            for variant, features in variants:
                predicted = predict_winners(train_bags, test[frequency, share], test_ids, features)
                rows.append({"game": game, "frequency": frequency, "feature_variant": variant, "prefix": share,
                             "n_tokens": _n_tokens(features), "n_train": len(train_ids), "n_test": len(test_ids),
                             **accuracy_row(int(np.sum(predicted == truth)), len(test_ids), majority_accuracy)})
    order = {(frequency, variant): i for i, (frequency, variant, _) in enumerate(combos)}
    rows.sort(key=lambda row: (order[row["frequency"], row["feature_variant"]], row["prefix"]))
    return pl.DataFrame(rows, schema=CLASSIFICATION)


def _held_out_truth(games: pl.DataFrame, train_ids: list[int], test_ids: list[int],
                    n_states: dict[int, int]) -> tuple[dict, np.ndarray, float]:
    """The winner of every game, the held-out games' winners and the accuracy of always naming the training games'
    majority seat; a held-out game without states is a ValueError."""
    stateless = [g for g in test_ids if g not in n_states]
    if stateless:
        raise ValueError(f"winner classification: {len(stateless)} held-out games have no states, e.g. game_id "
                         f"{stateless[0]}")
    winner = dict(zip(games["game_id"].to_list(), games["winner"].to_list()))
    truth = np.array([winner[g] for g in test_ids])
    return winner, truth, float(np.mean(truth == majority_seat([winner[g] for g in train_ids])))


def _train_and_test_bags(state_tokens, sampled_states: pl.DataFrame | None, frequencies, blacklist: tuple[str, ...],
                         train_ids: list[int], test_ids: list[int], n_states: dict[int, int]):
    """Per frequency the bags (game_id, token, count) of the training games, and per (frequency, prefix share) those
    of the held-out games' first states, built a block of games at a time (game_blocks: every bag is one game's)."""
    cuts = {share: pl.DataFrame({"game_id": test_ids, "limit": [math.ceil(share * n_states[g]) for g in test_ids]},
                                schema={"game_id": pl.Int64, "limit": pl.Int64}) for share in PREFIXES}
    train = {frequency: [] for frequency in frequencies}
    test = {(frequency, share): [] for frequency in frequencies for share in PREFIXES}
    for block in game_blocks(state_tokens, game_ids=train_ids + test_ids,
                             columns=["game_id", "state_idx", "token", "count"]):
        tokens, _ = filter_tokens(block, blacklist)
        for frequency in frequencies:
            kept = tokens if frequency == "full" else tokens.join(
                sampled_states.filter(pl.col("frequency") == frequency).select("game_id", "state_idx"),
                on=["game_id", "state_idx"], how="semi")
            train[frequency].append(detached(_bags(kept.filter(pl.col("game_id").is_in(train_ids)))))
            for share in PREFIXES:
                test[frequency, share].append(detached(
                    _bags(kept.join(cuts[share], on="game_id").filter(pl.col("state_idx") < pl.col("limit")))))
    # blocks come by ascending game_id and _bags sorts each by (game_id, token): their concatenation is so sorted
    return ({key: _concat(pieces) for key, pieces in train.items()},
            {key: _concat(pieces) for key, pieces in test.items()})


def _concat(bags: list[pl.DataFrame]) -> pl.DataFrame:
    return pl.concat(bags) if bags else pl.DataFrame(schema={"game_id": pl.Int64, "token": pl.String,
                                                             "count": pl.Int64})


def classification_from_sums(decided_counts: pl.DataFrame, prefix_bags: Callable[[pl.DataFrame], pl.DataFrame],
                             n_states: dict[int, int], games: pl.DataFrame, test_share: float,
                             blacklist: tuple[str, ...]) -> pl.DataFrame:
    """winner_classification_table from the token count sums of every decided game per winning seat (seat, token,
    count: a game's `full` prototypes, blacklist applied) and the held-out games' prefix bags only:
    prefix_bags(cut) is (game_id, token, count) summed over the states of each game of `cut` (game_id, limit)
    with state_idx < limit. The training sums are the decided sums less the held-out games' whole bags."""
    combos = [("full", NO_SELECTION, None)]
    game = games["game"][0] if "game" in games.columns and len(games) else ""
    train_ids, test_ids = split_games(games, test_share)
    if not train_ids or not test_ids:
        return _empty_rows(game, combos, len(train_ids), len(test_ids))
    winner, truth, majority_accuracy = _held_out_truth(games, train_ids, test_ids, n_states)
    bags = {}
    for share in sorted(PREFIXES, reverse=True):  # 1.0 first: the whole held-out games
        cut = pl.DataFrame({"game_id": test_ids, "limit": [math.ceil(share * n_states[g]) for g in test_ids]},
                           schema={"game_id": pl.Int64, "limit": pl.Int64})
        bags[share] = filter_tokens(prefix_bags(cut).select("game_id", "token", "count"), blacklist)[0]
    held_out = (bags[1.0].with_columns(pl.col("game_id").replace_strict(winner, return_dtype=pl.Int64).alias("seat"))
                .group_by("seat", "token").agg(pl.col("count").sum().alias("held_out")))
    train = (decided_counts.select(pl.col("seat").cast(pl.Int64), "token", pl.col("count").cast(pl.Int64))
             .join(held_out, on=["seat", "token"], how="left")
             .select("seat", "token", pl.col("count") - pl.col("held_out").fill_null(0))
             .filter(pl.col("count") > 0))
    rows = []
    for share in PREFIXES:
        predicted = predict_from_counts(train, bags[share], test_ids, None)
        rows.append({"game": game, "frequency": "full", "feature_variant": NO_SELECTION, "prefix": share,
                     "n_tokens": None, "n_train": len(train_ids), "n_test": len(test_ids),
                     **accuracy_row(int(np.sum(predicted == truth)), len(test_ids), majority_accuracy)})
    return pl.DataFrame(rows, schema=CLASSIFICATION)


def winner_classification_table(state_tokens: pl.DataFrame, states: pl.DataFrame, games: pl.DataFrame,
                                test_share: float, blacklist: tuple[str, ...]) -> pl.DataFrame:
    """P-NNS accuracy on every state's tokens (frequency full, every token) per prefix share of each test game."""
    return classification_rows(state_tokens, states, games, None, test_share, blacklist,
                               [("full", NO_SELECTION, None)])


def variant_combos(features: pl.DataFrame) -> list[tuple[str, str, list[str] | None]]:
    """(frequency, variant, tokens): every frequency with every token, then frequency full with each variant
    of `features` (variant, token, ...) in FEATURE_VARIANTS order."""
    combos: list[tuple[str, str, list[str] | None]] = [(frequency, NO_SELECTION, None) for frequency in FREQUENCIES]
    present = set(features["variant"].to_list())
    unknown = sorted(present - set(FEATURE_VARIANTS), key=str)
    if unknown:
        raise ValueError(f"selected features have unknown variants {unknown}; expected {list(FEATURE_VARIANTS)}")
    for variant in FEATURE_VARIANTS:
        if variant in present and variant != NO_SELECTION:
            combos.append(("full", variant, features.filter(pl.col("variant") == variant)["token"].to_list()))
    return combos


def train_selected_features(segmented_bags: pl.DataFrame | pl.LazyFrame, games: pl.DataFrame, test_share: float,
                            **selection) -> pl.DataFrame | None:
    """select_features (same settings as selected_features) on the training games of split_games only, so no
    held-out game informs a variant's tokens; None when the training games were won by fewer than two seats."""
    train_ids, _ = split_games(games, test_share)
    if games.filter(pl.col("game_id").is_in(train_ids))["winner"].n_unique() < 2:
        return None
    return select_features(segmented_bags.lazy().filter(pl.col("game_id").is_in(train_ids)), games,
                           **selection).features


def token_overlap(train_features: pl.DataFrame, agent_features: pl.DataFrame) -> pl.DataFrame:
    """Per variant: tokens selected on the training games, tokens the agent uses (selected on all games) and
    how many they share."""
    def sizes(frame: pl.DataFrame, name: str) -> pl.DataFrame:
        return frame.group_by("variant").agg(pl.col("token").unique().alias(name))

    both = sizes(train_features, "train").join(sizes(agent_features, "agent"), on="variant", how="full",
                                               coalesce=True)
    both = both.with_columns(pl.col("train", "agent").fill_null(pl.lit([], dtype=pl.List(pl.String))))
    return both.select(
        "variant", pl.col("train").list.len().cast(pl.Int32).alias("train_tokens"),
        pl.col("agent").list.len().cast(pl.Int32).alias("agent_tokens"),
        pl.col("train").list.set_intersection("agent").list.len().cast(pl.Int32).alias("shared_tokens"),
    ).sort(pl.col("variant").replace_strict({v: i for i, v in enumerate(FEATURE_VARIANTS)},
                                            default=len(FEATURE_VARIANTS)))


def variant_classification_table(state_tokens: pl.DataFrame, states: pl.DataFrame, games: pl.DataFrame,
                                 sampled_states: pl.DataFrame, features: pl.DataFrame | None, test_share: float,
                                 blacklist: tuple[str, ...]) -> pl.DataFrame:
    """P-NNS accuracy per prefix for each prototype frequency (every token) and, at frequency full, for each
    feature variant of `features` (its tokens restrict prototypes and test bags); variant rows hold nulls when
    `features` is None (no selection was possible)."""
    combos = variant_combos(pl.DataFrame(schema={"variant": pl.String, "token": pl.String})
                            if features is None else features)
    table = classification_rows(state_tokens, states, games, sampled_states, test_share, blacklist, combos)
    if features is not None:
        return table
    train_ids, test_ids = split_games(games, test_share)
    game = games["game"][0] if "game" in games.columns and len(games) else ""
    unselected = [("full", variant, None) for variant in FEATURE_VARIANTS if variant != NO_SELECTION]
    return pl.concat([table, _empty_rows(game, unselected, len(train_ids), len(test_ids))])
