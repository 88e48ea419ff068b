"""Every asset of jbag_pipeline/assets/, loaded by package (each declares its own automation condition)."""

import dagster as dg

import jbag_pipeline.assets

ASSETS = dg.load_assets_from_package_module(jbag_pipeline.assets)

defs = dg.Definitions(assets=ASSETS)
