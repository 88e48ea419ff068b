"""Dagster automation: schedules, sensors and the refresh plan after a scheduled self-play."""
