"""Class prototypes, the one implementation: per label, the summed token counts of its bags and their shares.

A winner prototype is the prototype of the bags of the games a seat won (draws left out), as the reference
P-NNS code builds them. Integer counts are summed as integers, so every result is exact whatever the order
of summation. The lake's winner_prototypes table is sql/winner_prototypes.sql's (training/value_function.py),
held to a hand computation by tests/model/test_prototypes.py.
"""

from __future__ import annotations

import math
from typing import Hashable, Iterable, Sequence

import numpy as np
import polars as pl
from scipy import sparse

from jbag_pipeline.model.bags import Bag, normalise
from jbag_pipeline.model.tables import require_columns


def class_prototypes(bags: pl.DataFrame, by: Sequence[str]) -> pl.DataFrame:
    """(*by, token, count, p) sorted by (*by, token): per group of `by` (the label and whatever else keys a
    prototype), each token's summed count over the group's bags and its share p of the group's total."""
    by = list(by)
    require_columns(bags, "class_prototypes: bags", (*by, "token", "count"))
    summed = bags.group_by(*by, "token").agg(pl.col("count").sum())
    return summed.with_columns((pl.col("count") / pl.col("count").sum().over(by)).alias("p")).sort(*by, "token")


def label_count_matrix(counts: sparse.spmatrix, labels: np.ndarray, n_labels: int) -> np.ndarray:
    """(n_labels, V) summed counts of the rows of a (n, V) count matrix by their label in 0..n_labels-1
    (class_prototypes over the matrix's cells)."""
    cells = sparse.coo_matrix(counts)
    summed = class_prototypes(pl.DataFrame({"label": np.asarray(labels)[cells.row], "token": cells.col,
                                            "count": cells.data}), ["label"])
    matrix = np.zeros((n_labels, counts.shape[1]))
    matrix[summed["label"].to_numpy(), summed["token"].to_numpy()] = summed["count"].to_numpy()
    return matrix


def build_prototypes(labelled_bags: Iterable[tuple[Bag, Hashable | None]], *,
                     normalised_mix: bool = False) -> dict[Hashable, dict[str, float]]:
    """Label -> prototype (token -> share) of (bag, label) pairs, by class_prototypes; labels come out sorted.

    Bags labelled None (draws) are left out; a label whose bags are all empty gets an empty prototype.
    normalised_mix=True sums the normalised bags instead, so every bag weighs the same (the reference code's
    `normalized_mix` option; off in its experiments).
    """
    bags: list[tuple[Hashable, Bag]] = []
    for position, pair in enumerate(labelled_bags):
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise ValueError(f"build_prototypes: item {position} must be a (bag, label) pair, got {pair!r}")
        bag, label = pair
        for token, count in bag.items():
            if not (count >= 0 and math.isfinite(count)):
                raise ValueError(f"build_prototypes: count of token {token!r} in item {position} must be a "
                                 f"finite number >= 0, got {count!r}")
        if label is not None:
            bags.append((label, normalise(bag) if normalised_mix else bag))
    try:
        labels = sorted({label for label, _ in bags})
    except TypeError:
        raise ValueError(f"build_prototypes: labels must be mutually sortable, got "
                         f"{list(dict.fromkeys(label for label, _ in bags))!r}") from None
    index = {label: i for i, label in enumerate(labels)}
    cells = pl.DataFrame([(index[label], token, float(count)) for label, bag in bags for token, count in bag.items()
                          if count], schema={"label": pl.Int64, "token": pl.String, "count": pl.Float64}, orient="row")
    prototypes: dict[Hashable, dict[str, float]] = {label: {} for label in labels}
    for label, token, share in class_prototypes(cells, ["label"]).select("label", "token", "p").iter_rows():
        prototypes[labels[label]][token] = share
    return prototypes
