"""Where batches of independent games run: this process, every core through processes, or a Dask cluster."""

from jbag_pipeline.compute.backends import (BACKENDS, Compute, ComputeError, DaskCompute, InlineCompute, LocalCompute,
                                            check_scheduler_address, make_compute, run_batch)

__all__ = ["BACKENDS", "Compute", "ComputeError", "DaskCompute", "InlineCompute", "LocalCompute",
           "check_scheduler_address", "make_compute", "run_batch"]
