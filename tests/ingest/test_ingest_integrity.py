"""Ingest integrity: a game lands whole (states, tokens, bags) or not at all, whatever is wrong with its file."""

from __future__ import annotations

import json
import os
from pathlib import Path

import dagster as dg
import orjson
import polars as pl
import pytest

import jbag_pipeline.ingest.trajectories as ingest
import jbag_pipeline.ingest.tokens as ingest_tokens
import jbag_pipeline.storage.lake as lake
from jbag_pipeline.ingest.trajectories import read_trajectories
from jbag_pipeline.cli.ingest import EXIT_DONE, EXIT_QUARANTINED, run_ingest, run_ingest_cli
from jbag_pipeline.ingest.read import OUT_OF_FLOAT_RANGE
from jbag_pipeline.ingest.store import write_batch

MAX = 2**63 - 1


def nim_states(n: int = 3, **extra) -> list[dict]:
    docs = [{"gameType": "Nim", "nPlayers": 2, "heap": [n - t, t], **extra} for t in range(n)]
    docs[-1]["playerResults"] = ["LOSE_GAME", "WIN_GAME"]
    return docs


def write_array(path: Path, docs: list) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(docs))
    return path


def write_lines(path: Path, lines: list) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines))
    return path


def wrapped(game_id: int, docs: list[dict]) -> list[dict]:
    return [{"game_id": game_id, "state": doc} for doc in docs]


def problems(batch, path: Path) -> list[tuple]:
    return batch.quarantine.filter(pl.col("file") == str(path)).select("line_or_index", "reason").rows()


def table(root: Path, name: str) -> pl.DataFrame:
    return lake.read_table(root, name)


def assert_games_whole(root: Path) -> None:
    """Every ingested game has all its states and tokens, and no table holds a game ingested_games lacks."""
    games = table(root, "ingested_games").select("game", "game_id", "n_states")
    states = table(root, "ingested_states").group_by("game", "game_id").agg(pl.len().alias("states"))
    tokens = table(root, "ingested_tokens").select("game", "game_id", "state_idx").unique()
    counted = games.join(states, on=["game", "game_id"], how="full", coalesce=True)
    assert counted.filter(pl.col("n_states") != pl.col("states")).is_empty()
    assert counted["n_states"].null_count() == counted["states"].null_count() == 0
    per_game = tokens.group_by("game", "game_id").len()
    assert sorted(per_game.select("game", "game_id").rows()) == sorted(games.select("game", "game_id").rows())


# --- values that do not fit ---------------------------------------------------------------------------------

def test_numbers_beyond_the_float_range_quarantine_their_game_and_never_become_null(tmp_path):
    array = tmp_path / "nim" / "inf-1.json"
    array.parent.mkdir()
    array.write_text('[{"nPlayers": 1, "x": [1.5, 1e400]}]')  # the standard library reads 1e400 as infinity
    lines = write_lines(tmp_path / "nim" / "inf.jsonl", [
        '{"game_id": 2, "state": {"nPlayers": 1, "x": -1e400}}',  # orjson: refused as infinity
        '{"game_id": 3, "state": {"nPlayers": 1, "x": 2e308, "y": 12345678901234567890}}',  # long digits: json path
        *map(json.dumps, wrapped(4, nim_states()))])
    batch = read_trajectories([array, lines])
    assert batch.games["game_id"].to_list() == [4]
    assert problems(batch, array) == [(0, OUT_OF_FLOAT_RANGE)]
    assert problems(batch, lines) == [(1, f"{OUT_OF_FLOAT_RANGE} (game_id 2 is not ingested)"),
                                      (2, f"{OUT_OF_FLOAT_RANGE} (game_id 3 is not ingested)")]
    assert not batch.states["doc"].str.contains("null").any()


