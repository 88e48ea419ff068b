"""The refresh's job, its weekly schedule and automation-condition sensor, and the inbox sensor."""

import dagster as dg

from jbag_pipeline.automation.sensors import inbox_sensor
from jbag_pipeline.defs.assets import REFRESH

defs = dg.Definitions(jobs=REFRESH.jobs, schedules=[REFRESH.schedule],
                      sensors=[REFRESH.automation_sensor, inbox_sensor])
