"""Table-level bag transforms: the token blacklist filter and per-frequency trajectory bags."""

from __future__ import annotations

import polars as pl

from jbag_pipeline.storage.sql import run_sql
from jbag_pipeline.model.tokenize import TokenFilter


def dropped_tokens(tokens: pl.DataFrame, blacklist: tuple[str, ...]) -> list[str]:
    """The sorted distinct tokens of `tokens` that blacklisted fields drop (TokenFilter's rule: whole keys,
    ignoring case)."""
    if not blacklist:
        return []
    keep = TokenFilter(blacklist)
    return sorted(t for t in tokens["token"].unique().to_list() if not keep.keeps(t))


def filter_tokens(tokens: pl.DataFrame, blacklist: tuple[str, ...]) -> tuple[pl.DataFrame, list[str]]:
    """Drop the tokens of blacklisted fields; returns the kept rows and the sorted dropped tokens."""
    dropped = dropped_tokens(tokens, blacklist)
    if not dropped:
        return tokens, []
    return tokens.filter(~pl.col("token").is_in(dropped)), dropped


def trajectory_bags_table(state_tokens: pl.DataFrame, sampled_states: pl.DataFrame, blacklist: tuple[str, ...],
                          memory_limit: str = "4GB") -> tuple[pl.DataFrame, list[str]]:
    """Bags (game, frequency, game_id, token, count, p) of the sampled states, blacklisted tokens filtered first."""
    kept, dropped = filter_tokens(state_tokens, blacklist)
    bags = run_sql("trajectory_bags", {"state_tokens": kept, "sampled_states": sampled_states},
                   memory_limit=memory_limit)
    return bags, dropped
