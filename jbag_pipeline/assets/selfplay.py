"""Self-play assets: MCTS games per game partition, written as the `selfplay_games` and `selfplay_states` tables."""

import dagster as dg

from jbag_pipeline.assets.common import game_partitions, preview
from jbag_pipeline.presets import game_run
from jbag_pipeline.resources import JbagCompute, JbagSettings
from jbag_pipeline.play.selfplay import play_selfplay, selfplay_seeds


class SelfplayConfig(dg.Config):
    """Which block of seeds to play; a scheduled rerun moves to the next block."""

    block: int = 0


@dg.multi_asset(
    partitions_def=game_partitions,
    outs={
        "selfplay_games": dg.AssetOut(group_name="selfplay", description=(
            "One row per self-play game: seed, seats, agents, winner, scores, actions.")),
        "selfplay_states": dg.AssetOut(group_name="selfplay", description=(
            "The JSON of every state recorded after a turn ended, and the terminal state.")),
    },
    check_specs=[
        dg.AssetCheckSpec("every_game_has_states", asset="selfplay_states"),
        dg.AssetCheckSpec("game_ids_unique", asset="selfplay_games"),
    ],
)
def selfplay(context: dg.AssetExecutionContext, config: SelfplayConfig, settings: JbagSettings, compute: JbagCompute):
    game = context.partition_key
    preset = settings.get_preset()
    run = game_run(preset, game)
    seeds = selfplay_seeds(preset.seed, config.block, run.selfplay_games)
    games, states = play_selfplay(game, run, seeds, compute.get_compute())
    winners = games.group_by("winner").len().sort("winner", nulls_last=True)
    yield dg.Output(games, output_name="selfplay_games", metadata={
        "preset": preset.name, "mcts_iterations": run.mcts_iterations, "seed_block": config.block,
        "winners (null = draw)": preview(winners), "preview": preview(games.drop("actions")),
    })
    yield dg.Output(states, output_name="selfplay_states",
                    metadata={"mean_states_per_game": float(games["n_states"].mean())})
    missing = set(games["game_id"]) - set(states["game_id"])
    yield dg.AssetCheckResult(asset_key="selfplay_states", check_name="every_game_has_states",
                              passed=not missing, metadata={"games_without_states": len(missing)})
    yield dg.AssetCheckResult(asset_key="selfplay_games", check_name="game_ids_unique",
                              passed=games["game_id"].n_unique() == len(games))
