"""Storage: the Parquet lake, the DuckDB catalog, the SQL runner and sandbox, and the DuckDB-backed table transforms."""
