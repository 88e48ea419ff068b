"""Stable public name of the JSD (docs/DESIGN.md section 5); the code lives in jbag_pipeline.model.bags."""

from jbag_pipeline.model.bags import jsd  # noqa: F401
