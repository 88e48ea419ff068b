"""selfplay_tuning (opt-in): the preset's grid of MCTS candidates against each game's self-play agent."""

import time

import dagster as dg

from engines import load_game
from jbag_pipeline.play.tuning import play_tuning, tuning_table
from jbag_pipeline.assets.common import game_partitions, preview
from jbag_pipeline.presets import game_run, tuning_candidates
from jbag_pipeline.resources import JbagCompute, JbagSettings
from jbag_pipeline.run_policy import OPT_IN, YES


@dg.asset(group_name="selfplay", partitions_def=game_partitions, tags={OPT_IN: YES},
          description="Each MCTS candidate of the preset's tuning grid in each seat against the game's self-play "
                      "agent: win rate (Wilson 95%), CPU seconds per decision, Can't Stop's rolls and busts per "
                      "turn; best first. Not in the default selection.")
def selfplay_tuning(context: dg.AssetExecutionContext, settings: JbagSettings, compute: JbagCompute):
    game = context.partition_key
    preset = settings.get_preset()
    run = game_run(preset, game)
    candidates = tuning_candidates(preset, game)
    n_players = load_game(game, **run.params).n_players
    started = time.perf_counter()
    games = play_tuning(game, run.params, run, candidates, n_players, preset.seed, run.tuning_games_per_seat,
                        compute.get_compute())
    table = tuning_table(game, run, candidates, games, n_players)
    note = "" if candidates else f"preset {preset.name!r} has no tuning grid for {game}"
    return dg.Output(table, metadata={"seconds": time.perf_counter() - started, "table": preview(table, 20),
                                      "note": note or "grid played", "games": len(games)})