def test_64_bit_integer_boundaries(tmp_path):
    fits = [MAX, -MAX - 1]
    docs = {1: fits, 2: [MAX + 1], 3: [-MAX - 2]}
    paths = [write_array(tmp_path / "nim" / f"b-{i}.json", [{"nPlayers": 1, "ints": ints}]) for i, ints in docs.items()]
    batch = read_trajectories(paths, mode="ordered")
    assert batch.games["game_id"].to_list() == [1]
    assert orjson.loads(batch.states["doc"][0])["ints"] == fits
    assert [problems(batch, p) for p in paths[1:]] == [[(0, f"the integer {MAX + 1} does not fit in 64 bits")],
                                                        [(0, f"the integer {-MAX - 2} does not fit in 64 bits")]]


def test_token_counts_beyond_64_bits_quarantine_the_game_at_the_state_that_overflows(tmp_path):
    half = 2**62
    in_one_state = nim_states(3)
    in_one_state[1]["pair"] = [half, half]  # unordered path .pair counts 2^63
    over_the_game = [dict(doc, score=half) for doc in nim_states(3)]  # .score sums to 3 * 2^62 in the full bag
    lines = write_lines(tmp_path / "nim" / "counts.jsonl", [*map(json.dumps, wrapped(1, in_one_state)),
                                                            *map(json.dumps, wrapped(2, over_the_game)),
                                                            *map(json.dumps, wrapped(3, nim_states(2)))])
    batch = ingest_tokens.tokenize_batch(read_trajectories([lines], mode="unordered"))
    assert batch.games["game_id"].to_list() == [3] and set(batch.tokens["game_id"]) == {3}
    assert set(batch.states["game_id"]) == {3} and set(batch.positions["game_id"]) == {3}
    (line_1, reason_1), (line_2, reason_2) = problems(batch, lines)
    assert line_1 == 2 and "token '.pair' counts 9223372036854775808" in reason_1 and "game_id 1 is not" in reason_1
    assert line_2 == 4 and reason_2 == (f"token '.score' counts {3 * half} over the game's states, beyond the 64-bit "
                                        "count of its bag (game_id 2 is not ingested)")


# --- bad lines quarantine their whole game --------------------------------------------------------------------

def test_an_unparseable_line_quarantines_its_whole_game_once(tmp_path):
    first, second = wrapped(1, nim_states(3)), wrapped(2, nim_states(2))
    lines = write_lines(tmp_path / "nim" / "mixed.jsonl", [
        json.dumps(first[0]), json.dumps(second[0]), '{"game_id": 1, "state": {"heap": [1, tru]}}',
        json.dumps(first[1]), '{"game_id": 1, "state": {"bad": nul}}', json.dumps(first[2]), json.dumps(second[1])])
    batch = read_trajectories([lines])
    assert batch.games["game_id"].to_list() == [2]  # game 1 lost a state: none of it lands
    ((line, reason),) = problems(batch, lines)  # its second bad line is not a second problem
    assert line == 3 and reason.startswith("invalid JSON") and reason.endswith("(game_id 1 is not ingested)")


@pytest.mark.parametrize("bad_line", ['not json at all', '{"state": {"x": 1}, "game_id": 2, "oops"}',
                                      '{"game_id": 1, "gameId": 2, "state": {"x": tru}}'])
def test_a_line_whose_game_cannot_be_told_quarantines_every_game_of_its_file(tmp_path, bad_line):
    records = [*map(json.dumps, wrapped(1, nim_states(2))), bad_line, *map(json.dumps, wrapped(2, nim_states(2)))]
    lines = write_lines(tmp_path / "nim" / "untold.jsonl", records)
    other = write_array(tmp_path / "nim" / "nim-7.json", nim_states())
    batch = read_trajectories([lines, other])
    assert batch.sources.select("game_id", "file").rows() == [(7, str(other))]
    ((line, reason),) = problems(batch, lines)
    assert line == 3 and reason.endswith("(the line's game cannot be told, so no game of this file is ingested)")


# --- a file that changes while it is read ----------------------------------------------------------------------

