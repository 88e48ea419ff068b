"""The evaluation's JSON-Bag OSLA: the restricted tokenizer, V_i through the builder, the trajectory bag (every
decision, whatever the frequency), an immediate win, hidden information never read, and the batched decision rule."""

from __future__ import annotations

import math
import random

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engines import GAMES, load_game
from engines.agents import OSLAAgent, RandomAgent
from engines.match import play_match
from jbag_pipeline.model.bags import jsd
from jbag_pipeline.agents.jsonbag_agent import JsonBagOSLAAgent
from jbag_pipeline.model.tokenize import MODES, TokenFilter, tokenize_state, tokenize_trajectory
from jbag_pipeline.model.tokenize_delta import TokenDelta
from jbag_pipeline.model.tokenize_restricted import TokenPaths, token_paths, tokenize_state_restricted
from jbag_pipeline.model.prototypes import build_prototypes
from jbag_pipeline.model.value import DeterminizedJsonBagValue, value_from_distances
from jbag_pipeline.model.value_tables import make_jsonbag_value, prototype_bags, selected_tokens
from tests.helpers.states import random_play_states


def lake_tables(game, n_games: int = 6, seed: int = 0, top: int = 60) -> tuple[pl.DataFrame, pl.DataFrame]:
    """winner_prototypes (frequency full) and selected_features (variant full: `top` tokens) from random games."""
    records = [play_match(game, [RandomAgent() for _ in range(game.n_players)], seed=seed + i) for i in range(n_games)]
    bags = [tokenize_trajectory([s.doc for s in r.states], num_suffix=True) for r in records]
    prototypes = build_prototypes([(bag, r.winner) for bag, r in zip(bags, records)])
    rows = [{"game": game.name, "frequency": "full", "seat": seat, "token": token, "count": count, "p": count}
            for seat, bag in prototypes.items() for token, count in bag.items()]
    kept = [t for t in sorted(set().union(*bags)) if TokenFilter().keeps(t)]
    chosen = random.Random(seed).sample(kept, min(top, len(kept)))
    features = pl.DataFrame({"game": [game.name] * len(chosen), "variant": ["full"] * len(chosen), "token": chosen,
                             "importance": [1.0] * len(chosen), "rank": list(range(1, len(chosen) + 1)),
                             "segment": [None] * len(chosen)}, schema_overrides={"segment": pl.Int32})
    return pl.DataFrame(rows, schema_overrides={"seat": pl.Int8}), features


# ----- restricted tokenizer ------------------------------------------------------------------------------------

def _filtered(bag: dict, wanted: set) -> dict:
    return {token: count for token, count in bag.items() if token in wanted}


