"""selfplay_strength: how strong each game's self-play agent is against baseline OSLAs, and its self-play habits."""

import time

import dagster as dg
import polars as pl

from jbag_pipeline.play.strength import play_strength, seconds_per_decision, selfplay_habits, strength_table
from jbag_pipeline.assets.common import game_partitions, game_setup, preview
from jbag_pipeline.presets import game_run
from jbag_pipeline.resources import JbagCompute, JbagSettings


@dg.asset(group_name="selfplay", partitions_def=game_partitions,
          check_specs=[dg.AssetCheckSpec("every_seat_played", asset="selfplay_strength")],
          description="The self-play agent in each seat against baseline OSLAs: win rate (Wilson 95%) beside chance, "
                      "its worst seat, and from the self-play games Can't Stop's rolls and busts per turn.")
def selfplay_strength(context: dg.AssetExecutionContext, settings: JbagSettings, compute: JbagCompute,
                      selfplay_games: pl.DataFrame):
    game = context.partition_key
    preset = settings.get_preset()
    run = game_run(preset, game)
    n_players, params = game_setup(selfplay_games)
    started = time.perf_counter()
    games = play_strength(game, params, run, n_players, preset.seed, compute.get_compute())
    table = strength_table(game, run, games, n_players, selfplay_habits(game, selfplay_games), len(selfplay_games))
    per_seat = games.group_by("seat").agg((pl.col("score") == 1).mean().alias("win_rate"),
                                          pl.len().alias("games")).sort("seat")
    yield dg.Output(table, metadata={"seconds": time.perf_counter() - started, "table": preview(table),
                                     "per_seat": preview(per_seat),
                                     "seconds_per_decision": seconds_per_decision(games) or 0.0})
    seats = sorted(games["seat"].unique().to_list())
    yield dg.AssetCheckResult(check_name="every_seat_played",
                              passed=run.strength_games_per_seat == 0 or seats == list(range(n_players)))
