"""Prototype nearest-neighbour search (P-NNS) by JSD over token -> share prototypes (model.prototypes.
build_prototypes makes them), for tests of the JSD kernel."""

from __future__ import annotations

from typing import Hashable, Mapping, Sequence

import numpy as np

from jbag_pipeline.model.bags import Bag, Vocabulary, jsd_matrix, normalise


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
    outside = np.array([sum(c for t, c in bag.items() if t not in vocabulary) for bag in bags], dtype=float)
    return jsd_matrix(vocabulary.matrix(bags), prototypes, outside)


def pnns_distances(bags: Sequence[Bag], prototypes: Mapping[Hashable, Bag]) -> tuple[list, np.ndarray]:
    """(sorted labels, (n, k) JSD of every bag to every prototype), exact over each pair's token union."""
    labels, vocabulary, matrix = prototype_matrix(prototypes)
    return labels, jsd_to_prototypes_sparse(vocabulary, bags, matrix)


def pnns_predict(bags: Sequence[Bag], prototypes: Mapping[Hashable, Bag]) -> list:
    """Label of the nearest prototype by JSD for every bag; ties go to the lowest label."""
    labels, distances = pnns_distances(bags, prototypes)
    return [labels[i] for i in np.argmin(distances, axis=1)]  # argmin returns the first minimum
