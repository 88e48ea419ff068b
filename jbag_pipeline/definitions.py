"""Dagster Definitions: every asset, check, job, schedule and sensor of jbag (`dagster dev -w workspace.yaml`)."""

from __future__ import annotations

import dagster as dg

from jbag_pipeline.assets import catalog, model, report, selection, selfplay, tictactoe
from jbag_pipeline.resources import settings_from_env

ALL_ASSETS = [
    selfplay.selfplay,
    model.state_tokens,
    model.sampled_states,
    model.trajectory_bags,
    model.winner_prototypes,
    model.winner_classification,
    selection.segmented_bags,
    selection.selected_features,
    tictactoe.tictactoe_values,
    tictactoe.tictactoe_compression,
    catalog.catalog,
    report.report,
]

defs = dg.Definitions(
    assets=ALL_ASSETS,
    resources={"settings": settings_from_env()},
)
