"""The JSON-Bag model on ingested games: sampled states -> bags -> prototypes -> P-NNS accuracy.

One factory builds the four assets from INGESTED_STEPS: the table functions of the self-play chain
(assets/model.py), partitioned by the dynamic partitions INGESTED_GAMES (`ingested_game`, one per game that
ingested_games holds; it adds and removes them). The lake IO manager reads and writes each game's lake
partition game=<key>. Each materialisation records the fingerprint of its inputs (ingest/refresh.py), so the
inbox sensor and `jbag ingest` rebuild only the partitions of changed games (automation/ingested.py). Tokens are
computed at ingest (ingest/store.write_batch), in each game's ingest mode with the positive-integer rule.
"""

from collections.abc import Callable
from dataclasses import dataclass

import dagster as dg
import polars as pl

from jbag_pipeline.storage.bags_table import trajectory_bags_table
from jbag_pipeline.analysis.classification import winner_classification_table
from jbag_pipeline.ingest.refresh import FINGERPRINT_KEY, input_fingerprint
from jbag_pipeline.ingest.store import GAMES_TABLE, STATES_TABLE, TOKENS_TABLE
from jbag_pipeline.analysis.leakage import TAG_TURN_ORDER_FIELDS
from jbag_pipeline.resources import JbagSettings
from jbag_pipeline.storage.sampling import sampled_states as sample_states
from jbag_pipeline.storage.sql import run_sql

SAMPLED_TABLE = "ingested_sampled_states"
BAGS_TABLE = "ingested_bags"
PROTOTYPES_TABLE = "ingested_prototypes"
CLASSIFICATION_TABLE = "ingested_classification"
INGESTED_GAMES = dg.DynamicPartitionsDefinition(name="ingested_game")  # one partition per game ingested_games holds


def ingested_blacklist(preset, game: str) -> tuple[str, ...]:
    """The game's blacklist plus TAG's common counters: ingested states are TAG documents, whatever their name."""
    return tuple(dict.fromkeys((*preset.blacklist_for(game), *TAG_TURN_ORDER_FIELDS)))


@dataclass(frozen=True)
class IngestedStep:
    """One model step on ingested games: the table it writes, the tables it reads (in the order `compute` takes
    them) and compute(preset, game, *inputs) -> the game's partition."""

    table: str
    inputs: tuple[str, ...]
    compute: Callable[..., pl.DataFrame]
    description: str


INGESTED_STEPS = [
    IngestedStep(SAMPLED_TABLE, (STATES_TABLE, GAMES_TABLE),
                 lambda preset, game, states, games: sample_states(states, games, preset.seed),
                 "Which ingested states enter a training bag under each tokenization frequency."),
    IngestedStep(BAGS_TABLE, (TOKENS_TABLE, SAMPLED_TABLE),
                 lambda preset, game, tokens, sampled: trajectory_bags_table(
                     tokens, sampled, ingested_blacklist(preset, game), preset.duckdb_memory_limit)[0],
                 "One normalised bag per (frequency, ingested game), the game's blacklisted fields filtered."),
    IngestedStep(PROTOTYPES_TABLE, (BAGS_TABLE, GAMES_TABLE),
                 lambda preset, game, bags, games: run_sql("winner_prototypes", {
                     "trajectory_bags": bags, "games": games}, memory_limit=preset.duckdb_memory_limit),
                 "Per ingested game, frequency and seat: the token distribution of the games that seat won."),
    IngestedStep(CLASSIFICATION_TABLE, (TOKENS_TABLE, STATES_TABLE, GAMES_TABLE),
                 lambda preset, game, tokens, states, games: winner_classification_table(
                     tokens, states, games, test_share=preset.test_share, blacklist=ingested_blacklist(preset, game)),
                 "P-NNS winner prediction on held-out ingested games, whole and cut at 25/50/75%."),
]


MODEL_TABLES = [step.table for step in INGESTED_STEPS]
CHAIN = [(step.table, step.inputs) for step in INGESTED_STEPS]


def ingested_model_asset(step: IngestedStep) -> dg.AssetsDefinition:
    """The asset of `step.table`, one partition per ingested game; records the fingerprint of the inputs it read."""

    @dg.asset(name=step.table, group_name="ingest", partitions_def=INGESTED_GAMES, description=step.description,
              ins={table: dg.AssetIn(table) for table in step.inputs})
    def build(context: dg.AssetExecutionContext, settings: JbagSettings, **inputs: pl.DataFrame):
        preset, game = settings.get_preset(), context.partition_key
        fingerprint = input_fingerprint(settings.root(), step.inputs, game, repr(preset))
        frame = step.compute(preset, game, *(inputs[table] for table in step.inputs))
        return dg.Output(frame, metadata={FINGERPRINT_KEY: fingerprint})

    return build


def partition_changes(instance: dg.DagsterInstance, games: list[str]) -> tuple[list[str], list[str]]:
    """(keys to add, keys to delete) that make the `ingested_game` partitions the ingested `games`."""
    existing = set(instance.get_dynamic_partitions(INGESTED_GAMES.name))
    return sorted(set(games) - existing), sorted(existing - set(games))


def sync_partitions(instance: dg.DagsterInstance, games: list[str]) -> tuple[list[str], list[str]]:
    """Add and delete `ingested_game` partitions so that they are the ingested `games`; returns (added, deleted)."""
    add, delete = partition_changes(instance, games)
    if add:
        instance.add_dynamic_partitions(INGESTED_GAMES.name, add)
    for key in delete:
        instance.delete_dynamic_partition(INGESTED_GAMES.name, key)
    return add, delete


INGESTED_MODEL_ASSETS = [ingested_model_asset(step) for step in INGESTED_STEPS]
