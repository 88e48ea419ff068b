"""The resources every asset takes: `settings` (JBAG_PRESET), `lake` (JBAG_DATA_DIR), the lake IO manager over
both, and `compute` (JBAG_COMPUTE, JBAG_SCHEDULER, JBAG_WORKERS)."""

import dagster as dg

from jbag_pipeline.resources import compute_from_env, lake_from_env, settings_from_env
from jbag_pipeline.resources.io_manager import lake_resources

defs = dg.Definitions(resources=lake_resources(settings_from_env(), lake_from_env(), compute_from_env()))
