"""JSON-Bag model assets per game: state tokens, sampled states, trajectory bags, winner prototypes, P-NNS accuracy."""

import dagster as dg
import polars as pl

import jbag_pipeline.storage.lake as lake
from jbag_pipeline.assets.classification import accuracy_check
from jbag_pipeline.assets.common import game_partitions, preview, read_partition, sum_to_one_check, table_metadata
from jbag_pipeline.storage.bags_table import trajectory_bags_table
from jbag_pipeline.analysis.classification import winner_classification_table
from jbag_pipeline.resources import JbagSettings
from jbag_pipeline.storage.sampling import sampled_states as sample_states
from jbag_pipeline.storage.sql import run_sql
from jbag_pipeline.model.state_tokens import tokenize_states


@dg.asset(group_name="model", partitions_def=game_partitions, deps=["selfplay_states"],
          check_specs=[dg.AssetCheckSpec("tokens_valid", asset="state_tokens")],
          description="Token counts of every recorded state (JSON-Bag mode both, positive-integer rule on).")
def state_tokens(context: dg.AssetExecutionContext, settings: JbagSettings):
    game = context.partition_key
    tokens = tokenize_states(read_partition(settings, "selfplay_states", game))
    path = lake.write_table(tokens, settings.root(), "state_tokens", {"game": game})
    yield dg.MaterializeResult(metadata={**table_metadata(tokens, path), "vocabulary": tokens["token"].n_unique()})
    bad = tokens.filter(pl.col("token").is_null() | (pl.col("count") < 1))
    yield dg.AssetCheckResult(check_name="tokens_valid", passed=bad.is_empty(),
                              metadata={"null_tokens_or_nonpositive_counts": len(bad)})


@dg.asset(group_name="model", partitions_def=game_partitions, deps=["selfplay_states", "selfplay_games"],
          check_specs=[dg.AssetCheckSpec("terminal_state_in_interval", asset="sampled_states")],
          description="Which recorded states enter a training bag under each tokenization frequency.")
def sampled_states(context: dg.AssetExecutionContext, settings: JbagSettings):
    game = context.partition_key
    states = read_partition(settings, "selfplay_states", game)
    games = read_partition(settings, "selfplay_games", game)
    sampled = sample_states(states, games, settings.get_preset().seed)
    path = lake.write_table(sampled, settings.root(), "sampled_states", {"game": game})
    counts = sampled.group_by("frequency").len().sort("frequency")
    yield dg.MaterializeResult(metadata={**table_metadata(sampled, path), "states_per_frequency": preview(counts)})
    terminal = states.filter("is_terminal").select("game_id", "state_idx")
    interval = sampled.filter(pl.col("frequency") == "interval").select("game_id", "state_idx")
    missing = terminal.join(interval, on=["game_id", "state_idx"], how="anti")
    yield dg.AssetCheckResult(check_name="terminal_state_in_interval", passed=missing.is_empty(),
                              metadata={"games_missing_terminal": len(missing)})


@dg.asset(group_name="model", partitions_def=game_partitions, deps=["state_tokens", "sampled_states"],
          check_specs=[dg.AssetCheckSpec("bags_sum_to_one", asset="trajectory_bags")],
          description="One normalised bag per (frequency, game): the sampled states' tokens, the game's blacklist "
                      "(outcome and turn-order fields) filtered.")
def trajectory_bags(context: dg.AssetExecutionContext, settings: JbagSettings):
    game = context.partition_key
    preset = settings.get_preset()
    bags, dropped = trajectory_bags_table(read_partition(settings, "state_tokens", game), read_partition(settings, "sampled_states", game),
                                          preset.blacklist_for(game), preset.duckdb_memory_limit)
    path = lake.write_table(bags, settings.root(), "trajectory_bags", {"game": game})
    yield dg.MaterializeResult(metadata={
        **table_metadata(bags, path),
        "token_filter": dg.MetadataValue.md(
            f"blacklisted fields {list(preset.blacklist_for(game))} removed {len(dropped)} distinct tokens: "
            + ", ".join(f"`{t}`" for t in dropped[:20]) + (" ..." if len(dropped) > 20 else "")),
    })
    yield sum_to_one_check(bags, ["frequency", "game_id"], "bags_sum_to_one")


@dg.asset(group_name="model", partitions_def=game_partitions, deps=["trajectory_bags", "selfplay_games"],
          check_specs=[dg.AssetCheckSpec("prototypes_sum_to_one", asset="winner_prototypes")],
          description="Per frequency and seat: the normalised token distribution of the games that seat won.")
def winner_prototypes(context: dg.AssetExecutionContext, settings: JbagSettings):
    game = context.partition_key
    preset = settings.get_preset()
    prototypes = run_sql("winner_prototypes", {
        "trajectory_bags": read_partition(settings, "trajectory_bags", game),
        "games": read_partition(settings, "selfplay_games", game),
    }, memory_limit=preset.duckdb_memory_limit)
    path = lake.write_table(prototypes, settings.root(), "winner_prototypes", {"game": game})
    sizes = prototypes.group_by("frequency", "seat").agg(pl.len().alias("tokens")).sort("frequency", "seat")
    top = prototypes.filter(pl.col("frequency") == "full").sort(["seat", "p"], descending=[False, True]) \
        .group_by("seat", maintain_order=True).head(5)
    yield dg.MaterializeResult(metadata={**table_metadata(prototypes, path), "tokens_per_prototype": preview(sizes, 30),
                                         "top_tokens_full": preview(top, 40)})
    yield sum_to_one_check(prototypes, ["frequency", "seat"], "prototypes_sum_to_one")


@dg.asset(group_name="model", partitions_def=game_partitions,
          deps=["state_tokens", "selfplay_games", "selfplay_states"],
          check_specs=[dg.AssetCheckSpec("accuracy_in_range", asset="winner_classification")],
          description="P-NNS winner prediction on held-out games from every state's tokens, whole and cut at "
                      "25/50/75%, with a Wilson interval beside the majority seat (per frequency and variant: "
                      "variant_classification).")
def winner_classification(context: dg.AssetExecutionContext, settings: JbagSettings):
    game = context.partition_key
    preset = settings.get_preset()
    table = winner_classification_table(
        read_partition(settings, "state_tokens", game), read_partition(settings, "selfplay_states", game),
        read_partition(settings, "selfplay_games", game), test_share=preset.test_share, blacklist=preset.blacklist_for(game))
    path = lake.write_table(table, settings.root(), "winner_classification", {"game": game})
    yield dg.MaterializeResult(metadata={**table_metadata(table, path), "results": preview(table, 20)})
    yield accuracy_check(table, "winner_classification")
