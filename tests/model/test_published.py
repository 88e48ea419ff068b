"""The authors' published value functions: validation of their files, the table, and their agent in our engines
(TagJsonBagValue valued as their JSONBagHeuristic does; an immediate win in Connect4)."""

from __future__ import annotations

import shutil
from collections import Counter

import numpy as np
import pytest

from engines import load_game
from engines.match import play_match
from engines.agents import baseline_agent
from jbag_pipeline.play.jsonbag_agent import JsonBagOSLAAgent, SimultaneousJsonBagOSLAAgent, jsonbag_agent_class
from jbag_pipeline.play.published_evaluation import published_value
from jbag_pipeline.model.bags import jsd
from jbag_pipeline.model.published import (PUBLISHED_FOLDERS, from_table, provenance, prototype_sum_errors, published_table,
                                           read_published, tag_dialect_problem, unknown_fields,
                                           unreachable_features)
from jbag_pipeline.model.value import OUTSIDE_FEATURES, TagJsonBagValue
from jbag_pipeline.tokenize import tokenize_state
from tests.helpers.published import SHARED_PUBLISHED, TICK_FEATURE, write_published
from tests.helpers.states import children as legal_children


@pytest.fixture
def folder(tmp_path):
    return write_published(tmp_path / "published")


@pytest.fixture(scope="module")
def shared():
    if not SHARED_PUBLISHED.is_dir():
        pytest.skip(f"{SHARED_PUBLISHED} is absent (it exists beside the repository only in the team's workspace)")
    return read_published(SHARED_PUBLISHED)


def test_a_valid_folder_reads_into_a_table_and_back(folder):
    published = read_published(folder)
    table = published_table(published)
    assert sorted(table["game"].unique()) == sorted(published)
    assert prototype_sum_errors(table) < 1e-12
    for game, value in published.items():
        again = from_table(table, game)
        assert again.prototypes == value.prototypes and again.features == value.features
    assert provenance(folder) == {"source": "someone/TabletopGames", "branch": "main",
                                  "commit": "0123456789abcdef0123456789abcdef01234567", "license": "MIT",
                                  "readme": str(folder / "README.md")}


@pytest.mark.parametrize("file, content, message", [
    ("Connect4/prototype1.json", '{".a.1": "three"}', r"Connect4/prototype1\.json: field '\.a\.1': count must be"),
    ("Connect4/prototype0.json", '{".a.1": -2}', r"Connect4/prototype0\.json: field '\.a\.1': count must be"),
    ("Connect4/prototype0.json", '{".a.1": 0}', r"Connect4/prototype0\.json: every count is 0"),
    ("Connect4/prototype0.json", "[1, 2]", r"Connect4/prototype0\.json: must be a non-empty JSON object"),
    ("CantStop/prototype2.json", "{oops", r"CantStop/prototype2\.json: not valid JSON"),
    ("DotsAndBoxes/features-top500.json", "[]", r"DotsAndBoxes/features-top500\.json: must be a non-empty"),
    ("DotsAndBoxes/features-top500.json", '[".a", 7]', r"features-top500\.json: item \[1\]: a token must be a "
                                                       r"non-empty string, got 7"),
    ("Wonders7/features-top500.json", '[".a", ".a"]', r"Wonders7/features-top500\.json: item '\.a' appears more"),
])
def test_a_broken_file_is_named_with_its_field(folder, file, content, message):
    (folder / file).write_text(content)
    with pytest.raises(ValueError, match=message):
        read_published(folder)


def test_missing_files_and_folders_are_named(folder):
    prototype = folder / "Connect4" / "prototype1.json"
    kept = prototype.read_bytes()
    prototype.unlink()
    with pytest.raises(ValueError, match=r"Connect4: need prototype0\.json \.\. prototype<n-1>\.json"):
        read_published(folder)
    prototype.write_bytes(kept)
    shutil.rmtree(folder / "Dominion")
    with pytest.raises(ValueError, match=r"Dominion: folder is missing"):
        read_published(folder)
    with pytest.raises(ValueError, match="does not exist"):
        read_published(folder / "nowhere")


def test_every_game_with_a_tag_dialect_can_be_valued_and_one_without_says_so():
    for game in PUBLISHED_FOLDERS:  # the card games too: each game's own deal reaches the bag (begin_game)
        assert tag_dialect_problem(game) is None
    assert "no TAG dialect yet" in tag_dialect_problem("tictactoe")


