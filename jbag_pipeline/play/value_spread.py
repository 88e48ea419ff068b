"""How much a value tells a decision's moves apart, against how much one move's value moves between determinizations:
why a value that ranks well in OSLA (one determinization, every move on it) may not steer MCTS (each move on the
determinizations its iterations drew, beside UCB's exploration term).

Run: python -m jbag_pipeline.play.value_spread DATA_DIR GAME [PAIR] (the lake's winner_prototypes and
selected_features of GAME; PAIR "frequency-variant", default full-full).
"""

from __future__ import annotations

import random
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path
import numpy as np
import polars as pl

import jbag_pipeline.storage.lake as lake
from engines import load_game
from engines.agents import ValueFunction
from jbag_pipeline.model.value import DeterminizedJsonBagValue
from jbag_pipeline.model.value_tables import make_jsonbag_value
from jbag_pipeline.play.evaluation import split_pair
from jbag_pipeline.presets import get_preset, token_filter_for


@dataclass(frozen=True)
class ValueSpread:
    """Medians over the decisions measured: the spread (max - min) of V over a decision's moves within one
    determinization, and of one move's V over the determinizations."""

    decisions: int
    across_moves: float
    across_determinizations: float


def value_spread(game_name: str, value: ValueFunction, games: int = 3, every: int = 5, determinizations: int = 5,
                 seed: int = 0) -> ValueSpread:
    """Every `every`-th decision with a choice of `games` seeded random games of `game_name`: the value sees one
    determinization of the decision (begin_decision, as OSLA's), then values every move's child on each of
    `determinizations` fresh ones."""
    for name, number in (("games", games), ("every", every), ("determinizations", determinizations)):
        if isinstance(number, bool) or not isinstance(number, int) or number < 1:
            raise ValueError(f"value_spread: {name} must be an int >= 1, got {number!r}")
    game, rng = load_game(game_name), random.Random(seed)
    across_moves, across_determinizations = [], []
    for index in range(games):
        value.reset()
        state, choices = game.new_state(seed=seed + index), 0
        while not state.is_terminal():
            legal = state.legal_actions()
            if len(legal) > 1:
                if choices % every == 0:
                    seat = state.current_player
                    value.begin_decision(state.determinize(seat, rng), seat)
                    table = np.array([value.values(_children(state.determinize(seat, rng), legal), seat)
                                      for _ in range(determinizations)], dtype=float)
                    across_moves.append(float(np.median(np.ptp(table, axis=1))))
                    across_determinizations.append(float(np.median(np.ptp(table, axis=0))))
                choices += 1
            state.apply(legal[rng.randrange(len(legal))])
    if not across_moves:
        raise ValueError(f"value_spread: {games} random games of {game_name} had no decision with a choice")
    return ValueSpread(len(across_moves), statistics.median(across_moves), statistics.median(across_determinizations))


def _children(sample, legal: list) -> list:
    children = []
    for action in legal:
        child = sample.clone()
        child.apply(action)
        children.append(child)
    return children


def lake_value(data_dir: Path, game_name: str, pair: str) -> DeterminizedJsonBagValue:
    """The JSON-Bag value of `pair` from the lake under `data_dir` (its token filter the demo preset's)."""
    frequency, variant = split_pair(pair)
    tables = [lake.read_table(data_dir, name, {"game": game_name}).with_columns(pl.lit(game_name).alias("game"))
              for name in ("winner_prototypes", "selected_features")]
    n_players = load_game(game_name).n_players
    return make_jsonbag_value(*tables, frequency, variant, n_players,
                              token_filter=token_filter_for(get_preset("demo"), game_name))


if __name__ == "__main__":
    if len(sys.argv) not in (3, 4):
        sys.exit("usage: python -m jbag_pipeline.play.value_spread DATA_DIR GAME [PAIR]")
    spread = value_spread(sys.argv[2], lake_value(Path(sys.argv[1]), sys.argv[2], (sys.argv[3:] or ["full-full"])[0]))
    print(f"{sys.argv[2]}: {spread.decisions} decisions; median spread of V over a decision's moves "
          f"{spread.across_moves:.2g}, of one move's V over determinizations {spread.across_determinizations:.2g}")
