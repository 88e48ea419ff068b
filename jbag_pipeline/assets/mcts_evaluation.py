"""JSON-Bag values inside MCTS: per game, every matchup and its opponent's control (play/mcts_evaluation.py), how each
agent wins (play/patterns.py), and the summary with a verdict per matchup, seat and overall."""

import functools
import time

import dagster as dg
import polars as pl

from jbag_pipeline.assets.common import game_partitions, game_setup, preview, sum_to_one_check
from jbag_pipeline.assets.conditions import SUMMARY_CONDITION
from jbag_pipeline.model.value_tables import make_jsonbag_value
from jbag_pipeline.play.evaluation import split_pair
from jbag_pipeline.play.mcts_evaluation import matchups_with_controls, mcts_summary, play_mcts_evaluation
from jbag_pipeline.play.patterns import pattern_table
from jbag_pipeline.presets import game_run, token_filter_for
from jbag_pipeline.resources import JbagCompute, JbagSettings
from jbag_pipeline.schemas import MCTS_EVALUATION_GAMES_STORED, MCTS_PATTERNS, conform


@dg.asset(group_name="mcts_evaluation", partitions_def=game_partitions,
          check_specs=[dg.AssetCheckSpec("every_matchup_controlled", asset="mcts_evaluation_games")],
          description="One row per game of every MCTS matchup (JSON-Bag MCTS, heuristic MCTS and JSON-Bag OSLA against "
                      "score MCTS; JSON-Bag MCTS against JSON-Bag OSLA and baseline OSLA), the agent in each seat in "
                      "turn, and of each opponent's control (it in every seat), on the same seeds; JSON-Bag agents use "
                      "the value of the game's mcts_value_pair (full-full by default).")
def mcts_evaluation_games(context: dg.AssetExecutionContext, settings: JbagSettings, compute: JbagCompute,
                          selfplay_games: pl.DataFrame, winner_prototypes: pl.LazyFrame,
                          selected_features: pl.LazyFrame):
    game = context.partition_key
    preset = settings.get_preset()
    run = game_run(preset, game)
    n_players, params = game_setup(selfplay_games)
    frequency, variant = split_pair(run.mcts_value_pair)
    value_factory = functools.partial(make_jsonbag_value, winner_prototypes.collect(), selected_features.collect(),
                                      frequency, variant, n_players, token_filter=token_filter_for(preset, game))
    started = time.perf_counter()
    games = play_mcts_evaluation(game, params, run, preset.seed, value_factory, compute.get_compute())
    seconds = time.perf_counter() - started
    per_matchup = games.group_by("agent", "opponent", maintain_order=True).agg(
        pl.len().alias("games"), (pl.col("score") == 1).mean().alias("win_rate"),
        pl.col("cpu_seconds").sum().alias("cpu_seconds"))
    stored = games.select(list(MCTS_EVALUATION_GAMES_STORED))  # CPU time would make reruns differ: metadata has it
    yield dg.Output(stored, metadata={"seconds": seconds, "games": len(games), "per_matchup": preview(per_matchup, 20),
                                      "games_per_seat": run.mcts_eval_games_per_seat})
    played = set(games.select("agent", "opponent").unique().iter_rows())
    yield dg.AssetCheckResult(check_name="every_matchup_controlled",
                              passed=run.mcts_eval_games_per_seat == 0 or played == set(matchups_with_controls()))


@dg.asset(group_name="mcts_evaluation", partitions_def=game_partitions,
          check_specs=[dg.AssetCheckSpec("shares_sum_to_one", asset="mcts_winning_patterns")],
          description="How each agent of the MCTS evaluation plays and wins, per matchup (the control's agent too): "
                      "Connect4 winning-line directions and columns, Can't Stop turn ends and rolls per turn, Dominion "
                      "buys, the other games' action types; counts, per game and share within a kind.")
def mcts_winning_patterns(mcts_evaluation_games: pl.DataFrame):
    games = mcts_evaluation_games
    table = conform(pattern_table(games, ("game", "agent", "opponent")), MCTS_PATTERNS, "mcts_winning_patterns") \
        if len(games) else pl.DataFrame(schema=MCTS_PATTERNS)
    yield dg.Output(table, metadata={"table": preview(table, 40)})
    yield sum_to_one_check(table.rename({"share": "p"}), ["agent", "opponent", "kind"], "shares_sum_to_one")


@dg.asset(group_name="mcts_evaluation", automation_condition=SUMMARY_CONDITION,
          check_specs=[dg.AssetCheckSpec("win_rates_in_unit_interval", asset="mcts_evaluation_summary")],
          description="Per game, MCTS matchup and seat, and overall: win rate (Wilson 95%) beside the control's (the "
                      "opponent in every seat), exact test, Holm across a game's matchups with one opponent, verdict, "
                      "and whether the win rate is decided (half-width at most 0.10).")
def mcts_evaluation_summary(mcts_evaluation_games: pl.DataFrame):
    summary = mcts_summary(mcts_evaluation_games)
    yield dg.Output(summary, metadata={"table": preview(summary.filter(pl.col("scope") == "overall"), 40)})
    rates = summary.select("win_rate_low", "win_rate", "win_rate_high")
    yield dg.AssetCheckResult(check_name="win_rates_in_unit_interval", passed=bool(
        ((rates["win_rate_low"] >= 0) & (rates["win_rate_low"] <= rates["win_rate"])
         & (rates["win_rate"] <= rates["win_rate_high"]) & (rates["win_rate_high"] <= 1)).all()))
