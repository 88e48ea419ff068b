"""Which `ingested_game` partitions to (re)build after an ingest, and building them: one run per changed game.

The ingested model's partitions are stale when their inputs changed since they were built (ingest/refresh.py,
with the fingerprints their materialisations recorded in the Dagster instance). The inbox sensor turns them into
RunRequests; `jbag ingest` and `jbag run` materialise them in-process.
"""

from __future__ import annotations

from pathlib import Path

import dagster as dg

from jbag_pipeline.assets.ingested_model import CHAIN, recorded_fingerprint, sync_partitions
from jbag_pipeline.ingest.refresh import input_fingerprint, stale_tables
from jbag_pipeline.ingest.store import GAMES_TABLE, STATES_TABLE, TOKENS_TABLE, partitions
from jbag_pipeline.resources import JbagSettings

ROOT_INPUTS = (GAMES_TABLE, STATES_TABLE, TOKENS_TABLE)  # what ingested_games writes: the chain's inputs


def changed_games(instance: dg.DagsterInstance, settings: JbagSettings, root: Path) -> dict[str, list[str]]:
    """game -> the ingested model tables to rebuild for it (in build order), for each ingested game of the lake at
    `root` that has any."""
    params = repr(settings.get_preset())
    stale = {game: stale_tables(root, CHAIN, game, params, lambda table: recorded_fingerprint(instance, table, game))
             for game in partitions(root, GAMES_TABLE)}
    return {game: tables for game, tables in stale.items() if tables}


def run_key(settings: JbagSettings, root: Path, game: str) -> str:
    """A model run's key: the game and its ingested inputs, so a sensor asks once per state of the game's inputs."""
    return f"ingested:{game}:{input_fingerprint(root, ROOT_INPUTS, game, repr(settings.get_preset()))[:16]}"


def materialize_changed_games(assets_defs, settings: JbagSettings, resources: dict, instance: dg.DagsterInstance,
                              tables: list[str] | None = None, **kwargs) -> dict[str, list[str]]:
    """Materialise the stale tables (of `tables`, default all) of each changed ingested game, one run (partition)
    per game, after syncing the `ingested_game` partitions to the lake's games (the lake of resources["lake"]);
    returns game -> tables built."""
    root = resources["lake"].root()
    sync_partitions(instance, partitions(root, GAMES_TABLE))
    changed = {game: [t for t in stale if tables is None or t in tables]
               for game, stale in changed_games(instance, settings, root).items()}
    changed = {game: stale for game, stale in changed.items() if stale}
    for game, tables in changed.items():
        dg.materialize(assets_defs, selection=tables, partition_key=game, resources=resources, instance=instance,
                       raise_on_error=True, **kwargs)
    return changed
