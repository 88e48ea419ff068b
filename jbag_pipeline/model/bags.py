"""Bags as distributions: normalisation, Jensen-Shannon distance, a token vocabulary and vectorised JSD.

JSD here is sqrt of the base-2 Jensen-Shannon divergence, in [0, 1]; empty vs empty is 0, empty vs
non-empty is 1 (docs/DESIGN.md section 3). Counts are normalised first. Every JSD between bags runs through one
numpy kernel over the columns where the bag has mass; the prototype mass elsewhere enters as one sum.
The JSON-Bag agent's per-decision batches use jsd_by_terms instead: the same distance with the prototypes'
part computed once (prototype_terms), one logarithm per (row, prototype, column); it agrees with the kernel
to rounding, and each stays on the tables it makes today (they are compared in tests/model/test_bags.py).
"""

from __future__ import annotations

import math
from typing import Iterable, Mapping, NamedTuple, Sequence

import numpy as np
import scipy.sparse as sp
from scipy.special import xlogy

Bag = Mapping[str, float]
_BLOCK_ELEMENTS = 1 << 19  # rows x prototypes x columns per numpy block: bounds the kernel's memory
_LN2 = math.log(2.0)
_TINY = 1e-300  # added to pooled shares so that 0 ln 0 comes out 0; below an ulp of any real share


def _check_count(token: str, count: float, where: str) -> None:
    if not (count >= 0 and math.isfinite(count)):
        raise ValueError(f"{where}: count of token {token!r} must be a finite number >= 0, got {count!r}")


def normalise(bag: Bag) -> dict[str, float]:
    """Token -> share of the bag's total count; an empty (or all-zero) bag stays empty."""
    for token, count in bag.items():
        _check_count(token, count, "normalise")
    total = sum(bag.values())
    if total == 0:
        return {}
    return {token: count / total for token, count in bag.items() if count}


def _jsd_kernel(x: np.ndarray, x_rest: np.ndarray, p: np.ndarray, p_rest: np.ndarray) -> np.ndarray:
    """JSD of rows x (r, u) vs prototypes p (k, u), all normalised over their full vocabularies; (r, k).

    x_rest (r,) is each row's mass outside the u columns (where every prototype is 0), p_rest (k,) each
    prototype's mass outside them (where every row is 0): a token held by one side only adds its mass.
    """
    xs, ps = x[:, None, :], p[None, :, :]
    both = xs + ps
    with np.errstate(divide="ignore", invalid="ignore"):
        x_terms = np.where(xs > 0, xs * np.log2(2 * xs / both), 0.0).sum(axis=2)
        p_terms = np.where(ps > 0, ps * np.log2(2 * ps / both), 0.0).sum(axis=2)
    divergence = 0.5 * (x_terms + x_rest[:, None] + p_terms + p_rest[None, :])
    return np.sqrt(np.clip(divergence, 0.0, 1.0))


def row_shares(matrix: np.ndarray, where: str) -> tuple[np.ndarray, np.ndarray]:
    """Rows of a non-negative count matrix divided by their sums, and which rows are empty."""
    if matrix.ndim != 2:
        raise ValueError(f"{where}: prototypes must be a 2-D array (one row per prototype), got {matrix.ndim}-D")
    if not np.all(np.isfinite(matrix)) or np.any(matrix < 0):
        raise ValueError(f"{where}: prototype counts must be finite and >= 0")
    totals = matrix.sum(axis=1)
    empty = totals == 0
    return matrix / np.where(empty, 1.0, totals)[:, None], empty


def _jsd_rows(x: np.ndarray, columns: np.ndarray, x_rest: np.ndarray, shares: np.ndarray,
              empty: np.ndarray) -> np.ndarray:
    """(r, k) JSD of count rows x (r, u), which hold all of their in-vocabulary mass on `columns`,
    plus x_rest (r,) outside the vocabulary, vs normalised prototype rows `shares` (k, V)."""
    totals = x.sum(axis=1) + x_rest
    distances = np.empty((x.shape[0], shares.shape[0]))
    nonzero = totals > 0
    distances[~nonzero] = np.where(empty, 0.0, 1.0)
    if nonzero.any():
        x, x_rest, totals = x[nonzero], x_rest[nonzero], totals[nonzero]
        elsewhere = np.ones(shares.shape[1], dtype=bool)
        elsewhere[columns] = False
        block = _jsd_kernel(x / totals[:, None], x_rest / totals, shares[:, columns],
                            shares[:, elsewhere].sum(axis=1))
        block[:, empty] = 1.0
        distances[nonzero] = block
    return distances


