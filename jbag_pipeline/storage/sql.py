"""SQL transforms: one DuckDB file per transform in sql/, run in an in-memory DuckDB over Polars frames."""

from __future__ import annotations

from pathlib import Path

import duckdb
import polars as pl

from jbag_pipeline.schemas import SAMPLED_STATES, SEGMENTED_BAGS, TRAJECTORY_BAGS, WINNER_PROTOTYPES, conform

SQL_DIR = Path(__file__).resolve().parents[2] / "sql"
# transform -> the schema of the table it computes, which its result is conformed to
OUTPUT_SCHEMAS = {"trajectory_bags": TRAJECTORY_BAGS, "winner_prototypes": WINNER_PROTOTYPES,
                  "winner_prototypes_added": WINNER_PROTOTYPES,
                  "sampled_states": SAMPLED_STATES, "segmented_bags": SEGMENTED_BAGS}


def load_sql(name: str) -> str:
    """The text of sql/<name>.sql."""
    path = SQL_DIR / f"{name}.sql"
    if not path.is_file():
        raise ValueError(f"no SQL transform named {name!r} (looked for {path})")
    return path.read_text()


def connect(memory_limit: str = "4GB") -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB with a memory limit and one thread per core."""
    con = duckdb.connect(":memory:")
    con.execute(f"SET memory_limit = '{memory_limit}'")
    con.execute("SET preserve_insertion_order = true")
    con.execute("SET enable_progress_bar = false")  # a long query's bar would land in the run's log
    return con


def run_sql(name: str, tables: dict[str, pl.DataFrame], params: dict | None = None,
            memory_limit: str = "4GB") -> pl.DataFrame:
    """Run sql/<name>.sql with `tables` registered under their keys and named `params` ($name) bound; the result
    of a transform in OUTPUT_SCHEMAS is conformed to its table's schema."""
    con = connect(memory_limit)
    try:
        for table_name, frame in tables.items():
            con.register(table_name, frame.to_arrow())
        result = pl.from_arrow(con.sql(load_sql(name), params=params or {}).to_arrow_table())
    finally:
        con.close()
    return conform(result, OUTPUT_SCHEMAS[name], name) if name in OUTPUT_SCHEMAS else result