@pytest.mark.parametrize("name", sorted(GAMES))
def test_restricted_tokenizer_equals_the_filtered_full_one_on_every_game(name):
    game = load_game(name)
    docs = []
    for seed in range(2):
        docs += [s.doc for s in play_match(game, [RandomAgent() for _ in range(game.n_players)], seed=seed).states]
    docs = docs[::max(1, len(docs) // 12)]
    vocabulary = sorted(set().union(*(tokenize_state(d, num_suffix=True) for d in docs)))
    rng = random.Random(name)
    for size in (1, 20, 100, len(vocabulary)):
        wanted = set(rng.sample(vocabulary, min(size, len(vocabulary))))
        index = token_paths(wanted)
        for doc in docs:
            for mode in MODES:
                for num_suffix in (True, False):
                    expected = _filtered(tokenize_state(doc, mode=mode, num_suffix=num_suffix), wanted)
                    assert tokenize_state_restricted(doc, index, mode=mode, num_suffix=num_suffix) == expected


def test_restricted_tokenizer_handles_bare_tokens_indices_and_json_strings():
    doc = {"deck": [2, 2, 5], "a.b": {"c": "x"}, "nested": [[1, None], "[3, 4]"], "flag": "true", "n": None}
    full = tokenize_state(doc, num_suffix=True)
    wanted = {".deck", ".deck[2]", ".deck.2", ".a.b.c.x", ".nested[0][1].None", ".nested.4", ".nested[1]",
              ".flag.True", ".n.None", ".absent.token"}
    assert tokenize_state_restricted(doc, token_paths(wanted), num_suffix=True) == _filtered(full, wanted)
    assert tokenize_state_restricted(doc, token_paths(wanted), num_suffix=True)[".deck"] == 9
    assert tokenize_state_restricted(doc, token_paths(set()), num_suffix=True) == {}


json_atoms = st.one_of(st.none(), st.booleans(), st.integers(-3, 12), st.sampled_from(["x", "2", "true", "[1, 2]",
                                                                                     "{\"k\": 3}", "a.b", "1.50"]))
json_keys = st.sampled_from(["a", "b", "a.b", "c[1]", "", "0"])
json_docs = st.recursive(json_atoms, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                             st.dictionaries(json_keys, inner, max_size=4)),
                         max_leaves=20).filter(lambda d: isinstance(d, (dict, list)))


@settings(max_examples=150, deadline=None)
@given(docs=st.lists(json_docs, min_size=1, max_size=3), pick=st.randoms(use_true_random=False),
       mode=st.sampled_from(MODES), num_suffix=st.booleans())
def test_restricted_tokenizer_property(docs, pick, mode, num_suffix):
    full = [tokenize_state(doc, mode=mode, num_suffix=num_suffix) for doc in docs]
    wanted = {token for bag in full for token in bag if pick.random() < 0.4} | {".a.b.x", "[0].2"}
    index = token_paths(wanted)
    expected = [_filtered(bag, wanted) for bag in full]
    assert [tokenize_state_restricted(doc, index, mode=mode, num_suffix=num_suffix) for doc in docs] == expected


stable_atoms = st.one_of(st.none(), st.integers(-3, 12), st.sampled_from(["x", "2", "true", "[1, 2]", "{\"k\": 3}"]))
stable_docs = st.recursive(stable_atoms, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                                 st.dictionaries(json_keys, inner, max_size=4)),
                           max_leaves=20).filter(lambda d: isinstance(d, (dict, list)))


@settings(max_examples=150, deadline=None)
@given(old=stable_docs, new=stable_docs, pick=st.randoms(use_true_random=False))
def test_token_delta_property(old, new, pick):
    """No bools or floats: == must not mix types at one place (see tokenize_delta)."""
    before, after = (tokenize_state(doc, num_suffix=True) for doc in (old, new))
    wanted = {token for token in set(before) | set(after) if pick.random() < 0.5}
    for index, keep in ((None, None), (token_paths(wanted), wanted)):
        expected = {t: after.get(t, 0) - before.get(t, 0) for t in set(before) | set(after)
                    if after.get(t, 0) != before.get(t, 0) and (keep is None or t in keep)}
        assert TokenDelta(index).delta(old, new) == expected


def test_restricted_tokenizer_rejects_bad_input():
    with pytest.raises(ValueError, match="must be a TokenPaths"):
        tokenize_state_restricted({"a": 1}, {".a.1"})
    with pytest.raises(ValueError, match="mode must be one of"):
        tokenize_state_restricted({"a": 1}, token_paths([".a.1"]), mode="sorted")
    with pytest.raises(ValueError, match="JSON object or array"):
        tokenize_state_restricted("text", token_paths([".a.1"]))
    with pytest.raises(ValueError, match="tokens must be strings"):
        token_paths([".a.1", 7])
    assert isinstance(token_paths([".x[3].y.2"]), TokenPaths)


# ----- V_i through the builder -----------------------------------------------------------------------------------

def _hand_tables() -> tuple[pl.DataFrame, pl.DataFrame]:
    prototypes = pl.DataFrame({
        "game": ["toy"] * 5, "frequency": ["full"] * 5, "seat": [0, 0, 1, 1, 1],
        "token": [".a.1", ".b.x", ".a.2", ".b.x", ".c"], "count": [3, 1, 1, 1, 2], "p": [0.75, 0.25, 0.25, 0.25, 0.5]},
        schema_overrides={"seat": pl.Int8})
    features = pl.DataFrame({"game": ["toy"] * 2, "variant": ["full"] * 2, "token": [".a.1", ".a.2"],
                             "importance": [0.6, 0.4], "rank": [1, 2], "segment": [None, None]},
                            schema_overrides={"segment": pl.Int32})
    return prototypes, features


