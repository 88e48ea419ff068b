"""The Dagster resources: which preset, seed and data directory a run uses (settings), and where its games run
(compute)."""

from __future__ import annotations

import os
from pathlib import Path

import dagster as dg

import jbag_pipeline.storage.lake as lake
from jbag_pipeline.compute import Compute, make_compute
from jbag_pipeline.preset_files import load_preset, preset_reference
from jbag_pipeline.presets import Preset, with_turn_order_fields


class JbagSettings(dg.ConfigurableResource):
    """Preset, seed override and data directory; set from run config, else JBAG_PRESET / JBAG_DATA_DIR.

    preset: a built-in preset's name (smoke, demo, paper) or the path of a TOML preset file
    (jbag_pipeline.preset_files), read and checked in every process that asks for the preset.

    token_blacklist: per game, the fields dropped besides the outcome fields (replacing the preset's
    turn-order fields of that game; see jbag_pipeline.analysis.leakage), e.g. {"connect4": ["moveCount"]}.
    """

    preset: str = "demo"
    seed: int | None = None
    data_dir: str = "data"
    token_blacklist: dict[str, list[str]] | None = None

    def setup_for_execution(self, context: dg.InitResourceContext) -> None:
        self.get_preset()  # a bad preset (file) or token_blacklist fails the step as it starts, before any work

    def get_preset(self) -> Preset:
        return with_turn_order_fields(load_preset(self.preset, self.seed), self.token_blacklist)

    def root(self) -> Path:
        return lake.data_dir(self.data_dir)


def settings_from_env() -> JbagSettings:
    """Settings as the environment gives them (what `dagster dev` and `jbag run` start from)."""
    return JbagSettings(
        preset=preset_reference(os.environ.get("JBAG_PRESET")),
        data_dir=os.environ.get("JBAG_DATA_DIR", "data"),
    )


class JbagCompute(dg.ConfigurableResource):
    """Where batches of independent games run: backend inline (this process), local (processes on every core,
    or `workers` of them) or dask (a Dask cluster at `scheduler`, tcp://HOST:PORT; `workers`: wait for that
    many; `scheduler_timeout`: seconds it has to answer). Set in run config (resources.compute.config), else
    JBAG_COMPUTE / JBAG_SCHEDULER / JBAG_WORKERS / JBAG_SCHEDULER_TIMEOUT.
    """

    backend: str = "local"
    scheduler: str | None = None
    workers: int | None = None
    scheduler_timeout: float | None = None

    def get_compute(self) -> Compute:
        return make_compute(self.backend, self.scheduler, self.workers, self.scheduler_timeout)


def compute_from_env() -> JbagCompute:
    """The compute resource as the environment gives it (default local: every core of this machine)."""
    workers = os.environ.get("JBAG_WORKERS")
    return JbagCompute(backend=os.environ.get("JBAG_COMPUTE", "local"), scheduler=os.environ.get("JBAG_SCHEDULER"),
                       workers=int(workers) if workers else None)
