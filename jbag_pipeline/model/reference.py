"""Reproduction of the JSON-Bag paper's agent classification (which of 5 agents played a game, from its bag).

Protocol of data/jsonbag_reference/README.md: per split the bags of all classes are shuffled and cut in half.
P-NNS: class prototype = normalised sum of the class's training counts; a test bag gets the class at the
smallest JSD. Random Forest: count vectors over the training half's tokens, min-max scaled per token with
the training half's range (0 replaced by 1), scikit-learn defaults with 100 trees.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
from scipy import sparse
from sklearn.ensemble import RandomForestClassifier

from jbag_pipeline.model.bags import jsd_matrix
from jbag_pipeline.model.prototypes import label_count_matrix
from jbag_pipeline.schemas import REFERENCE_REPRODUCTION

GAMES = ("Wonders7", "Dominion", "SeaSaltPaper", "CantStop", "Connect4", "DotsAndBoxes")
METHODS = ("pnns_jsd", "random_forest")
PUBLISHED = {  # README "Published agent-classification results": Table III row JSON-Bag (JSD), Table V
    "pnns_jsd": {"Wonders7": 0.742, "Dominion": 0.938, "SeaSaltPaper": 0.718, "CantStop": 0.493,
                 "Connect4": 0.644, "DotsAndBoxes": 0.509},
    "random_forest": {"Wonders7": 0.7847, "Dominion": 0.9888, "SeaSaltPaper": 0.7259, "CantStop": 0.5477,
                      "Connect4": 0.8680, "DotsAndBoxes": 0.7164},
}
BAGS_FILE, GAMES_FILE = "agents_bags.parquet", "agents_games.parquet"


def _bag_keys(frame: pl.DataFrame, classes: list[str]) -> pl.Series:
    """One sortable int64 per bag: class index * 2^32 + game_id (game ids are unique within a class)."""
    code = pl.col("agent_class").replace_strict({c: i for i, c in enumerate(classes)}, default=-1,
                                                return_dtype=pl.Int64)  # -1: a class the games file lacks
    return frame.select(code * 2**32 + pl.col("game_id").cast(pl.Int64)).to_series()


def load_game(data_dir: Path, game: str, max_bags_per_class: int | None = None,
              seed: int = 0) -> tuple[sparse.csr_matrix, np.ndarray]:
    """(count matrix bags x tokens, class index per bag) of one game; optionally a seeded subset per class."""
    listed = (pl.scan_parquet(data_dir / GAMES_FILE).filter(pl.col("game") == game)
              .select(pl.col("agent_class").cast(pl.String), "game_id").collect())
    if listed.is_empty():
        raise ValueError(f"reference game {game!r} has no rows in {data_dir / GAMES_FILE}")
    classes = sorted(listed["agent_class"].unique().to_list())
    listed = listed.with_columns(_bag_keys(listed, classes).alias("key")).sort("key")
    if max_bags_per_class is not None:
        rng = np.random.default_rng(seed)
        parts = []
        for part in listed.partition_by("agent_class", maintain_order=True):
            parts.append(part[np.sort(rng.choice(len(part), min(max_bags_per_class, len(part)), replace=False))])
        listed = pl.concat(parts)
    cells = (pl.scan_parquet(data_dir / BAGS_FILE).filter(pl.col("game") == game)
             .select(pl.col("agent_class").cast(pl.String), "game_id", pl.col("token").cast(pl.String), "count")
             .collect())
    keys = _bag_keys(cells, classes).to_numpy()
    listed_keys = listed["key"].to_numpy()
    kept = np.isin(keys, listed_keys)
    cells, keys = cells.filter(kept), keys[kept]
    tokens = cells["token"].unique().sort()
    counts = sparse.csr_matrix(  # binary searches instead of string joins keep memory near the raw table's
        (cells["count"].to_numpy().astype(np.float64),
         (np.searchsorted(listed_keys, keys), tokens.search_sorted(cells["token"]).to_numpy())),
        shape=(len(listed), len(tokens)))
    labels = np.searchsorted(classes, listed["agent_class"].to_numpy())
    return counts, labels


def pnns_accuracy(counts: sparse.csr_matrix, labels: np.ndarray, train: np.ndarray, test: np.ndarray) -> float:
    """Accuracy of prototype nearest-neighbour search by JSD (prototype = summed training counts)."""
    prototypes = label_count_matrix(counts[train], labels[train], int(labels.max()) + 1)
    predicted = np.argmin(jsd_matrix(counts[test], prototypes), axis=1)
    return float(np.mean(predicted == labels[test]))


def forest_accuracy(counts: sparse.csr_matrix, labels: np.ndarray, train: np.ndarray, test: np.ndarray,
                    n_estimators: int, seed: int) -> float:
    """Accuracy of a Random Forest on min-max scaled counts over the tokens seen in the training half."""
    seen = np.unique(counts[train].indices)
    x_train = counts[train][:, seen].toarray()
    x_test = counts[test][:, seen].toarray()
    low, high = x_train.min(axis=0), x_train.max(axis=0)
    span = np.where(high > low, high - low, 1.0)
    forest = RandomForestClassifier(n_estimators=n_estimators, random_state=seed, n_jobs=1)
    forest.fit((x_train - low) / span, labels[train])
    return float(np.mean(forest.predict((x_test - low) / span) == labels[test]))


def split_accuracies(counts: sparse.csr_matrix, labels: np.ndarray, *, n_splits: int, seed: int,
                     n_estimators: int) -> dict[str, list[float]]:
    """Per method, the test accuracy of each of `n_splits` seeded random 50/50 splits."""
    results: dict[str, list[float]] = {method: [] for method in METHODS}
    for split in range(n_splits):
        rng = np.random.default_rng([seed, split])
        order = rng.permutation(len(labels))
        train, test = np.sort(order[: len(labels) // 2]), np.sort(order[len(labels) // 2:])
        results["pnns_jsd"].append(pnns_accuracy(counts, labels, train, test))
        forest_seed = int(rng.integers(2**31))
        results["random_forest"].append(forest_accuracy(counts, labels, train, test, n_estimators, forest_seed))
    return results


def reference_reproduction(data_dir: str | Path, *, games: tuple[str, ...] | list[str] | None = None,
                           n_splits: int = 10, max_bags_per_class: int | None = None, seed: int = 0,
                           n_estimators: int = 100) -> pl.DataFrame:
    """(game, method, ours, ours_sd, published): mean and sample sd of our accuracy over the splits."""
    data_dir = Path(data_dir)
    for name in (BAGS_FILE, GAMES_FILE):
        if not (data_dir / name).is_file():
            raise ValueError(f"JSON-Bag reference data missing: {data_dir / name} not found "
                             f"(point JBAG_REFERENCE_DIR at the jsonbag_reference folder)")
    chosen = GAMES if games is None else tuple(games)
    unknown = [g for g in chosen if g not in GAMES]
    if unknown:
        raise ValueError(f"unknown reference games {unknown}; expected some of {list(GAMES)}")
    if n_splits < 1:
        raise ValueError(f"n_splits must be >= 1, got {n_splits}")
    rows = []
    for game in chosen:
        counts, labels = load_game(data_dir, game, max_bags_per_class, seed)
        accuracies = split_accuracies(counts, labels, n_splits=n_splits, seed=seed, n_estimators=n_estimators)
        for method in METHODS:
            values = np.array(accuracies[method])
            rows.append({"game": game, "method": method, "ours": float(values.mean()),
                         "ours_sd": float(values.std(ddof=1)) if len(values) > 1 else None,
                         "published": PUBLISHED[method][game]})
    return pl.DataFrame(rows, schema=REFERENCE_REPRODUCTION)
