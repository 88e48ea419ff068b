"""The JSON-Bag model on ingested games: sampled states -> bags -> prototypes -> P-NNS accuracy.

INGESTED_CHAIN is the self-play chain's computes and checks (assets/model_chain.py) over the ingested tables,
partitioned by the dynamic partitions INGESTED_GAMES (`ingested_game`, one per game that ingested_games holds; it
adds and removes them). The lake IO manager reads and writes each game's lake partition game=<key>. Each
materialisation records the fingerprint of its inputs (the lake IO manager, by ingest/refresh.py's rule), so the inbox sensor and `jbag ingest`
rebuild only the partitions of changed games (automation/ingested.py). Tokens are computed at ingest
(ingest/store.write_batch), in each game's ingest mode with the positive-integer rule.
"""

import dagster as dg

from jbag_pipeline.analysis.leakage import TAG_TURN_ORDER_FIELDS
from jbag_pipeline.assets.model_chain import (ACCURACY_IN_RANGE, BAGS_SUM_TO_ONE, PROTOTYPES_SUM_TO_ONE, Chain, Step,
                                              bag, chain_assets, classify, prototype, sample)
from jbag_pipeline.ingest.store import GAMES_TABLE, STATES_TABLE, TOKENS_TABLE
from jbag_pipeline.storage.fingerprint import FINGERPRINT_KEY

SAMPLED_TABLE = "ingested_sampled_states"
BAGS_TABLE = "ingested_bags"
PROTOTYPES_TABLE = "ingested_prototypes"
CLASSIFICATION_TABLE = "ingested_classification"
INGESTED_GAMES = dg.DynamicPartitionsDefinition(name="ingested_game")  # one partition per game ingested_games holds


def ingested_blacklist(preset, game: str) -> tuple[str, ...]:
    """The game's blacklist plus TAG's common counters: ingested states are TAG documents, whatever their name."""
    return tuple(dict.fromkeys((*preset.blacklist_for(game), *TAG_TURN_ORDER_FIELDS)))


def recorded_fingerprint(instance: dg.DagsterInstance, table: str, game: str) -> str | None:
    """The input fingerprint the latest materialisation of `table`'s partition `game` recorded (None if none):
    what the lake IO manager wrote, read back by the ingest's increment and automation/ingested.py."""
    records = instance.fetch_materializations(
        dg.AssetRecordsFilter(asset_key=dg.AssetKey(table), asset_partitions=[game]), limit=1).records
    value = records[0].asset_materialization.metadata.get(FINGERPRINT_KEY) if records else None
    return getattr(value, "value", value)


INGESTED_CHAIN = Chain(
    tables={"states": STATES_TABLE, "games": GAMES_TABLE, "tokens": TOKENS_TABLE, "sampled": SAMPLED_TABLE,
            "bags": BAGS_TABLE, "prototypes": PROTOTYPES_TABLE, "classification": CLASSIFICATION_TABLE},
    steps=(
        Step("sampled", ("states", "games"), sample,
             "Which ingested states enter a training bag under each tokenization frequency."),
        Step("bags", ("tokens", "sampled"), bag,
             "One normalised bag per (frequency, ingested game), the game's blacklisted fields filtered.",
             (BAGS_SUM_TO_ONE,)),
        Step("prototypes", ("bags", "games"), prototype,
             "Per ingested game, frequency and seat: the token distribution of the games that seat won.",
             (PROTOTYPES_SUM_TO_ONE,)),
        Step("classification", ("tokens", "states", "games"), classify,
             "P-NNS winner prediction on held-out ingested games, whole and cut at 25/50/75%.", (ACCURACY_IN_RANGE,)),
    ),
    partitions_def=INGESTED_GAMES, group_name="ingest", blacklist=ingested_blacklist,
    fingerprinted=True)  # what each partition was built from: automation/ingested.py reads it back

CHAIN = INGESTED_CHAIN.links()  # (table, input tables) in build order: what automation/ingested.py checks for staleness
MODEL_TABLES = [table for table, _ in CHAIN]


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


INGESTED_MODEL_ASSETS = chain_assets(INGESTED_CHAIN)
