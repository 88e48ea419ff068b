"""The compiled batch (model/jsd_compiled) equals its plain Python function and the numpy batch (bags.jsd_by_terms,
then V_seat) to 1e-12 on random bags: zeros, empty prototypes, columns a change empties or fills, repeated columns,
empty candidates; and the JSON-Bag value gives the same children's values with and without it."""

from __future__ import annotations

import random

import numpy as np
import pytest
from scipy.special import xlogy

from engines import load_game
from jbag_pipeline.model import jsd_compiled
from jbag_pipeline.model import value as value_module
from jbag_pipeline.model.bags import jsd_by_terms, prototype_terms, row_shares
from jbag_pipeline.model.jsd_compiled import END, MASS, advance_counts, compiled, seat_values_by_changes
from jbag_pipeline.model.tokenize import tokenize_state
from jbag_pipeline.model.value import DeterminizedJsonBagValue, seat_values
from tests.engines.test_json_changes import random_states

needs_numba = pytest.mark.skipif(compiled(seat_values_by_changes) is None, reason="numba is not installed")


ALWAYS = 10 ** 12  # batch_logs that the loop's estimate never exceeds: it always values


def random_batch(rng: np.random.Generator, most_changes: int = 5) -> tuple:
    """(base, nonzero, shares, plogp, empty, rows, base_mass) of a random decision, and its candidates' counts (each
    changing up to `most_changes` columns)."""
    width, k, n = int(rng.integers(1, 60)), int(rng.integers(2, 5)), int(rng.integers(1, 12))
    base = rng.integers(0, 4, width) * (rng.random(width) < 0.6)
    prototypes = rng.random((k, width)) * (rng.random((k, width)) < 0.7)
    prototypes[rng.random(k) < 0.2] = 0.0  # seats that never won
    shares, empty = row_shares(prototypes, "test")
    base_mass = int(base.sum()) + int(rng.integers(0, 3))  # tokens outside the columns count in the mass
    rows, x = [], np.tile(base.astype(float), (n, 1))
    for i in range(n):
        for column in rng.choice(width, int(rng.integers(0, min(width, most_changes) + 1)), replace=False).tolist():
            delta = int(rng.integers(-int(base[column]), 4)) if rng.random() < 0.8 else -int(base[column])
            part = int(rng.integers(-2, 3))  # some changes come in two rows for one column
            rows += [(column, part), (column, delta - part)] if part else [(column, delta)]
            x[i, column] += delta
            if rng.random() < 0.5:  # its mass in a row of its own, or in two
                rows.append((MASS, delta))
            else:
                rows += [(MASS, delta - 1), (MASS, 1)]
        if rng.random() < 0.5:
            rows.append((MASS, int(rng.integers(0, 3))))  # outside the columns
        rows.append((END, 0))
    return (base.astype(float), np.flatnonzero(base), shares, xlogy(shares, shares), empty,
            np.array(rows, dtype=float).reshape(-1, 2), float(base_mass)), x


def totals_of(batch: tuple) -> list[float]:
    """Each candidate's whole mass: base_mass plus its MASS rows."""
    rows, totals, total = batch[5], [], batch[6]
    for code, count in rows.tolist():
        if code == MASS:
            total += count
        elif code == END:
            totals.append(total)
            total = batch[6]
    return totals


