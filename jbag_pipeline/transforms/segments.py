"""Segmented datasets: D_i holds every trajectory truncated after the i-th of N_S equal segments.

Segments split a trajectory by recorded-state index: state j of n lies in segment floor(j * N_S / n) + 1
(1-based), so segment sizes differ by at most one and D_(N_S) is the whole trajectory.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from jbag_pipeline.transforms.bags_table import filter_tokens
from jbag_pipeline.transforms.game_blocks import Table, concat_ordered, game_blocks, write_ordered
from jbag_pipeline.schemas import SEGMENTED_BAGS
from jbag_pipeline.storage.sql import run_sql
from jbag_pipeline.model.tables import require_columns


def segmented_bags(state_tokens: Table, sampled_states: pl.DataFrame, n_segments: int = 4,
                   blacklist: tuple[str, ...] = (), memory_limit: str = "4GB",
                   folder: Path | None = None) -> pl.DataFrame | pl.LazyFrame:
    """(game, frequency, segment, game_id, token, p): the bag of each sampled trajectory truncated after each segment,
    a block of games at a time (game_blocks), in sql/segmented_bags.sql's order; with a scratch `folder`, a scan of
    files written there (write_ordered: the table, several times state_tokens' games, is never held whole).

    Trajectory lengths come from the unfiltered `state_tokens` (max state_idx + 1), so filtering tokens never
    moves a segment boundary.
    """
    if n_segments < 1:
        raise ValueError(f"n_segments must be >= 1, got {n_segments}")
    for name, frame, columns in (("state_tokens", state_tokens, ("game", "game_id", "state_idx", "token", "count")),
                                 ("sampled_states", sampled_states, ("game", "frequency", "game_id", "state_idx"))):
        require_columns(frame, name, columns)
    lengths = state_tokens.lazy().group_by("game", "game_id").agg(
        (pl.col("state_idx").max() + 1).alias("n_states")).collect()
    orphans = sampled_states.join(lengths, on=["game", "game_id"], how="anti")
    if not orphans.is_empty():
        row = orphans.row(0, named=True)
        raise ValueError(f"sampled_states has {len(orphans)} rows of trajectories without state_tokens, "
                         f"e.g. game {row['game']!r} game_id {row['game_id']}")
    def pieces():
        for block in game_blocks(state_tokens):
            kept, _ = filter_tokens(block, tuple(blacklist))
            ids = pl.col("game_id").is_between(block["game_id"].min(), block["game_id"].max())
            yield run_sql("segmented_bags", {"state_tokens": kept, "sampled_states": sampled_states.filter(ids),
                                             "trajectory_lengths": lengths.filter(ids)},
                          {"n_segments": int(n_segments)}, memory_limit=memory_limit)

    keys = ["game", "frequency", "segment"]
    if folder is not None:
        return write_ordered(pieces(), keys, SEGMENTED_BAGS, folder)
    return concat_ordered(pieces(), keys, SEGMENTED_BAGS)
