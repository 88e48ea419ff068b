"""Validation on data no one here wrote: the JSON-Bag paper's agent-classification accuracy, reproduced."""

import os
import time

import dagster as dg

from jbag_pipeline.assets.common import preview
from jbag_pipeline.model.reference import reference_reproduction as reproduce
from jbag_pipeline.resources import JbagSettings
from jbag_pipeline.run_policy import OPT_IN, YES


class ReferenceConfig(dg.Config):
    """Where the jsonbag_reference folder is (default: JBAG_REFERENCE_DIR) and the protocol's split count."""

    reference_dir: str | None = None
    n_splits: int = 10


@dg.asset(group_name="reference", tags={OPT_IN: YES},
          check_specs=[dg.AssetCheckSpec("accuracy_near_published", asset="reference_reproduction")],
          description="P-NNS + JSD and Random Forest agent-classification accuracy on the original JSON-Bag data "
                      "(10 random 50/50 splits), next to the published numbers. Not in the default selection.")
def reference_reproduction(config: ReferenceConfig, settings: JbagSettings):
    folder = config.reference_dir or os.environ.get("JBAG_REFERENCE_DIR")
    if not folder:
        raise ValueError("reference_reproduction needs the jsonbag_reference folder: set JBAG_REFERENCE_DIR or the "
                         "asset's reference_dir config")
    started = time.perf_counter()
    table = reproduce(folder, n_splits=config.n_splits, seed=settings.get_preset().seed)
    yield dg.Output(table, metadata={"seconds": time.perf_counter() - started, "ours_vs_published": preview(table, 12)})
    gap = float((table["ours"] - table["published"]).abs().max())
    yield dg.AssetCheckResult(check_name="accuracy_near_published", passed=gap <= 0.1,
                              metadata={"max_abs_gap": gap})
