"""Statistics and verdicts over the evaluation and classification tables (they read lake-backed DuckDB transforms)."""
