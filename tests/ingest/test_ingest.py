"""Reading outside trajectories: the real TAG files, both formats, and every kind of bad input."""

from __future__ import annotations

import io
import json
from pathlib import Path

import orjson
import polars as pl
import pytest

import jbag_pipeline.ingest.read as ingest_read
from jbag_pipeline.ingest.trajectories import read_trajectories
from jbag_pipeline.play.selfplay import GAMES_SCHEMA, STATES_SCHEMA
from jbag_pipeline.model.tokenize import parse_json, tokenize_state, tokenize_trajectory

BIG = 123456789012345678901234567890  # beyond 64 bits


def state(turn: int, results=None, n_players: int = 2, game_type: str = "Nim", **extra) -> dict:
    doc = {"gameType": game_type, "nPlayers": n_players, "turn": turn, "board": [[turn, 0], {"x": turn % 2}], **extra}
    if results is not None:
        doc["playerResults"] = results
    return doc


def trajectory(n: int = 3, results=("LOSE_GAME", "WIN_GAME"), **extra) -> list[dict]:
    return [state(t, list(results) if t == n - 1 else ["GAME_ONGOING"] * len(results), **extra) for t in range(n)]


def write_json(path: Path, value) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(orjson.dumps(value))
    return path


def write_lines(path: Path, records: list) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join((r if isinstance(r, bytes) else orjson.dumps(r)) + b"\n" for r in records))
    return path


def only_problem(batch, file: Path) -> tuple[int | None, str]:
    rows = batch.quarantine.filter(pl.col("file") == str(file))
    assert len(rows) == 1, rows
    return rows["line_or_index"][0], rows["reason"][0]


# --- the real TAG trajectories ------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def reference(request):
    shared = Path(__file__).resolve().parents[2].parent / "shared"
    folder = shared / "data" / "jsonbag_reference"
    if not folder.is_dir():
        pytest.skip(f"{folder} is absent (it exists beside the repository only in the team's workspace and CI)")
    return folder


@pytest.fixture(scope="module")
def reference_batch(reference):
    return read_trajectories([reference / "example_trajectories"])


def test_reference_trajectories_all_land_with_the_winner_from_player_results(reference, reference_batch):
    batch = reference_batch
    assert batch.quarantine.is_empty() and len(batch.files) == 18
    assert sorted(batch.games["game"].unique()) == ["cantstop", "connect4", "dominion", "dotsandboxes",
                                                    "seasaltpaper", "wonders7"]
    truth = pl.read_parquet(reference / "agents_games.parquet").filter(pl.col("agent_class") == "mcts2-tuned") \
        .select(pl.col("game").cast(pl.String).str.to_lowercase(), pl.col("game_id").cast(pl.Int64),
                pl.col("winner_seat").alias("expected"))
    joined = batch.games.join(truth, on=["game", "game_id"], how="left")
    assert joined["expected"].null_count() == 0
    assert joined["winner"].to_list() == joined["expected"].to_list()
    bags = json.loads((reference / "example_bags.json").read_text())
    n_states = {(v["game"].lower(), v["game_id"]): v["n_states"] for v in bags.values()}
    assert {(g, i): n for g, i, n in batch.games.select("game", "game_id", "n_states").iter_rows()} == n_states
    assert batch.games.schema == pl.Schema(GAMES_SCHEMA) and batch.states.schema == pl.Schema(STATES_SCHEMA)
    terminals = batch.states.group_by("game", "game_id").agg(pl.col("is_terminal").sum())["is_terminal"]
    assert terminals.to_list() == [1] * 18


def test_reference_documents_are_stored_faithfully_and_reproduce_the_reference_bags(reference, reference_batch):
    bags = json.loads((reference / "example_bags.json").read_text())
    states = reference_batch.states
    for entry in bags.values():
        docs = states.filter((pl.col("game") == entry["game"].lower()) & (pl.col("game_id") == entry["game_id"]))
        parsed = [parse_json(d) for d in docs.sort("state_idx")["doc"]]
        assert tokenize_trajectory(parsed, mode=entry["tokenize_mode"]) == entry["bag"], entry["game"]