class PrototypeTerms(NamedTuple):
    """What jsd_by_terms needs of fixed prototypes over some columns."""

    pooling: np.ndarray  # (k + 1, columns): each prototype's shares, then zeros; all plus _TINY (log stays finite)
    mixing: np.ndarray  # (k + 1, k): sum (t+p) ln(t+p) per pooled row -> their part of JS in bits
    constant: np.ndarray  # (k,): sum p ln p / (2 ln 2) over the columns + 1 (an empty prototype: 1/2, unused)
    empty: np.ndarray  # (k,) bool: prototypes without mass (1 from every non-empty bag, 0 from an empty one)
    any_empty: bool


def prototype_terms(shares: np.ndarray, empty: np.ndarray) -> PrototypeTerms:
    """The terms of prototypes given as shares over some columns (row_shares; `empty`: its rows without mass)."""
    k = shares.shape[0]
    share_totals = np.where(empty, 0.0, 1.0)
    pooling = np.vstack([shares, np.zeros((1, shares.shape[1]))]) + _TINY
    mixing = np.vstack([-np.eye(k), np.ones((1, k))]) * (0.5 / _LN2)  # (sum t ln t - sum (t+p) ln(t+p))
    constant = xlogy(shares, shares).sum(axis=1) * (0.5 / _LN2) + 0.5 * (1.0 + share_totals)
    return PrototypeTerms(pooling, mixing, constant, empty, bool(empty.any()))


def terms_over(terms: PrototypeTerms, plogp: np.ndarray, used: np.ndarray) -> PrototypeTerms:
    """prototype_terms(shares[:, used], empty) from the `terms` over every column and plogp = xlogy(shares, shares):
    the same numbers (the same elements, summed in the same order), without a logarithm or a new matrix per call."""
    constant = plogp[:, used].sum(axis=1) * (0.5 / _LN2) + 0.5 * (1.0 + np.where(terms.empty, 0.0, 1.0))
    return PrototypeTerms(terms.pooling[:, used], terms.mixing, constant, terms.empty, terms.any_empty)


def js_by_terms(x: np.ndarray, totals: Sequence[float], terms: PrototypeTerms) -> np.ndarray:
    """(n, k) JS divergence in bits of n count rows `x` (see jsd_by_terms), before clipping to [0, 1] and before
    the empty rows and prototypes are set; rows whose total is <= 0 are scaled by 1 (their values are unused)."""
    if any(total <= 0 for total in totals):
        totals = [total if total > 0 else 1.0 for total in totals]
    pooled = (x / np.array(totals)[:, None])[:, None, :] + terms.pooling
    js = np.einsum("ijk,ijk->ij", pooled, np.log(pooled)) @ terms.mixing
    js += terms.constant
    return js


def jsd_by_terms(x: np.ndarray, totals: Sequence[float], terms: PrototypeTerms) -> np.ndarray:
    """(n, k) JSD of n count rows `x` over the columns of `terms`, whose whole masses (with counts outside those
    columns) are `totals`, to the prototypes of `terms`.

    JS in bits is (sum t ln t + sum p ln p - sum (t+p) ln(t+p)) / (2 ln 2) + 1 over the columns, the last
    because mass outside them (on one side only) adds 1/2 bit per unit as the mass inside does ln 2 nats
    (t and p each sum to 1 in all). So one logarithm per (row, prototype, column), and per (row, column) for
    the all-zero row of terms.pooling, does it. Few numpy calls: they dominate at the agent's batch sizes."""
    js = js_by_terms(x, totals, terms)
    np.maximum(js, 0.0, out=js)  # np.clip(js, 0, 1) as two ufuncs, without np.clip's Python layers
    distances = np.sqrt(np.minimum(js, 1.0, out=js), out=js)  # in place: each numpy call costs microseconds here
    if terms.any_empty:
        distances[:, terms.empty] = 1.0
    dead = [row for row, total in enumerate(totals) if total <= 0]
    if dead:
        distances[dead] = np.where(terms.empty, 0.0, 1.0)  # an empty bag: 0 to empty prototypes, 1 to others
    return distances


