"""Ingest assets: trajectories recorded elsewhere -> ingested_games / ingested_states (self-play shapes) and
ingested_tokens per game.

Ingested games live in their own lake tables, partitioned by game name in the lake (hive folders), so
they never mix with our self-play and may name games we do not implement. These Dagster assets are not
partitioned: one run ingests a batch of files into whatever games they hold and tokenizes only their games
(a game that cannot be tokenized is quarantined, so it never lands without tokens). A game that only gains
games and whose ingested model is up to date has that model extended in the same transaction
(assets/ingested_increment.py), recorded as materialisations of its partitions. The run then makes the
dynamic partitions `ingested_game` of the ingested model (assets/ingested_model.py) the games the lake holds,
and removes the model's lake partitions of games no longer ingested.
"""

import dagster as dg
import polars as pl

from jbag_pipeline.assets.common import preview
from jbag_pipeline.assets.ingested_increment import ModelIncrement
from jbag_pipeline.assets.ingested_model import MODEL_TABLES, recorded_fingerprint, sync_partitions
from jbag_pipeline.ingest.refresh import remove_games_not_in
from jbag_pipeline.ingest.trajectories import IngestBatch, problem_lines, read_trajectories
from jbag_pipeline.ingest.store import (GAMES_TABLE, QUARANTINE_TABLE, SOURCES_TABLE, STATES_TABLE, TOKENS_TABLE,
                                        partitions, write_batch)
from jbag_pipeline.resources import JbagSettings, LakeResource
from jbag_pipeline.resources.io_manager import PARTITION_EXPR
from jbag_pipeline.schemas import INGEST_QUARANTINE, INGESTED_SOURCES, SELFPLAY_GAMES, SELFPLAY_STATES

INGEST_KEYS = [GAMES_TABLE, STATES_TABLE, TOKENS_TABLE, SOURCES_TABLE, QUARANTINE_TABLE]
PER_GAME = {PARTITION_EXPR: "game"}  # lake tables split by game: a model run of one ingested game reads its part


class IngestConfig(dg.Config):
    """Files or folders to read (default: everything under <data dir>/inbox), the game name, the token mode."""

    paths: list[str] = []
    game: str | None = None
    mode: str = "both"


def empty_batch() -> IngestBatch:
    return IngestBatch(pl.DataFrame(schema=SELFPLAY_GAMES), pl.DataFrame(schema=SELFPLAY_STATES),
                       pl.DataFrame(schema=INGESTED_SOURCES), pl.DataFrame(schema=INGEST_QUARANTINE), [])


@dg.multi_asset(
    specs=[
        dg.AssetSpec(GAMES_TABLE, group_name="ingest", metadata=PER_GAME,
                     description="Games read from outside trajectory files (selfplay_games columns), per game."),
        dg.AssetSpec(STATES_TABLE, group_name="ingest", metadata=PER_GAME,
                     description="Their recorded states as JSON text (selfplay_states columns), per game."),
        dg.AssetSpec(TOKENS_TABLE, group_name="ingest", metadata=PER_GAME,
                     description="Token counts of every ingested state (the game's ingest mode, positive-integer "
                                 "rule on), computed once when the state is ingested."),
        dg.AssetSpec(SOURCES_TABLE, group_name="ingest",
                     description="Where each ingested game came from: file, first line, format, token mode."),
        dg.AssetSpec(QUARANTINE_TABLE, group_name="ingest",
                     description="Records that could not be ingested: file, line or element, reason, file mtime."),
    ],
)
def ingested_games(context: dg.AssetExecutionContext, config: IngestConfig, settings: JbagSettings,
                   lake: LakeResource):
    root = lake.root()
    inbox = root / "inbox"
    paths = config.paths or ([str(inbox)] if inbox.is_dir() else [])
    batch = read_trajectories(paths, game=config.game, mode=config.mode) if paths else empty_batch()
    increment = ModelIncrement(root, settings.get_preset(),
                               lambda table, game: recorded_fingerprint(context.instance, table, game))
    summary = write_batch(root, batch, extend=increment)
    for event in increment.events():  # the model partitions the ingest's commit updated, and their checks
        context.log_event(event)
    problems = problem_lines(summary.quarantined)
    for line in problems:  # info: the event log keeps them; `jbag ingest` prints them once itself
        context.log.info(f"quarantined: {line}")
    games = partitions(root, GAMES_TABLE)
    removed = remove_games_not_in(root, MODEL_TABLES, games)
    added, deleted = sync_partitions(context.instance, games)
    per_game = pl.DataFrame({"game": list(summary.games), "games": list(summary.games.values()),
                             "states": [summary.states[g] for g in summary.games]},
                            schema={"game": pl.String, "games": pl.Int64, "states": pl.Int64})
    yield dg.MaterializeResult(asset_key=GAMES_TABLE, metadata={
        "files": len(batch.files), "games_written": int(per_game["games"].sum()),
        "games_removed": summary.removed, "per_game": preview(per_game, 50),
        "ingested_game_partitions": len(games), "partitions_added": ", ".join(added) or "-",
        "partitions_deleted": ", ".join(sorted({*deleted, *removed})) or "-",
    })
    yield dg.MaterializeResult(asset_key=STATES_TABLE, metadata={"states_written": int(per_game["states"].sum())})
    yield dg.MaterializeResult(asset_key=TOKENS_TABLE, metadata={"token_rows_written": summary.tokens})
    yield dg.MaterializeResult(asset_key=SOURCES_TABLE, metadata={"preview": preview(batch.sources)})
    yield dg.MaterializeResult(asset_key=QUARANTINE_TABLE, metadata={
        "quarantined": len(summary.quarantined),
        "problems": dg.MetadataValue.md("\n".join(f"- {p}" for p in problems[:50]) or "*(none)*"),
    })
