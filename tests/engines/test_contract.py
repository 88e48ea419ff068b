"""The engine contract (engines/base.py, docs/ARCHITECTURE.md section 3), run on every game in engines.GAMES.

As OpenSpiel's python/games tests, one set of tests covers every registered game: a new game passes these
before anything else uses it. Each game is played a few times with seeded random moves; the checks run on
states spread over those games. Every game's GameInfo (engines/info.py) is checked against the engine: its
fields occur in the documents, its TAG translator round-trips, its OpenSpiel game loads, its heuristic values.
"""

from __future__ import annotations

import json
import random
from functools import lru_cache

import pytest

from engines import GAMES, game_info, load_game
from engines.agents import baseline_value
from engines.agents.heuristics import HEURISTICS
from engines.base import State, normalize_action, result_names
from engines.info import GameInfo
from engines.tag_json import LIVE

SEEDS = (0, 1, 2)
STATES_PER_GAME = 8  # states checked per playout (spread evenly, the terminal one included)
HORIZON = 40  # random moves played on from a checked state (enough to draw chance in every game)
GAME_NAMES = sorted(GAMES)


def random_move(state: State, rng: random.Random):
    actions = state.legal_actions()
    return actions[rng.randrange(len(actions))]


def play_on(state: State, rng: random.Random, moves: int = HORIZON) -> list[dict]:
    """Play up to `moves` random moves from `rng` (fewer if the game ends); the document after every move."""
    docs = []
    for _ in range(moves):
        if state.is_terminal():
            break
        state.apply(random_move(state, rng))
        docs.append(state.to_json())
    return docs


@lru_cache(maxsize=None)
def playout(name: str, seed: int) -> tuple[tuple, tuple, tuple]:
    """(states, actions, documents) of one game from new_state(seed) with moves drawn from Random(seed).

    states[i] is the state before actions[i]; the last state is terminal. Shared between tests: read only.
    """
    state = load_game(name).new_state(seed)
    rng = random.Random(seed)
    states, actions, docs = [state.clone()], [], [state.to_json()]
    while not state.is_terminal():
        action = random_move(state, rng)
        state.apply(action)
        states.append(state.clone())
        actions.append(action)
        docs.append(state.to_json())
        assert len(actions) < 100_000, f"{name} seed {seed}: no end after 100000 random moves"
    return tuple(states), tuple(actions), tuple(docs)