# --- the two formats ----------------------------------------------------------------------------------------

def test_json_array_game_id_from_the_file_name_or_a_member_and_game_from_game_type(tmp_path):
    a = write_json(tmp_path / "logs" / "Nim-41.json", trajectory())
    b = write_json(tmp_path / "logs" / "match.json", [dict(s, gameID=7) for s in trajectory(game_type="Big Nim")])
    batch = read_trajectories([a, b])
    assert batch.games.select("game", "game_id", "winner", "n_players", "n_states").rows() == [
        ("big_nim", 7, 1, 2, 3), ("nim", 41, 1, 2, 3)]
    assert batch.games["returns"].to_list() == [[-1, 1], [-1, 1]]
    assert orjson.loads(batch.states.filter(pl.col("game_id") == 41)["doc"][1]) == trajectory()[1]


def test_json_lines_wrapped_and_flat_with_interleaved_games(tmp_path):
    first, second = trajectory(3), trajectory(2, results=("WIN_GAME", "LOSE_GAME"))
    records = [{"game_id": 5, "state": first[0]}, dict(second[0], game_id=9), {"game_id": 5, "state": first[1]},
               dict(second[1], game_id=9), {"game_id": 5, "state": first[2]}]
    path = write_lines(tmp_path / "nim" / "log.jsonl", records)
    batch = read_trajectories([path])
    assert batch.quarantine.is_empty()
    assert batch.games.select("game_id", "winner", "n_states").rows() == [(5, 1, 3), (9, 0, 2)]
    assert [orjson.loads(d) for d in batch.states.filter(pl.col("game_id") == 5)["doc"]] == first
    assert [orjson.loads(d) for d in batch.states.filter(pl.col("game_id") == 9)["doc"]] == second  # id removed
    assert batch.sources.select("game_id", "first_line", "format").rows() == [(5, 1, "json_lines"),
                                                                              (9, 2, "json_lines")]


def test_game_name_falls_back_to_the_folder_and_can_be_given(tmp_path):
    docs = [{k: v for k, v in s.items() if k != "gameType"} for s in trajectory()]
    path = write_json(tmp_path / "My Games" / "g-3.json", docs)
    assert read_trajectories([path]).games["game"].to_list() == ["my_games"]
    assert read_trajectories([path], game="custom").games["game"].to_list() == ["custom"]
    with pytest.raises(ValueError, match="game name 'Bad Name'"):
        read_trajectories([path], game="Bad Name")
    with pytest.raises(ValueError, match="mode must be one of"):
        read_trajectories([path], mode="sideways")
    with pytest.raises(FileNotFoundError, match="no such file or folder"):
        read_trajectories([tmp_path / "missing.json"])


def test_draws_ties_and_missing_results_have_no_winner(tmp_path):
    draw = write_json(tmp_path / "nim" / "d-1.json", trajectory(results=("DRAW_GAME", "DRAW_GAME")))
    tie = write_json(tmp_path / "nim" / "t-2.json", trajectory(results=("WIN_GAME", "WIN_GAME")))
    none = write_json(tmp_path / "nim" / "n-3.json", [{"nPlayers": 3, "t": i} for i in range(2)])
    games = read_trajectories([draw, tie, none]).games
    assert games.select("game_id", "winner", "n_players").rows() == [(1, None, 2), (2, None, 2), (3, None, 3)]
    assert games["returns"].to_list() == [[0, 0], [1, 1], None]


# --- bad input: one-line reasons naming file and position; good records of the batch still land ------------

