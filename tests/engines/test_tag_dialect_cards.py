"""TAG's JSON dialect for the card games ([TAG] items 1 and 2): every state of the real TAG trajectories parses
into our engine and re-emits with the same JSON-Bag tokens except the listed unknown fields; fresh engine states
have the recorded structure; our own dialect is untouched (tests/engines/test_records_identical.py pins it)."""

from __future__ import annotations

import random
import re

import pytest

import engines.dominion.tag_json as dominion_tag
import engines.sea_salt_paper.tag_json as sea_salt_paper_tag
import engines.seven_wonders.tag_json as seven_wonders_tag
from engines import load_game
from engines.seven_wonders.scoring import military_points
from engines.tag_json import LIVE, ROUND_OVER, TICK_UNKNOWN, TURN_OVER
from tests.engines.test_tag_dialect import structure, tokens, top_field, trajectories
from tests.helpers.states import random_play_states

# our name: (TAG's folder, the dialect module, the fields of a TAG document our engine cannot know, the test of
# the recorded states our engine never holds (None: it holds all), how many of those each recorded game has)
GAMES = {
    "dominion": ("Dominion", dominion_tag, ("tick",), None, 0),  # tick: TAG's action count (module docstring)
    "seven_wonders": ("Wonders7", seven_wonders_tag, (), seven_wonders_tag.is_age_end_record, 3),  # one per age
    # tick, the round-local turnCounter and the sticky hand visibility: see engines/sea_salt_paper/tag_json.py
    "sea_salt_paper": ("SeaSaltPaper", sea_salt_paper_tag, ("tick", "turnCounter", "playerHands.visibility"), None, 0),
}
UNHELD_MESSAGE = {"seven_wonders": seven_wonders_tag.AGE_END_UNKNOWN}


def token_field(token: str, unknown: tuple[str, ...]) -> str:
    """The unknown field (a token path without list indices) that `token` belongs to, else its top-level key."""
    path = re.sub(r"\[\d+\]", "", token)
    for field in unknown:
        if path == f".{field}" or path.startswith(f".{field}."):
            return field
    return top_field(token)


@pytest.mark.parametrize("name", GAMES)
def test_every_recorded_state_re_emits_its_tokens(name):
    folder, dialect, unknown, unheld, n_unheld = GAMES[name]
    game, differing_fields, n_states = load_game(name), set(), 0
    for file_name, docs in trajectories(folder):
        held = [doc for doc in docs if unheld is None or not unheld(doc)]
        assert len(docs) - len(held) == n_unheld, file_name  # exactly the states listed as unknowable
        for doc in docs:
            if doc not in held:
                with pytest.raises(ValueError, match=re.escape(UNHELD_MESSAGE[name])):
                    game.from_json(doc, dialect="tag")
        for i, doc in enumerate(held):
            state = game.from_json(doc, dialect="tag")
            again = dialect.tag_json(state, dialect.recorded_moment(doc))
            original, rebuilt = tokens(doc), tokens(again)
            differing = {t for t in original.keys() | rebuilt.keys() if original.get(t) != rebuilt.get(t)}
            fields = {token_field(t, unknown) for t in differing}
            assert fields <= set(unknown), f"{file_name} state {i}: tokens of {sorted(fields)} differ"
            differing_fields |= fields
            n_states += 1
    assert n_states == sum(len(docs) - n_unheld for _, docs in trajectories(folder)) > 0
    assert differing_fields == set(unknown)  # every allowance is needed
    assert dialect.UNKNOWN_FIELDS == unknown


def test_dominion_recorded_states_lose_only_the_tick():
    game = load_game("dominion")
    for _, docs in trajectories("Dominion"):
        for doc in docs:
            again = dominion_tag.tag_json(game.from_json(doc, dialect="tag"), dominion_tag.recorded_moment(doc))
            assert {**doc, "tick": TICK_UNKNOWN} == again


def _dominion_recording_points(seed: int) -> list[dict]:
    """TAG-dialect documents of one seeded random Dominion game at TAG's recording points (and its end)."""
    game = load_game("dominion")
    state, rng, docs = game.new_state(seed=seed), random.Random(seed), []
    while not state.is_terminal():
        before = state.turn_counter
        legal = state.legal_actions()
        state.apply(legal[rng.randrange(len(legal))])
        if state.is_terminal():
            docs.append(state.to_json(dialect="tag"))
        elif state.turn_counter > before and state.turn_counter % game.n_players == 0:
            docs.append(dominion_tag.tag_json(state, ROUND_OVER))
    return docs


