"""Storage: the Parquet lake, the DuckDB catalog, staging, the SQL runner and the `jbag sql` sandbox."""
