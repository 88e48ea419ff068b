"""Tokenize an ingest batch before anything is written, so a game lands with its tokens or not at all.

A game whose tokens do not fit the lake is quarantined with its file and position: a state whose token count
exceeds 64 bits (positive integers summed under one path), or a token whose counts over the game's states sum
beyond 64 bits (its bag, trajectory_bags.sql, could not be stored). Only the batch's games are tokenized, with
stack room for the documented nesting limit (read.MAX_DEPTH) however deep the caller's stack already is.
"""

from __future__ import annotations

import sys
from contextlib import contextmanager
from dataclasses import replace

import polars as pl

from jbag_pipeline.ingest.read import MAX_DEPTH
from jbag_pipeline.ingest.trajectories import IngestBatch, file_mtime
from jbag_pipeline.transforms.state_tokens import MAX_COUNT, tokenize_states
from jbag_pipeline.schemas import INGEST_QUARANTINE, STATE_TOKENS


def tokenize_batch(batch: IngestBatch) -> IngestBatch:
    """`batch` with its tokens (each game's ingest mode, positive-integer rule on); games that do not fit move
    to the quarantine."""
    modes = dict(batch.sources.select("game", "mode").unique().iter_rows())
    tokens, problems = [], []
    for (game,), states in batch.states.partition_by("game", as_dict=True, maintain_order=True).items():
        game_tokens, game_problems = tokenize_games(states, modes[game], batch.positions)
        tokens.append(game_tokens)
        problems += game_problems
    table = pl.concat(tokens) if tokens else pl.DataFrame(schema=STATE_TOKENS)
    if not problems:
        return replace(batch, tokens=table)
    bad = pl.DataFrame([(game, game_id) for game, game_id, _, _ in problems], schema={"game": pl.String,
                                                                                     "game_id": pl.Int64}, orient="row")
    files = dict(((g, i), f) for g, i, f in batch.sources.select("game", "game_id", "file").iter_rows())
    rows = [{"game": game, "file": files[game, game_id], "line_or_index": position, "reason": reason,
             "file_mtime": file_mtime(files[game, game_id])} for game, game_id, position, reason in problems]
    quarantine = pl.concat([batch.quarantine, pl.DataFrame(rows, schema=INGEST_QUARANTINE)])

    def keep(frame: pl.DataFrame) -> pl.DataFrame:
        return frame.join(bad, on=["game", "game_id"], how="anti", maintain_order="left")

    return IngestBatch(games=keep(batch.games), states=keep(batch.states), sources=keep(batch.sources),
                       quarantine=quarantine.sort("file", "line_or_index", nulls_last=False), files=batch.files,
                       positions=keep(batch.positions), tokens=table)


FRAMES_PER_LEVEL = 3  # the tokenizer's recursion per nesting level (mode both: walk_both, _walk_dict, ...)


@contextmanager
def stack_room_for_nesting():
    """Raise the recursion limit by what MAX_DEPTH levels of tokenizing need on top of the current stack (a
    Dagster step is already a few hundred frames deep); restored after."""
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(old + FRAMES_PER_LEVEL * MAX_DEPTH)
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


def tokenize_games(states: pl.DataFrame, mode: str,
                   positions: pl.DataFrame | None = None) -> tuple[pl.DataFrame, list[tuple]]:
    """Tokens of the games of one partition's `states` that fit, and (game, game_id, position, reason) of those
    that do not; `positions` (game, game_id, state_idx, position) says where a state was read."""
    try:
        with stack_room_for_nesting():
            tokens = tokenize_states(states, mode=mode, num_suffix=True)
        problems = []
    except (ValueError, RecursionError):  # a count beyond 64 bits, or too deep: find each such game
        tokens, problems = _tokenize_each(states, mode, positions)
    sums = (tokens.group_by("game", "game_id", "token").agg(pl.col("count").cast(pl.Int128).sum())
            .filter(pl.col("count") > MAX_COUNT).sort("game_id", "token"))
    for game, game_id, token, total in sums.unique(["game", "game_id"], keep="first", maintain_order=True).iter_rows():
        problems.append((game, game_id, _position(positions, game, game_id, 0),
                         f"token {token!r} counts {total} over the game's states, beyond the 64-bit count of its bag "
                         f"(game_id {game_id} is not ingested)"))
    if sums.is_empty():
        return tokens, problems
    return tokens.filter(~pl.col("game_id").is_in(sums["game_id"].implode())), problems


def _tokenize_each(states: pl.DataFrame, mode: str, positions: pl.DataFrame) -> tuple[pl.DataFrame, list[tuple]]:
    """Tokenize game by game, and state by state within a game that fails, to name the state that does not fit."""
    tokens, problems = [], []
    for (_, game_id), one_game in states.partition_by("game", "game_id", as_dict=True, maintain_order=True).items():
        try:
            with stack_room_for_nesting():
                tokens.append(tokenize_states(one_game, mode=mode, num_suffix=True))
            continue
        except (ValueError, RecursionError):
            pass
        for row in range(len(one_game)):
            state = one_game.slice(row, 1)
            try:
                with stack_room_for_nesting():
                    tokenize_states(state, mode=mode, num_suffix=True)
            except (ValueError, RecursionError) as exc:
                game, state_idx = state["game"][0], state["state_idx"][0]
                reason = f"nested too deep to tokenize (over {MAX_DEPTH} levels)" if isinstance(exc, RecursionError) \
                    else str(exc)
                problems.append((game, game_id, _position(positions, game, game_id, state_idx),
                                 f"{reason} (game_id {game_id} is not ingested)"))
                break
    return (pl.concat(tokens) if tokens else pl.DataFrame(schema=STATE_TOKENS)), problems


def _position(positions: pl.DataFrame | None, game: str, game_id: int, state_idx: int) -> int | None:
    """The line or element in its file of one state of the batch."""
    if positions is None:
        return None
    found = positions.filter((pl.col("game") == game) & (pl.col("game_id") == game_id)
                             & (pl.col("state_idx") == state_idx))["position"]
    return found[0] if len(found) else None