def sampled_states(name: str) -> list[State]:
    """STATES_PER_GAME states spread over each seed's playout, the first and the terminal one included."""
    picked = []
    for seed in SEEDS:
        states = playout(name, seed)[0]
        step = max(1, (len(states) - 1) // (STATES_PER_GAME - 1))
        picked += [states[i] for i in range(0, len(states) - 1, step)][:STATES_PER_GAME - 1] + [states[-1]]
    return picked


def as_json(doc: dict) -> dict:
    """`doc` through a JSON text (rejecting NaN and non-JSON types), as records store it."""
    return json.loads(json.dumps(doc, allow_nan=False))


def scribble(node) -> None:
    """Empty every list and dict inside `node`, as a careless caller might."""
    children = list(node.values()) if isinstance(node, dict) else list(node)
    for child in children:
        if isinstance(child, (dict, list)):
            scribble(child)
    node.clear()


def sortable(actions: list) -> list[str]:
    return sorted(map(repr, actions))


def test_the_registry_names_its_games():
    assert GAME_NAMES, "engines.GAMES is empty"
    for name in GAME_NAMES:
        assert GAMES[name].name == name
        assert load_game(name).n_players >= 1


@pytest.mark.parametrize("name", GAME_NAMES)
def test_same_seed_and_actions_replay_the_same_game(name):
    _, actions, docs = playout(name, 0)
    assert load_game(name).new_state(0).to_json() == docs[0]
    replay = load_game(name).new_state(0)
    replayed = [replay.to_json()]
    for action in actions:  # actions as a record stores them (JSON arrays for tuples)
        replay.apply(normalize_action(json.loads(json.dumps(action))))
        replayed.append(replay.to_json())
    assert replayed == list(docs)
    rng = random.Random(0)
    again = load_game(name).new_state(0)
    assert [again.to_json()] + play_on(again, rng, len(actions)) == list(docs)
    assert again.is_terminal()


@pytest.mark.parametrize("name", GAME_NAMES)
def test_clone_is_independent_and_replays_the_same_future(name):
    for state in sampled_states(name):
        original = state.clone()
        doc, key = original.to_json(), original.key()
        copy = original.clone()
        play_on(copy, random.Random(1))
        assert original.to_json() == doc and original.key() == key, "playing a clone changed the original"
        copy = original.clone()
        play_on(original, random.Random(2))
        assert copy.to_json() == doc and copy.key() == key, "playing the original changed its clone"
        first, second = copy.clone(), copy.clone()
        assert play_on(first, random.Random(3)) == play_on(second, random.Random(3)), \
            "two clones given the same moves diverged (chance must come from the state's own seed)"


@pytest.mark.parametrize("name", GAME_NAMES)
def test_to_json_from_json_round_trip(name):
    game = load_game(name)
    for state in sampled_states(name):
        doc = state.to_json()
        assert as_json(doc) == doc, "to_json is not JSON-compatible"
        scribble(state.to_json())
        for seat in range(game.n_players):
            scribble(state.observation_json(seat))
        assert state.to_json() == doc, "changing a returned document changed the state"
        rebuilt = game.from_json(as_json(doc), seed=5)
        assert rebuilt.to_json() == doc
        assert rebuilt.key() == state.key()
        assert rebuilt.is_terminal() == state.is_terminal()
        if not state.is_terminal():  # a finished game has no mover (its document says turnOwner -1)
            assert rebuilt.current_player == state.current_player
        assert rebuilt.returns() == state.returns() and rebuilt.scores() == state.scores()
        assert rebuilt.legal_actions() == state.legal_actions()
        for seat in range(game.n_players):
            assert rebuilt.observation_json(seat) == state.observation_json(seat)
        again = load_game(name).from_json(as_json(doc), seed=5)
        assert play_on(rebuilt, random.Random(4)) == play_on(again, random.Random(4)), \
            "from_json with the same seed gave different futures"


def test_from_json_rejects_a_foreign_document():
    for name in GAME_NAMES:
        other = GAME_NAMES[(GAME_NAMES.index(name) + 1) % len(GAME_NAMES)]
        with pytest.raises(ValueError):
            load_game(name).from_json(load_game(other).new_state(0).to_json())


@pytest.mark.parametrize("name", GAME_NAMES)
def test_key_is_hashable_and_determines_the_position(name):
    seen: dict = {}
    for seed in SEEDS:
        for state in playout(name, seed)[0]:
            key = state.key()
            hash(key)
            assert state.clone().key() == key
            facts = (state.current_player, state.is_terminal(), tuple(state.returns()),
                     tuple(state.scores()), tuple(sortable(state.legal_actions())))
            assert seen.setdefault(key, facts) == facts, "two states with one key play differently"
    assert len(seen) > 1


@pytest.mark.parametrize("name", GAME_NAMES)
def test_returns_scores_and_legal_actions(name):
    game = load_game(name)
    n = game.n_players
    for seed in SEEDS:
        for state in playout(name, seed)[0]:
            returns, scores = state.returns(), state.scores()
            assert len(returns) == n and len(scores) == n == state.n_players
            assert all(type(r) is int and r in (-1, 0, 1) for r in returns)
            assert all(type(s) is float for s in scores)
            assert [state.score(seat) for seat in range(n)] == scores  # one seat's score alone, the same
            assert 0 <= state.current_player < n
            doc = state.to_json()
            if not state.is_terminal():
                assert returns == [0] * n and state.winner() is None
                assert state.legal_actions(), "a running game offers no action"
                assert doc["gameStatus"] == "ONGOING"
                continue
            assert state.legal_actions() == []
            winners = [p for p, r in enumerate(returns) if r == 1]
            assert len(winners) <= 1 and all(scores[p] == max(scores) for p in winners)
            assert state.winner() == (winners[0] if winners else None)
            assert doc["gameStatus"] == "GAME_END" and doc["playerResults"] == result_names(returns)


@pytest.mark.parametrize("name", GAME_NAMES)
def test_actions_are_json_and_illegal_ones_raise(name):
    for state in sampled_states(name):
        doc = state.to_json()
        for action in state.legal_actions():
            assert normalize_action(json.loads(json.dumps(action))) == action
        with pytest.raises(ValueError):
            state.clone().apply("no such action")
        if not state.is_terminal():
            probe = state.clone()
            with pytest.raises(ValueError):
                probe.apply(("no such action", -1))
            assert probe.to_json() == doc, "a refused action changed the state"
            probe.apply(normalize_action(json.loads(json.dumps(state.legal_actions()[-1]))))
        assert state.to_json() == doc


def hides_information(name: str) -> bool:
    """Whether some seat's observation differs from the full state somewhere in the playouts."""
    return any(state.observation_json(p) != state.to_json()
               for state in sampled_states(name) for p in range(state.n_players))


@pytest.mark.parametrize("name", GAME_NAMES)
def test_observation_and_determinize(name):
    hidden = game_info(name).hidden_information
    assert hides_information(name) == hidden, "GameInfo.hidden_information is not what observation_json does"
    resampled = varied = 0
    for state in sampled_states(name):
        doc, key = state.to_json(), state.key()
        for seat in range(state.n_players):
            seen = state.observation_json(seat)
            assert as_json(seen) == seen, "observation_json is not JSON-compatible"
            if not hidden:
                assert seen == doc
            sample = state.determinize(seat, random.Random(10))
            assert sample is not state
            assert sample.observation_json(seat) == seen, "the sample contradicts the seat's observation"
            assert sample.current_player == state.current_player and sample.is_terminal() == state.is_terminal()
            if seat == state.current_player:
                assert sortable(sample.legal_actions()) == sortable(state.legal_actions())
            resampled += sample.to_json() != doc
            same_seed = state.determinize(seat, random.Random(10))
            assert same_seed.to_json() == sample.to_json()
            # Another real state with the same observation must give the same sample for the same rng:
            # the sample may depend on what the seat sees and on the rng, never on the hidden state.
            twin = state.determinize(seat, random.Random(11))
            assert twin.observation_json(seat) == seen
            varied += twin.to_json() != sample.to_json()
            from_twin = twin.determinize(seat, random.Random(10))
            assert from_twin.to_json() == sample.to_json(), "the sample depends on the hidden state"
            assert play_on(from_twin, random.Random(12)) == play_on(same_seed, random.Random(12)), \
                "the sample's future chance depends on the hidden state"
            play_on(sample, random.Random(13))
            assert state.to_json() == doc and state.key() == key, "determinize or its sample changed the state"
    if hidden:
        assert resampled, "observations hide information but determinize never re-samples it"
        assert varied, "determinize gives the same sample whatever the rng"


def top_level_fields(name: str) -> set[str]:
    """The top-level keys of every document of the game's playouts."""
    return {key for seed in SEEDS for doc in playout(name, seed)[2] for key in doc}


@pytest.mark.parametrize("name", GAME_NAMES)
def test_the_descriptor_is_read_through_the_registry_and_its_fields_occur_in_the_documents(name):
    info = game_info(name)
    assert isinstance(info, GameInfo) and info is GAMES[name].info
    fields = top_level_fields(name)
    assert set(info.outcome_fields) <= fields and set(info.turn_order_fields) <= fields
    assert {"gameStatus", "playerResults"} <= set(info.outcome_fields)  # common_json's, in every document
    assert not set(info.outcome_fields) & set(info.turn_order_fields)


@pytest.mark.parametrize("name", GAME_NAMES)
def test_the_descriptors_baseline_heuristic_values_every_state(name):
    assert game_info(name).baseline_heuristic in HEURISTICS
    value = baseline_value(name)
    for state in sampled_states(name):
        values = [value.value(state, seat) for seat in range(state.n_players)]
        assert all(type(v) is float and v == v for v in values)  # a float, not NaN


@pytest.mark.parametrize("name", GAME_NAMES)
def test_simultaneous_games_have_rounds_of_secret_choices(name):
    """SimultaneousOSLAAgent plays a declared simultaneous game on to the end of the round (round_in_progress)."""
    states = sampled_states(name)
    in_progress = [getattr(state, "round_in_progress", None) for state in states]
    if game_info(name).simultaneous:
        assert all(in_progress) and any(check() for check in in_progress)
    else:
        assert not any(in_progress)


@pytest.mark.parametrize("name", GAME_NAMES)
def test_the_tag_translator_round_trips(name):
    info, game = game_info(name), load_game(name)
    if info.tag is None:
        with pytest.raises(ValueError):
            game.new_state(0).to_json(dialect="tag")
        return
    assert info.tag.GAME_TYPE == info.tag_game_type
    assert set(getattr(info.tag, "GUESSED_FIELDS", ())) <= set(info.tag.UNKNOWN_FIELDS)
    read = []
    for state in [game.new_state(0), *sampled_states(name)]:
        doc = state.to_json(dialect="tag")
        assert as_json(doc) == doc and doc["gameType"] == info.tag_game_type
        assert info.tag.tag_json(state) == doc, "the descriptor's translator is not the one the engine uses"
        assert info.tag.recorded_moment(doc) == LIVE  # what an agent sees between actions
        try:
            rebuilt = game.from_json(as_json(doc), dialect="tag")
        except ValueError:  # a position TAG's container does not determine (7 Wonders mid-round): refused
            read.append(False)
            continue
        assert rebuilt.to_json(dialect="tag") == doc
        read.append(True)
    assert read[0], "the initial state's TAG document does not read back"


@pytest.mark.parametrize("name", GAME_NAMES)
def test_the_openspiel_game_loads_with_our_players_and_actions(name):
    spiel = game_info(name).openspiel
    if spiel is None:
        return
    pyspiel = pytest.importorskip("pyspiel")
    game = load_game(name)
    theirs = pyspiel.load_game(spiel.name, spiel.params(game.params))
    assert theirs.num_players() == game.n_players and theirs.num_distinct_actions() == spiel.n_actions(game)
    for state in sampled_states(name):
        assert all(type(a) is int and 0 <= a < spiel.n_actions(game) for a in state.legal_actions())
