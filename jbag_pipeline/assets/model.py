"""JSON-Bag model assets per game: state tokens, sampled states, trajectory bags, winner prototypes, P-NNS accuracy."""

import dagster as dg
import polars as pl

from jbag_pipeline.assets.common import game_partitions, preview
from jbag_pipeline.assets.model_chain import (ACCURACY_IN_RANGE, BAGS_SUM_TO_ONE, PROTOTYPES_SUM_TO_ONE, Chain, Check,
                                              Step, bag, chain_assets, classify, prototype, sample)
from jbag_pipeline.transforms.state_tokens import tokenize_states_to
from jbag_pipeline.transforms.bags_table import dropped_tokens
from jbag_pipeline.transforms.game_blocks import distinct_tokens


def tokens_valid(run, tokens: pl.DataFrame, states: pl.DataFrame) -> dg.AssetCheckResult:
    """Every token row names a token and counts it at least once."""
    bad = tokens.lazy().filter(pl.col("token").is_null() | (pl.col("count") < 1)).select(pl.len()).collect().item()
    return dg.AssetCheckResult(check_name="tokens_valid", passed=bad == 0,
                               metadata={"null_tokens_or_nonpositive_counts": bad})


def terminal_state_in_interval(run, sampled: pl.DataFrame, states: pl.DataFrame, games) -> dg.AssetCheckResult:
    """Frequency interval samples every game's terminal state."""
    terminal = states.lazy().filter("is_terminal").select("game_id", "state_idx").collect()
    interval = sampled.filter(pl.col("frequency") == "interval").select("game_id", "state_idx")
    missing = terminal.join(interval, on=["game_id", "state_idx"], how="anti")
    return dg.AssetCheckResult(check_name="terminal_state_in_interval", passed=missing.is_empty(),
                               metadata={"games_missing_terminal": len(missing)})


def token_filter(run, bags: pl.DataFrame, tokens: pl.DataFrame, sampled) -> dict:
    """Which distinct tokens the game's blacklist dropped (listed again: a step's compute returns only its table)."""
    dropped = dropped_tokens(tokens, run.blacklist)
    return {"token_filter": dg.MetadataValue.md(
        f"blacklisted fields {list(run.blacklist)} removed {len(dropped)} distinct tokens: "
        + ", ".join(f"`{t}`" for t in dropped[:20]) + (" ..." if len(dropped) > 20 else ""))}


def prototype_sizes(run, prototypes: pl.DataFrame, *inputs) -> dict:
    """Tokens per prototype and the five most likely tokens of each seat's full-frequency prototype."""
    sizes = prototypes.group_by("frequency", "seat").agg(pl.len().alias("tokens")).sort("frequency", "seat")
    top = prototypes.filter(pl.col("frequency") == "full").sort(["seat", "p"], descending=[False, True]) \
        .group_by("seat", maintain_order=True).head(5)
    return {"tokens_per_prototype": preview(sizes, 30), "top_tokens_full": preview(top, 40)}


SELFPLAY_CHAIN = Chain(
    tables={"states": "selfplay_states", "games": "selfplay_games", "tokens": "state_tokens",
            "sampled": "sampled_states", "bags": "trajectory_bags", "prototypes": "winner_prototypes",
            "classification": "winner_classification"},
    steps=(
        # streamed: a block of games at a time into scratch files, which the lake writer sinks into one
        Step("tokens", ("states",), lambda run, states: tokenize_states_to(states, run.scratch),
             "Token counts of every recorded state (JSON-Bag mode both, positive-integer rule on).",
             (Check("tokens_valid", tokens_valid),),
             lambda run, tokens, states: {"vocabulary": len(distinct_tokens(tokens))}),
        Step("sampled", ("states", "games"), sample,
             "Which recorded states enter a training bag under each tokenization frequency.",
             (Check("terminal_state_in_interval", terminal_state_in_interval),),
             lambda run, sampled, *inputs: {"states_per_frequency": preview(
                 sampled.group_by("frequency").len().sort("frequency"))}),
        Step("bags", ("tokens", "sampled"), bag,
             "One normalised bag per (frequency, game): the sampled states' tokens, the game's blacklist "
             "(outcome and turn-order fields) filtered.", (BAGS_SUM_TO_ONE,), token_filter),
        Step("prototypes", ("bags", "games"), prototype,
             "Per frequency and seat: the normalised token distribution of the games that seat won.",
             (PROTOTYPES_SUM_TO_ONE,), prototype_sizes),
        Step("classification", ("tokens", "states", "games"), classify,
             "P-NNS winner prediction on held-out games from every state's tokens, whole and cut at 25/50/75%, "
             "with a Wilson interval beside the majority seat (per frequency and variant: variant_classification).",
             (ACCURACY_IN_RANGE,), lambda run, table, *inputs: {"results": preview(table, 20)}),
    ),
    partitions_def=game_partitions, group_name="model", blacklist=lambda preset, game: preset.blacklist_for(game),
    # state_tokens holds tens of millions of rows at a few hundred card games: its readers take it a block of
    # games at a time (transforms/game_blocks.py), and selfplay_states' documents are read only where tokenized
    lazy_roles=("tokens", "states"))

state_tokens, sampled_states, trajectory_bags, winner_prototypes, winner_classification = chain_assets(SELFPLAY_CHAIN)