def test_truncated_json_array_and_json_lines(tmp_path):
    good = write_json(tmp_path / "nim" / "good-1.json", trajectory())
    cut = tmp_path / "nim" / "cut-2.json"
    cut.write_bytes(orjson.dumps(trajectory())[:-30])
    lines = write_lines(tmp_path / "nim" / "cut.jsonl", [{"game_id": 3, "state": s} for s in trajectory()]
                        + [b'{"game_id": 4, "state": {"nPla'])
    batch = read_trajectories([good, cut, lines])
    assert sorted(batch.games["game_id"]) == [1, 3]
    assert only_problem(batch, cut) == (2, "truncated: the file ends inside this element")
    position, reason = only_problem(batch, lines)
    assert position == 4 and reason.startswith("invalid JSON")
    assert sorted(batch.problems()) == sorted([f"{cut}: element 2: truncated: the file ends inside this element",
                                               f"{lines}: line 4: {reason}"])
    assert "\n" not in reason


def test_wrong_top_level_types(tmp_path):
    obj = write_json(tmp_path / "nim" / "obj-1.json", trajectory()[0])
    scalars = write_json(tmp_path / "nim" / "s-2.json", [trajectory()[0], 5])
    lines = write_lines(tmp_path / "nim" / "l.jsonl", [[1, 2], {"game_id": 8, "state": [1]}, {"state": {}}])
    batch = read_trajectories([obj, scalars, lines])
    assert batch.games.is_empty()
    assert only_problem(batch, obj)[1].startswith("the top-level value is an object; a .json trajectory must be")
    assert only_problem(batch, scalars) == (1, "expected a state object, got a number")
    rows = batch.quarantine.filter(pl.col("file") == str(lines)).select("line_or_index", "reason").rows()
    untold = " (the line's game cannot be told, so no game of this file is ingested)"
    assert rows == [(1, "expected a JSON object, got an array" + untold),
                    (2, "the state of game_id 8 is an array, expected an object (game_id 8 is not ingested)"),
                    (3, "no game id: the line has none of the members ['game_id', 'gameId', 'gameID']" + untold)]


def test_non_utf8_bytes(tmp_path):
    raw = orjson.dumps(trajectory()).replace(b'"Nim"', b'"N\xffm"', 1)
    array = tmp_path / "nim" / "bad-1.json"
    array.parent.mkdir(parents=True)
    array.write_bytes(raw)
    lines = write_lines(tmp_path / "nim" / "bad.jsonl", [b'{"game_id": 1, "state": {"a": "\xc3"}}']
                        + [{"game_id": 2, "state": s} for s in trajectory()])
    batch = read_trajectories([array, lines])
    assert batch.games["game_id"].to_list() == [2]
    bad_byte = raw.index(b"\xff")
    assert only_problem(batch, array) == (0, f"not valid UTF-8: byte 0xff at character {bad_byte - 1} of the element")
    assert only_problem(batch, lines)[0] == 1 and "UTF-8" in only_problem(batch, lines)[1]


def test_empty_files(tmp_path):
    files = [tmp_path / "nim" / name for name in ("e-1.json", "blank-2.json", "e.jsonl", "a-3.json")]
    files[0].parent.mkdir(parents=True)
    files[0].write_bytes(b"")
    files[1].write_bytes(b"  \n ")
    files[2].write_bytes(b"\n\n")
    files[3].write_bytes(b"[ ]")
    batch = read_trajectories(files)
    assert [only_problem(batch, f) for f in files] == [
        (None, "empty file (no JSON value)"), (None, "empty file (no JSON value)"),
        (None, "empty file (no states)"), (None, "no states (the array is empty)")]


def test_duplicate_game_ids_in_one_batch(tmp_path):
    first = write_json(tmp_path / "a" / "Nim-5.json", trajectory())
    again = write_json(tmp_path / "b" / "Nim-5.json", trajectory(4))
    lines = write_lines(tmp_path / "c" / "more.jsonl", [{"game_id": 5, "state": s} for s in trajectory()]
                        + [{"game_id": 6, "state": s} for s in trajectory()])
    batch = read_trajectories([lines, again, first])  # files are read in sorted order whatever the argument order
    assert batch.games.select("game_id", "n_states").rows() == [(5, 3), (6, 3)]
    assert batch.sources.filter(pl.col("game_id") == 5)["file"].to_list() == [str(first)]
    assert only_problem(batch, again) == (None, f"duplicate game_id 5 of game 'nim': already read from {first}")
    assert only_problem(batch, lines)[0] == 1


