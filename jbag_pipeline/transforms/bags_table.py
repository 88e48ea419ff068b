"""Table-level bag transforms: the token blacklist filter and per-frequency trajectory bags."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from jbag_pipeline.transforms.game_blocks import Table, concat_ordered, distinct_tokens, game_blocks, write_ordered
from jbag_pipeline.schemas import TRAJECTORY_BAGS
from jbag_pipeline.storage.sql import run_sql
from jbag_pipeline.model.tokenize import TokenFilter


def dropped_tokens(tokens: Table, blacklist: tuple[str, ...]) -> list[str]:
    """The sorted distinct tokens of `tokens` that blacklisted fields drop (TokenFilter's rule: whole keys,
    ignoring case)."""
    if not blacklist:
        return []
    keep = TokenFilter(blacklist)
    return [t for t in distinct_tokens(tokens) if not keep.keeps(t)]


def filter_tokens(tokens: pl.DataFrame, blacklist: tuple[str, ...]) -> tuple[pl.DataFrame, list[str]]:
    """Drop the tokens of blacklisted fields; returns the kept rows and the sorted dropped tokens."""
    dropped = dropped_tokens(tokens, blacklist)
    if not dropped:
        return tokens, []
    return tokens.filter(~pl.col("token").is_in(dropped)), dropped


def trajectory_bags_table(state_tokens: Table, sampled_states: pl.DataFrame, blacklist: tuple[str, ...],
                          memory_limit: str = "4GB",
                          folder: Path | None = None) -> tuple[pl.DataFrame | pl.LazyFrame, list[str]]:
    """Bags (game, frequency, game_id, token, count, p) of the sampled states, blacklisted tokens filtered first;
    a block of games at a time (game_blocks), in sql/trajectory_bags.sql's order; with a scratch `folder`, a scan
    of files written there (write_ordered), the table never held whole."""
    dropped: set[str] = set()

    def pieces():
        for block in game_blocks(state_tokens):
            kept, gone = filter_tokens(block, blacklist)
            dropped.update(gone)
            ids = pl.col("game_id").is_between(block["game_id"].min(), block["game_id"].max())
            yield run_sql("trajectory_bags", {"state_tokens": kept, "sampled_states": sampled_states.filter(ids)},
                          memory_limit=memory_limit)

    keys = ["game", "frequency"]
    if folder is not None:
        bags = write_ordered(pieces(), keys, TRAJECTORY_BAGS, folder)
        return bags, sorted(dropped)  # the generator has run: dropped is complete
    return concat_ordered(pieces(), keys, TRAJECTORY_BAGS), sorted(dropped)
