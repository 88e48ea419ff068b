"""Where batches of independent games run: this process, every core through processes, or a Dask cluster."""

from jbag_pipeline.compute.backends import (BACKENDS, Compute, ComputeError, DaskCompute, InlineCompute, LocalCompute,
                                            check_scheduler_address, make_compute, run_batch)
from jbag_pipeline.compute.progress import report_games, watching_games

__all__ = ["BACKENDS", "Compute", "ComputeError", "DaskCompute", "InlineCompute", "LocalCompute",
           "check_scheduler_address", "make_compute", "report_games", "run_batch",
           "watching_games"]
