"""TAG logs as training data: the winner prototypes of every ingested TAG game that one of our engines plays, in a
JSON-Bag OSLA against baseline OSLAs beside the control arm (play/ingested_evaluation.py).

Unpartitioned over the ingested games, like published_vf_evaluation over the published ones: it plays games, so
it is opt-in (`jbag run --select ingested_vf_evaluation`, after the ingested model in the run's plan) and not
part of what `jbag ingest` or the inbox sensor rebuild for each changed game."""

import time

import dagster as dg
import polars as pl

from engines import load_game
from jbag_pipeline.play.ingested_evaluation import SKIPPED, engine_for, evaluate_ingested, unplayed_seats
from jbag_pipeline.play.published_evaluation import skipped_notes
from jbag_pipeline.assets.common import preview
from jbag_pipeline.assets.ingested_model import PROTOTYPES_TABLE, ingested_blacklist
from jbag_pipeline.ingest.store import GAMES_TABLE, SOURCES_TABLE
from jbag_pipeline.presets import game_run
from jbag_pipeline.resources import JbagCompute, JbagSettings
from jbag_pipeline.resources.io_manager import OPTIONAL
from jbag_pipeline.run_policy import AFTER_INGESTED, OPT_IN, YES
from jbag_pipeline.schemas import INGESTED_SOURCES, INGESTED_VF_EVALUATION, SELFPLAY_GAMES, WINNER_PROTOTYPES

CHECKS = ("every_ingested_game_reported", "every_seat_played", "win_rates_within_intervals")


def _or_empty(table: pl.DataFrame | None, schema: dict) -> pl.DataFrame:
    """An optional input as `schema`'s columns and types (empty when the lake holds none of it)."""
    return pl.DataFrame(schema=schema) if table is None else table.select(list(schema)).cast(schema)


@dg.asset(group_name="ingest",
          ins={name: dg.AssetIn(name, metadata={OPTIONAL: True}) for name in (PROTOTYPES_TABLE, GAMES_TABLE,
                                                                              SOURCES_TABLE)},
          check_specs=[dg.AssetCheckSpec(name, asset="ingested_vf_evaluation") for name in CHECKS],
          tags={OPT_IN: YES, AFTER_INGESTED: YES},
          description="Per ingested TAG game that one of our engines plays: a JSON-Bag OSLA valuing our states in "
                      "TAG's dialect by its ingested winner prototypes (frequency full, its ingest mode) in each "
                      "seat against baseline OSLAs, beside the control arm on the same seeds: win rates (Wilson "
                      "95%), Fisher per seat, stratified exact test overall, Holm, verdict. A game that cannot be "
                      "played gets one row, scope skipped, with the reason. Not in the default selection.")
def ingested_vf_evaluation(context: dg.AssetExecutionContext, settings: JbagSettings, compute: JbagCompute,
                           ingested_prototypes: pl.DataFrame | None, ingested_games: pl.DataFrame | None,
                           ingested_sources: pl.DataFrame | None):
    preset = settings.get_preset()
    started, frames, expected = time.perf_counter(), [], {}
    modes = dict(_or_empty(ingested_sources, INGESTED_SOURCES).select("game", "mode").unique().iter_rows())
    prototypes, ingested = _or_empty(ingested_prototypes, WINNER_PROTOTYPES), _or_empty(ingested_games, SELFPLAY_GAMES)
    games = sorted(set(ingested["game"]))
    for game in games:
        engine = engine_for(game)
        run = game_run(preset, engine) if engine is not None else None
        frame = evaluate_ingested(
            game, engine, prototypes.filter(pl.col("game") == game),
            # a game's segments hold later games, maybe of lower ids: sorted as one file would be
            ingested.filter(pl.col("game") == game).sort("game_id", maintain_order=True), modes.get(game, "both"),
            ingested_blacklist(preset, game), dict(run.params) if run else {},
            run.eval_games_per_seat if run else 0, preset.seed, compute.get_compute())
        frames.append(frame)
        if run is not None:
            expected[game] = (load_game(engine, **run.params).n_players, run.eval_games_per_seat)
        context.log.info(f"ingested_vf_evaluation: {game} done after {time.perf_counter() - started:.1f}s")
    table = pl.concat(frames) if frames else pl.DataFrame(schema=INGESTED_VF_EVALUATION)
    status = skipped_notes(table)
    yield dg.Output(table, metadata={
        "seconds": time.perf_counter() - started, "preset": preset.name,
        "overall": preview(table.filter(pl.col("scope") == "overall"), 20),
        "skipped": dg.MetadataValue.md(status or ("*(none)*" if frames else "*(nothing ingested)*"))})
    yield dg.AssetCheckResult(check_name="every_ingested_game_reported",
                              passed=sorted(set(table["game"])) == games)
    short = unplayed_seats(table, expected)
    yield dg.AssetCheckResult(check_name="every_seat_played", passed=not short,
                              metadata={"short": ", ".join(short) or "-"})
    played = table.filter(pl.col("scope") != SKIPPED)
    outside = played.filter(~pl.col("win_rate").is_between(pl.col("win_rate_low"), pl.col("win_rate_high")))
    yield dg.AssetCheckResult(check_name="win_rates_within_intervals", passed=outside.is_empty(),
                              metadata={"rows_outside": len(outside)})

