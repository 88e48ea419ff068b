"""Table transforms over the model's tables: the state_tokens table, sampling, trajectory and segmented bags (SQL from
sql/ run by storage/sql.py, or Polars a block of whole games at a time)."""
