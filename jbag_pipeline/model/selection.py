"""Random-Forest feature selection: rank tokens by Mean Decrease in Impurity for predicting the winning seat.

Features are the normalised token frequencies p of the trajectory bags as a sparse CSR matrix; labels are the
winning seats (draws excluded). Variants per frequency f: `f` (top k on whole trajectories), `f_seg` (top k on
each segmented dataset D_i, united; a token keeps the earliest segment that picked it), plus `none` (every
token) and `adaptive` (the fewest top tokens covering a share of the total importance), both on frequency full.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import polars as pl
from scipy import sparse
from sklearn.ensemble import RandomForestClassifier

from jbag_pipeline.model.tables import require_columns
from jbag_pipeline.schemas import FEATURE_SUMMARY, SELECTED_FEATURES

MIN_OOB_SAMPLES = 20  # below this the out-of-bag accuracy is too noisy to report


class FeatureSelection(NamedTuple):
    features: pl.DataFrame  # game, variant, token, importance, rank, segment
    summary: pl.DataFrame  # game, variant, tokens_kept, accuracy, n_trajectories


@dataclass(frozen=True)
class TokenRanking:
    """Tokens of one dataset by decreasing MDI importance (ties by token), with the forest's OOB accuracy."""

    tokens: list[str]
    importances: np.ndarray
    accuracy: float | None
    n_samples: int


def bag_matrix(bags: pl.DataFrame) -> tuple[sparse.csr_matrix, np.ndarray, list[str]]:
    """CSR matrix (trajectory x token) of p from long bags (game_id, token, p); rows by game_id, columns by token."""
    game_ids = bags["game_id"].unique().sort()
    tokens = bags["token"].unique().sort()
    rows = game_ids.search_sorted(bags["game_id"]).to_numpy()  # binary search: no string hash join in memory
    columns = tokens.search_sorted(bags["token"]).to_numpy()
    matrix = sparse.csr_matrix((bags["p"].to_numpy().astype(np.float32), (rows, columns)),
                               shape=(len(game_ids), len(tokens)))
    return matrix, game_ids.to_numpy(), tokens.to_list()


def _oob_accuracy(forest: RandomForestClassifier, labels: np.ndarray) -> float | None:
    votes = forest.oob_decision_function_
    scored = votes.sum(axis=1) > 0  # samples in-bag for every tree have no out-of-bag vote
    if not scored.any():
        return None
    predicted = forest.classes_[np.argmax(votes[scored], axis=1)]
    return float(np.mean(predicted == labels[scored]))


def rank_tokens(bags: pl.DataFrame, winners: pl.DataFrame, *, n_estimators: int = 100, seed: int = 0,
                where: str = "bags", accuracy: bool = True) -> TokenRanking:
    """Fit a seeded forest on the bags (game_id, token, p) of decided games (winners: game_id, winner); without
    `accuracy` no out-of-bag accuracy is computed (the ranking is the same: the trees do not depend on it)."""
    matrix, game_ids, tokens = bag_matrix(bags)
    winner_of = dict(zip(winners["game_id"].to_list(), winners["winner"].to_list()))
    decided = np.array([g in winner_of for g in game_ids.tolist()], dtype=bool)
    matrix, game_ids = matrix[decided], game_ids[decided]  # row slices, not a copy of the long string table
    used = np.unique(matrix.indices)  # tokens of decided games only
    matrix, tokens = matrix[:, used], [tokens[i] for i in used]
    labels = np.array([winner_of[g] for g in game_ids.tolist()], dtype=np.int64)
    seats = np.unique(labels)
    if len(seats) < 2:
        raise ValueError(f"{where}: feature selection needs wins by at least two seats among "
                         f"{len(labels)} decided games, found seats {seats.tolist()}")
    use_oob = accuracy and len(labels) >= MIN_OOB_SAMPLES
    forest = RandomForestClassifier(n_estimators=n_estimators, random_state=seed, n_jobs=1, oob_score=use_oob)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Some inputs do not have OOB scores")
        forest.fit(matrix, labels)
    accuracy = _oob_accuracy(forest, labels) if use_oob else None
    importances = forest.feature_importances_  # a property that recomputes over all trees on every access
    order = np.lexsort((np.arange(len(tokens)), -importances))  # columns are sorted by token, so ties go by token
    return TokenRanking([tokens[i] for i in order], importances[order], accuracy, len(labels))


def top_k(ranking: TokenRanking, k: int) -> int:
    """How many leading tokens the top-k rule keeps: at most k, never a token the forest did not split on."""
    return min(k, int(np.count_nonzero(ranking.importances > 0)))


def adaptive_k(ranking: TokenRanking, share: float) -> int:
    """The fewest leading tokens whose importances sum to at least `share` of the total importance."""
    if not 0 < share <= 1:
        raise ValueError(f"adaptive share must be in (0, 1], got {share}")
    total = float(ranking.importances.sum())
    if total <= 0:
        return 0
    covered = np.cumsum(ranking.importances) / total
    return min(int(np.searchsorted(covered, share - 1e-12)) + 1, top_k(ranking, len(covered)))