def _g(t: np.ndarray, p: np.ndarray) -> np.ndarray:
    """t ln t + p ln p - (t+p) ln(t+p) elementwise (0 ln 0 = 0): a column's part of JS in nats, times -2."""
    pooled = t + p
    return xlogy(t, t) + xlogy(p, p) - xlogy(pooled, pooled)


def jsd_by_changes(base: np.ndarray, base_columns: np.ndarray, rows: np.ndarray, columns: np.ndarray,
                   deltas: np.ndarray, totals: Sequence[float], shares: np.ndarray, empty: np.ndarray) -> np.ndarray:
    """(n, k) JSD to the prototypes `shares` (k, V) of n count rows, each the vector `base` (V) plus its changes:
    entry e adds deltas[e] to column columns[e] of row rows[e] (one entry per row and column, rows ascending);
    each row's whole mass (with counts outside the columns) is in `totals`.

    JS in bits is 1 + sum over columns of g(t, p) / (2 ln 2), g(t, p) = t ln t + p ln p - (t+p) ln(t+p), which is
    0 where the row has no count: the columns where `base` has counts (`base_columns`) are summed once per
    distinct total, then each row's changed columns are corrected. The same numbers as jsd_by_terms to rounding,
    with logarithms per distinct total and per change instead of per row and column."""
    totals = np.asarray(totals, dtype=float)
    n, k = len(totals), shares.shape[0]
    dead = totals <= 0
    safe = np.where(dead, 1.0, totals)
    distinct, which = np.unique(safe, return_inverse=True)
    shared = _g(base[base_columns][None, None, :] / distinct[:, None, None], shares[None, :, base_columns]).sum(axis=2)
    js = shared[which]  # (n, k)
    if len(rows):
        scale = safe[rows][:, None]
        p = shares[:, columns].T  # (entries, k)
        old = base[columns]
        correction = _g((old + deltas)[:, None] / scale, p) - _g(old[:, None] / scale, p)
        js += np.bincount((rows[:, None] * k + np.arange(k)).ravel(), correction.ravel(), n * k).reshape(n, k)
    js *= 0.5 / _LN2
    js += 1.0
    np.maximum(js, 0.0, out=js)
    distances = np.sqrt(np.minimum(js, 1.0, out=js), out=js)
    distances[:, empty] = 1.0
    if dead.any():
        distances[dead] = np.where(empty, 0.0, 1.0)  # an empty bag: 0 to empty prototypes, 1 to others
    return distances


def jsd(p: Bag, q: Bag) -> float:
    """Jensen-Shannon distance between two token -> count (or probability) mappings, over their union."""
    for bag, name in ((p, "p"), (q, "q")):
        for token, count in bag.items():
            _check_count(token, count, f"jsd: bag {name}")
    tokens = list(p) + [token for token in q if token not in p]  # a fixed order keeps sums reproducible
    x = np.array([p.get(token, 0.0) for token in tokens], dtype=float)
    shares, empty = row_shares(np.array([[q.get(token, 0.0) for token in tokens]], dtype=float), "jsd")
    columns = np.flatnonzero(x)
    return float(_jsd_rows(x[None, columns], columns, np.zeros(1), shares, empty)[0, 0])


def jsd_to_prototypes(x: np.ndarray, prototypes: np.ndarray, outside_mass: float = 0.0) -> np.ndarray:
    """JSD of one count vector over a vocabulary to every row of a prototype count matrix: shape (k,).

    outside_mass: the vector's count on tokens outside the vocabulary (no prototype holds them); it
    makes the distance exact over the full token union, as jsd() on the original bags.
    """
    x = np.asarray(x, dtype=float)
    if x.ndim != 1 or x.shape[0] != np.shape(prototypes)[-1]:
        raise ValueError(f"jsd_to_prototypes: x must be a vector of length {np.shape(prototypes)[-1]} "
                         f"(the prototypes' columns), got shape {x.shape}")
    if not np.all(np.isfinite(x)) or np.any(x < 0) or not (outside_mass >= 0 and math.isfinite(outside_mass)):
        raise ValueError("jsd_to_prototypes: counts and outside_mass must be finite and >= 0")
    shares, empty = row_shares(np.asarray(prototypes, dtype=float), "jsd_to_prototypes")
    columns = np.flatnonzero(x)
    return _jsd_rows(x[None, columns], columns, np.array([float(outside_mass)]), shares, empty)[0]


