"""The evaluation's JSON-Bag OSLA: the restricted tokenizer, an immediate win, hidden information never read, and
the batched decision rule."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engines import GAMES, load_game
from engines.agents import OSLAAgent, RandomAgent, ValueFunction
from engines.match import play_match
from jbag_pipeline.play.jsonbag_agent import JsonBagOSLAAgent
from jbag_pipeline.model.tokenize import MODES, tokenize_state
from jbag_pipeline.model.tokenize_delta import TokenDelta
from jbag_pipeline.model.tokenize_restricted import TokenPaths, token_paths
from jbag_pipeline.model.value import DeterminizedJsonBagValue
from jbag_pipeline.model.value_tables import make_jsonbag_value
from tests.helpers.states import random_play_states
from tests.helpers.tokens import token_delta, tokenize_state_restricted
from tests.helpers.value_tables import lake_tables, values_of_bag


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
        assert token_delta(TokenDelta(index), old, new) == expected


def test_token_paths_rejects_a_token_that_is_no_string():
    with pytest.raises(ValueError, match="tokens must be strings"):
        token_paths([".a.1", 7])
    assert isinstance(token_paths([".x[3].y.2"]), TokenPaths)


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


class OneByOne(ValueFunction):
    """A value valued one state at a time: the ValueFunction.values default over another value's value()."""

    def __init__(self, inner):
        self.inner = inner

    def reset(self):
        self.inner.reset()

    def begin_decision(self, state, seat):
        self.inner.begin_decision(state, seat)

    def value(self, state, seat):
        return self.inner.value(state, seat)


@pytest.mark.parametrize("name", ["connect4", "cant_stop"])
def test_batched_choice_follows_osla_rule_with_single_values(name):
    game = load_game(name)
    prototypes, features = lake_tables(game, n_games=4)
    batched = JsonBagOSLAAgent(make_jsonbag_value(prototypes, features, "full", "full", game.n_players))
    single = OSLAAgent(value=OneByOne(make_jsonbag_value(prototypes, features, "full", "full", game.n_players)))
    states = random_play_states(game, n_games=1, every=3)[:12]
    for i, state in enumerate(states):
        batched.reset(i)
        single.reset(i)
        assert batched.choose(state) == single.choose(state)


def test_agent_rejects_a_plain_value_function():
    with pytest.raises(ValueError, match="needs a JSON-Bag value function"):
        JsonBagOSLAAgent(value=None)
    with pytest.raises(ValueError, match="no legal actions"):
        agent = JsonBagOSLAAgent(DeterminizedJsonBagValue([{"a": 1}, {"b": 1}]))
        state = load_game("tictactoe").new_state(seed=0)
        for cell in (0, 3, 1, 4, 2):
            state.apply(cell)
        agent.choose(state)
    assert math.isfinite(values_of_bag(DeterminizedJsonBagValue([{"a": 1}, {"b": 1}]), {"a": 1})[0])