def _rows(game: str, variant: str, ranking: TokenRanking, n: int, segment: int | None) -> list[dict]:
    return [{"game": game, "variant": variant, "token": ranking.tokens[i], "importance": float(ranking.importances[i]),
             "rank": i + 1, "segment": segment} for i in range(n)]


def _summary(game: str, variant: str, tokens_kept: int, accuracies: list[float | None], n: int) -> dict:
    known = [a for a in accuracies if a is not None]
    return {"game": game, "variant": variant, "tokens_kept": tokens_kept,
            "accuracy": float(np.mean(known)) if known else None, "n_trajectories": n}


def _select_game(game: str, bags: pl.LazyFrame, winners: pl.DataFrame, k: int, n_estimators: int, seed: int,
                 adaptive_share: float, accuracy: bool) -> tuple[list[dict], list[dict]]:
    features, summary = [], []
    frequencies = bags.select(pl.col("frequency").unique()).collect()["frequency"].to_list()
    for frequency in sorted(frequencies):
        of_frequency = bags.filter(pl.col("frequency") == frequency)
        n_segments = int(of_frequency.select(pl.col("segment").max()).collect().item())
        rankings = {}
        for segment in range(1, n_segments + 1):
            # one dataset at a time: only its bags are read (a scan's row groups are pruned by frequency, segment)
            dataset = of_frequency.filter(pl.col("segment") == segment).select("game_id", "token", "p").collect()
            where = f"game {game!r} frequency {frequency!r} segment {segment}"
            rankings[segment] = rank_tokens(dataset, winners, n_estimators=n_estimators, seed=seed, where=where,
                                            accuracy=accuracy)
            del dataset
        whole = rankings[n_segments]  # D_(N_S) is the whole trajectory, the non-segmented dataset
        kept = top_k(whole, k)
        features += _rows(game, frequency, whole, kept, None)
        summary.append(_summary(game, frequency, kept, [whole.accuracy], whole.n_samples))
        if n_segments > 1:
            picked: dict[str, dict] = {}
            for segment, ranking in rankings.items():
                for row in _rows(game, f"{frequency}_seg", ranking, top_k(ranking, k), segment):
                    picked.setdefault(row["token"], row)
            features += list(picked.values())
            summary.append(_summary(game, f"{frequency}_seg", len(picked),
                                    [r.accuracy for r in rankings.values()], whole.n_samples))
        if frequency == "full":
            features += _rows(game, "none", whole, len(whole.tokens), None)
            summary.append(_summary(game, "none", len(whole.tokens), [whole.accuracy], whole.n_samples))
            chosen = adaptive_k(whole, adaptive_share)
            features += _rows(game, "adaptive", whole, chosen, None)
            summary.append(_summary(game, "adaptive", chosen, [whole.accuracy], whole.n_samples))
    return features, summary


def select_features(bags: pl.DataFrame | pl.LazyFrame, games: pl.DataFrame, *, k: int = 100, n_estimators: int = 100,
                    seed: int = 0, adaptive_share: float = 0.9, accuracy: bool = True) -> FeatureSelection:
    """Selected tokens per (game, variant) and a per-variant summary (tokens kept, OOB accuracy: null without
    `accuracy`, which spares each forest its out-of-bag predictions and selects the same tokens).

    `bags`: (game, frequency, game_id, token, p) and optionally segment (1..N_S, as `segmented_bags` gives;
    without it every bag is a whole trajectory and no `_seg` variant is made); a LazyFrame is read one dataset
    (frequency, segment) at a time. `games`: (game, game_id, winner).
    """
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    if not 0 < adaptive_share <= 1:
        raise ValueError(f"adaptive_share must be in (0, 1], got {adaptive_share}")
    for name, frame, columns in (("bags", bags, ("game", "frequency", "game_id", "token", "p")),
                                 ("games", games, ("game", "game_id", "winner"))):
        require_columns(frame, name, columns)
    bags = bags.lazy()
    if "segment" not in bags.collect_schema().names():
        bags = bags.with_columns(pl.lit(1, dtype=pl.Int32).alias("segment"))
    trajectories = bags.select("game", "game_id").unique().collect()
    orphans = trajectories.join(games, on=["game", "game_id"], how="anti")
    if not orphans.is_empty():
        raise ValueError(f"bags of {len(orphans)} trajectories have no games row, "
                         f"e.g. game {orphans['game'][0]!r} game_id {orphans['game_id'][0]}")
    features, summary = [], []
    for game in sorted(trajectories["game"].unique().to_list()):
        winners = games.filter((pl.col("game") == game) & pl.col("winner").is_not_null())
        game_features, game_summary = _select_game(game, bags.filter(pl.col("game") == game), winners, k,
                                                   n_estimators, seed, adaptive_share, accuracy)
        features += game_features
        summary += game_summary
    return FeatureSelection(pl.DataFrame(features, schema=SELECTED_FEATURES),
                            pl.DataFrame(summary, schema=FEATURE_SUMMARY))
