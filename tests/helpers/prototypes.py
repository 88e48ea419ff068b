"""Class prototypes of labelled bags and prototype nearest-neighbour search (P-NNS) by JSD, in plain Python.

A reference for tests and benchmarks (the pipeline computes prototypes in sql/winner_prototypes.sql).
"""

from __future__ import annotations

from typing import Hashable, Iterable, Mapping, Sequence

import numpy as np

from jbag_pipeline.model.bags import Bag, Vocabulary, jsd_matrix, normalise


def build_prototypes(labelled_bags: Iterable[tuple[Bag, Hashable | None]], *,
                     normalised_mix: bool = False) -> dict[Hashable, dict[str, float]]:
    """Label -> prototype: the normalised sum of the token counts of the bags with that label.

    Bags labelled None (draws) are left out. normalised_mix=True sums the normalised bags instead, so
    every bag weighs the same (the reference code's `normalized_mix` option; off in its experiments).
    Labels come out sorted.
    """
    sums: dict[Hashable, dict[str, float]] = {}
    for position, pair in enumerate(labelled_bags):
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise ValueError(f"build_prototypes: item {position} must be a (bag, label) pair, got {pair!r}")
        bag, label = pair
        if label is None:
            continue
        total = sums.setdefault(label, {})
        for token, count in (normalise(bag) if normalised_mix else bag).items():
            total[token] = total.get(token, 0) + count
    try:
        labels = sorted(sums)
    except TypeError:
        raise ValueError(f"build_prototypes: labels must be mutually sortable, got {list(sums)!r}") from None
    return {label: normalise(sums[label]) for label in labels}


def prototype_matrix(prototypes: Mapping[Hashable, Bag]) -> tuple[list, Vocabulary, np.ndarray]:
    """(sorted labels, vocabulary = sorted union of the prototypes' tokens, (k, V) matrix of their shares)."""
    if not prototypes:
        raise ValueError("prototype_matrix: no prototypes given")
    try:
        labels = sorted(prototypes)
    except TypeError:
        raise ValueError(f"prototype_matrix: labels must be mutually sortable, got {list(prototypes)!r}") from None
    vocabulary = Vocabulary.from_bags(prototypes[label] for label in labels)
    matrix = np.zeros((len(labels), len(vocabulary)))
    for row, label in enumerate(labels):
        shares = normalise(prototypes[label])
        if shares:
            matrix[row, vocabulary.indices(shares)] = list(shares.values())
    return labels, vocabulary, matrix


def jsd_to_prototypes_sparse(vocabulary: Vocabulary, bags: Sequence[Bag], prototypes: np.ndarray) -> np.ndarray:
    """JSD of every bag to every prototype row over `vocabulary` (n, k), exact over each bag's full tokens."""
    outside = np.array([vocabulary.outside_mass(bag) for bag in bags], dtype=float)
    return jsd_matrix(vocabulary.matrix(bags), prototypes, outside)


def pnns_distances(bags: Sequence[Bag], prototypes: Mapping[Hashable, Bag]) -> tuple[list, np.ndarray]:
    """(sorted labels, (n, k) JSD of every bag to every prototype), exact over each pair's token union."""
    labels, vocabulary, matrix = prototype_matrix(prototypes)
    return labels, jsd_to_prototypes_sparse(vocabulary, bags, matrix)


def pnns_predict(bags: Sequence[Bag], prototypes: Mapping[Hashable, Bag]) -> list:
    """Label of the nearest prototype by JSD for every bag; ties go to the lowest label."""
    labels, distances = pnns_distances(bags, prototypes)
    return [labels[i] for i in np.argmin(distances, axis=1)]  # argmin returns the first minimum
