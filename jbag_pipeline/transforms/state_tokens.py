"""Tokenize recorded states into the long `state_tokens` table (one row per state and token)."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from jbag_pipeline.model.tokenize import parse_json, tokenize_state
from jbag_pipeline.schemas import STATE_TOKENS
from jbag_pipeline.transforms.game_blocks import game_blocks

MAX_COUNT = 2**63 - 1


CHUNK_STATES = 500  # states per Polars chunk: bounds the Python lists held at once (a 7 Wonders state has ~600 tokens)


def tokenize_states(states: pl.DataFrame, *, mode: str = "both", num_suffix: bool = True) -> pl.DataFrame:
    """Tokens of every state of a `selfplay_states`-shaped table, sorted by (game_id, state_idx, token)."""
    columns = states.select("game", "game_id", "state_idx", "doc")
    chunks = [_tokenize_chunk(columns.slice(start, CHUNK_STATES), mode, num_suffix)
              for start in range(0, len(columns), CHUNK_STATES)]
    table = pl.concat(chunks) if chunks else pl.DataFrame(schema=STATE_TOKENS)
    return table.sort("game_id", "state_idx", "token")


STATES_PER_FILE = 1_000  # states per scratch file of tokenize_states_to (about 2M token rows in 7 Wonders)


def tokenize_states_to(states: pl.DataFrame | pl.LazyFrame, folder: Path, *, mode: str = "both",
                       num_suffix: bool = True, states_per_file: int = STATES_PER_FILE) -> pl.LazyFrame:
    """tokenize_states of one game's states without holding its table: blocks of whole games (ascending game_id),
    each tokenized, sorted and written to a Parquet file in `folder`, which must outlive the returned scan of
    the files in order (the same rows in the same order as tokenize_states)."""
    files = []
    for block in game_blocks(states, rows=states_per_file, columns=["game", "game_id", "state_idx", "doc"]):
        path = Path(folder) / f"state_tokens-{len(files):05d}.parquet"
        tokenize_states(block, mode=mode, num_suffix=num_suffix).write_parquet(path)
        files.append(path)
    return pl.scan_parquet(files) if files else pl.LazyFrame(schema=STATE_TOKENS)


def _tokenize_chunk(states: pl.DataFrame, mode: str, num_suffix: bool) -> pl.DataFrame:
    games, ids, idxs, tokens, counts = [], [], [], [], []
    for game, game_id, state_idx, doc in states.iter_rows():
        bag = tokenize_state(parse_json(doc), mode=mode, num_suffix=num_suffix)
        too_big = next((t for t, c in bag.items() if c > MAX_COUNT), None)
        if too_big is not None:
            raise ValueError(f"{game} game {game_id} state {state_idx}: token {too_big!r} counts {bag[too_big]}, "
                             f"beyond the 64-bit count column (a positive integer that large cannot be a count)")
        n = len(bag)
        games.extend([game] * n)
        ids.extend([game_id] * n)
        idxs.extend([state_idx] * n)
        tokens.extend(bag.keys())
        counts.extend(bag.values())
    return pl.DataFrame({"game": games, "game_id": ids, "state_idx": idxs, "token": tokens, "count": counts},
                        schema=STATE_TOKENS)
