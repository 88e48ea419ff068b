"""Bags, JSD, prototypes, P-NNS and the JSON-Bag value function."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.spatial.distance import jensenshannon
from scipy.special import xlogy

import jbag_pipeline.model.bags as bags_module
from jbag_pipeline.model.bags import (Vocabulary, js_by_terms, jsd, jsd_by_changes, jsd_by_terms, jsd_matrix, jsd_to_prototypes, normalise,
                                      prototype_terms, row_shares, terms_over)
from jbag_pipeline.model.prototypes import build_prototypes
from jbag_pipeline.model.tokenize import TokenFilter, tokenize_state
from jbag_pipeline.model.value import JsonBagValue, seat_values, value_from_distances
from tests.helpers.pnns import jsd_to_prototypes_sparse, pnns_distances, pnns_predict, prototype_matrix


def random_bag(rng: np.random.Generator, n_tokens: int = 12, density: float = 0.5) -> dict[str, int]:
    return {f"t{i}": int(rng.integers(1, 6)) for i in range(n_tokens) if rng.random() < density}


def test_normalise():
    assert normalise({"a": 1, "b": 3, "c": 0}) == {"a": 0.25, "b": 0.75}
    assert normalise({}) == {} and normalise({"a": 0}) == {}
    with pytest.raises(ValueError, match="token 'a'"):
        normalise({"a": -1})


def test_jsd_agrees_with_scipy():
    rng = np.random.default_rng(1)
    for _ in range(50):
        p, q = random_bag(rng), random_bag(rng)
        if not p or not q:
            continue
        tokens = sorted(set(p) | set(q))
        expected = jensenshannon([p.get(t, 0) for t in tokens], [q.get(t, 0) for t in tokens], base=2)
        assert jsd(p, q) == pytest.approx(expected, abs=1e-12)


def test_jsd_properties():
    rng = np.random.default_rng(2)
    bags = [b for b in (random_bag(rng) for _ in range(40)) if b]
    for p in bags:
        assert jsd(p, p) == 0.0
        assert jsd(p, {t: 10 * c for t, c in p.items()}) == pytest.approx(0.0, abs=1e-7)  # counts are normalised
    for p, q, r in zip(bags, bags[1:], bags[2:]):
        assert jsd(p, q) == pytest.approx(jsd(q, p), abs=1e-15)
        assert 0.0 <= jsd(p, q) <= 1.0
        assert jsd(p, r) <= jsd(p, q) + jsd(q, r) + 1e-12


def test_jsd_extremes_and_empty_bags():
    assert jsd({"a": 1, "b": 2}, {"c": 5}) == 1.0
    assert jsd({}, {}) == 0.0
    assert jsd({}, {"a": 1}) == 1.0 and jsd({"a": 1}, {}) == 1.0
    assert jsd({"a": 0.5, "b": 0.5}, {"a": 1, "b": 1}) == 0.0
    with pytest.raises(ValueError, match="bag q"):
        jsd({"a": 1}, {"a": float("nan")})


def test_vocabulary():
    vocabulary = Vocabulary.from_bags([{"b": 1, "a": 2}, {"c": 1, "a": 1}])
    assert vocabulary.tokens == ["a", "b", "c"] and len(vocabulary) == 3 and "b" in vocabulary
    assert vocabulary.indices(["c", "a"]).tolist() == [2, 0]
    with pytest.raises(ValueError, match="'z' is not in the vocabulary"):
        vocabulary.indices(["a", "z"])
    assert vocabulary.matrix([{"a": 1}, {}, {"c": 2, "z": 1}]).toarray().tolist() == [[1, 0, 0], [0, 0, 0], [0, 0, 2]]


def _prototype_rows(rng, n_prototypes=3):
    protos = [random_bag(rng, density=0.6) for _ in range(n_prototypes)] + [{}]  # one empty prototype
    vocabulary = Vocabulary.from_bags(protos)
    return protos, vocabulary, vocabulary.matrix(protos).toarray()


def _outside(bag, vocabulary) -> float:
    return float(sum(count for token, count in bag.items() if token not in vocabulary))


def test_jsd_to_prototypes_matches_scalar_jsd_including_tokens_outside_the_vocabulary():
    rng = np.random.default_rng(3)
    protos, vocabulary, matrix = _prototype_rows(rng)
    for _ in range(20):
        bag = random_bag(rng, n_tokens=16)  # t12..t15 are in no prototype
        got = jsd_to_prototypes(vocabulary.matrix([bag]).toarray()[0], matrix, _outside(bag, vocabulary))
        assert got == pytest.approx([jsd(bag, p) for p in protos], abs=1e-12)
    assert jsd_to_prototypes(np.zeros(len(vocabulary)), matrix).tolist() == [1.0, 1.0, 1.0, 0.0]
    with pytest.raises(ValueError, match="vector of length"):
        jsd_to_prototypes(np.zeros(len(vocabulary) + 1), matrix)


def test_batched_sparse_jsd_matches_scalar_jsd_across_blocks(monkeypatch):
    monkeypatch.setattr(bags_module, "_BLOCK_ELEMENTS", 64)  # forces many small blocks
    rng = np.random.default_rng(4)
    protos, vocabulary, matrix = _prototype_rows(rng)
    bags = [random_bag(rng, n_tokens=16) for _ in range(30)] + [{}]
    expected = np.array([[jsd(bag, p) for p in protos] for bag in bags])
    assert jsd_to_prototypes_sparse(vocabulary, bags, matrix) == pytest.approx(expected, abs=1e-12)
    restricted = [{t: c for t, c in bag.items() if t in vocabulary} for bag in bags]
    got = jsd_matrix(sp.csr_matrix(vocabulary.matrix(bags)), sp.csr_matrix(matrix))
    assert got == pytest.approx(np.array([[jsd(bag, p) for p in protos] for bag in restricted]), abs=1e-12)


def test_pnns_on_a_toy_set():
    rng = np.random.default_rng(5)
    palettes = {0: ["r1", "r2", "r3"], 1: ["g1", "g2", "g3"], 2: ["b1", "b2", "b3"]}

    def sample(label):
        bag = {t: int(rng.integers(3, 8)) for t in palettes[label]}
        bag["shared"] = int(rng.integers(1, 5))
        return bag

    train = [(sample(label), label) for label in (0, 1, 2) for _ in range(5)]
    prototypes = build_prototypes(train)
    test_labels = [int(rng.integers(0, 3)) for _ in range(30)]
    assert pnns_predict([sample(label) for label in test_labels], prototypes) == test_labels
    labels, distances = pnns_distances([{"r1": 1, "unseen": 1}], prototypes)
    assert labels == [0, 1, 2]
    assert distances[0] == pytest.approx([jsd({"r1": 1, "unseen": 1}, prototypes[k]) for k in labels])


def test_pnns_breaks_ties_by_the_lowest_label():
    prototypes = {2: {"a": 1}, 1: {"a": 1}, 3: {"b": 1}}
    assert pnns_predict([{"a": 5}, {"c": 1}], prototypes) == [1, 1]
    labels, vocabulary, matrix = prototype_matrix(prototypes)
    assert labels == [1, 2, 3] and vocabulary.tokens == ["a", "b"]
    assert matrix.tolist() == [[1, 0], [1, 0], [0, 1]]


def test_value_from_distances():
    v = value_from_distances([0.2, 0.6, 1.0])
    assert v.sum() == pytest.approx(1.0) and v[0] > v[1] > v[2] == 0.0
    assert v.tolist() == pytest.approx([0.8 / 1.2, 0.4 / 1.2, 0.0])
    assert value_from_distances([1.0, 1.0, 1.0, 1.0]).tolist() == [0.25] * 4
    with pytest.raises(ValueError, match="in \\[0, 1\\]"):
        value_from_distances([0.5, 1.5])
    with pytest.raises(ValueError, match="non-empty"):
        value_from_distances([])


def test_seat_values_of_a_batch_equal_each_rows_value_from_distances():
    distances = np.array([[0.2, 0.6, 1.0], [1.0, 1.0, 1.0], [0.0, 0.0, 0.5], [0.3, 1.0, 0.9]])
    batch = seat_values(distances)
    for row, expected in zip(batch, distances):
        assert row.tolist() == value_from_distances(expected).tolist()  # the same floats, not just close
    assert batch[1].tolist() == [1 / 3] * 3


def test_jsd_by_terms_agrees_with_the_sparse_kernel():
    rng = np.random.default_rng(3)
    prototypes = rng.integers(0, 5, size=(4, 30)).astype(float)
    prototypes[2] = 0.0  # a seat that never won
    x = rng.integers(0, 4, size=(25, 30)).astype(float)
    x[[3, 7]] = 0.0  # empty rows; row 7 has mass outside the columns only
    outside = rng.integers(0, 3, size=25).astype(float)
    outside[3] = 0.0
    shares, empty = row_shares(prototypes, "test")
    got = jsd_by_terms(x, (x.sum(axis=1) + outside).tolist(), prototype_terms(shares, empty))
    assert got == pytest.approx(jsd_matrix(sp.csr_matrix(x), prototypes, outside), abs=1e-12)
    assert got[3].tolist() == [1.0, 1.0, 0.0, 1.0]  # an empty bag: exactly 0 to the empty prototype, 1 to others
    assert got[7] == pytest.approx([1.0] * 4, abs=1e-12)  # mass outside every prototype's columns


def test_jsd_by_changes_agrees_with_jsd_by_terms():
    rng = np.random.default_rng(5)
    prototypes = rng.integers(0, 5, size=(4, 40)).astype(float)
    prototypes[1] = 0.0  # a seat that never won
    shares, empty = row_shares(prototypes, "test")
    base = rng.integers(0, 3, size=40).astype(float)
    base[:6] = 0.0
    n = 30
    x = np.tile(base, (n, 1))
    rows, columns, deltas = [], [], []
    for row in range(1, n):  # row 0 is the base itself
        for column in sorted(rng.choice(40, size=rng.integers(1, 5), replace=False)):
            delta = float(rng.integers(-int(x[row, column]), 4))
            if delta:
                x[row, column] += delta
                rows.append(row), columns.append(column), deltas.append(delta)
    x[5] = 0.0  # an empty row: every base column taken away
    rows, columns, deltas = zip(*sorted([(r, c, d) for r, c, d in zip(rows, columns, deltas) if r != 5]
                                        + [(5, c, -base[c]) for c in np.flatnonzero(base)]))
    outside = rng.integers(0, 3, size=n).astype(float)
    outside[5] = 0.0
    totals = (x.sum(axis=1) + outside).tolist()
    got = jsd_by_changes(base, np.flatnonzero(base), np.array(rows), np.array(columns), np.array(deltas), totals,
                         shares, empty)
    expected = jsd_by_terms(x, totals, prototype_terms(shares, empty))
    assert np.abs(got - expected).max() <= 1e-12
    assert got[5].tolist() == [1.0, 0.0, 1.0, 1.0]  # an empty bag: exactly 0 to the empty prototype, 1 to others
    same = [row for row in range(n) if np.array_equal(x[row], base) and outside[row] == outside[0]]
    assert all(np.array_equal(got[row], got[0]) for row in same)


def test_small_batches_values_in_python_equal_the_numpy_path():
    from jbag_pipeline.model.value import _seat_column, _seat_values_of_js
    rng = np.random.default_rng(7)
    prototypes = rng.integers(0, 5, size=(4, 20)).astype(float)
    prototypes[3] = 0.0  # a seat that never won
    terms = prototype_terms(*row_shares(prototypes, "test"))
    x = rng.integers(0, 4, size=(6, 20)).astype(float)
    x[2] = 0.0
    totals = (x.sum(axis=1) + rng.integers(0, 3, size=6)).tolist()
    totals[2] = 0.0  # an empty candidate
    for seat in range(4):
        expected = _seat_column(jsd_by_terms(x, totals, terms), seat).tolist()
        assert _seat_values_of_js(js_by_terms(x, totals, terms).tolist(), totals, terms.empty, seat) == expected


class FakeState:
    """A state with a hidden field: to_json shows it, observation_json does not."""

    def __init__(self, doc: dict, hidden: str = "secret", turn: int = 0):
        self.doc, self.hidden, self.turn_counter = doc, hidden, turn

    def to_json(self) -> dict:
        return {**self.doc, "hidden": self.hidden}

    def observation_json(self, seat: int) -> dict:
        return dict(self.doc)


def _toy_prototypes() -> list[dict[str, int]]:
    won_by_0 = tokenize_state({"leader": 0, "mark": ["x", "x"], "gameStatus": "GAME_END"}, num_suffix=True)
    won_by_1 = tokenize_state({"leader": 1, "mark": ["o", "o"], "gameStatus": "GAME_END"}, num_suffix=True)
    return [won_by_0, won_by_1]


def _filtered(bag: dict) -> dict:
    return TokenFilter().apply(bag).kept


def test_json_bag_value_is_exact_jsd_over_the_full_union_without_features():
    prototypes = _toy_prototypes()
    value = JsonBagValue(prototypes)
    first = FakeState({"leader": 0, "mark": ["x", "."], "extra": 7}, turn=0)
    value.begin_decision(first, 0)
    child = FakeState({"leader": 1, "mark": ["x", "o"], "gameStatus": "GAME_END"}, turn=1)
    candidate = _filtered({t: tokenize_state(first.doc, num_suffix=True).get(t, 0)
                           + tokenize_state(child.doc, num_suffix=True).get(t, 0)
                           for t in set(tokenize_state(first.doc, num_suffix=True))
                           | set(tokenize_state(child.doc, num_suffix=True))})
    expected = value_from_distances([jsd(candidate, _filtered(p)) for p in prototypes])
    assert value.value(child, 0) == pytest.approx(expected[0], abs=1e-12)
    assert value.value(child, 1) == pytest.approx(expected[1], abs=1e-12)
    assert value.value(child, 0) + value.value(child, 1) == pytest.approx(1.0)


def test_json_bag_value_prefers_states_like_the_seats_winning_prototype():
    value = JsonBagValue(_toy_prototypes())
    like_0 = FakeState({"leader": 0, "mark": ["x", "x"]})
    like_1 = FakeState({"leader": 1, "mark": ["o", "o"]})
    assert value.value(like_0, 0) > 0.5 > value.value(like_0, 1)
    assert value.value(like_1, 1) > value.value(like_0, 1)


def test_json_bag_value_with_features_restricts_both_sides():
    prototypes = _toy_prototypes()
    features = [".leader.0", ".leader.1", ".mark[0].x", ".gameStatus.GAME_END"]  # the last one is filtered
    value = JsonBagValue(prototypes, features=features)
    assert value.features == features[:3]
    state = FakeState({"leader": 1, "mark": ["x", "o"], "other": 3})
    bag = tokenize_state(state.doc, num_suffix=True)
    keep = set(features[:3])
    expected = value_from_distances([jsd({t: c for t, c in bag.items() if t in keep},
                                         {t: c for t, c in p.items() if t in keep}) for p in prototypes])
    assert value.value(state, 1) == pytest.approx(expected[1], abs=1e-12)


def test_json_bag_value_adds_each_turn_once_and_resets():
    value = JsonBagValue(_toy_prototypes())
    state = FakeState({"leader": 0, "mark": ["x", "x"]}, turn=4)
    value.begin_decision(state, 0)
    once = value.trajectory.copy()
    assert once.sum() > 0
    value.begin_decision(state, 0)  # a second decision in the same turn (e.g. a Dots and Boxes extra move)
    assert np.array_equal(value.trajectory, once)
    value.begin_decision(FakeState(state.doc, turn=6), 0)
    assert np.array_equal(value.trajectory, 2 * once)
    value.reset()
    assert value.trajectory.sum() == 0 and value.trajectory_outside == 0


def test_json_bag_value_sees_only_the_observation_and_ignores_filtered_tokens():
    value = JsonBagValue(_toy_prototypes())
    seen = FakeState({"leader": 0, "mark": ["x", "o"]}, hidden="x")
    other_secret = FakeState({"leader": 0, "mark": ["x", "o"]}, hidden="o")
    finished = FakeState({"leader": 0, "mark": ["x", "o"], "gameStatus": "GAME_END",
                          "playerResults": ["WIN_GAME", "LOSE_GAME"]})
    assert value.value(seen, 0) == value.value(other_secret, 0) == value.value(finished, 0)


def test_json_bag_value_rejects_bad_input():
    with pytest.raises(ValueError, match="seats must be 0..n-1"):
        JsonBagValue({0: {"a": 1}, 2: {"b": 1}})
    with pytest.raises(ValueError, match="at least 2 seats"):
        JsonBagValue([{"a": 1}])
    with pytest.raises(ValueError, match="mode must be one of"):
        JsonBagValue(_toy_prototypes(), mode="char")
    with pytest.raises(ValueError, match="seat must be an int in 0..1"):
        JsonBagValue(_toy_prototypes()).value(FakeState({}), 2)


def test_osla_agent_plays_connect4_with_the_json_bag_value():
    engines = pytest.importorskip("engines")
    from engines.agents import OSLAAgent, RandomAgent
    from engines.match import play_match

    game = engines.load_game("connect4")
    records = [play_match(game, [RandomAgent(), RandomAgent()], seed=seed) for seed in range(6)]
    labelled = [(tokenize_state(r.states[-1].doc, num_suffix=True), r.winner) for r in records]
    prototypes = build_prototypes(labelled)
    value = JsonBagValue([prototypes.get(seat, {}) for seat in range(2)])
    record = play_match(game, [OSLAAgent(value=value), RandomAgent()], seed=11)
    assert record.states and record.states[-1].doc["gameStatus"] == "GAME_END"
    assert value.trajectory.sum() > 0


def test_terms_over_some_columns_are_prototype_terms_of_those_columns_to_the_bit():
    rng = np.random.default_rng(4)
    counts = rng.integers(0, 4, size=(3, 40)).astype(float)
    counts[2] = 0  # an empty prototype
    shares, empty = row_shares(counts, "test")
    every = prototype_terms(shares, empty)
    used = np.sort(rng.choice(40, size=17, replace=False))
    expected, got = prototype_terms(shares[:, used], empty), terms_over(every, xlogy(shares, shares), used)
    for name in ("pooling", "mixing", "constant", "empty"):
        assert np.array_equal(getattr(got, name), getattr(expected, name)), name
    assert got.any_empty == expected.any_empty


def test_the_seat_column_of_v_is_seat_values_column_to_the_bit():
    from jbag_pipeline.model.value import _seat_column
    rng = np.random.default_rng(1)
    for _ in range(50):
        distances = rng.random((7, 3))
        distances[0] = 1.0  # a row no seat is closer in: uniform
        for seat in range(3):
            assert np.array_equal(_seat_column(distances, seat), seat_values(distances)[:, seat])
