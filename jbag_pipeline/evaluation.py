"""Evaluation games: one JSON-Bag OSLA against baseline OSLAs (the game's own score) in every other seat.

Every game is seeded from (base_seed, game, frequency, variant, seat, index) by a stable hash, and its
actions are recorded, so engines.match.replay(game, seed, actions) reproduces it. Every column but
`seconds` (wall time) is deterministic.
"""

from __future__ import annotations

import hashlib
import time
from typing import Callable

import orjson
import polars as pl

from engines import load_game
from engines.agents.osla import OSLAAgent
from engines.match import play_match
from jbag_pipeline.jsonbag_agent import DeterminizedJsonBagValue, JsonBagOSLAAgent

EVALUATION_GAMES_SCHEMA = {
    "game": pl.String, "prototype_frequency": pl.String, "feature_variant": pl.String, "seat": pl.Int8,
    "game_index": pl.Int32, "seed": pl.Int64, "params": pl.String, "score": pl.Int8, "jsonbag_score": pl.Float64,
    "opponents_best_score": pl.Float64, "n_actions": pl.Int32, "actions": pl.String, "seconds": pl.Float64,
}


def evaluation_seed(base_seed: int, game: str, frequency: str, variant: str, seat: int, index: int) -> int:
    """A 63-bit game seed from a BLAKE2b hash of the game's coordinates (stable across runs and machines)."""
    key = f"{base_seed}|{game}|{frequency}|{variant}|{seat}|{index}".encode()
    return int.from_bytes(hashlib.blake2b(key, digest_size=8).digest(), "big") >> 1


def play_evaluation(game_name: str, params: dict, frequency: str, variant: str,
                    value_factory: Callable[[], DeterminizedJsonBagValue], games_per_seat: int,
                    base_seed: int) -> pl.DataFrame:
    """`games_per_seat` games with the JSON-Bag OSLA in each seat, baseline OSLAs elsewhere; one row per game.

    value_factory() builds the JSON-Bag value once; play_match re-seeds every agent per game. score is
    the JSON-Bag agent's result: +1 win, 0 draw, -1 loss.
    """
    if games_per_seat < 0:
        raise ValueError(f"play_evaluation: games_per_seat must be >= 0, got {games_per_seat}")
    game = load_game(game_name, **params)
    params_json = orjson.dumps(game.params, option=orjson.OPT_SORT_KEYS).decode()
    jsonbag = JsonBagOSLAAgent(value_factory())
    if jsonbag.value_function.frequency != frequency:
        raise ValueError(f"play_evaluation: value_factory built a value for frequency "
                         f"{jsonbag.value_function.frequency!r}, not {frequency!r}")
    rows = []
    for seat in range(game.n_players):
        agents = [jsonbag if p == seat else OSLAAgent() for p in range(game.n_players)]
        for index in range(games_per_seat):
            seed = evaluation_seed(base_seed, game_name, frequency, variant, seat, index)
            started = time.perf_counter()
            record = play_match(game, agents, seed=seed)
            seconds = time.perf_counter() - started
            opponents = [s for p, s in enumerate(record.scores) if p != seat]
            rows.append({
                "game": game_name, "prototype_frequency": frequency, "feature_variant": variant, "seat": seat,
                "game_index": index, "seed": seed, "params": params_json,
                "score": (record.returns[seat] > 0) - (record.returns[seat] < 0),
                "jsonbag_score": float(record.scores[seat]), "opponents_best_score": float(max(opponents)),
                "n_actions": record.n_actions, "actions": orjson.dumps(record.actions).decode(), "seconds": seconds,
            })
    return pl.DataFrame(rows, schema=EVALUATION_GAMES_SCHEMA)