def test_values_of_hand_built_bags_through_the_builder():
    prototypes, features = _hand_tables()
    selected = make_jsonbag_value(prototypes, features, "full", "full", n_players=2)
    assert selected.features == [".a.1", ".a.2"]
    # restricted to {.a.1, .a.2}: seat 0's prototype is all .a.1, seat 1's all .a.2
    assert selected.values_of_bag({".a.1": 5, ".b.x": 9}) == pytest.approx([1.0, 0.0])
    assert selected.values_of_bag({".a.1": 1, ".a.2": 1}) == pytest.approx([0.5, 0.5])
    bag = {".a.1": 3, ".a.2": 1, ".zzz": 4}
    d0, d1 = jsd({".a.1": 3, ".a.2": 1}, {".a.1": 1}), jsd({".a.1": 3, ".a.2": 1}, {".a.2": 1})
    assert selected.values_of_bag(bag) == pytest.approx([(1 - d0) / (2 - d0 - d1), (1 - d1) / (2 - d0 - d1)], abs=1e-12)
    everything = make_jsonbag_value(prototypes, features, "full", "none", n_players=2)
    assert everything.features == [".a.1", ".a.2", ".b.x", ".c"]  # the prototypes' vocabulary
    expected = value_from_distances([jsd(bag, {".a.1": 3, ".b.x": 1}), jsd(bag, {".a.2": 1, ".b.x": 1, ".c": 2})])
    assert everything.values_of_bag(bag) == pytest.approx(expected.tolist(), abs=1e-12)  # .zzz counts as mass
    assert everything.values_of_bag({}) == [0.5, 0.5]


def test_value_of_a_state_adds_its_tokens_to_the_trajectory():
    game = load_game("connect4")
    prototypes, features = lake_tables(game)
    for variant in ("full", "none"):
        value = make_jsonbag_value(prototypes, features, "full", variant, n_players=2)
        state = game.new_state(seed=1)
        state.apply(3)
        value.begin_decision(state, 1)
        child = state.clone()
        child.apply(4)
        trajectory = tokenize_state(state.to_json(), num_suffix=True)
        candidate = {t: trajectory.get(t, 0) + c for t, c in tokenize_state(child.to_json(), num_suffix=True).items()}
        candidate.update({t: c for t, c in trajectory.items() if t not in candidate})
        for seat in (0, 1):
            assert value.value(child, seat) == pytest.approx(value.values_of_bag(candidate)[seat], abs=1e-12)
        assert value.values_batch([child, child], 0).tolist() == pytest.approx([value.value(child, 0)] * 2)


def test_builder_rejects_bad_tables():
    prototypes, features = _hand_tables()
    with pytest.raises(ValueError, match="unknown feature variant"):
        make_jsonbag_value(prototypes, features, "full", "top5", n_players=2)
    with pytest.raises(ValueError, match="no rows for frequency 'random'"):
        make_jsonbag_value(prototypes, features, "random", "full", n_players=2)
    with pytest.raises(ValueError, match="seat 1 outside 0..0"):
        prototype_bags(prototypes, "full", n_players=1)
    with pytest.raises(ValueError, match="different games"):
        make_jsonbag_value(prototypes, features.with_columns(pl.lit("other").alias("game")), "full", "full", 2)
    with pytest.raises(ValueError, match="lacks columns"):
        selected_tokens(features.drop("rank"), "full")
    with pytest.raises(ValueError, match="frequency must be one of"):
        DeterminizedJsonBagValue([{"a": 1}, {"b": 1}], frequency="every")
    assert selected_tokens(features, "adaptive") == []  # a known variant may keep nothing: V is then uniform


# ----- trajectory bag: every decision, whatever the frequency --------------------------------------------------------