def test_a_state_nested_10000_deep_is_quarantined_without_recursion_error(tmp_path):
    deep = "[" * 10_000 + "]" * 10_000
    array = tmp_path / "nim" / "deep-1.json"
    array.parent.mkdir(parents=True)
    array.write_text('[{"nPlayers": 2, "x": ' + deep + "}]")
    lines = tmp_path / "nim" / "deep.jsonl"
    lines.write_text('{"game_id": 1, "state": {"x": ' + deep + "}}\n"
                     '{"game_id": 2, "state": {"x": ' + deep.replace("[", "[1,", 1) + ', "big": ' + str(BIG) + "}}\n"
                     '{"game_id": 3, "state": {"x": "' + "[" * 600 + '"}}\n')
    good = write_json(tmp_path / "nim" / "ok-7.json", trajectory())
    batch = read_trajectories([array, lines, good])
    assert batch.sources.select("game_id", "file").rows() == [(7, str(good))]
    reason = "nested deeper than 500 levels"  # line 3: JSON in a string, which the tokenizer would parse too
    assert batch.quarantine.select("file", "line_or_index", "reason").rows() == [
        (str(array), 0, reason), (str(lines), 1, reason + " (game_id 1 is not ingested)"),
        (str(lines), 2, reason + " (game_id 2 is not ingested)"),
        (str(lines), 3, reason + " (game_id 3 is not ingested)")]


def test_nesting_limit_boundary_is_tokenizable(tmp_path):
    limit = ingest_read.MAX_DEPTH
    ok = {"nPlayers": 1, "x": json.loads("[" * (limit - 1) + "1" + "]" * (limit - 1))}
    too_deep = {"nPlayers": 1, "x": json.loads("[" * limit + "1" + "]" * limit)}
    (tmp_path / "nim").mkdir()
    (tmp_path / "nim" / "ok-1.json").write_text(json.dumps([ok]))  # orjson.dumps stops at 255 levels
    (tmp_path / "nim" / "deep-2.json").write_text(json.dumps([too_deep]))
    batch = read_trajectories([tmp_path / "nim"], mode="ordered")  # mode both refuses lists nested this deep
    assert batch.games["game_id"].to_list() == [1]
    assert batch.quarantine["reason"].to_list() == [f"nested deeper than {limit} levels"]
    tokens = tokenize_state(parse_json(batch.states["doc"][0]), mode="unordered")  # one recursion per level
    assert tokens == {".nPlayers.1": 1, ".x.1": 1}


def test_lists_nested_too_deep_for_mode_both(tmp_path):
    limit = ingest_read.MAX_LIST_DEPTH_BOTH
    nested = {"nPlayers": 1, "x": json.loads("[" * (limit + 1) + "]" * (limit + 1)), "y": "[" * 40}
    path = write_json(tmp_path / "nim" / "lists-1.json", [nested])
    reason = read_trajectories([path]).quarantine["reason"].to_list()
    assert reason == [f"lists nested 40 deep: mode both would walk each value under 2^40 paths (at most {limit}); "
                      "ingest with mode ordered or unordered"]
    assert read_trajectories([path], mode="ordered").games["game_id"].to_list() == [1]


