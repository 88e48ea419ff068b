"""Stable public name of the tokenizer (DESIGN.md section 9); the code lives in jbag_pipeline.model.tokenize."""

from jbag_pipeline.model.tokenize import tokenize_state, tokenize_trajectory  # noqa: F401