def rewriting_reader(path: Path, rewrite):
    """A HashingReader that calls rewrite(path) once, after the parser's first read."""
    class Rewriting(ingest.HashingReader):
        done = False

        def _after(self, data):
            if not Rewriting.done:
                Rewriting.done = True
                rewrite(path)
            return data

        def read(self, size=-1):
            return self._after(super().read(size))

        def readline(self, size=-1):
            return self._after(super().readline(size))

    return Rewriting


def append_a_game(path: Path) -> None:
    with open(path, "a") as fh:
        fh.write("".join(json.dumps(record) + "\n" for record in wrapped(9, nim_states(2))))


def same_size_and_mtime(path: Path) -> None:
    stat = path.stat()
    data = path.read_bytes()
    with open(path, "r+b") as fh:  # in place: same inode and size; mtime put back
        fh.write(data.replace(b'"heap": [3, 0]', b'"heap": [0, 3]', 1))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))


@pytest.mark.parametrize(("rewrite", "what"), [(append_a_game, "(size"), (same_size_and_mtime, "(content differ")])
def test_a_file_that_changes_while_read_is_quarantined_whole(tmp_path, monkeypatch, rewrite, what):
    lines = write_lines(tmp_path / "nim" / "live.jsonl", [*map(json.dumps, wrapped(1, nim_states(3))),
                                                         *map(json.dumps, wrapped(2, nim_states(3)))])
    steady = write_array(tmp_path / "nim" / "nim-5.json", nim_states())
    monkeypatch.setattr(ingest, "HashingReader", rewriting_reader(lines, rewrite))
    batch = read_trajectories([lines, steady])
    assert batch.sources.select("game_id", "file").rows() == [(5, str(steady))]
    ((position, reason),) = problems(batch, lines)
    assert position is None and reason.startswith(f"the file changed while it was read {what}")
    assert reason.endswith("none of its games is ingested: ingest it again once it is written whole")
    monkeypatch.undo()
    assert read_trajectories([lines]).quarantine.is_empty()  # read again once it stopped changing: it lands


# --- in the lake: whole games, later ingests unblocked, cost of the new files only ------------------------------

def test_bad_games_never_land_nor_block_the_assets_or_later_ingests(tmp_path):
    root = tmp_path / "data"
    big = write_array(tmp_path / "in" / "nim-1.json", [dict(doc, big=2**64) for doc in nim_states()])
    overflow = write_array(tmp_path / "in" / "nim-2.json", [dict(doc, score=2**62) for doc in nim_states()])
    good = write_array(tmp_path / "in" / "nim-3.json", nim_states())
    instance = dg.DagsterInstance.ephemeral()
    per_game, lines = run_ingest([str(tmp_path / "in")], root, instance=instance)
    assert per_game.rows() == [("nim", 1, 3)] and len(lines) == 2
    assert lines[0].startswith(f"{big}: element 0: the integer {2**64} does not fit")
    assert lines[1].startswith(f"{overflow}: element 0: token '.score' counts")
    assert_games_whole(root)
    later = write_array(tmp_path / "later" / "nim-4.json", nim_states(4))
    assert run_ingest([str(later)], root, instance=instance)[1] == []
    assert_games_whole(root)
    assert table(root, "ingested_games")["game_id"].to_list() == [3, 4]
    assert set(table(root, "ingested_bags")["game_id"]) == {3, 4}


