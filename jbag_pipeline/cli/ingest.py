"""`jbag ingest PATH...`: ingest outside trajectories through Dagster, refresh the ingested model and the catalog.

One run ingests the files (and adds the `ingested_game` partitions of new games), then one run per changed game
rebuilds its stale ingested model partitions, then the catalog.

Exit status: EXIT_DONE (0) when every record landed, EXIT_QUARANTINED (3) when the run completed but some
records were quarantined (the good games landed); a failure exits 2 (an error cli.main explains in one line)
or 1 (unexpected).
"""

from __future__ import annotations

import sys
from pathlib import Path

import dagster as dg
import polars as pl

import jbag_pipeline.storage.lake as lake
from jbag_pipeline.automation.ingested import materialize_changed_games
from jbag_pipeline.definitions import ALL_ASSETS
from jbag_pipeline.ingest.trajectories import (check_game_name, check_mode, display_name, problem_lines,
                                               trajectory_files)
from jbag_pipeline.ingest.store import GAMES_TABLE, QUARANTINE_TABLE, SOURCES_TABLE
from jbag_pipeline.resources import LakeResource, settings_from_env
from jbag_pipeline.resources.io_manager import lake_resources
from jbag_pipeline.cli.runner import QUIET


def writing(table: str) -> list[dg.AssetsDefinition]:
    """The project's asset definition (jbag_pipeline.definitions) that writes `table`, to materialise it alone."""
    return [a for a in ALL_ASSETS if dg.AssetKey(table) in a.keys]


INGEST = writing(GAMES_TABLE)  # the ingest multi-asset: ingested_games and the other tables of one ingest
# the ingested model: partitioned by ingested game (dynamic partitions), as cli/runner.plan finds it too
INGESTED_MODEL = [a for a in ALL_ASSETS if isinstance(a.partitions_def, dg.DynamicPartitionsDefinition)]
INGEST_ASSETS = [*INGEST, *INGESTED_MODEL]
EXIT_DONE = 0
EXIT_QUARANTINED = 3


def ingest_run_config(paths: list[str], game: str | None, mode: str) -> dict:
    config = {"paths": paths, "mode": mode, **({"game": game} if game else {})}
    return {**QUIET, "ops": {"ingested_games": {"config": config}}}


def run_ingest(paths: list[str], root: Path, game: str | None = None, mode: str = "both",
               instance: dg.DagsterInstance | None = None) -> tuple[pl.DataFrame, list[str]]:
    """Materialise ingested_games for `paths`, the changed games' model partitions, then the catalog; returns
    (games per game, problem lines)."""
    if game is not None:
        check_game_name(game)
    check_mode(mode)
    files = [str(p) for p in trajectory_files(paths)]  # a name that is not UTF-8 goes on: the asset quarantines it
    if not files:
        raise ValueError(f"ingest: no .json, .jsonl or .ndjson files in {list(paths)}")
    shown = [display_name(f) for f in files]  # as the lake's file columns hold them
    settings = settings_from_env()
    resources = lake_resources(settings, LakeResource(data_dir=str(root)))
    instance = instance or dg.DagsterInstance.ephemeral()  # one instance: the runs share the dynamic partitions
    dg.materialize(INGEST, run_config=ingest_run_config(files, game, mode),
                   resources=resources, instance=instance, raise_on_error=True)
    materialize_changed_games(INGEST_ASSETS, settings, resources, instance, run_config=QUIET)
    dg.materialize(writing("catalog"), run_config=QUIET, resources=resources, instance=instance, raise_on_error=True)
    sources = lake.read_table(root, SOURCES_TABLE).filter(pl.col("file").is_in(shown))
    per_game = sources.group_by("game").agg(pl.len().alias("games"), pl.col("n_states").sum().alias("states"))
    quarantine = lake.read_table(root, QUARANTINE_TABLE).filter(pl.col("file").is_in(shown))
    return per_game.sort("game"), problem_lines(quarantine)


def run_ingest_cli(paths: list[str], root: Path, game: str | None, mode: str) -> int:
    """EXIT_DONE when every record landed, EXIT_QUARANTINED when some were quarantined; prints each problem once."""
    from jbag_pipeline.cli.runner import dagster_instance

    per_game, problems = run_ingest(paths, root, game, mode, instance=dagster_instance(root))
    for name, games, states in per_game.iter_rows():
        print(f"jbag ingest: {name}: {games} games, {states} states")
    for line in problems:
        print(f"jbag ingest: quarantined: {line}", file=sys.stderr)
    print(f"jbag ingest: tables ingested_* and ingest_quarantine in {lake.lake_dir(root)}; "
          "query them with jbag sql \"SELECT * FROM ingested_games\"")
    return EXIT_QUARANTINED if problems else EXIT_DONE