def test_tick_features_of_cant_stop_can_never_match(folder):
    features = read_published(folder)["cant_stop"].features
    assert unreachable_features("cant_stop", features) == [TICK_FEATURE]
    assert unreachable_features("connect4", features) == []  # Connect4's TAG documents know every field


def tag_tokens(game: str, seed: int = 3, moves: int = 200) -> set[str]:
    """Every token of the TAG documents of one game played by first legal moves (up to `moves` of them)."""
    state, seen = load_game(game).new_state(seed), set()
    for _ in range(moves):
        seen |= set(tokenize_state(state.to_json(dialect="tag"), mode="both", num_suffix=True))
        if state.is_terminal():
            break
        state.apply(state.legal_actions()[0])
    return seen


def test_the_published_cant_stop_list_has_tick_features_our_documents_never_produce(shared):
    features = shared["cant_stop"].features
    unreachable = unreachable_features("cant_stop", features)
    assert len(unreachable) == sum(t.startswith(".tick.") for t in features) > 0
    assert not tag_tokens("cant_stop") & set(unreachable)  # a played game's TAG documents: never one of them


def test_the_card_games_unknown_fields_count_and_only_those_written_as_placeholders():
    """unknown_fields reads each game's translator through its GameInfo, the card games' (engines/<game>/tag_json.py)
    too; Sea Salt and Paper's hand visibility is unknown but written by our rule, so its tokens occur in our
    documents and do not count as unreachable."""
    assert unknown_fields("dominion") == ("tick",) and unknown_fields("sea_salt_paper") == ("tick", "turnCounter")
    visibility = ".playerHands.visibility.MIXED_VISIBILITY"
    features = [".tick.12", ".turnCounter.3", visibility, ".drawPile.visibility.HIDDEN_TO_ALL"]
    assert unreachable_features("dominion", features) == [".tick.12"]
    assert unreachable_features("sea_salt_paper", features) == [".tick.12", ".turnCounter.3"]
    seen = tag_tokens("sea_salt_paper")
    assert visibility in seen and not seen & {".tick.12", ".turnCounter.3"}


@pytest.mark.parametrize("game", sorted(PUBLISHED_FOLDERS))
def test_no_published_feature_counted_unreachable_occurs_in_our_documents(shared, game):
    unreachable = set(unreachable_features(game, shared[game].features))
    assert not tag_tokens(game) & unreachable
    if game == "sea_salt_paper":  # the authors' list has the hand visibility our documents write too
        assert ".playerHands.visibility.MIXED_VISIBILITY" in set(shared[game].features) - unreachable


def _authors_values(prototypes, features, bag_docs, candidate, seat):
    """V_seat as the authors' JSONBagHeuristic: JSD over the full token union of each whole prototype and the
    bag plus the candidate (both restricted to the feature list), V = (1 - d_seat) / sum (1 - d_i)."""
    listed = set(features)

    def tokens(doc):
        return Counter({t: c for t, c in tokenize_state(doc, mode="both", num_suffix=True).items() if t in listed})

    bag = sum((tokens(doc) for doc in bag_docs), Counter()) + tokens(candidate)
    distances = np.array([jsd(p, dict(bag)) for p in prototypes])
    return (1 - distances[seat]) / (1 - distances).sum()


@pytest.mark.parametrize("game", ["connect4", "cant_stop"])
def test_values_are_those_of_the_authors_heuristic(shared, game):
    published, engine = shared[game], load_game(game)
    initial = engine.new_state(0).to_json(dialect="tag")
    value = TagJsonBagValue(published.prototypes, published.features, initial)
    assert value.features[-1] == OUTSIDE_FEATURES
    state, docs = engine.new_state(11), [initial]
    for _ in range(6):  # a few decisions into the game: the bag holds the initial state and each decision's state
        seat = state.current_player
        value.begin_decision(state, seat)
        docs.append(state.to_json(dialect="tag"))
        children = legal_children(state)
        ours = value.values(children, seat)
        theirs = [_authors_values(published.prototypes, published.features, docs, c.to_json(dialect="tag"), seat)
                  for c in children]
        np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-9)
        state.apply(state.legal_actions()[int(np.argmax(ours))])
    value.reset()  # a new game: the bag holds the initial state again
    np.testing.assert_allclose(value.values([engine.new_state(0)], 0),
                               [_authors_values(published.prototypes, published.features, [initial], initial, 0)],
                               atol=1e-9)