def test_numbers_beyond_64_bits_quarantine_their_game_with_file_and_position(tmp_path):
    docs = [{"nPlayers": 2, "list": [1, 1.5]},
            {"nPlayers": 2, "deep": {"a": [0, -BIG]}, "playerResults": ["WIN_GAME", "LOSE_GAME"]}]
    array = write_json(tmp_path / "nim" / "big-1.json", [])
    array.write_text(json.dumps(docs))
    lines = tmp_path / "nim" / "big.jsonl"
    lines.write_text("".join(json.dumps({"game_id": 2, "state": d}) + "\n" for d in docs)
                     + "".join(json.dumps({"game_id": 3, "state": d}) + "\n" for d in docs[:1])
                     + json.dumps({"game_id": BIG, "state": docs[0]}) + "\n")
    huge = write_json(tmp_path / "nim" / "huge-4.json", [])
    huge.write_text('[{"nPlayers": 1, "x": ' + "9" * 5000 + "}]")  # beyond what int() converts by default
    batch = read_trajectories([array, lines, huge])
    assert batch.sources.select("game_id", "file").rows() == [(3, str(lines))]  # the games that fit still land
    reason = f"the integer {-BIG} does not fit in 64 bits"
    assert batch.quarantine.select("file", "line_or_index", "reason").rows() == [
        (str(array), 1, reason), (str(lines), 2, f"{reason} (game_id 2 is not ingested)"),
        (str(lines), 4, f"game_id {BIG} does not fit in 64 bits (game_id {BIG} is not ingested)"),
        (str(huge), 0, "an integer of thousands of digits does not fit in 64 bits")]
    assert not batch.states["doc"].str.contains(str(BIG)).any()


def test_state_tokens_table_keeps_numbers_beyond_64_bits():
    from jbag_pipeline.transforms.state_tokens import tokenize_states

    states = pl.DataFrame({"game": ["nim"], "game_id": [1], "state_idx": [0],
                           "doc": [json.dumps({"nPlayers": 1, "big": BIG, "neg": -BIG})]})
    tokens = tokenize_states(states, num_suffix=False)  # a count of BIG needs 97 bits
    assert {f".big.{BIG}", f".neg.{-BIG}"} <= set(tokens["token"].to_list())


def test_not_json_values_and_bad_outcomes(tmp_path):
    nan = tmp_path / "nim" / "nan-1.json"
    nan.parent.mkdir(parents=True)
    nan.write_text('[{"nPlayers": 2, "x": NaN}]')
    nan_big = tmp_path / "nim" / "nanbig.jsonl"
    nan_big.write_text('{"game_id": 4, "state": {"x": Infinity, "y": ' + str(BIG) + "}}\n")
    no_players = write_json(tmp_path / "nim" / "np-2.json", [{"x": 1}])
    bad_results = write_json(tmp_path / "nim" / "br-3.json", [{"nPlayers": 2, "playerResults": ["WIN_GAME"]}])
    batch = read_trajectories([nan, nan_big, no_players, bad_results])
    assert batch.games.is_empty()
    assert only_problem(batch, nan) == (0, "invalid JSON: NaN is not a JSON number")
    assert only_problem(batch, nan_big) == (1, "invalid JSON: Infinity is not a JSON number (game_id 4 is not ingested)")
    assert only_problem(batch, no_players) == (
        0, "cannot tell the number of players: the last state has neither nPlayers nor playerResults")
    assert only_problem(batch, bad_results) == (0, "playerResults of the last state has 1 entries for 2 players")


def test_array_reader_handles_elements_split_across_chunks(monkeypatch):
    monkeypatch.setattr(ingest_read, "CHUNK_BYTES", 5)
    docs = [{"s": 'a "quoted" ] string, with \\ and \u00e9', "n": -12.5e3, "t": True, "z": None}, [], 12345, "x"]
    raw = json.dumps(docs, ensure_ascii=False, indent=1).encode()
    assert [value for _, value in ingest_read.ArrayReader(io.BytesIO(raw)).elements()] == docs
    with pytest.raises(ingest_read.BadRecord, match="trailing comma"):
        list(ingest_read.ArrayReader(io.BytesIO(b"[1, 2,]")).elements())
    with pytest.raises(ingest_read.BadRecord, match="unexpected data after"):
        list(ingest_read.ArrayReader(io.BytesIO(b"[1] 2")).elements())
