"""The Dagster resources: the run's preset (settings), where the lake lives (lake), where games run (compute), and
the lake IO manager over them (io_manager.py)."""

from jbag_pipeline.resources.compute import JbagCompute, compute_from_env
from jbag_pipeline.resources.lake import LakeResource, lake_from_env
from jbag_pipeline.resources.settings import JbagSettings, settings_from_env

__all__ = ["JbagCompute", "JbagSettings", "LakeResource", "compute_from_env", "lake_from_env", "settings_from_env"]
