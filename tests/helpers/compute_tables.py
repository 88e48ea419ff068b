"""Smoke batches of games played on a compute backend, written as Parquet bytes to compare across backends."""

from __future__ import annotations

import functools
import io
from dataclasses import replace

import orjson
import polars as pl

from engines import load_game
from jbag_pipeline.play.evaluation import play_control, play_evaluation
from jbag_pipeline.play.mcts_evaluation import play_mcts_evaluation
from jbag_pipeline.model.value_tables import make_jsonbag_value
from jbag_pipeline.play.selfplay import play_selfplay, selfplay_seeds
from jbag_pipeline.model.tokenize import tokenize_trajectory
from jbag_pipeline.presets import game_run, get_preset
from jbag_pipeline.model.prototypes import build_prototypes

PRESET = get_preset("smoke")
NO_FEATURES = pl.DataFrame(schema={"game": pl.String, "variant": pl.String, "token": pl.String, "rank": pl.Int32})


def parquet_bytes(table: pl.DataFrame) -> bytes:
    buffer = io.BytesIO()
    table.write_parquet(buffer)
    return buffer.getvalue()


def prototypes_of(games: pl.DataFrame, states: pl.DataFrame, game: str) -> pl.DataFrame:
    """winner_prototypes (frequency full) of self-play tables, for a JSON-Bag value to evaluate."""
    trajectories = []
    for (game_id,), rows in states.sort("game_id", "state_idx").group_by("game_id", maintain_order=True):
        bag = tokenize_trajectory([orjson.loads(doc) for doc in rows["doc"]], num_suffix=True)
        trajectories.append((bag, games.filter(pl.col("game_id") == game_id)["winner"][0]))
    prototypes = build_prototypes(trajectories)
    rows = [{"game": game, "frequency": "full", "seat": seat, "token": token, "count": count, "p": count}
            for seat, bag in prototypes.items() for token, count in bag.items()]
    return pl.DataFrame(rows, schema_overrides={"seat": pl.Int8})


def smoke_tables(compute, game: str = "connect4", n_selfplay: int = 2, games_per_seat: int = 1) -> dict[str, bytes]:
    """Parquet bytes of smoke self-play (n_selfplay games), evaluation, control and the MCTS evaluation
    (games_per_seat per seat)."""
    run = game_run(PRESET, game)
    games, states = play_selfplay(game, run, selfplay_seeds(PRESET.seed, 0, n_selfplay), compute)
    prototypes = prototypes_of(games, states, game)
    n_players = load_game(game, **run.params).n_players

    def factory():
        return make_jsonbag_value(prototypes, NO_FEATURES, "full", "none", n_players)

    evaluation = play_evaluation(game, run.params, "full", "none", factory, games_per_seat, PRESET.seed, compute)
    control = play_control(game, run.params, games_per_seat, PRESET.seed, compute)
    picklable_factory = functools.partial(make_jsonbag_value, prototypes, NO_FEATURES, "full", "none", n_players)
    mcts = play_mcts_evaluation(game, run.params, replace(run, mcts_eval_games_per_seat=games_per_seat), PRESET.seed,
                                picklable_factory, compute)
    return {"selfplay_games": parquet_bytes(games), "selfplay_states": parquet_bytes(states),
            "evaluation_games": parquet_bytes(evaluation.drop("seconds")),
            "evaluation_control": parquet_bytes(control.drop("seconds")),
            "mcts_evaluation_games": parquet_bytes(mcts.drop("cpu_seconds"))}