def _own_turn_states(game, seat: int, seed: int = 3) -> list:
    record_state, states, rng = game.new_state(seed=seed), [], random.Random(seed)
    while not record_state.is_terminal():
        if record_state.current_player == seat:
            states.append(record_state.clone())
        legal = record_state.legal_actions()
        record_state.apply(legal[rng.randrange(len(legal))])
    return states


def test_every_decision_joins_the_trajectory_whatever_the_frequency():
    game = load_game("cant_stop")  # perfect information: the determinized view is the state itself
    prototypes, _ = lake_tables(game, n_games=4)
    states = _own_turn_states(game, seat=2)  # several decisions per turn: each one adds
    assert len({s.turn_counter for s in states}) < len(states)
    bags = prototype_bags(prototypes, "full", 4)
    column = {token: i for i, token in enumerate(DeterminizedJsonBagValue(bags).features)}
    expected, outside = np.zeros(len(column)), 0
    for state in states:
        for token, count in tokenize_state(state.to_json(), num_suffix=True).items():
            if token in column:
                expected[column[token]] += count
            elif TokenFilter().keeps(token):
                outside += count
    for frequency in ("full", "interval", "random"):
        value = DeterminizedJsonBagValue(bags, None, frequency=frequency)
        value.reset()
        for state in states:
            value.begin_decision(state, 2)
        assert np.array_equal(value.trajectory, expected) and value.trajectory_outside == outside


def test_the_frequency_names_the_prototypes_only_not_the_agents_bag():
    game = load_game("dominion")
    prototypes, features = lake_tables(game, n_games=3)
    same_prototypes = pl.concat([prototypes.with_columns(pl.lit(f).alias("frequency")) for f in ("full", "random")])
    by_frequency = {f: make_jsonbag_value(same_prototypes, features, f, "full", 4) for f in ("full", "random")}
    state, rng, decisions = game.new_state(seed=4), random.Random(4), 0
    for value in by_frequency.values():
        value.reset()
    while not state.is_terminal():
        seat = state.current_player
        if seat == 1:
            sample = state.determinize(seat, random.Random(decisions))
            children = []
            for action in state.legal_actions():
                children.append(sample.clone())
                children[-1].apply(action)
            values = []
            for value in by_frequency.values():
                value.begin_decision(sample, seat)
                values.append(value.values_batch(children, seat))
            assert np.array_equal(values[0], values[1])
            decisions += 1
        legal = state.legal_actions()
        state.apply(legal[rng.randrange(len(legal))])
    assert decisions >= 40
    assert np.array_equal(by_frequency["full"].trajectory, by_frequency["random"].trajectory)


def test_reset_empties_the_trajectory():
    game = load_game("dominion")
    prototypes, features = lake_tables(game, n_games=3)
    value = make_jsonbag_value(prototypes.with_columns(pl.lit("random").alias("frequency")), features, "random",
                               "none", n_players=4)
    states = _own_turn_states(game, seat=0)[:30]

    def trajectory():
        value.reset()
        assert not value.trajectory.any() and value.trajectory_outside == 0
        for state in states:
            value.begin_decision(state, 0)
        return value.trajectory.copy()

    first = trajectory()
    assert first.any() and np.array_equal(first, trajectory())


# ----- decisions -------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("variant", ["full", "none"])
def test_the_agent_takes_an_immediate_win_in_connect4(variant):
    game = load_game("connect4")
    prototypes, features = lake_tables(game)
    state = game.new_state(seed=0)
    for column in (2, 6, 2, 6, 2, 5):  # seat 0 has three in column 2 and moves: column 2 wins at once
        state.apply(column)
    agent = JsonBagOSLAAgent(make_jsonbag_value(prototypes, features, "full", variant, n_players=2))
    for seed in range(5):
        agent.reset(seed)
        assert agent.choose(state) == 2


def _scratch_values(value: DeterminizedJsonBagValue, child, seat: int) -> float:
    """V_seat of the value's trajectory plus the child's tokens, counted from scratch by the plain tokenizer."""
    counts = value.trajectory.copy()
    outside = value.trajectory_outside + value._add(tokenize_state(child.to_json(), num_suffix=True), counts)
    return float(value.values_of(counts, outside)[seat])


