"""The lake resource: where the Parquet lake lives, the one place the IO manager, ingest, catalog, report and
sensors take it from."""

from __future__ import annotations

import os
from pathlib import Path

import dagster as dg

import jbag_pipeline.storage.lake as lake


class LakeResource(dg.ConfigurableResource):
    """The data directory holding the lake (<data_dir>/lake), the catalog and the report; set in run config
    (resources.lake.config.data_dir), else JBAG_DATA_DIR, else ./data."""

    data_dir: str = lake.DEFAULT_DATA_DIR

    def root(self) -> Path:
        return lake.data_dir(self.data_dir)


def lake_from_env() -> LakeResource:
    """The lake resource as the environment gives it (what `dagster dev` starts from)."""
    return LakeResource(data_dir=os.environ.get("JBAG_DATA_DIR", lake.DEFAULT_DATA_DIR))
