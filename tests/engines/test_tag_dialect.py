"""TAG's JSON dialect ([TAG] items 1 and 2): every state of the real TAG trajectories parses into our engine and
re-emits with the same JSON-Bag tokens; TAG's recorded games replay in our engines; fresh engine states have the
recorded structure; our own dialect is untouched."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest

import engines.cant_stop.tag_json as cant_stop_tag
import engines.connect4.tag_json as connect4_tag
import engines.dots_and_boxes.tag_json as dots_and_boxes_tag
from engines import load_game
from engines.tag_json import LIVE, ROUND_OVER, TURN_OVER
from jbag_pipeline.tokenize import tokenize_state
from tests.helpers.states import random_play_states

TRAJECTORIES = (Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "jsonbag_reference"
                / "example_trajectories")

# our name: (TAG's folder, the dialect module, the fields of a TAG document our engine cannot know)
GAMES = {
    "connect4": ("Connect4", connect4_tag, ()),
    "dots_and_boxes": ("DotsAndBoxes", dots_and_boxes_tag, ()),
    "cant_stop": ("CantStop", cant_stop_tag, ("tick",)),  # TAG's action count; see engines/cant_stop/tag_json.py
}


def trajectories(folder: str) -> list[tuple[str, list[dict]]]:
    """The three recorded TAG games of `folder`, skipping when ../shared is absent."""
    directory = TRAJECTORIES / folder
    if not directory.is_dir():
        pytest.skip(f"{directory} is absent (../shared exists beside the repository only in the team's workspace)")
    return [(path.name, json.loads(path.read_text())) for path in sorted(directory.glob("*.json"))]


def tokens(doc: dict) -> dict[str, int]:
    return tokenize_state(doc, mode="both", num_suffix=True)


def top_field(token: str) -> str:
    """The top-level key a token's path starts with (".dice[0].value.4" -> "dice")."""
    return re.match(r"\.([^.\[]+)", token).group(1)


_FIELD_NAME = re.compile(r"[A-Za-z_]\w*")


def structure(value, path: str = "") -> set[tuple[str, str]]:
    """(path, type) of every node, list indices and data keys (such as "(3,2)") written as "*"."""
    if isinstance(value, dict):
        found = {(path, "dict")}
        for key, item in value.items():
            found |= structure(item, f"{path}.{key if _FIELD_NAME.fullmatch(key) else '*'}")
        return found
    if isinstance(value, list):
        return {(path, "list")}.union(*(structure(item, path + "[]") for item in value))
    return {(path, type(value).__name__)}


@pytest.mark.parametrize("name", GAMES)
def test_every_recorded_state_re_emits_its_tokens(name):
    folder, dialect, unknown = GAMES[name]
    game, differing_fields, n_states = load_game(name), set(), 0
    for file_name, docs in trajectories(folder):
        for i, doc in enumerate(docs):
            state = game.from_json(doc, dialect="tag")
            again = dialect.tag_json(state, dialect.recorded_moment(doc))
            original, rebuilt = tokens(doc), tokens(again)
            differing = {t for t in original.keys() | rebuilt.keys() if original.get(t) != rebuilt.get(t)}
            fields = {top_field(t) for t in differing}
            assert fields <= set(unknown), f"{file_name} state {i}: tokens of {sorted(fields)} differ"
            differing_fields |= fields
            n_states += 1
    assert n_states == sum(len(docs) for _, docs in trajectories(folder))
    assert differing_fields == set(unknown)  # every allowance is needed
    assert dialect.UNKNOWN_FIELDS == unknown


def test_cant_stop_recorded_states_lose_only_the_tick():
    for _, docs in trajectories("CantStop"):
        for doc in docs:
            again = cant_stop_tag.tag_json(load_game("cant_stop").from_json(doc, dialect="tag"),
                                           cant_stop_tag.recorded_moment(doc))
            assert {**doc, "tick": cant_stop_tag.TICK_UNKNOWN} == again


