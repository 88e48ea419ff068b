"""winner_prototypes and selected_features rows of a few random games, for tests of the JSON-Bag value."""

from __future__ import annotations

import random

import numpy as np
import polars as pl

from engines.agents import RandomAgent
from engines.match import play_match
from jbag_pipeline.model.prototypes import build_prototypes
from jbag_pipeline.model.tokenize import TokenFilter, tokenize_trajectory
from jbag_pipeline.model.value import JsonBagValue


def lake_tables(game, n_games: int = 6, seed: int = 0, top: int = 60) -> tuple[pl.DataFrame, pl.DataFrame]:
    """winner_prototypes (frequency full) and selected_features (variant full: `top` tokens) from random games."""
    records = [play_match(game, [RandomAgent() for _ in range(game.n_players)], seed=seed + i) for i in range(n_games)]
    bags = [tokenize_trajectory([s.doc for s in r.states], num_suffix=True) for r in records]
    prototypes = build_prototypes([(bag, r.winner) for bag, r in zip(bags, records)])
    rows = [{"game": game.name, "frequency": "full", "seat": seat, "token": token, "count": count, "p": count}
            for seat, bag in prototypes.items() for token, count in bag.items()]
    kept = [t for t in sorted(set().union(*bags)) if TokenFilter().keeps(t)]
    chosen = random.Random(seed).sample(kept, min(top, len(kept)))
    features = pl.DataFrame({"game": [game.name] * len(chosen), "variant": ["full"] * len(chosen), "token": chosen,
                             "importance": [1.0] * len(chosen), "rank": list(range(1, len(chosen) + 1)),
                             "segment": [None] * len(chosen)}, schema_overrides={"segment": pl.Int32})
    return pl.DataFrame(rows, schema_overrides={"seat": pl.Int8}), features


def values_of_bag(value: JsonBagValue, bag: dict[str, float]) -> list[float]:
    """V of every seat for a trajectory bag given as token -> count (filtered and unknown tokens as usual)."""
    counts = np.zeros(len(value.features))
    outside = value.add_bag(bag, counts)
    return value.values_of(counts, outside).tolist()