def _seven_wonders_recording_points(seed: int) -> list[dict]:
    """TAG-dialect documents of one seeded random 7 Wonders game at TAG's recording points that our engine holds
    (every executed round but an age's last) and its end."""
    state, rng, docs = load_game("seven_wonders").new_state(seed=seed), random.Random(seed), []
    while not state.is_terminal():
        legal = state.legal_actions()
        state.apply(legal[rng.randrange(len(legal))])
        if state.is_terminal():
            docs.append(state.to_json(dialect="tag"))
        elif not state.round_in_progress() and state.builder < 0 and len(state.hands[0]) < 7:
            docs.append(seven_wonders_tag.tag_json(state, ROUND_OVER))
    return docs


_DATA_KEY = re.compile(r"\.[A-Z]\w*")  # a capitalised key names data (a resource, card or enum), not a Java field


def starred(found: set[tuple[str, str]]) -> set[tuple[str, str]]:
    """`found` with data keys written as "*" (which cards and resources appear varies from game to game)."""
    return {(_DATA_KEY.sub(".*", path), kind) for path, kind in found}


def outer(found: set[tuple[str, str]]) -> set[tuple[str, str]]:
    """The starred structure outside the cards of decks (which cards a deck holds varies too)."""
    return {(path, kind) for path, kind in starred(found) if "components[]" not in path}


def _sea_salt_paper_recording_points(seed: int) -> list[dict]:
    """TAG-dialect documents of one seeded random Sea Salt & Paper game at TAG's recording points: every turn
    whose round-local count is a multiple of the seats, every round's end before the next deal, the game's end."""
    game = load_game("sea_salt_paper")
    state, rng, docs, round_turns = game.new_state(seed=seed), random.Random(seed), [], 0
    while not state.is_terminal():
        before, legal = state.clone(), state.legal_actions()
        action = legal[rng.randrange(len(legal))]
        state.apply(action)
        if state.is_terminal():
            docs.append(state.to_json(dialect="tag"))
        elif state.round_counter > before.round_counter:
            if action != "last_chance":  # LAST CHANCE on the turn that empties the pile: see the module
                docs.append(sea_salt_paper_tag.tag_json(before, ROUND_OVER))
            round_turns = 0
        elif state.turn_counter > before.turn_counter:
            if round_turns % game.n_players == 0:
                docs.append(sea_salt_paper_tag.tag_json(state, TURN_OVER))
            round_turns += 1
    return docs


RECORDING_POINTS = {"dominion": _dominion_recording_points, "seven_wonders": _seven_wonders_recording_points,
                    "sea_salt_paper": _sea_salt_paper_recording_points}


@pytest.mark.parametrize("name", GAMES)
def test_a_fresh_game_has_the_structure_of_the_recorded_one(name):
    recorded = [docs for _, docs in trajectories(GAMES[name][0])]
    every_recorded = starred(set().union(*(structure(doc) for docs in recorded for doc in docs)))
    for seed, docs in enumerate(recorded):
        ours = RECORDING_POINTS[name](seed)
        assert outer(structure(ours[0])) == outer(structure(docs[0]))  # the first recorded point
        assert list(ours[0]) == list(docs[0]) and list(ours[-1]) == list(docs[-1])  # same keys, same order
        assert all(starred(structure(doc)) <= every_recorded for doc in ours)  # nothing the records never have
        assert ours[-1]["gameStatus"] == docs[-1]["gameStatus"] == "GAME_END"


@pytest.mark.parametrize("name", GAMES)
def test_the_initial_state_has_the_recorded_keys_nesting_and_types(name):
    initial = load_game(name).new_state(seed=1).to_json(dialect="tag")
    first, second = trajectories(GAMES[name][0])[0][1][:2]
    assert list(initial) == list(first)
    assert outer(structure(initial)) <= outer(structure(first)) | outer(structure(second))  # decks fill later


def _at_turn_start(state) -> bool:
    """Whether `state` is at the start of a turn or round (what TAG's containers can express)."""
    if state.game.name == "seven_wonders":
        return not state.round_in_progress() and state.builder < 0 and not state.is_terminal()
    if state.game.name == "sea_salt_paper":
        return state.phase == "DRAW"
    return (state.phase == "Play" and state.pending is None and (state.actions, state.buys) == (1, 1)
            and not (state.spent or state.additional_spend or state.merchants_played or state.terminal))


