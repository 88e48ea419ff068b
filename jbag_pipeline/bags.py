"""Stable public name of the JSD (DESIGN.md section 9); the code lives in jbag_pipeline.model.bags."""

from jbag_pipeline.model.bags import jsd  # noqa: F401
