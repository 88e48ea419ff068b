"""The resources every asset takes: `settings` (JBAG_PRESET, JBAG_SEED, JBAG_DATA_DIR), the lake IO manager over
its data directory, and `compute` (JBAG_COMPUTE, JBAG_SCHEDULER, JBAG_WORKERS)."""

import dagster as dg

from jbag_pipeline.resources import compute_from_env, settings_from_env
from jbag_pipeline.storage.io_manager import lake_resources

defs = dg.Definitions(resources=lake_resources(settings_from_env(), compute_from_env()))
