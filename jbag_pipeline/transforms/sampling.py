"""Tokenization frequencies: which recorded states of a training trajectory enter its bag.

full takes every state; interval every n_players-th recorded state (state_idx + 1 divisible by n_players)
plus the terminal state; random each state with probability 1/n_players, decided by a splitmix64 hash of
(run_seed, game_id, state_idx), computed by sql/sampled_states.sql (tests/helpers/sampling.py replicates it
in Python).
"""

from __future__ import annotations

import polars as pl

from jbag_pipeline.storage.sql import run_sql
from jbag_pipeline.model.tables import require_columns
from jbag_pipeline.model.variants import FREQUENCIES  # defined with the model; kept importable from here
from jbag_pipeline.schemas import SAMPLED_STATES

__all__ = ["FREQUENCIES", "sampled_states"]


def sampled_states(states: pl.DataFrame | pl.LazyFrame, games: pl.DataFrame, run_seed: int,
                   memory_limit: str = "4GB") -> pl.DataFrame:
    """(game, frequency, game_id, state_idx) for the three frequencies, computed by sql/sampled_states.sql."""
    require_columns(states, "states", ("game", "game_id", "state_idx", "is_terminal"))
    require_columns(games, "games", ("game", "game_id", "n_players"))
    states = states.lazy().select("game", "game_id", "state_idx", "is_terminal").collect()
    games = games.select("game", "game_id", "n_players")
    orphans = states.join(games, on=["game", "game_id"], how="anti")
    if not orphans.is_empty():
        game, game_id = orphans.row(0)[:2]
        raise ValueError(f"states of {len(orphans)} rows have no games row, e.g. game {game!r} game_id {game_id}")
    bad = games.filter(pl.col("n_players").is_null() | (pl.col("n_players") < 1))
    if not bad.is_empty():
        raise ValueError(f"games has n_players < 1 or null, e.g. game {bad['game'][0]!r} game_id {bad['game_id'][0]}")
    sampled = run_sql("sampled_states", {"states": states, "games": games}, {"run_seed": int(run_seed)},
                      memory_limit=memory_limit)
    return sampled.cast(SAMPLED_STATES)
