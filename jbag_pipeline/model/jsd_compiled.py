"""A decision's JSON-Bag arithmetic in compiled calls (numba, when it is installed): the counts a decision's sample
adds (advance_counts, in place), and its candidates' values, each candidate as the base plus its changes, the JSD to
every prototype by changes (bags.jsd_by_changes' formula) and V_seat (seat_values_by_changes).

A decision's candidates differ from their base in a few columns, so the numpy batch spends its time in a dozen
small calls per decision, more than the bitboard games' baseline spends on a whole decision; these loops do the
same arithmetic in one call each. The functions here are plain Python, the reference their compiled versions are
tested against; compiled(function) is the numba version, None when numba cannot be imported (the value then calls
advance_counts as it is and keeps its numpy code for the candidates, equal to 1e-12).
"""

from __future__ import annotations

import functools
import math

import numpy as np

_HALF_PER_LN2 = 0.5 / math.log(2.0)


MASS, END = -1.0, -2.0  # row codes beside the columns: a change's whole mass, the end of a candidate's rows
_LONG_CANDIDATE = 64  # a candidate with more rows has them summed in a column-wide array, not merged by insertion


def seat_values_by_changes(base: np.ndarray, nonzero: np.ndarray, shares: np.ndarray, plogp: np.ndarray,
                           empty: np.ndarray, rows: np.ndarray, base_mass: float, seat: int,
                           batch_logs: int) -> np.ndarray:
    """V_seat of n candidates, each the base plus its rows of `rows` (m, 2), candidate after candidate, each ending
    with an (END, 0) row: a (column, count) row adds count at column of `base` (V,), a (MASS, mass) row adds mass to
    the candidate's whole mass (base_mass plus its rows' masses); `nonzero` are the base's columns with counts
    (ascending); prototypes are the rows of `shares` (k, V), plogp = xlogy(shares, shares), `empty` the prototypes
    without mass. (All in one array of rows: the value joins its cached changes' bytes into it, which costs less
    than converting Python lists, about 60 ns an element, and a child's changes are one map over a dict.)

    No values (an empty array) when the loop's scalar logarithms, about two numpy vectorised ones each, would cost
    more than the numpy batch's logs plus `batch_logs` for its fixed cost: the caller then takes the batch.

    JS in bits is 1 + sum over columns of g(t, p) / (2 ln 2), g(t, p) = t ln t + p ln p - (t+p) ln(t+p), 0 where
    t or p is 0: the base's columns are summed once per distinct total, then each candidate's changed columns
    (merged, in column order, so that equal candidates get equal values) corrected."""
    m, k, width = rows.shape[0], shares.shape[0], nonzero.shape[0]
    n = 0
    for e in range(m):
        if rows[e, 0] == END:
            n += 1
    totals = np.empty(n)
    stops = np.empty(n, dtype=np.int64)
    i, total = 0, base_mass
    for e in range(m):
        code = rows[e, 0]
        if code == MASS:
            total += rows[e, 1]
        elif code == END:
            totals[i], stops[i] = total, e
            i, total = i + 1, base_mass
    distinct = 0
    for i in range(n):
        seen = False
        for j in range(i):
            if totals[j] == totals[i]:
                seen = True
                break
        if not seen:
            distinct += 1
    if 2 * distinct * width * k > n * width * (k + 1) + batch_logs:
        return np.empty(0)
    values = np.empty(n)
    known_totals = np.empty(n)
    known_sums = np.zeros((n, k))
    # each base column's term per distinct total and prototype, which a candidate changing the column takes back
    known_terms = np.empty((max(1, distinct), width, k))
    column_place = np.empty(base.shape[0], dtype=np.int64)  # a base column's place in `nonzero`
    for q in range(width):
        column_place[nonzero[q]] = q
    n_known = 0
    js = np.empty(k)
    closeness = np.empty(k)
    buffer_columns = np.empty(max(1, m), dtype=np.int64)
    buffer_deltas = np.empty(max(1, m))
    sums = np.zeros(0)  # a long candidate's changes summed by column (made for the first), zeroed again as read
    owner = np.zeros(0, dtype=np.int64)  # the last long candidate that changed each column, plus one
    start = 0
    for i in range(n):
        stop = stops[i]
        total = totals[i]
        if total <= 0:  # an empty bag: distance 0 to empty prototypes, 1 to the others
            for p in range(k):
                closeness[p] = 1.0 if empty[p] else 0.0
        else:
            found = -1
            for j in range(n_known):
                if known_totals[j] == total:
                    found = j
                    break
            if found < 0:
                found = n_known
                n_known += 1
                known_totals[found] = total
                for q in range(width):
                    column = nonzero[q]
                    t = base[column] / total
                    t_log_t = t * math.log(t)
                    for p in range(k):
                        share = shares[p, column]
                        if share > 0:
                            pooled = t + share
                            term = t_log_t + plogp[p, column] - pooled * math.log(pooled)
                            known_terms[found, q, p] = term
                            known_sums[found, p] += term
            for p in range(k):
                js[p] = known_sums[found, p]
            size = 0  # this candidate's changes merged by column, kept sorted
            if stop - start > _LONG_CANDIDATE:  # summed in a column-wide array, then sorted (insertion is quadratic)
                if sums.shape[0] == 0:
                    sums, owner = np.zeros(base.shape[0]), np.zeros(base.shape[0], dtype=np.int64)
                for e in range(start, stop):
                    column = int(rows[e, 0])
                    if column >= 0:  # not its mass, counted above
                        if owner[column] != i + 1:
                            owner[column] = i + 1
                            buffer_columns[size] = column
                            size += 1
                        sums[column] += rows[e, 1]
                buffer_columns[:size].sort()
                for q in range(size):
                    buffer_deltas[q] = sums[buffer_columns[q]]
                    sums[buffer_columns[q]] = 0.0
            else:  # by insertion: a handful of entries
                for e in range(start, stop):
                    if rows[e, 0] < 0:  # its mass, counted above
                        continue
                    column, place = int(rows[e, 0]), size
                    while place > 0 and buffer_columns[place - 1] > column:
                        place -= 1
                    if place > 0 and buffer_columns[place - 1] == column:
                        buffer_deltas[place - 1] += rows[e, 1]
                        continue
                    for q in range(size, place, -1):
                        buffer_columns[q] = buffer_columns[q - 1]
                        buffer_deltas[q] = buffer_deltas[q - 1]
                    buffer_columns[place] = column
                    buffer_deltas[place] = rows[e, 1]
                    size += 1
            for q in range(size):
                delta = buffer_deltas[q]
                if delta == 0:
                    continue
                column = buffer_columns[q]
                old, new = base[column] / total, (base[column] + delta) / total
                new_log = new * math.log(new) if new > 0 else 0.0
                for p in range(k):
                    share = shares[p, column]
                    if share > 0:
                        if old > 0:  # the base's own term of the column, as summed above
                            js[p] -= known_terms[found, column_place[column], p]
                        if new > 0:
                            js[p] += new_log + plogp[p, column] - (new + share) * math.log(new + share)
            for p in range(k):
                if empty[p]:
                    closeness[p] = 0.0
                else:
                    closeness[p] = 1.0 - math.sqrt(min(max(1.0 + js[p] * _HALF_PER_LN2, 0.0), 1.0))
        whole = 0.0
        for p in range(k):
            whole += closeness[p]
        values[i] = closeness[seat] / whole if whole > 0 else 1.0 / k
        start = stop + 1
    return values