def test_an_ingest_tokenizes_only_its_games_and_rebuilds_only_their_partitions(tmp_path, monkeypatch):
    root = tmp_path / "data"
    instance = dg.DagsterInstance.ephemeral()
    tokenized = []
    real = ingest_tokens.tokenize_states
    monkeypatch.setattr(ingest_tokens, "tokenize_states",
                        lambda states, **kw: tokenized.append(len(states)) or real(states, **kw))
    for i in range(3):
        write_array(tmp_path / "big" / f"nim-{i}.json", nim_states(20))
    run_ingest([str(tmp_path / "big")], root, instance=instance)
    derived = ["ingested_sampled_states", "ingested_bags", "ingested_prototypes", "ingested_classification"]

    def identities(game):  # each partition's files (an ingest that adds games appends a segment to some)
        return {t: [(f.name, f.stat().st_ino) for f in lake.partition_files(root, t, {"game": game})] for t in derived}

    nim = identities("nim")
    tokenized.clear()
    other = write_array(tmp_path / "small" / "chess-1.json", nim_states(2, gameType="Chess"))
    run_ingest([str(other)], root, instance=instance)
    assert tokenized == [2]  # the two new states, not the 60 already ingested
    assert identities("nim") == nim  # nothing of the untouched game was rebuilt
    assert set(table(root, "ingested_bags")["game"]) == {"nim", "chess"}
    write_array(tmp_path / "big" / "nim-9.json", nim_states(2))
    run_ingest([str(tmp_path / "big" / "nim-9.json")], root, instance=instance)
    assert all(before != after for before, after in zip(nim.values(), identities("nim").values()))
    assert set(table(root, "ingested_bags").filter(pl.col("game") == "nim")["game_id"]) == {0, 1, 2, 9}
    assert_games_whole(root)


def test_a_game_left_without_tokens_by_a_crash_is_tokenized_by_the_next_ingest_of_its_game(tmp_path):
    root = tmp_path / "data"
    write_batch(root, read_trajectories([write_array(tmp_path / "in" / "nim-1.json", nim_states())]))
    lake.partition_path(root, "ingested_tokens", {"game": "nim"}).unlink()  # as if killed after the states
    write_batch(root, read_trajectories([write_array(tmp_path / "in" / "nim-2.json", nim_states(2))]))
    assert_games_whole(root)


def test_cli_exit_codes_and_each_problem_printed_once(tmp_path, monkeypatch, capfd):
    monkeypatch.setattr("jbag_pipeline.cli.runner.dagster_instance", lambda root: dg.DagsterInstance.ephemeral())
    root = tmp_path / "data"
    good = write_array(tmp_path / "in" / "nim-1.json", nim_states())
    assert run_ingest_cli([str(good)], root, None, "both") == EXIT_DONE
    bad = write_lines(tmp_path / "in" / "bad.jsonl", ['{"game_id": 2, "state": {"x": 1e400}}'])
    assert run_ingest_cli([str(good), str(bad)], root, None, "both") == EXIT_QUARANTINED
    captured = capfd.readouterr()
    output = captured.out + captured.err
    assert output.count(OUT_OF_FLOAT_RANGE) == 1
    assert f"jbag ingest: quarantined: {bad}: line 1: {OUT_OF_FLOAT_RANGE}" in captured.err


def test_a_game_stored_before_values_were_checked_is_removed_and_quarantined_by_the_next_ingest(tmp_path):
    root = tmp_path / "data"
    old = write_array(tmp_path / "in" / "nim-1.json", nim_states())
    batch = read_trajectories([old])  # as an earlier version stored it: a count beyond 64 bits, no tokens
    states = batch.states.with_columns(pl.col("doc").str.replace('"heap"', f'"big":{2**70},"heap"'))
    for name, frame in (("ingested_states", states), ("ingested_games", batch.games)):
        lake.write_table(frame, root, name, {"game": "nim"})
    lake.write_table(batch.sources, root, "ingested_sources")
    summary = write_batch(root, read_trajectories([write_array(tmp_path / "in" / "nim-2.json", nim_states())]))
    assert table(root, "ingested_games")["game_id"].to_list() == [2]
    assert table(root, "ingested_sources")["game_id"].to_list() == [2]
    assert summary.quarantined.select("file", "line_or_index").rows() == [(str(old), None)]
    assert summary.quarantined["reason"][0].startswith("stored before values were checked and removed: nim game 1 "
                                                       "state 0: token '.big' counts 1180591620717411303424")
    assert_games_whole(root)
