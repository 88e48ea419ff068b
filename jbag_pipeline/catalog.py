"""The DuckDB catalog: a file holding only views over the lake, rebuilt atomically by one asset."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import duckdb

from jbag_pipeline import lake

# catalog view name -> lake table (asset) name
VIEWS: dict[str, str] = {
    "games": "selfplay_games",
    "states": "selfplay_states",
    "tokens": "state_tokens",
    "sampled_states": "sampled_states",
    "bags": "trajectory_bags",
    "segmented_bags": "segmented_bags",
    "prototypes": "winner_prototypes",
    "classification": "winner_classification",
    "variant_classification": "variant_classification",
    "features": "selected_features",
    "feature_summary": "feature_summary",
    "leaky_tokens": "leaky_tokens",
    "counters_kept_prototypes": "counters_kept_prototypes",
    "counters_kept_features": "counters_kept_features",
    "evaluation_games": "evaluation_games",
    "evaluation_control": "evaluation_control",
    "evaluation_summary": "evaluation_summary",
    "stability_games": "stability_games",
    "stability_summary": "stability_summary",
    "verdicts": "verdicts",
    "paper_table_1": "paper_table_1",
    "paper_table_2": "paper_table_2",
    "effect_sizes": "effect_sizes",
    "tictactoe_values": "tictactoe_values",
    "tictactoe_compression": "tictactoe_compression",
    "tictactoe_jsonbag": "tictactoe_jsonbag",
    "token_mappings": "token_mappings",
    "transfer_results": "transfer_results",
    "reference_reproduction": "reference_reproduction",
    "ingested_games": "ingested_games",
    "ingested_states": "ingested_states",
    "ingested_sources": "ingested_sources",
    "ingested_tokens": "ingested_tokens",
    "ingested_sampled_states": "ingested_sampled_states",
    "ingested_bags": "ingested_bags",
    "ingested_prototypes": "ingested_prototypes",
    "ingested_classification": "ingested_classification",
    "quarantine": "ingest_quarantine",
}


def catalog_path(root: Path) -> Path:
    return root / "jbag.duckdb"


def view_sql(root: Path, view: str, table: str) -> str:
    glob = lake.table_glob(root, table).replace("'", "''")
    return f"CREATE OR REPLACE VIEW {view} AS SELECT * FROM read_parquet('{glob}', union_by_name = true)"


def build_catalog(root: Path) -> dict[str, str]:
    """Write <root>/jbag.duckdb with a view per existing lake table; returns view -> table of those created."""
    created = {view: table for view, table in VIEWS.items() if lake.table_exists(root, table)}
    root.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".jbag-", suffix=".duckdb", dir=root)
    os.close(fd)
    os.unlink(tmp)  # DuckDB creates the file itself
    try:
        con = duckdb.connect(tmp)
        try:
            for view, table in created.items():
                con.execute(view_sql(root, view, table))
            con.execute("CHECKPOINT")
        finally:
            con.close()
        os.replace(tmp, catalog_path(root))
    finally:
        Path(tmp).unlink(missing_ok=True)
        Path(tmp + ".wal").unlink(missing_ok=True)
    return created
