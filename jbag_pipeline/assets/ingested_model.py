"""The JSON-Bag model on ingested games: sampled states -> bags -> prototypes -> P-NNS accuracy.

The same pure functions as assets/model.py, run per game partition of ingested_games. Each asset rebuilds
only the games whose input partitions (or the preset) changed since it last built them (ingest_refresh),
so an ingest costs what its own games cost, and drops the partitions of games no longer ingested. Tokens
are computed at ingest (ingest_store.write_batch), in each game's ingest mode with the positive-integer rule.
"""

from collections.abc import Callable

import dagster as dg
import polars as pl

import jbag_pipeline.storage.lake as lake
from jbag_pipeline.assets.common import preview, read_partition
from jbag_pipeline.storage.bags_table import trajectory_bags_table
from jbag_pipeline.analysis.classification import winner_classification_table
from jbag_pipeline.ingest.refresh import built_from, input_fingerprint, record_built_from
from jbag_pipeline.ingest.store import GAMES_TABLE, STATES_TABLE, TOKENS_TABLE, partitions, replace_partition
from jbag_pipeline.analysis.leakage import TAG_TURN_ORDER_FIELDS
from jbag_pipeline.resources import JbagSettings
from jbag_pipeline.storage.sampling import sampled_states as sample_states
from jbag_pipeline.storage.sql import run_sql

SAMPLED_TABLE = "ingested_sampled_states"
BAGS_TABLE = "ingested_bags"
PROTOTYPES_TABLE = "ingested_prototypes"
CLASSIFICATION_TABLE = "ingested_classification"
INPUTS = {SAMPLED_TABLE: (STATES_TABLE, GAMES_TABLE), BAGS_TABLE: (TOKENS_TABLE, SAMPLED_TABLE),
          PROTOTYPES_TABLE: (BAGS_TABLE, GAMES_TABLE), CLASSIFICATION_TABLE: (TOKENS_TABLE, STATES_TABLE, GAMES_TABLE)}


def refresh_per_game(settings: JbagSettings, table: str,
                     compute: Callable[[str], pl.DataFrame]) -> dg.MaterializeResult:
    """Write compute(game) as the partition of `table` of each ingested game whose inputs changed since it was
    built; remove partitions of vanished games."""
    root = settings.root()
    games = partitions(root, GAMES_TABLE)
    params = repr(settings.get_preset())
    built = built_from(root, table)
    rebuilt = []
    for game in games:
        fingerprint = input_fingerprint(root, INPUTS[table], game, params)
        if built.get(game) == fingerprint and lake.partition_path(root, table, {"game": game}).exists():
            continue
        lake.write_table(compute(game), root, table, {"game": game})
        built[game] = fingerprint
        record_built_from(root, table, built)
        rebuilt.append(game)
    for stale in sorted(set(partitions(root, table)) - set(games)):
        replace_partition(root, table, stale, pl.DataFrame())
        built.pop(stale, None)
        record_built_from(root, table, built)
    rows = {game: pl.scan_parquet(lake.partition_path(root, table, {"game": game})).select(pl.len()).collect().item()
            for game in games}
    counts = pl.DataFrame({"game": list(rows), "rows": list(rows.values()), "rebuilt": [g in rebuilt for g in rows]},
                          schema={"game": pl.String, "rows": pl.Int64, "rebuilt": pl.Boolean})
    return dg.MaterializeResult(metadata={"dagster/row_count": int(counts["rows"].sum()), "games": len(games),
                                          "games_rebuilt": len(rebuilt), "rows_per_game": preview(counts, 50)})


def ingested_blacklist(preset, game: str) -> tuple[str, ...]:
    """The game's blacklist plus TAG's common counters: ingested states are TAG documents, whatever their name."""
    return tuple(dict.fromkeys((*preset.blacklist_for(game), *TAG_TURN_ORDER_FIELDS)))


@dg.asset(group_name="ingest", deps=list(INPUTS[SAMPLED_TABLE]),
          description="Which ingested states enter a training bag under each tokenization frequency.")
def ingested_sampled_states(settings: JbagSettings) -> dg.MaterializeResult:
    seed = settings.get_preset().seed
    return refresh_per_game(settings, SAMPLED_TABLE, lambda game: sample_states(
        read_partition(settings, STATES_TABLE, game), read_partition(settings, GAMES_TABLE, game), seed))


@dg.asset(group_name="ingest", deps=list(INPUTS[BAGS_TABLE]),
          description="One normalised bag per (frequency, ingested game), the game's blacklisted fields filtered.")
def ingested_bags(settings: JbagSettings) -> dg.MaterializeResult:
    preset = settings.get_preset()
    return refresh_per_game(settings, BAGS_TABLE, lambda game: trajectory_bags_table(
        read_partition(settings, TOKENS_TABLE, game), read_partition(settings, SAMPLED_TABLE, game),
        ingested_blacklist(preset, game), preset.duckdb_memory_limit)[0])


@dg.asset(group_name="ingest", deps=list(INPUTS[PROTOTYPES_TABLE]),
          description="Per ingested game, frequency and seat: the token distribution of the games that seat won.")
def ingested_prototypes(settings: JbagSettings) -> dg.MaterializeResult:
    preset = settings.get_preset()
    return refresh_per_game(settings, PROTOTYPES_TABLE, lambda game: run_sql("winner_prototypes", {
        "trajectory_bags": read_partition(settings, BAGS_TABLE, game), "games": read_partition(settings, GAMES_TABLE, game),
    }, memory_limit=preset.duckdb_memory_limit))


@dg.asset(group_name="ingest", deps=list(INPUTS[CLASSIFICATION_TABLE]),
          description="P-NNS winner prediction on held-out ingested games, whole and cut at 25/50/75%.")
def ingested_classification(settings: JbagSettings) -> dg.MaterializeResult:
    preset = settings.get_preset()
    return refresh_per_game(settings, CLASSIFICATION_TABLE, lambda game: winner_classification_table(
        read_partition(settings, TOKENS_TABLE, game), read_partition(settings, STATES_TABLE, game), read_partition(settings, GAMES_TABLE, game),
        test_share=preset.test_share, blacklist=ingested_blacklist(preset, game)))


INGESTED_MODEL_ASSETS = [ingested_sampled_states, ingested_bags, ingested_prototypes, ingested_classification]
