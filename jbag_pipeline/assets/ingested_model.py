"""The JSON-Bag model on ingested games: sampled states -> bags -> prototypes -> P-NNS accuracy.

One factory builds the four assets from INGESTED_STEPS: the table functions of the self-play chain
(assets/model.py), run per game partition of ingested_games. Each asset rebuilds only the games whose input
partitions (or the preset) changed since it last built them (ingest/refresh.py), so an ingest costs what its
own games cost, and drops the partitions of games no longer ingested. Tokens are computed at ingest
(ingest/store.write_batch), in each game's ingest mode with the positive-integer rule.
"""

from collections.abc import Callable
from dataclasses import dataclass

import dagster as dg
import polars as pl

import jbag_pipeline.storage.lake as lake
from jbag_pipeline.assets.common import preview, read_partition
from jbag_pipeline.storage.bags_table import trajectory_bags_table
from jbag_pipeline.analysis.classification import winner_classification_table
from jbag_pipeline.ingest.refresh import refresh_per_game
from jbag_pipeline.ingest.store import GAMES_TABLE, STATES_TABLE, TOKENS_TABLE
from jbag_pipeline.analysis.leakage import TAG_TURN_ORDER_FIELDS
from jbag_pipeline.resources import JbagSettings
from jbag_pipeline.storage.sampling import sampled_states as sample_states
from jbag_pipeline.storage.sql import run_sql

SAMPLED_TABLE = "ingested_sampled_states"
BAGS_TABLE = "ingested_bags"
PROTOTYPES_TABLE = "ingested_prototypes"
CLASSIFICATION_TABLE = "ingested_classification"


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
INPUTS = {step.table: step.inputs for step in INGESTED_STEPS}


def _rows_per_game(root, table: str, games: list[str], rebuilt: list[str]) -> dg.MaterializeResult:
    rows = {game: pl.scan_parquet(lake.partition_path(root, table, {"game": game})).select(pl.len()).collect().item()
            for game in games}
    counts = pl.DataFrame({"game": list(rows), "rows": list(rows.values()), "rebuilt": [g in rebuilt for g in rows]},
                          schema={"game": pl.String, "rows": pl.Int64, "rebuilt": pl.Boolean})
    return dg.MaterializeResult(metadata={"dagster/row_count": int(counts["rows"].sum()), "games": len(games),
                                          "games_rebuilt": len(rebuilt), "rows_per_game": preview(counts, 50)})


def ingested_model_asset(step: IngestedStep) -> dg.AssetsDefinition:
    """The asset that keeps `step.table` up to date for every ingested game."""

    @dg.asset(name=step.table, group_name="ingest", deps=list(step.inputs), description=step.description)
    def refresh(settings: JbagSettings) -> dg.MaterializeResult:
        preset = settings.get_preset()
        root = settings.root()

        def compute(game: str) -> pl.DataFrame:
            return step.compute(preset, game, *(read_partition(settings, table, game) for table in step.inputs))

        games, rebuilt = refresh_per_game(root, step.table, step.inputs, repr(preset), compute)
        return _rows_per_game(root, step.table, games, rebuilt)

    return refresh


INGESTED_MODEL_ASSETS = [ingested_model_asset(step) for step in INGESTED_STEPS]