@pytest.mark.parametrize("name", GAMES)
def test_our_live_documents_read_back_to_the_same_position(name):
    game, at_start = load_game(name), 0
    for state in random_play_states(game, n_games=3, every=3):
        doc = state.to_json(dialect="tag")
        if name == "seven_wonders" and not _at_turn_start(state) and not state.is_terminal():
            with pytest.raises(ValueError, match="hides the choices made so far"):
                game.from_json(doc, dialect="tag")
            continue
        again = game.from_json(doc, dialect="tag")
        assert again.to_json(dialect="tag") == doc
        if _at_turn_start(state):
            at_start += 1
            assert again.key() == state.key()
    assert at_start > 0


def _without_top_card(deck: dict) -> dict:
    return {**deck, "components": deck["components"][1:]}


@pytest.mark.parametrize("name, index, change, message", [
    ("dominion", 1, {"turnOwner": 2}, "field 'turnOwner' is 2, the position implies 0"),
    ("dominion", -1, {"playerResults": ["WIN_GAME", "LOSE_GAME", "LOSE_GAME", "LOSE_GAME"]}, "inconsistent"),
    ("dominion", 0, {"nTeams": 3}, "field 'nTeams' is 3, the position implies 4"),
    ("dominion", 0, {"tick": "7"}, "tick must be an int >= -1"),
    ("dominion", 0, {"trashPile": []}, "trashPile must be a deck"),
    ("dominion", 0, {"gameType": "Connect4"}, "not a TAG Dominion state"),
    ("seven_wonders", 1, {"roundCounter": 5}, "field 'roundCounter' is 5, the position implies 1"),
    ("seven_wonders", 1, {"currentAge": 2}, "seven_wonders from_json"),
    ("seven_wonders", 1, {"turnOwner": 2}, "hides the choices made so far"),
    ("seven_wonders", -1, {"playerResults": ["WIN_GAME", "WIN_GAME", "WIN_GAME", "WIN_GAME"]}, "playerResults"),
    ("seven_wonders", 0, {"playerHands": []}, "playerHands must be a list of 4 decks"),
    ("sea_salt_paper", 8, {"playerTotalScores": [0, 6, 11, 4]}, "less than this round's points"),
    ("sea_salt_paper", 1, {"lastChance": 2}, "protectedHands must hold the LAST CHANCE caller"),
    ("sea_salt_paper", 1, lambda doc: {"drawPile": _without_top_card(doc["drawPile"])}, "not the 58-card deck"),
    ("sea_salt_paper", 1, {"turnCounter": "4"}, "turnCounter must be an int >= -1"),
    ("sea_salt_paper", -1, {"playerResults": ["WIN_GAME", "LOSE_GAME", "LOSE_GAME", "LOSE_GAME"]}, "playerResults"),
])
def test_a_document_contradicting_its_position_is_rejected(name, index, change, message):
    doc = trajectories(GAMES[name][0])[0][1][index]
    with pytest.raises(ValueError, match=re.escape(message)):
        load_game(name).from_json({**doc, **(change(doc) if callable(change) else change)}, dialect="tag")


def test_dominion_reads_the_player_count_and_the_round_from_the_document():
    two = load_game("dominion", n_players=2).new_state(seed=3)
    for _ in range(4):  # two turns of end_phase, end_phase: a round of two players
        two.apply("end_phase")
    doc = dominion_tag.tag_json(two, ROUND_OVER)
    assert (doc["roundCounter"], doc["turnCounter"], doc["turnOwner"]) == (0, 2, 0)
    state = load_game("dominion").from_json(doc, dialect="tag")
    assert state.n_players == 2 and state.key() == two.key()
    assert (state.turn_counter, state.round_counter) == (2, 1)
    assert state.to_json(dialect="tag")["roundCounter"] == 1  # the same position, between actions


def test_dominion_zones_are_in_tags_order():
    """TAG's Deck.add puts a card on top: a hand lists the last drawn card first; the draw pile keeps its order."""
    state = load_game("dominion").new_state(seed=5)
    doc = state.to_json(dialect="tag")
    assert [c["cardType"] for c in doc["playerHands"][0]["components"]] == state.hands[0][::-1]
    assert [c["cardType"] for c in doc["playerDrawPiles"][0]["components"]] == state.draw_piles[0]
    assert doc["playerHands"][1]["deckVisibility"] == [False, True, False, False]
    assert doc["playerHands"][1]["elementVisibility"] == [[False, True, False, False]] * 5
    assert doc["playerDrawPiles"][2]["elementVisibility"] == [[False] * 4] * 5


