"""The `settings` resource every asset takes, from the environment (JBAG_PRESET, JBAG_SEED, JBAG_DATA_DIR)."""

import dagster as dg

from jbag_pipeline.resources import settings_from_env

defs = dg.Definitions(resources={"settings": settings_from_env()})