def test_tags_connect4_games_replay_in_our_engine():
    """Each recorded round adds one 'x' and one 'o'; our engine plays them and writes the recorded documents."""
    for file_name, docs in trajectories("Connect4"):
        state, previous = load_game("connect4").new_state(), None
        for doc in docs:
            board = [[node["componentName"] for node in row] for row in doc["gridBoard"]["grid"]]
            added = {board[y][x]: x for y, row in enumerate(board) for x, cell in enumerate(row)
                     if cell != "." and (previous is None or previous[y][x] == ".")}
            for piece in ("x", "o"):
                if piece in added:
                    state.apply(added[piece])
            assert connect4_tag.tag_json(state, connect4_tag.recorded_moment(doc)) == doc, file_name
            previous = board
        assert state.is_terminal()


def _play_turn(state, lines: list[int]) -> None:
    """Draw one turn's lines: every line but the last completes a box."""
    lines = list(lines)
    while lines:
        completing = [line for line in lines
                      if any((state.drawn | 1 << line) & mask == mask for _, mask in state.game.boxes_of_line[line])]
        line = completing[0] if completing else lines[0]
        assert completing or len(lines) == 1
        state.apply(line)
        lines.remove(line)


def test_tags_dots_and_boxes_games_replay_in_our_engine():
    """Between two records seat 1 plays a turn, then seat 0; our engine plays them and writes the records."""
    game = load_game("dots_and_boxes")
    line_ids = {name: line for line, name in enumerate(dots_and_boxes_tag.edge_names(game.rows, game.cols))}
    for file_name, docs in trajectories("DotsAndBoxes"):
        state, drawn = game.new_state(), set()
        for doc in docs:
            new = {line_ids[name]: seat for name, seat in doc["edgeToOwnerMap"].items() if line_ids[name] not in drawn}
            for seat in ([1, 0] if state.player == 1 else [0]):
                turn = [line for line, owner in new.items() if owner == seat]
                if turn:
                    assert state.player == seat
                    _play_turn(state, turn)
            drawn |= new.keys()
            assert dots_and_boxes_tag.tag_json(state, dots_and_boxes_tag.recorded_moment(doc)) == doc, file_name
        assert state.is_terminal()


def _recording_points(name: str, seed: int) -> list[dict]:
    """TAG-dialect documents of one seeded random game of ours at the points TAG records (and its end)."""
    game = load_game(name)
    state, rng, docs = game.new_state(seed=seed), random.Random(seed), []
    dialect = GAMES[name][1]
    while not state.is_terminal():
        before = state.turn_counter
        legal = state.legal_actions()
        state.apply(legal[rng.randrange(len(legal))])
        if state.is_terminal():
            docs.append(state.to_json(dialect="tag"))
        elif name == "connect4" and state.turn_counter % 2 == 0:
            docs.append(dialect.tag_json(state, ROUND_OVER))
        elif name != "connect4" and state.turn_counter > before and before % game.n_players == 0:
            docs.append(dialect.tag_json(state, TURN_OVER))
    return docs


@pytest.mark.parametrize("name", GAMES)
def test_a_fresh_game_has_the_structure_of_the_recorded_one(name):
    folder = GAMES[name][0]
    for _, docs in trajectories(folder):
        ours = _recording_points(name, seed=len(docs))
        assert structure(ours[0]) == structure(docs[0])  # the first recorded point
        assert structure(ours[-1]) == structure(docs[-1])  # the game's end
        assert list(ours[0]) == list(docs[0])  # same keys in the same order


@pytest.mark.parametrize("name", GAMES)
def test_the_initial_state_has_the_recorded_keys_nesting_and_types(name):
    initial = load_game(name).new_state(seed=1).to_json(dialect="tag")
    first = trajectories(GAMES[name][0])[0][1][0]
    assert list(initial) == list(first)
    assert structure(initial) <= structure(first)  # the first record has more in its maps, nothing else


@pytest.mark.parametrize("name", GAMES)
def test_our_live_documents_read_back_to_the_same_position(name):
    game = load_game(name)
    for state in random_play_states(game, n_games=3, every=3):
        doc = state.to_json(dialect="tag")
        again = game.from_json(doc, dialect="tag")
        assert again.to_json(dialect="tag") == doc
        if name != "cant_stop" or (not state.temporary and state.phase == "Decision"):
            assert again.key() == state.key()  # TAG's Can't Stop container omits temporary markers and phase


