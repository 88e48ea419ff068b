"""The JSON-Bag model on ingested games: tokens -> sampled states -> bags -> prototypes -> P-NNS accuracy.

The same pure functions as assets/model.py, run for every game partition of ingested_games (each asset
refreshes all ingested games, and drops the partitions of games no longer ingested). Tokens use the mode
each game was ingested with (ingested_sources.mode) and the positive-integer rule, as the paper does.
"""

from collections.abc import Callable

import dagster as dg
import polars as pl

from jbag_pipeline import lake
from jbag_pipeline.assets.common import preview, read_partition
from jbag_pipeline.bags_table import trajectory_bags_table
from jbag_pipeline.classification import winner_classification_table
from jbag_pipeline.ingest_store import GAMES_TABLE, SOURCES_TABLE, STATES_TABLE, partitions, replace_partition
from jbag_pipeline.leakage import TAG_TURN_ORDER_FIELDS
from jbag_pipeline.resources import JbagSettings
from jbag_pipeline.sampling import sampled_states as sample_states
from jbag_pipeline.sql import run_sql
from jbag_pipeline.state_tokens import tokenize_states

TOKENS_TABLE = "ingested_tokens"
SAMPLED_TABLE = "ingested_sampled_states"
BAGS_TABLE = "ingested_bags"
PROTOTYPES_TABLE = "ingested_prototypes"
CLASSIFICATION_TABLE = "ingested_classification"


def refresh_per_game(settings: JbagSettings, table: str,
                     compute: Callable[[str], pl.DataFrame]) -> dg.MaterializeResult:
    """Write compute(game) as each ingested game's partition of `table`; remove partitions of vanished games."""
    root = settings.root()
    games = partitions(root, GAMES_TABLE)
    rows = {}
    for game in games:
        frame = compute(game)
        lake.write_table(frame, root, table, {"game": game})
        rows[game] = len(frame)
    for stale in sorted(set(partitions(root, table)) - set(games)):
        replace_partition(root, table, stale, pl.DataFrame())
    counts = pl.DataFrame({"game": list(rows), "rows": list(rows.values())},
                          schema={"game": pl.String, "rows": pl.Int64})
    return dg.MaterializeResult(metadata={"dagster/row_count": int(counts["rows"].sum()), "games": len(games),
                                          "rows_per_game": preview(counts, 50)})


def ingested_blacklist(preset, game: str) -> tuple[str, ...]:
    """The game's blacklist plus TAG's common counters: ingested states are TAG documents, whatever their name."""
    return tuple(dict.fromkeys((*preset.blacklist_for(game), *TAG_TURN_ORDER_FIELDS)))


def _mode(settings: JbagSettings, game: str) -> str:
    sources = lake.read_table(settings.root(), SOURCES_TABLE).filter(pl.col("game") == game)
    modes = sources["mode"].unique().to_list()
    if len(modes) != 1:
        raise ValueError(f"ingested game {game!r} has token modes {sorted(modes)} in {SOURCES_TABLE}; expected one")
    return modes[0]


@dg.asset(group_name="ingest", deps=[STATES_TABLE, SOURCES_TABLE],
          description="Token counts of every ingested state (the game's ingest mode, positive-integer rule on).")
def ingested_tokens(settings: JbagSettings) -> dg.MaterializeResult:
    return refresh_per_game(settings, TOKENS_TABLE, lambda game: tokenize_states(
        read_partition(settings, STATES_TABLE, game), mode=_mode(settings, game), num_suffix=True))


@dg.asset(group_name="ingest", deps=[STATES_TABLE, GAMES_TABLE],
          description="Which ingested states enter a training bag under each tokenization frequency.")
def ingested_sampled_states(settings: JbagSettings) -> dg.MaterializeResult:
    seed = settings.get_preset().seed
    return refresh_per_game(settings, SAMPLED_TABLE, lambda game: sample_states(
        read_partition(settings, STATES_TABLE, game), read_partition(settings, GAMES_TABLE, game), seed))


@dg.asset(group_name="ingest", deps=[TOKENS_TABLE, SAMPLED_TABLE],
          description="One normalised bag per (frequency, ingested game), the game's blacklisted fields filtered.")
def ingested_bags(settings: JbagSettings) -> dg.MaterializeResult:
    preset = settings.get_preset()
    return refresh_per_game(settings, BAGS_TABLE, lambda game: trajectory_bags_table(
        read_partition(settings, TOKENS_TABLE, game), read_partition(settings, SAMPLED_TABLE, game),
        ingested_blacklist(preset, game), preset.duckdb_memory_limit)[0])


@dg.asset(group_name="ingest", deps=[BAGS_TABLE, GAMES_TABLE],
          description="Per ingested game, frequency and seat: the token distribution of the games that seat won.")
def ingested_prototypes(settings: JbagSettings) -> dg.MaterializeResult:
    preset = settings.get_preset()
    return refresh_per_game(settings, PROTOTYPES_TABLE, lambda game: run_sql("winner_prototypes", {
        "trajectory_bags": read_partition(settings, BAGS_TABLE, game), "games": read_partition(settings, GAMES_TABLE, game),
    }, memory_limit=preset.duckdb_memory_limit))


@dg.asset(group_name="ingest", deps=[TOKENS_TABLE, STATES_TABLE, GAMES_TABLE],
          description="P-NNS winner prediction on held-out ingested games, whole and cut at 25/50/75%.")
def ingested_classification(settings: JbagSettings) -> dg.MaterializeResult:
    preset = settings.get_preset()
    return refresh_per_game(settings, CLASSIFICATION_TABLE, lambda game: winner_classification_table(
        read_partition(settings, TOKENS_TABLE, game), read_partition(settings, STATES_TABLE, game), read_partition(settings, GAMES_TABLE, game),
        test_share=preset.test_share, blacklist=ingested_blacklist(preset, game)))


INGESTED_MODEL_ASSETS = [ingested_tokens, ingested_sampled_states, ingested_bags, ingested_prototypes,
                         ingested_classification]
