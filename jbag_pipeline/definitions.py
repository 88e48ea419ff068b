"""Dagster Definitions: every asset, check, job, schedule and sensor of jbag (`dagster dev -w workspace.yaml`)."""

from __future__ import annotations

import dagster as dg

from jbag_pipeline.assets import (catalog, classification, evaluation, ingest, ingested_model, leakage, model, reference,
                                  report, selection, selfplay, tictactoe, transfer)
from jbag_pipeline.resources import compute_from_env, settings_from_env
from jbag_pipeline.storage.io_manager import LakeIOManager
from jbag_pipeline.automation.schedules import build_refresh
from jbag_pipeline.automation.sensors import inbox_sensor

ALL_ASSETS = [
    selfplay.selfplay,
    model.state_tokens,
    model.sampled_states,
    model.trajectory_bags,
    model.winner_prototypes,
    model.winner_classification,
    selection.segmented_bags,
    selection.selected_features,
    classification.variant_classification,
    leakage.leaky_tokens,
    leakage.counters_kept,
    evaluation.evaluation_control,
    evaluation.evaluation_games,
    evaluation.stability_games,
    evaluation.evaluation_tables,
    transfer.transfer,
    tictactoe.tictactoe_values,
    tictactoe.tictactoe_compression,
    tictactoe.tictactoe_jsonbag,
    ingest.ingested_games,
    *ingested_model.INGESTED_MODEL_ASSETS,
    reference.reference_reproduction,
    catalog.catalog,
    report.report,
]

REFRESH = build_refresh(ALL_ASSETS)
SETTINGS = settings_from_env()

defs = dg.Definitions(
    assets=ALL_ASSETS,
    resources={"io_manager": LakeIOManager(settings=SETTINGS), "settings": SETTINGS, "compute": compute_from_env()},
    jobs=REFRESH.jobs,
    schedules=[REFRESH.schedule],
    sensors=[REFRESH.followup_sensor, inbox_sensor],
)