@pytest.mark.parametrize("name", [*GAMES, "dominion", "seven_wonders", "sea_salt_paper"])  # every TAG speaker
def test_our_dialect_is_the_default_and_untouched(name):
    game = load_game(name)
    for state in random_play_states(game, n_games=2, every=5):
        ours = state.to_json()
        state.to_json(dialect="tag")
        assert state.to_json(dialect="ours") == ours == state.to_json()
        assert game.from_json(ours).to_json() == ours
        assert game.from_json(ours, dialect="ours").key() == state.key()


@pytest.mark.parametrize("name", [*GAMES, "dominion", "seven_wonders", "sea_salt_paper"])
def test_an_unknown_dialect_is_a_clear_error(name):
    game = load_game(name)
    with pytest.raises(ValueError, match="unknown JSON dialect 'xml'"):
        game.new_state().to_json(dialect="xml")
    with pytest.raises(ValueError, match="unknown JSON dialect 'xml'"):
        game.from_json(game.new_state().to_json(), dialect="xml")


def test_tictactoe_speaks_only_our_dialect():
    game = load_game("tictactoe")
    assert game.new_state().to_json(dialect="ours") == game.new_state().to_json()
    with pytest.raises(ValueError, match=r"tictactoe: unknown JSON dialect 'tag'; this game speaks \['ours'\]"):
        game.new_state().to_json(dialect="tag")
    with pytest.raises(ValueError, match="unknown JSON dialect 'tag'"):
        game.from_json(game.new_state().to_json(), dialect="tag")


@pytest.mark.parametrize("name, field, value, message", [
    ("connect4", "turnOwner", 1, "field 'turnOwner' is 1, the position implies 0"),
    ("connect4", "winnerCells", [{"a": 0, "b": 7}], "field 'winnerCells'"),
    ("dots_and_boxes", "nCellsPerPlayer", [1, 0], "field 'nCellsPerPlayer'"),
    ("dots_and_boxes", "playerResults", ["WIN_GAME", "LOSE_GAME"], "field 'playerResults'"),
    ("dots_and_boxes", "edgeToOwnerMap", {"(0,0) -> (1,1)": 0}, "not lower-to-higher"),
    ("cant_stop", "completedColumns", [False] * 12 + [True], "must be completed iff exactly one player is at its top"),
    ("cant_stop", "dice", [], "dice must be 4 Dice objects"),
])
def test_a_document_contradicting_its_position_is_rejected(name, field, value, message):
    doc = trajectories(GAMES[name][0])[0][1][1]
    with pytest.raises(ValueError, match=re.escape(message)):
        load_game(name).from_json({**doc, field: value}, dialect="tag")


def test_connect4_reads_the_board_size_from_the_document():
    small = load_game("connect4", rows=6, cols=6).new_state()
    for column in (0, 1, 0, 1):
        small.apply(column)
    state = load_game("connect4").from_json(small.to_json(dialect="tag"), dialect="tag")
    assert (state.game.rows, state.game.cols) == (6, 6) and state.key() == small.key()
    assert state.to_json(dialect="tag")["gridBoard"]["width"] == 6


def test_cant_stop_reads_the_player_count_from_the_document():
    two = load_game("cant_stop", n_players=2).new_state(seed=3)
    two.apply("stop")
    state = load_game("cant_stop").from_json(two.to_json(dialect="tag"), dialect="tag")
    assert state.n_players == 2 and state.current_player == 1 and state.key() == two.key()


def test_recorded_moments_are_read_off_the_counters():
    c4 = trajectories("Connect4")[0][1]
    assert connect4_tag.recorded_moment(c4[0]) == ROUND_OVER and connect4_tag.recorded_moment(c4[-1]) == LIVE
    db = trajectories("DotsAndBoxes")[0][1]
    assert dots_and_boxes_tag.recorded_moment(db[0]) == TURN_OVER
    # the first record: seat 0 drew one line, so seat 1 moves next although the record names seat 0
    assert load_game("dots_and_boxes").from_json(db[0], dialect="tag").current_player == 1
    cs = trajectories("CantStop")[0][1]
    state = load_game("cant_stop").from_json(cs[0], dialect="tag")
    assert (state.current_player, state.turn_counter) == (1, 1)
    assert cant_stop_tag.from_tag_json(load_game("cant_stop"), cs[0], moment=LIVE).current_player == 0
