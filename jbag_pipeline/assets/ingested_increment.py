"""Extend a game's ingested model by the games an ingest adds, in the ingest's own transaction.

When every ingested model partition of the game is up to date (its recorded input fingerprint is the current
one, ingest/refresh.py), an ingest that only adds games updates the model from those games alone: their sampled
states and bags are appended as segments; the prototypes are the kept per-seat token sums (their `count`) plus
the new games' counts, renormalised (sql/winner_prototypes_added.sql); the classification is recomputed from
those sums and the held-out games' tokens only. Each equals a rebuild over all of the game's games. Once the
transaction commits, the new fingerprints are taken under the lake lock, for the ingest asset to record as the
model partitions' materialisations (with the model steps' asset checks of what was staged). Otherwise nothing
is staged and the model's own runs rebuild the partitions (automation/ingested.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import dagster as dg
import polars as pl

import jbag_pipeline.storage.lake as lake
from jbag_pipeline.analysis.classification import classification_from_sums
from jbag_pipeline.assets.ingested_model import (BAGS_TABLE, CHAIN, CLASSIFICATION_TABLE, INGESTED_CHAIN,
                                                 PROTOTYPES_TABLE, SAMPLED_TABLE, ingested_blacklist)
from jbag_pipeline.assets.model_chain import Run, bag, sample
from jbag_pipeline.ingest.refresh import FINGERPRINT_KEY, input_fingerprint, stale_tables
from jbag_pipeline.ingest.store import STATES_TABLE, TOKENS_TABLE, Added
from jbag_pipeline.presets import Preset
from jbag_pipeline.storage.sql import run_sql
from jbag_pipeline.storage.staging import LakeTransaction


@dataclass
class ModelIncrement:
    """write_batch's `extend`: stages the model update of each game whose model is up to date; `recorded(table,
    game)` is the fingerprint the partition's latest materialisation recorded."""

    root: Path
    preset: Preset
    recorded: Callable[[str, str], str | None]
    extended: dict[str, dict[str, int]] = field(default_factory=dict)  # game -> table -> rows staged
    checks: dict[str, list[dg.AssetCheckEvaluation]] = field(default_factory=dict)  # game -> the steps' checks
    fingerprints: dict[str, dict[str, str]] = field(default_factory=dict)  # game -> table -> after the commit

    def __call__(self, tx: LakeTransaction, game: str, stored_games: pl.DataFrame, added: Added) -> None:
        params = repr(self.preset)
        if stale_tables(self.root, CHAIN, game, params, lambda table: self.recorded(table, game)):
            return  # the model's own run rebuilds it over every game
        outputs = stage_increment(tx, self.root, self.preset, game, stored_games, added)
        self.extended[game] = {table: len(frame) for table, frame in outputs.items()}
        self.checks[game] = check_evaluations(self.preset, game, outputs)
        tx.after_commit.append(lambda: self.fingerprints.__setitem__(game, {
            table: input_fingerprint(self.root, inputs, game, params) for table, inputs in CHAIN}))

    def events(self) -> list[dg.AssetMaterialization | dg.AssetCheckEvaluation]:
        """What the commit made of each extended model partition, with the fingerprint of its inputs, and the
        model steps' checks of what it staged."""
        events: list[dg.AssetMaterialization | dg.AssetCheckEvaluation] = []
        for game, tables in sorted(self.fingerprints.items()):
            events += [dg.AssetMaterialization(asset_key=table, partition=game, metadata={
                           FINGERPRINT_KEY: fingerprint, "incremental": True,
                           "rows_staged": self.extended[game][table]}) for table, fingerprint in tables.items()]
            events += self.checks[game]
        return events


def check_evaluations(preset: Preset, game: str, outputs: dict[str, pl.DataFrame]) -> list[dg.AssetCheckEvaluation]:
    """The ingested chain's asset checks on the staged frames (the added bags, the whole prototypes and
    classification), as evaluations of the game's partitions."""
    evaluations = []
    for step in INGESTED_CHAIN.steps:
        table = INGESTED_CHAIN.tables[step.role]
        for check in step.checks:
            result = check.evaluate(Run(table, game, preset, ingested_blacklist(preset, game)), outputs[table])
            evaluations.append(dg.AssetCheckEvaluation(asset_key=dg.AssetKey(table), check_name=result.check_name,
                                                       passed=result.passed, metadata=result.metadata,
                                                       partition=game))
    return evaluations


def stage_increment(tx: LakeTransaction, root: Path, preset: Preset, game: str, stored_games: pl.DataFrame,
                    added: Added) -> dict[str, pl.DataFrame]:
    """Stage the game's model updated by the `added` games (see the module docstring); returns what it staged
    per table (of sampled states and bags: the added games' rows)."""
    partition = {"game": game}
    run = Run(SAMPLED_TABLE, game, preset, ingested_blacklist(preset, game))
    sampled = sample(run, added.states, added.games)
    bags = bag(run, added.tokens, sampled)
    prototypes = run_sql("winner_prototypes_added", {
        "prototypes": lake.read_table(root, PROTOTYPES_TABLE, partition), "trajectory_bags": bags,
        "games": added.games}, memory_limit=preset.duckdb_memory_limit)
    games = pl.concat([stored_games, added.games.select(stored_games.columns)]).sort("game_id")
    classification = classification_from_sums(
        prototypes.filter(pl.col("frequency") == "full"), prefix_bags(root, game, added),
        state_counts(root, game, added), games, preset.test_share, run.blacklist)
    tx.append(sampled, SAMPLED_TABLE, partition)
    tx.append(bags, BAGS_TABLE, partition)
    tx.write(prototypes, PROTOTYPES_TABLE, partition)
    tx.write(classification, CLASSIFICATION_TABLE, partition)
    return {SAMPLED_TABLE: sampled, BAGS_TABLE: bags, PROTOTYPES_TABLE: prototypes,
            CLASSIFICATION_TABLE: classification}


def prefix_bags(root: Path, game: str, added: Added) -> Callable[[pl.DataFrame], pl.DataFrame]:
    """classification_from_sums' prefix_bags over the game's stored tokens and the added ones: a streaming scan
    that reads only the row groups of the games asked for and keeps only their summed bags in memory."""
    files = lake.partition_files(root, TOKENS_TABLE, {"game": game})
    columns = ["game_id", "state_idx", "token", "count"]

    def bags(cut: pl.DataFrame) -> pl.DataFrame:
        tokens = pl.concat([pl.scan_parquet(files).select(columns), added.tokens.lazy().select(columns)])
        return (tokens.filter(pl.col("game_id").is_in(cut["game_id"].implode()))
                .join(cut.lazy(), on="game_id").filter(pl.col("state_idx") < pl.col("limit"))
                .group_by("game_id", "token").agg(pl.col("count").sum()).sort("game_id", "token")
                .collect(engine="streaming"))

    return bags


def state_counts(root: Path, game: str, added: Added) -> dict[int, int]:
    """Recorded states per game_id of the game, the stored ones counted from their game_id column alone."""
    stored = (pl.scan_parquet(lake.partition_files(root, STATES_TABLE, {"game": game})).group_by("game_id").len()
              .collect())
    return {**dict(stored.iter_rows()), **dict(added.states.group_by("game_id").len().iter_rows())}