def test_seven_wonders_records_pass_the_hands_on_as_our_engine_reads_them():
    """A ROUND_OVER record holds the hands where they were played; our state holds them passed on (age I: left)."""
    doc = trajectories("Wonders7")[0][1][0]
    state = load_game("seven_wonders").from_json(doc, dialect="tag")
    names = [deck["componentName"] for deck in doc["playerHands"]]
    assert names == ["Player hand0", "Player hand1", "Player hand2", "Player hand3"]
    assert state.hand_ids == [1, 2, 3, 0] and state.turn_counter == doc["tick"] + 1 == 4
    assert [deck["componentName"] for deck in state.to_json(dialect="tag")["playerHands"]] == names[1:] + names[:1]
    assert seven_wonders_tag.tag_json(state, ROUND_OVER) == doc
    with pytest.raises(ValueError, match="a round is over only at the start of the next round"):
        seven_wonders_tag.tag_json(load_game("seven_wonders").new_state(seed=1), ROUND_OVER)


def test_sea_salt_paper_between_rounds_is_written_from_the_round_ending_turn():
    """The position TAG records after a round is scored and before the deal: our state deals at once, so the
    translator writes it from the state before the round-ending action and reads it back to that state."""
    game = load_game("sea_salt_paper")
    state, rng, checked = game.new_state(seed=2), random.Random(2), 0
    while not state.is_terminal() and checked < 2:
        before = state.clone()
        legal = state.legal_actions()
        action = legal[rng.randrange(len(legal))]
        state.apply(action)
        if state.round_counter > before.round_counter and action != "last_chance":
            doc = sea_salt_paper_tag.tag_json(before, ROUND_OVER)
            assert doc["playerTotalScores"] == state.totals != before.totals  # banked, as the next round has it
            assert doc["drawPile"] == before.to_json(dialect="tag")["drawPile"]  # the cards are not re-dealt
            assert (doc["roundCounter"], doc["turnOwner"]) == (before.round_counter, before.player)
            assert sea_salt_paper_tag.recorded_moment({**doc, "tick": 0}) == ROUND_OVER
            again = sea_salt_paper_tag.from_tag_json(game, doc, moment=ROUND_OVER)  # our tick -1 reads as LIVE
            assert again.key() == before.key()
            checked += 1
    assert checked == 2


def test_sea_salt_paper_records_name_the_seat_that_ended_the_turn():
    first = trajectories("SeaSaltPaper")[0][1][0]
    assert sea_salt_paper_tag.recorded_moment(first) == TURN_OVER and first["turnOwner"] == 0
    state = load_game("sea_salt_paper").from_json(first, dialect="tag")
    assert (state.current_player, state.phase, state.turn_counter) == (1, "DRAW", 1)
    assert sea_salt_paper_tag.from_tag_json(load_game("sea_salt_paper"), first, moment=LIVE).current_player == 0
    assert state.to_json(dialect="tag")["turnCounter"] == sea_salt_paper_tag.TURNS_UNKNOWN


def test_sea_salt_paper_rounds_are_banked_as_tag_banks_them():
    """Rule check: a between-rounds record read back to the round-ending turn, minus our engine's banking of the
    round (normal, LAST CHANCE won or lost), leaves the totals of the round's earlier records."""
    game, checked = load_game("sea_salt_paper"), 0
    for file_name, docs in trajectories("SeaSaltPaper"):
        for earlier, doc in zip(docs, docs[1:]):
            if sea_salt_paper_tag.recorded_moment(doc) == ROUND_OVER:
                assert earlier["roundCounter"] == doc["roundCounter"]
                assert game.from_json(doc, dialect="tag").totals == earlier["playerTotalScores"], file_name
                checked += 1
    assert checked == 11  # 3, 4 and 4 rounds end before the last one


def test_seven_wonders_last_military_is_scored_as_tag_scores_it():
    """Rule check: from the record of the last round of age III to the game's end only the age's last cards are
    discarded and military scored; the Victory gained is our engine's military points for those shields."""
    game = load_game("seven_wonders")
    for file_name, docs in trajectories("Wonders7"):
        last_round, end = docs[-2], docs[-1]
        assert seven_wonders_tag.is_age_end_record(last_round) and last_round["currentAge"] == 3
        shields = [r["Shield"] for r in last_round["playerResources"]]
        gained = [b["Victory"] - a["Victory"] for a, b in zip(last_round["playerResources"], end["playerResources"])]
        assert gained == military_points(shields, 3, game.military), file_name
        assert game.from_json(end, dialect="tag").returns() == [1 if r == "WIN_GAME" else -1 if r == "LOSE_GAME"
                                                                 else 0 for r in end["playerResults"]]
