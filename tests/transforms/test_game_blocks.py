"""Blocks of whole games: the steps that read state_tokens a block at a time (or from a lake scan) write exactly
what they write from the whole table in memory."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

import jbag_pipeline.transforms.game_blocks as game_blocks_module
from jbag_pipeline.analysis.ablation import full_tables
from jbag_pipeline.analysis.classification import variant_classification_table, winner_classification_table
from jbag_pipeline.analysis.leakage import leaky_tokens_table
from jbag_pipeline.model.selection import select_features
from jbag_pipeline.transforms.state_tokens import tokenize_states, tokenize_states_to
from jbag_pipeline.transforms.bags_table import trajectory_bags_table
from jbag_pipeline.transforms.game_blocks import (concat_ordered, distinct_tokens, game_blocks, game_id_ranges,
                                               write_ordered)
from jbag_pipeline.transforms.sampling import sampled_states
from jbag_pipeline.schemas import STATE_TOKENS
from jbag_pipeline.transforms.segments import segmented_bags

BLACKLIST = ("playerResults",)


def _tables(n_games: int = 60, seed: int = 3):
    """Random self-play-shaped tables: games of 3-9 states, tokens from a small vocabulary (one leaking the
    winner, one blacklisted), two seats and some draws."""
    rng = np.random.default_rng(seed)
    games, states, tokens = [], [], []
    for game_id in range(n_games):
        winner = None if game_id % 7 == 0 else int(rng.integers(0, 2))
        n_states = int(rng.integers(3, 10))
        games.append({"game": "g", "game_id": game_id, "winner": winner, "n_players": 2})
        for idx in range(n_states):
            states.append({"game": "g", "game_id": game_id, "state_idx": idx, "is_terminal": idx == n_states - 1})
            bag = {f".t.{k}": int(rng.integers(1, 5)) for k in rng.choice(40, 8, replace=False)}
            bag[f".hint.{winner if rng.random() < 0.7 else 1 - (winner or 0)}"] = 1
            bag[f".playerResults.{winner}"] = 1
            tokens += [{"game": "g", "game_id": game_id, "state_idx": idx, "token": t, "count": c}
                       for t, c in sorted(bag.items())]
    tokens = pl.DataFrame(tokens, schema=STATE_TOKENS)
    games = pl.DataFrame(games, schema_overrides={"winner": pl.Int8, "n_players": pl.Int32})
    states = pl.DataFrame(states)
    return tokens, states, games, sampled_states(states, games, run_seed=0)


@pytest.fixture
def tables():
    return _tables()


@pytest.fixture
def scanned(tables, tmp_path):
    """state_tokens as a lake scan: written sorted as the lake holds it, in small row groups."""
    path = tmp_path / "state_tokens.parquet"
    tables[0].write_parquet(path, row_group_size=50)
    return pl.scan_parquet(path)


def test_ranges_hold_whole_games_in_blocks_of_at_most_the_rows(tables):
    tokens = tables[0]
    sizes = dict(tokens.group_by("game_id").len().iter_rows())
    ranges = game_id_ranges(tokens, rows=100)
    assert len(ranges) > 5 and ranges[0][0] == 0 and ranges[-1][1] == 59
    assert all(later[0] == earlier[1] + 1 for earlier, later in zip(ranges, ranges[1:]))  # nothing left out
    for first, last in ranges:
        block = sum(sizes[g] for g in range(first, last + 1))
        assert block <= 100 or first == last  # a game larger than a block is a block of its own
    assert game_id_ranges(tokens, rows=1) == [(g, g) for g in range(60)]
    assert game_id_ranges(tokens, rows=10**9) == [(0, 59)]
    assert game_id_ranges(tokens, rows=10**9, game_ids=[5, 9]) == [(5, 9)]
    with pytest.raises(ValueError, match="rows must be >= 1"):
        game_id_ranges(tokens, rows=0)


def test_blocks_of_a_scan_are_the_blocks_of_the_frame(tables, scanned):
    tokens = tables[0]
    of_frame = list(game_blocks(tokens, rows=120, game_ids=[1, 2, 3, 30, 31, 59]))
    of_scan = list(game_blocks(scanned, rows=120, game_ids=[1, 2, 3, 30, 31, 59]))
    assert len(of_frame) > 1 and all(a.equals(b) for a, b in zip(of_frame, of_scan, strict=True))
    assert pl.concat(of_frame).equals(tokens.filter(pl.col("game_id").is_in([1, 2, 3, 30, 31, 59])))
    assert distinct_tokens(scanned) == sorted(tokens["token"].unique().to_list())


def test_ordered_concatenation_is_the_whole_tables_order(tmp_path):
    frame = pl.DataFrame({"frequency": ["random", "full", "interval"] * 6, "game_id": [g // 3 for g in range(18)],
                          "token": list("abcdefghijklmnopqr")})
    pieces = [frame.filter(pl.col("game_id").is_between(lo, lo + 1)).sort("frequency", "game_id", "token")
              for lo in (0, 2, 4)]
    assert concat_ordered(iter(pieces), ["frequency"], frame.schema).equals(frame.sort("frequency", "game_id", "token"))
    assert concat_ordered(iter([]), ["frequency"], frame.schema).equals(frame.clear())
    written = write_ordered(iter(pieces), ["frequency"], frame.schema, tmp_path)
    assert written.collect().equals(frame.sort("frequency", "game_id", "token"))
    assert write_ordered(iter([]), ["frequency"], frame.schema, tmp_path).collect().equals(frame.clear())


@pytest.mark.parametrize("rows", [1, 37, 10**9])
def test_blocked_steps_write_what_the_whole_table_gives(tables, scanned, monkeypatch, tmp_path, rows):
    tokens, states, games, sampled = tables
    whole = {
        "trajectory_bags": trajectory_bags_table(tokens, sampled, BLACKLIST),
        "segmented_bags": segmented_bags(tokens, sampled, n_segments=3, blacklist=BLACKLIST),
        "winner_classification": winner_classification_table(tokens, states, games, 0.3, BLACKLIST),
        "leaky_tokens": leaky_tokens_table(tokens, games, test_share=0.3, blacklist=BLACKLIST),
        "full_tables": full_tables(tokens, sampled, games, blacklist=BLACKLIST, k=5, n_estimators=5, seed=0),
    }
    monkeypatch.setattr(game_blocks_module, "BLOCK_ROWS", rows)
    for source in (tokens, scanned):
        blocked = {
            "trajectory_bags": trajectory_bags_table(source, sampled, BLACKLIST),
            "segmented_bags": segmented_bags(source, sampled, n_segments=3, blacklist=BLACKLIST),
            "winner_classification": winner_classification_table(source, states.lazy(), games, 0.3, BLACKLIST),
            "leaky_tokens": leaky_tokens_table(source, games, test_share=0.3, blacklist=BLACKLIST),
            "full_tables": full_tables(source, sampled, games, blacklist=BLACKLIST, k=5, n_estimators=5, seed=0),
        }
        assert blocked["trajectory_bags"][1] == whole["trajectory_bags"][1] == [".playerResults.0", ".playerResults.1",
                                                                                ".playerResults.None"]
        assert blocked["trajectory_bags"][0].equals(whole["trajectory_bags"][0])
        assert blocked["segmented_bags"].equals(whole["segmented_bags"])
        folder = tmp_path / f"scratch-{isinstance(source, pl.LazyFrame)}"
        folder.mkdir()
        written = segmented_bags(source, sampled, n_segments=3, blacklist=BLACKLIST, folder=folder)
        assert isinstance(written, pl.LazyFrame) and written.collect().equals(whole["segmented_bags"])
        written, dropped = trajectory_bags_table(source, sampled, BLACKLIST, folder=folder)
        assert written.collect().equals(whole["trajectory_bags"][0]) and dropped == whole["trajectory_bags"][1]
        assert blocked["winner_classification"].equals(whole["winner_classification"])
        assert blocked["leaky_tokens"][0].equals(whole["leaky_tokens"][0])
        assert blocked["leaky_tokens"][1] == whole["leaky_tokens"][1]
        assert all(a.equals(b) for a, b in zip(blocked["full_tables"], whole["full_tables"], strict=True))
    assert whole["trajectory_bags"][0].height > 0 and whole["winner_classification"]["accuracy"].max() > 0.5


def test_variant_classification_and_selection_read_lazily_what_they_read_whole(tables, tmp_path, monkeypatch):
    tokens, states, games, sampled = tables
    segmented = segmented_bags(tokens, sampled, n_segments=3, blacklist=BLACKLIST)
    path = tmp_path / "segmented_bags.parquet"
    segmented.write_parquet(path, row_group_size=64)
    eager = select_features(segmented, games, k=5, n_estimators=5, seed=1)
    lazy = select_features(pl.scan_parquet(path), games, k=5, n_estimators=5, seed=1)
    assert eager.features.equals(lazy.features) and eager.summary.equals(lazy.summary)
    features = eager.features
    every = sampled.filter(pl.col("frequency") == "full")
    expected = variant_classification_table(tokens, every, games, sampled, features, 0.3, BLACKLIST)
    monkeypatch.setattr(game_blocks_module, "BLOCK_ROWS", 50)
    assert variant_classification_table(tokens.lazy(), every, games, sampled, features, 0.3, BLACKLIST).equals(expected)


def test_the_streamed_tokenizer_writes_what_tokenize_states_returns(tmp_path):
    docs = [{"game": "g", "game_id": g, "state_idx": i,
             "doc": f'{{"turn": {i}, "hand": [{g % 3}, {i}], "name": "p{g}", "gameStatus": "ONGOING"}}'}
            for g in (4, 0, 2, 1, 3) for i in range(3)]  # out of order: the result is sorted all the same
    states = pl.DataFrame(docs, schema_overrides={"state_idx": pl.Int32})
    (tmp_path / "chunks").mkdir()
    streamed = tokenize_states_to(states, tmp_path / "chunks", states_per_file=4)
    assert len(list((tmp_path / "chunks").glob("*.parquet"))) == 5  # 3 states a game, at most 4 a file: a game each
    assert streamed.collect().equals(tokenize_states(states))
    empty = tokenize_states_to(states.clear(), tmp_path / "chunks")
    assert empty.collect().equals(tokenize_states(states.clear()))
