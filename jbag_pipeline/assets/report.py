"""The report asset: data/report/index.html (and report.md) with the tables and plots of the lake."""

import dagster as dg

from jbag_pipeline.assets.conditions import SUMMARY_CONDITION
from jbag_pipeline.report import write_report
from jbag_pipeline.resources import LakeResource
from jbag_pipeline.run_policy import SUMMARY, YES


@dg.asset(group_name="report", tags={SUMMARY: YES}, automation_condition=SUMMARY_CONDITION, deps=["catalog"],
          description="HTML + Markdown report of every table in the lake, with plots.")
def report(lake: LakeResource) -> dg.MaterializeResult:
    path = write_report(lake.root())
    return dg.MaterializeResult(metadata={"path": dg.MetadataValue.path(str(path)),
                                          "url": dg.MetadataValue.url(path.as_uri())})