def advance_counts(start: np.ndarray, reference: np.ndarray, trajectory: np.ndarray, base: np.ndarray,
                   nonzero: np.ndarray, rows: np.ndarray) -> tuple[float, int, float]:
    """A decision's counts, in place: `reference` becomes `start` (the last reference, or any counts; it may be
    `reference` itself) plus count at column for each (column, count) row of `rows` (m, 2) (seat_values_by_changes'
    rows of one candidate, without its END row), `trajectory` adds it, `base` becomes trajectory plus reference
    (what the children add to) and the first entries of `nonzero` the base's non-zero columns; returns the
    reference's sum, how many non-zero columns, and the sum of the MASS rows. (In place: returning new arrays from
    the compiled call costs about a microsecond each.) Counts are whole numbers: any order of the sums gives these."""
    reference[:] = start
    mass = 0.0
    for e in range(rows.shape[0]):
        if rows[e, 0] >= 0:
            reference[int(rows[e, 0])] += rows[e, 1]
        elif rows[e, 0] == MASS:
            mass += rows[e, 1]
    trajectory += reference
    base[:] = trajectory + reference
    found = np.flatnonzero(base)
    nonzero[:len(found)] = found
    return reference.sum(), len(found), mass


@functools.cache
def compiled(function):
    """`function` (one of this module's) compiled by numba at the first call (numba's import and a compilation
    cost about a second each; the machine code is cached on disk beside this module), None without numba."""
    try:
        import numba
    except ImportError:
        return None
    return numba.njit(cache=True, nogil=True)(function)