@pytest.mark.parametrize("seed", range(200))
def test_the_loop_equals_the_numpy_batch_on_random_bags(seed):
    rng = np.random.default_rng(seed)
    batch, x = random_batch(rng)
    shares, empty = batch[2], batch[4]
    seat = int(rng.integers(0, shares.shape[0]))
    expected = seat_values(jsd_by_terms(x, totals_of(batch), prototype_terms(shares, empty)))[:, seat]
    np.testing.assert_allclose(seat_values_by_changes(*batch, seat, ALWAYS), expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize("seed", range(50))
def test_long_candidates_get_the_values_merging_by_insertion_gives(seed, monkeypatch):
    """Candidates of more than _LONG_CANDIDATE rows have their changes summed in a column-wide array, not merged by
    insertion: the same sums in the same column order, so the same values (compiled: to 1e-12)."""
    rng = np.random.default_rng(seed)
    batch, _ = random_batch(rng, most_changes=60)
    seat = int(rng.integers(0, batch[2].shape[0]))
    by_array = seat_values_by_changes(*batch, seat, ALWAYS)
    if compiled(seat_values_by_changes) is not None:
        np.testing.assert_allclose(compiled(seat_values_by_changes)(*batch, seat, ALWAYS), by_array, rtol=0,
                                   atol=1e-12)
    monkeypatch.setattr(jsd_compiled, "_LONG_CANDIDATE", 10 ** 9)
    np.testing.assert_array_equal(seat_values_by_changes(*batch, seat, ALWAYS), by_array)


@pytest.mark.parametrize("seed", range(20))
def test_the_loop_declines_when_the_numpy_batch_costs_less(seed):
    batch, _ = random_batch(np.random.default_rng(seed))
    assert len(seat_values_by_changes(*batch, 0, -10 ** 9)) == 0
    assert len(seat_values_by_changes(*batch, 0, ALWAYS)) == len(totals_of(batch))


@needs_numba
@pytest.mark.parametrize("seed", range(200))
def test_the_compiled_loop_equals_the_plain_one(seed):
    rng = np.random.default_rng(seed)
    batch, _ = random_batch(rng)
    seat = int(rng.integers(0, batch[2].shape[0]))
    for batch_logs in (ALWAYS, 0, -10 ** 9):  # it declines alike
        np.testing.assert_allclose(compiled(seat_values_by_changes)(*batch, seat, batch_logs),
                                   seat_values_by_changes(*batch, seat, batch_logs), rtol=0, atol=1e-12)


def test_equal_candidates_get_equal_values_whatever_the_order_of_their_changes():
    base, shares = np.array([3.0, 1.0, 0.0, 2.0]), np.array([[0.1, 0.2, 0.3, 0.4], [0.4, 0.3, 0.2, 0.1]])
    rows = np.array([(0, 1.0), (2, 2.0), (MASS, 3.0), (3, -1.0), (END, 0.0),
                     (3, -1.0), (MASS, 3.0), (2, 2.0), (0, 1.0), (END, 0.0)])
    batch = (base, np.flatnonzero(base), shares, xlogy(shares, shares), np.zeros(2, dtype=bool), rows, 6.0)
    for loop in filter(None, (seat_values_by_changes, compiled(seat_values_by_changes))):
        first, second = loop(*batch, 0, ALWAYS)
        assert first == second


@needs_numba
@pytest.mark.parametrize("name", ["connect4", "dominion", "sea_salt_paper"])  # listed changes, and parts
def test_the_value_with_and_without_the_compiled_loop_is_the_same(name, monkeypatch):
    game = load_game(name)
    states = [s for s in random_states(game, 40, seed=8) if not s.is_terminal()]
    bags = [tokenize_state(s.to_json(), num_suffix=True) for s in states[::3]]
    prototypes = [dict(bag) for bag in bags[:game.n_players]]
    features = sorted(set().union(*bags))[::5]
    for chosen in (features, None):
        runs = []
        for kernels in (compiled, lambda function: None):
            monkeypatch.setattr(value_module, "compiled", kernels)
            value, rng, values = DeterminizedJsonBagValue(prototypes, chosen), random.Random(4), []
            for state in states:
                sample = state.determinize(state.current_player, rng)
                value.begin_decision(sample, state.current_player)
                children = []
                for action in sample.legal_actions():
                    children.append(sample.clone())
                    children[-1].apply(action)
                values.extend(np.asarray(value.values(children, state.current_player)).tolist())
            runs.append((values, value.trajectory.copy(), value._base_mass))
        np.testing.assert_allclose(runs[0][0], runs[1][0], rtol=0, atol=1e-12)
        np.testing.assert_array_equal(runs[0][1], runs[1][1])
        assert runs[0][2] == runs[1][2]


@needs_numba
@pytest.mark.parametrize("seed", range(50))
def test_the_compiled_advance_equals_the_plain_one(seed):
    rng = np.random.default_rng(seed)
    width = int(rng.integers(1, 40))
    start, trajectory = rng.integers(0, 5, width).astype(float), rng.integers(0, 20, width).astype(float)
    columns = rng.integers(0, width, int(rng.integers(0, 10)))
    counts = np.array([float(rng.integers(0, 3)) for _ in columns])
    masses = rng.integers(-3, 4, int(rng.integers(0, 3)))
    changes = np.array(list(zip(columns, counts)) + [(MASS, mass) for mass in masses], dtype=float).reshape(-1, 2)
    rng.shuffle(changes)  # MASS rows anywhere among the column rows
    expected = start + np.bincount(columns, counts, width)

    def advanced(advance, from_itself: bool) -> tuple:
        """(reference, trajectory, base, non-zero columns, reference sum, rows' mass) after one advance, in place:
        from the reference's own counts, or from `start` into a reference that held other counts."""
        reference = start.copy() if from_itself else np.full(width, 7.0)
        arrays = (reference, trajectory.copy(), np.full(width, 3.0), np.full(width, -1, dtype=np.int64))
        reference_sum, used, mass = advance(reference if from_itself else start, *arrays, changes)
        return (*arrays[:3], arrays[3][:used], reference_sum, mass)

    for from_itself in (False, True):
        plain, fast = advanced(advance_counts, from_itself), advanced(compiled(advance_counts), from_itself)
        for a, b in zip(plain, fast):
            np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(plain[0], expected)
        np.testing.assert_array_equal(plain[1], trajectory + expected)
        np.testing.assert_array_equal(plain[2], trajectory + 2 * expected)
        np.testing.assert_array_equal(plain[3], np.flatnonzero(trajectory + 2 * expected))
        assert plain[4] == expected.sum()
        assert plain[5] == masses.sum()
