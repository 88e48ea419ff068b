"""Tokenization frequencies: which recorded states of a training trajectory enter its bag.

full takes every state; interval every n_players-th recorded state (state_idx + 1 divisible by n_players)
plus the terminal state; random each state with probability 1/n_players, decided by a splitmix64 hash of
(run_seed, game_id, state_idx) that sql/sampled_states.sql computes identically.
"""

from __future__ import annotations

import polars as pl

from jbag_pipeline.sql import run_sql
from jbag_pipeline.tables import require_columns

FREQUENCIES = ("full", "interval", "random")
SAMPLED_SCHEMA = {"game": pl.String, "frequency": pl.String, "game_id": pl.Int64, "state_idx": pl.Int32}

_MASK64 = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15
_MIX1 = 0xBF58476D1CE4E5B9
_MIX2 = 0x94D049BB133111EB


def state_hash(run_seed: int, game_id: int, state_idx: int) -> int:
    """64-bit hash: splitmix64 output number game_id * 2^32 + state_idx + 1 from seed run_seed (all mod 2^64)."""
    counter = (((game_id << 32) + state_idx) & _MASK64) + 1
    z = ((run_seed & _MASK64) + counter * _GOLDEN) & _MASK64
    z = ((z ^ (z >> 30)) * _MIX1) & _MASK64
    z = ((z ^ (z >> 27)) * _MIX2) & _MASK64
    return z ^ (z >> 31)


def random_keeps(run_seed: int, game_id: int, state_idx: int, n_players: int) -> bool:
    """Whether the random frequency keeps this state: hash * n_players < 2^64, probability 1/n_players."""
    return state_hash(run_seed, game_id, state_idx) * n_players <= _MASK64


def sample_state_indices(n_states: int, terminal_idx: int | None, n_players: int, frequency: str,
                         run_seed: int, game_id: int) -> list[int]:
    """Sorted indices of the recorded states that `frequency` keeps from a trajectory of `n_states` states."""
    if n_states < 0:
        raise ValueError(f"n_states must be >= 0, got {n_states} (game_id {game_id})")
    if n_players < 1:
        raise ValueError(f"n_players must be >= 1, got {n_players} (game_id {game_id})")
    if terminal_idx is not None and not 0 <= terminal_idx < n_states:
        raise ValueError(f"terminal_idx {terminal_idx} outside 0..{n_states - 1} (game_id {game_id})")
    if frequency == "full":
        return list(range(n_states))
    if frequency == "interval":
        return [j for j in range(n_states) if (j + 1) % n_players == 0 or j == terminal_idx]
    if frequency == "random":
        return [j for j in range(n_states) if random_keeps(run_seed, game_id, j, n_players)]
    raise ValueError(f"unknown frequency {frequency!r}; expected one of {list(FREQUENCIES)}")


def sampled_states(states: pl.DataFrame, games: pl.DataFrame, run_seed: int,
                   memory_limit: str = "4GB") -> pl.DataFrame:
    """(game, frequency, game_id, state_idx) for the three frequencies, computed by sql/sampled_states.sql."""
    require_columns(states, "states", ("game", "game_id", "state_idx", "is_terminal"))
    require_columns(games, "games", ("game", "game_id", "n_players"))
    states = states.select("game", "game_id", "state_idx", "is_terminal")
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
    return sampled.cast(SAMPLED_SCHEMA)