def jsd_matrix(bags: sp.spmatrix | np.ndarray, prototypes: np.ndarray,
               outside_mass: np.ndarray | None = None) -> np.ndarray:
    """JSD of every row of a (sparse) bag count matrix (n, V) to every prototype row (k, V): shape (n, k).

    outside_mass (n,): each bag's count on tokens outside the vocabulary, as in jsd_to_prototypes.
    Rows are processed in blocks, each densified over the columns its bags use only.
    """
    matrix = sp.csr_matrix(bags, dtype=float)
    n, n_columns = matrix.shape
    protos = prototypes.toarray() if sp.issparse(prototypes) else np.asarray(prototypes, dtype=float)
    if protos.ndim != 2 or protos.shape[1] != n_columns:
        raise ValueError(f"jsd_matrix: prototypes must have {n_columns} columns (the bags' vocabulary), "
                         f"got shape {protos.shape}")
    rest = np.zeros(n) if outside_mass is None else np.asarray(outside_mass, dtype=float)
    if rest.shape != (n,) or not np.all(np.isfinite(rest)) or np.any(rest < 0):
        raise ValueError(f"jsd_matrix: outside_mass must be {n} finite counts >= 0, got shape {rest.shape}")
    if matrix.nnz and (not np.all(np.isfinite(matrix.data)) or matrix.data.min() < 0):
        raise ValueError("jsd_matrix: bag counts must be finite and >= 0")
    shares, empty = row_shares(protos, "jsd_matrix")
    distances = np.empty((n, protos.shape[0]))
    used_columns = max(1, len(np.unique(matrix.indices)))  # bounds the columns of any block
    rows_per_block = max(1, _BLOCK_ELEMENTS // (max(1, protos.shape[0]) * used_columns))
    for start in range(0, n, rows_per_block):
        block = matrix[start:start + rows_per_block]
        columns = np.unique(block.indices)
        stop = start + block.shape[0]
        distances[start:stop] = _jsd_rows(block[:, columns].toarray(), columns, rest[start:stop], shares, empty)
    return distances


class Vocabulary:
    """A fixed token -> column index; turns bags into dense vectors or sparse matrices over it."""

    def __init__(self, tokens: Iterable[str]):
        self.tokens: list[str] = []
        self.index: dict[str, int] = {}
        for token in tokens:
            if token not in self.index:
                self.index[token] = len(self.tokens)
                self.tokens.append(token)

    @classmethod
    def from_bags(cls, bags: Iterable[Bag]) -> "Vocabulary":
        """The sorted union of the bags' tokens (sorted, so the same bags always give the same columns)."""
        union: set[str] = set()
        for bag in bags:
            union.update(bag)
        return cls(sorted(union))

    def __len__(self) -> int:
        return len(self.tokens)

    def __contains__(self, token: object) -> bool:
        return token in self.index

    def indices(self, tokens: Iterable[str]) -> np.ndarray:
        """Column of every token; a token outside the vocabulary is a ValueError naming it."""
        try:
            return np.array([self.index[token] for token in tokens], dtype=np.int64)
        except KeyError as missing:
            raise ValueError(f"Vocabulary.indices: token {missing.args[0]!r} is not in the vocabulary") from None

    def matrix(self, bags: Sequence[Bag]) -> sp.csr_matrix:
        """Sparse (n, V) count matrix, one row per bag; tokens outside the vocabulary are left out."""
        rows, columns, counts = [], [], []
        for row, bag in enumerate(bags):
            for token, count in bag.items():
                column = self.index.get(token)
                if column is not None:
                    rows.append(row)
                    columns.append(column)
                    counts.append(count)
        return sp.csr_matrix((np.array(counts, dtype=float), (rows, columns)), shape=(len(bags), len(self.tokens)))
