"""Ingested TAG prototypes as our engines' value: the TAG game -> engine map, why a game cannot be played, and
IngestedTagValue valued as the JSON-Bag formula says in every ingest mode (tokens of the whole TAG documents)."""

from __future__ import annotations

from collections import Counter

import numpy as np
import polars as pl
import pytest

from engines import load_game
from engines.match import play_match
from engines.agents import RandomAgent
from jbag_pipeline.play.ingested_evaluation import (INGESTED_FREQUENCY, engine_for, ingested_value,
                                                      unplayable_reason, unplayed_seats)
from jbag_pipeline.model.bags import jsd
from jbag_pipeline.model.tokenize import MODES, TokenFilter
from jbag_pipeline.model.value import IngestedTagValue
from jbag_pipeline.schemas import SELFPLAY_GAMES, WINNER_PROTOTYPES
from jbag_pipeline.tokenize import tokenize_state
from tests.helpers.states import children as legal_children

BLACKLIST = ("gameStatus", "playerResults", "turnOwner")


def test_tag_game_names_map_to_our_engines_and_others_to_none():
    assert {name: engine_for(name) for name in ("connect4", "dotsandboxes", "cantstop", "dominion", "seasaltpaper",
                                                "wonders7")} == {
        "connect4": "connect4", "dotsandboxes": "dots_and_boxes", "cantstop": "cant_stop", "dominion": "dominion",
        "seasaltpaper": "sea_salt_paper", "wonders7": "seven_wonders"}
    assert engine_for("dots_and_boxes") == "dots_and_boxes"  # ingested with --game as our name
    assert engine_for("nim") is None and engine_for("tictactoe") is None  # tic-tac-toe speaks no TAG dialect


def _games(winners, n_players=2):
    return pl.DataFrame({"game": "connect4", "game_id": list(range(len(winners))), "n_players": n_players,
                         "winner": winners}, schema={k: SELFPLAY_GAMES[k] for k in
                                                     ("game", "game_id", "n_players", "winner")})


def _prototypes(frequency=INGESTED_FREQUENCY):
    return pl.DataFrame({"game": "connect4", "frequency": frequency, "seat": [0, 1], "token": [".a.1", ".a.2"],
                         "count": [1, 1], "p": [1.0, 1.0]}, schema=WINNER_PROTOTYPES)


def test_reasons_a_game_cannot_be_played():
    games, prototypes = _games([0, 1, None]), _prototypes()
    assert unplayable_reason("connect4", "connect4", 2, games, prototypes) is None
    assert "no engine of ours plays the TAG game 'nim' (ours: cantstop -> cant_stop, connect4 -> connect4" in \
        unplayable_reason("nim", None, None, games, prototypes)
    assert unplayable_reason("connect4", "connect4", 2, _games([0, 1], 3), prototypes) == \
        "its ingested games have [3] players, our connect4 engine plays 2"
    assert "materialise the ingested model first" in unplayable_reason("connect4", "connect4", 2, games,
                                                                        _prototypes("random"))
    assert unplayable_reason("connect4", "connect4", 2, _games([1, 1, None]), prototypes) == \
        "seat 0 won none of its 3 ingested games: no winner prototype to value its positions by"
    assert "seats 0, 1 won none of its 1 ingested games" in unplayable_reason("connect4", "connect4", 2,
                                                                             _games([None]), prototypes)


def test_a_played_game_short_of_a_seat_or_of_games_is_named():
    rows = pl.DataFrame({"game": ["a"] * 3 + ["b"] * 2, "scope": ["seat 0", "seat 1", "overall", "seat 0", "overall"],
                         "seat": [0, 1, None, 0, None], "games": [2, 2, 4, 2, 2]})
    assert unplayed_seats(rows, {"a": (2, 2), "b": (2, 2)}) == ["b"]
    assert unplayed_seats(rows, {"a": (2, 3), "b": (1, 2)}) == ["a"]


def _tokens(doc, mode, keep):
    return Counter({t: c for t, c in tokenize_state(doc, mode=mode, num_suffix=True).items() if keep(t)})


@pytest.mark.parametrize("mode", MODES)
def test_values_are_the_json_bag_formula_over_whole_tag_documents(mode):
    """V_seat = (1 - d_seat) / sum (1 - d_i), d_i the JSD of prototype i to the bag (initial state, each decision's
    state, the candidate), tokens of the TAG documents in the ingest mode, the blacklist filtered."""
    engine, keep = load_game("connect4"), TokenFilter(BLACKLIST).keeps
    prototypes = []  # each seat's bag: the tokens of a few random games (some tokens no state below holds)
    for seat in range(2):
        record = play_match(engine, [RandomAgent(), RandomAgent()], seed=seat)
        state, bag = engine.new_state(seat), Counter()
        for action in record.actions[:12]:
            state.apply(action)
            bag += _tokens(state.to_json(dialect="tag"), mode, keep)
        prototypes.append(dict(bag))
    value = IngestedTagValue(prototypes, mode, TokenFilter(BLACKLIST))
    state = engine.new_state(3)
    value.begin_game(state, 0)
    docs = [state.to_json(dialect="tag")]
    for column in (3, 4, 3, 5):
        seat = state.current_player
        value.begin_decision(state, seat)
        docs.append(state.to_json(dialect="tag"))
        children = legal_children(state)
        bag = sum((_tokens(doc, mode, keep) for doc in docs), Counter())
        expected = []
        for child in children:
            candidate = dict(bag + _tokens(child.to_json(dialect="tag"), mode, keep))
            distances = np.array([jsd(prototype, candidate) for prototype in prototypes])
            expected.append((1 - distances[seat]) / (1 - distances).sum())
        np.testing.assert_allclose(value.values(children, seat), expected, rtol=0, atol=1e-9)
        state.apply(column)


def test_the_value_is_built_from_the_full_prototypes_and_rejects_a_bad_mode():
    rows = pl.concat([_prototypes(), _prototypes("interval").with_columns(pl.lit(".b.1").alias("token"))])
    value = ingested_value(rows, 2, "unordered", BLACKLIST)
    assert value.features == [".a.1", ".a.2"] and value.token_mode == "unordered"
    with pytest.raises(ValueError, match="mode must be one of"):
        IngestedTagValue([{".a": 1}, {".b": 1}], "sorted", TokenFilter(()))
