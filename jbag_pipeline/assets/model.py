"""JSON-Bag model assets per game: state tokens, sampled states, trajectory bags, winner prototypes, P-NNS accuracy."""

import dagster as dg
import polars as pl

from jbag_pipeline.assets.classification import accuracy_check
from jbag_pipeline.assets.common import game_partitions, preview, sum_to_one_check
from jbag_pipeline.storage.bags_table import trajectory_bags_table
from jbag_pipeline.analysis.classification import winner_classification_table
from jbag_pipeline.resources import JbagSettings
from jbag_pipeline.storage.sampling import sampled_states as sample_states
from jbag_pipeline.storage.sql import run_sql
from jbag_pipeline.model.state_tokens import tokenize_states


@dg.asset(group_name="model", partitions_def=game_partitions,
          check_specs=[dg.AssetCheckSpec("tokens_valid", asset="state_tokens")],
          description="Token counts of every recorded state (JSON-Bag mode both, positive-integer rule on).")
def state_tokens(selfplay_states: pl.DataFrame):
    tokens = tokenize_states(selfplay_states)
    yield dg.Output(tokens, metadata={"vocabulary": tokens["token"].n_unique()})
    bad = tokens.filter(pl.col("token").is_null() | (pl.col("count") < 1))
    yield dg.AssetCheckResult(check_name="tokens_valid", passed=bad.is_empty(),
                              metadata={"null_tokens_or_nonpositive_counts": len(bad)})


@dg.asset(group_name="model", partitions_def=game_partitions,
          check_specs=[dg.AssetCheckSpec("terminal_state_in_interval", asset="sampled_states")],
          description="Which recorded states enter a training bag under each tokenization frequency.")
def sampled_states(settings: JbagSettings, selfplay_states: pl.DataFrame, selfplay_games: pl.DataFrame):
    sampled = sample_states(selfplay_states, selfplay_games, settings.get_preset().seed)
    counts = sampled.group_by("frequency").len().sort("frequency")
    yield dg.Output(sampled, metadata={"states_per_frequency": preview(counts)})
    terminal = selfplay_states.filter("is_terminal").select("game_id", "state_idx")
    interval = sampled.filter(pl.col("frequency") == "interval").select("game_id", "state_idx")
    missing = terminal.join(interval, on=["game_id", "state_idx"], how="anti")
    yield dg.AssetCheckResult(check_name="terminal_state_in_interval", passed=missing.is_empty(),
                              metadata={"games_missing_terminal": len(missing)})


@dg.asset(group_name="model", partitions_def=game_partitions,
          check_specs=[dg.AssetCheckSpec("bags_sum_to_one", asset="trajectory_bags")],
          description="One normalised bag per (frequency, game): the sampled states' tokens, the game's blacklist "
                      "(outcome and turn-order fields) filtered.")
def trajectory_bags(context: dg.AssetExecutionContext, settings: JbagSettings, state_tokens: pl.DataFrame,
                    sampled_states: pl.DataFrame):
    game = context.partition_key
    preset = settings.get_preset()
    bags, dropped = trajectory_bags_table(state_tokens, sampled_states, preset.blacklist_for(game),
                                          preset.duckdb_memory_limit)
    yield dg.Output(bags, metadata={
        "token_filter": dg.MetadataValue.md(
            f"blacklisted fields {list(preset.blacklist_for(game))} removed {len(dropped)} distinct tokens: "
            + ", ".join(f"`{t}`" for t in dropped[:20]) + (" ..." if len(dropped) > 20 else "")),
    })
    yield sum_to_one_check(bags, ["frequency", "game_id"], "bags_sum_to_one")


@dg.asset(group_name="model", partitions_def=game_partitions,
          check_specs=[dg.AssetCheckSpec("prototypes_sum_to_one", asset="winner_prototypes")],
          description="Per frequency and seat: the normalised token distribution of the games that seat won.")
def winner_prototypes(settings: JbagSettings, trajectory_bags: pl.DataFrame, selfplay_games: pl.DataFrame):
    prototypes = run_sql("winner_prototypes", {"trajectory_bags": trajectory_bags, "games": selfplay_games},
                         memory_limit=settings.get_preset().duckdb_memory_limit)
    sizes = prototypes.group_by("frequency", "seat").agg(pl.len().alias("tokens")).sort("frequency", "seat")
    top = prototypes.filter(pl.col("frequency") == "full").sort(["seat", "p"], descending=[False, True]) \
        .group_by("seat", maintain_order=True).head(5)
    yield dg.Output(prototypes, metadata={"tokens_per_prototype": preview(sizes, 30),
                                          "top_tokens_full": preview(top, 40)})
    yield sum_to_one_check(prototypes, ["frequency", "seat"], "prototypes_sum_to_one")


@dg.asset(group_name="model", partitions_def=game_partitions,
          check_specs=[dg.AssetCheckSpec("accuracy_in_range", asset="winner_classification")],
          description="P-NNS winner prediction on held-out games from every state's tokens, whole and cut at "
                      "25/50/75%, with a Wilson interval beside the majority seat (per frequency and variant: "
                      "variant_classification).")
def winner_classification(context: dg.AssetExecutionContext, settings: JbagSettings, state_tokens: pl.DataFrame,
                          selfplay_states: pl.DataFrame, selfplay_games: pl.DataFrame):
    preset = settings.get_preset()
    table = winner_classification_table(state_tokens, selfplay_states, selfplay_games, test_share=preset.test_share,
                                        blacklist=preset.blacklist_for(context.partition_key))
    yield dg.Output(table, metadata={"results": preview(table, 20)})
    yield accuracy_check(table, "winner_classification")