@pytest.mark.parametrize("name", sorted(GAMES))
def test_batched_values_equal_counting_from_scratch(name, monkeypatch):
    monkeypatch.setattr("jbag_pipeline.model.tokenize_delta._PATHS_CACHE_LIMIT", 30)  # forget child paths often
    monkeypatch.setattr("jbag_pipeline.model.value._CHANGE_CACHE_LIMIT", 30)  # and changes
    game = load_game(name)
    prototypes, features = lake_tables(game, n_games=3)
    states = random_play_states(game, n_games=1, every=5)[:8]
    for variant in ("full", "none"):
        value = make_jsonbag_value(prototypes, features, "full", variant, game.n_players)
        value.reset()
        for i, state in enumerate(states):
            seat = state.current_player
            sample = state.determinize(seat, random.Random(i))
            trajectory, outside = value.trajectory.copy(), value.trajectory_outside
            value.begin_decision(sample, seat)  # counted as the last sample plus its changes
            added = np.zeros(len(value.features))  # the sample joins the trajectory, counted afresh here
            added_outside = value._add(tokenize_state(sample.to_json(), num_suffix=True), added)
            assert np.array_equal(value.trajectory - trajectory, added)
            assert value.trajectory_outside - outside == pytest.approx(added_outside)
            children = []
            for action in state.legal_actions()[:6]:
                children.append(sample.clone())
                children[-1].apply(action)
            batch = value.values_batch(children, seat)
            assert batch.tolist() == pytest.approx([_scratch_values(value, c, seat) for c in children], abs=1e-9)


@pytest.mark.parametrize("name", ["sea_salt_paper", "dominion"])
def test_the_agent_never_reads_hidden_state(name):
    game = load_game(name)
    prototypes, features = lake_tables(game, n_games=4)
    agents = [JsonBagOSLAAgent(make_jsonbag_value(prototypes, features, "full", variant, game.n_players))
              for variant in ("full", "none")]
    states = random_play_states(game, n_games=2, every=37)[:8]
    moved = 0
    for state in states:
        seat = state.current_player
        permuted = state.determinize(seat, random.Random(5))  # the same observation, hidden cards moved
        assert permuted.observation_json(seat) == state.observation_json(seat)
        moved += permuted.to_json() != state.to_json()
        for agent in agents:
            agent.reset(3)
            first, trajectory = agent.choose(state), agent.value_function.trajectory.copy()
            agent.reset(3)
            assert agent.choose(permuted) == first
            assert np.array_equal(agent.value_function.trajectory, trajectory)
    assert moved == len(states) >= 6


@pytest.mark.parametrize("name", ["connect4", "cant_stop"])
def test_batched_choice_follows_osla_rule_with_single_values(name):
    game = load_game(name)
    prototypes, features = lake_tables(game, n_games=4)
    batched = JsonBagOSLAAgent(make_jsonbag_value(prototypes, features, "full", "full", game.n_players))
    single = OSLAAgent(value=make_jsonbag_value(prototypes, features, "full", "full", game.n_players))
    states = random_play_states(game, n_games=1, every=3)[:12]
    for i, state in enumerate(states):
        batched.reset(i)
        single.reset(i)
        assert batched.choose(state) == single.choose(state)


def test_agent_rejects_a_plain_value_function():
    with pytest.raises(ValueError, match="must be a DeterminizedJsonBagValue"):
        JsonBagOSLAAgent(value=None)
    with pytest.raises(ValueError, match="no legal actions"):
        agent = JsonBagOSLAAgent(DeterminizedJsonBagValue([{"a": 1}, {"b": 1}]))
        state = load_game("tictactoe").new_state(seed=0)
        for cell in (0, 3, 1, 4, 2):
            state.apply(cell)
        agent.choose(state)
    assert math.isfinite(DeterminizedJsonBagValue([{"a": 1}, {"b": 1}]).values_of_bag({"a": 1})[0])
