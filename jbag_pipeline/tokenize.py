"""Stable public name of the tokenizer (docs/DESIGN.md section 5); the code lives in jbag_pipeline.model.tokenize."""

from jbag_pipeline.model.tokenize import tokenize_state, tokenize_trajectory  # noqa: F401
