"""Table-level bag transforms: the outcome-token filter and per-frequency trajectory bags."""

from __future__ import annotations

import polars as pl

from jbag_pipeline.sql import run_sql


def filter_tokens(tokens: pl.DataFrame, blacklist: tuple[str, ...]) -> tuple[pl.DataFrame, list[str]]:
    """Drop tokens containing any blacklisted substring (ignoring case, as the reference and TokenFilter do);
    returns the kept rows and the sorted dropped tokens."""
    if not blacklist:
        return tokens, []
    hit = pl.col("token").str.contains_any(list(blacklist), ascii_case_insensitive=True)
    dropped = tokens.filter(hit)["token"].unique().sort().to_list()
    return tokens.filter(~hit), dropped


def trajectory_bags_table(state_tokens: pl.DataFrame, sampled_states: pl.DataFrame, blacklist: tuple[str, ...],
                          memory_limit: str = "4GB") -> tuple[pl.DataFrame, list[str]]:
    """Bags (game, frequency, game_id, token, count, p) of the sampled states, outcome tokens filtered first."""
    kept, dropped = filter_tokens(state_tokens, blacklist)
    bags = run_sql("trajectory_bags", {"state_tokens": kept, "sampled_states": sampled_states},
                   memory_limit=memory_limit)
    return bags, dropped
