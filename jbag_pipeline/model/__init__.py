"""The JSON-Bag model, pure (no Dagster or DuckDB): tokenizer, bags and JSD, value formula, feature selection."""

from jbag_pipeline.model.bags import jsd
from jbag_pipeline.model.tokenize import tokenize_state, tokenize_trajectory

__all__ = ["jsd", "tokenize_state", "tokenize_trajectory"]
