"""The refresh's job, its weekly schedule and automation-condition sensor, and the inbox sensor."""

import dagster as dg

from jbag_pipeline.automation.schedules import build_refresh
from jbag_pipeline.automation.sensors import inbox_sensor
from jbag_pipeline.defs.assets import ASSETS

REFRESH = build_refresh(ASSETS)  # refuses assets whose automation conditions are not their refresh stage's

defs = dg.Definitions(jobs=REFRESH.jobs, schedules=[REFRESH.schedule],
                      sensors=[REFRESH.automation_sensor, inbox_sensor])
