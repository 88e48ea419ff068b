"""jbag_pipeline: the JSON-Bag model, storage, Dagster assets, CLI and report."""
