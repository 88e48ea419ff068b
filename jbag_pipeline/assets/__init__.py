"""Dagster assets, one module per domain; each is a thin wrapper over pure functions."""
