"""The compute resource: where a run's batches of independent games run."""

from __future__ import annotations

import os

import dagster as dg

from jbag_pipeline.compute import Compute, make_compute


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
