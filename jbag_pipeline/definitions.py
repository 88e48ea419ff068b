"""Dagster Definitions of jbag: every asset, check, job, schedule and sensor, loaded from the defs folder.

`jbag_pipeline/defs/` follows dg's project convention (`[tool.dg]` in pyproject.toml), so `dg dev`, `dg check defs`
and `dagster dev -w workspace.yaml` all load this module's `defs`.
"""

from __future__ import annotations

from pathlib import Path

import dagster as dg

from jbag_pipeline.defs.assets import ASSETS

defs = dg.load_from_defs_folder(path_within_project=Path(__file__).parent)

ALL_ASSETS = ASSETS  # the asset definitions in `defs`, for `jbag run` (dg.materialize takes a list)