def test_the_published_agent_takes_an_immediate_win_in_connect4(shared):
    published, engine = shared["connect4"], load_game("connect4")
    state = engine.new_state(0)
    for column in (0, 7, 1, 7, 2, 6):  # x on the bottom row at columns 0..2, o elsewhere: x wins at column 3
        state.apply(column)
    value = TagJsonBagValue(published.prototypes, published.features, engine.new_state(0).to_json(dialect="tag"))
    agent = JsonBagOSLAAgent(value)
    winning = [a for a in state.legal_actions() if _wins(state, a)]
    assert winning == [3]
    value.begin_decision(state, 0)
    children = [_child(state, a) for a in state.legal_actions()]
    assert int(np.argmax(value.values(children, 0))) != 3  # the value alone would not pick it: the rule does
    for seed in range(5):
        agent.reset(seed)
        assert agent.choose(state) == 3


def _child(state, action):
    child = state.clone()
    child.apply(action)
    return child


def _wins(state, action) -> bool:
    child = _child(state, action)
    return child.is_terminal() and child.returns()[state.current_player] > 0


def test_prototype_seats_must_match_the_engine(folder):
    value = read_published(folder)["connect4"]
    with pytest.raises(ValueError, match="2 prototypes, but our engine plays 3 seats"):
        published_value(value, "cant_stop", {"n_players": 3})


def test_features_must_be_tokens():
    with pytest.raises(ValueError, match="features must be a non-empty list"):
        TagJsonBagValue([{".a.1": 1}, {".a.2": 1}], [], {})
    with pytest.raises(ValueError, match="features must be a non-empty list"):
        TagJsonBagValue([{".a.1": 1}, {".a.2": 1}], [OUTSIDE_FEATURES], {})


@pytest.mark.parametrize("game", ["dominion", "sea_salt_paper", "seven_wonders"])
def test_each_card_game_starts_the_bag_with_the_agents_sample_of_its_own_deal(shared, game):
    published, engine = shared[game], load_game(game)
    value = published_value(published, game, {})
    seat, bags = 2, []
    for seed in (5, 6):  # the deal differs by seed: so does the bag the agent starts with
        initial = engine.new_state(seed)
        agent = jsonbag_agent_class(game)(value)
        agent.reset(seed)
        agent.begin_game(initial, seat)
        bags.append(value.trajectory.copy())
        sample = initial.determinize(seat, _rng(seed)).to_json(dialect="tag")
        theirs = _authors_values(published.prototypes, published.features, [sample], initial.to_json(dialect="tag"),
                                 seat)  # the bag (the sample) plus the real initial state as a candidate
        np.testing.assert_allclose(value.values([initial], seat), [theirs], atol=1e-9)
    assert not np.array_equal(*bags)


def _rng(seed):
    """The RNG OSLAAgent.begin_game samples the initial state with."""
    import random

    return random.Random(f"{seed}:begin_game")


def test_the_initial_sample_hides_what_the_seat_cannot_see_and_changes_what_the_agent_does(shared):
    published, engine = shared["sea_salt_paper"], load_game("sea_salt_paper")
    initial, seat = engine.new_state(9), 1
    sample = initial.determinize(seat, _rng(4))
    assert sample.observation_json(seat) == initial.observation_json(seat)  # what the seat sees, as it is
    assert sample.to_json() != initial.to_json()  # the others' hands and the deck re-sampled

    class FixedStart(JsonBagOSLAAgent):
        def begin_game(self, state, seat):
            """Never takes the initial state: its bag starts with the fixed document."""

    def actions(agent):
        agents = [baseline_agent("sea_salt_paper") for _ in range(engine.n_players)]
        agents[seat] = agent
        return play_match(engine, agents, seed=9).actions

    def value(initial_document=None):
        return TagJsonBagValue(published.prototypes, published.features, initial_document)

    started = actions(JsonBagOSLAAgent(value()))
    assert started == actions(JsonBagOSLAAgent(value()))  # reproducible
    assert started != actions(FixedStart(value(engine.new_state(0).to_json(dialect="tag"))))


def test_seven_wonders_is_played_by_the_simultaneous_agent_as_the_authors_do():
    assert jsonbag_agent_class("seven_wonders") is SimultaneousJsonBagOSLAAgent
    assert all(jsonbag_agent_class(game) is JsonBagOSLAAgent for game in PUBLISHED_FOLDERS if game != "seven_wonders")
