"""Every asset of jbag_pipeline/assets/, loaded by package, with the refresh's automation conditions on them."""

import dagster as dg

import jbag_pipeline.assets
from jbag_pipeline.automation.schedules import build_refresh

REFRESH = build_refresh(dg.load_assets_from_package_module(jbag_pipeline.assets))

defs = dg.Definitions(assets=REFRESH.assets)
