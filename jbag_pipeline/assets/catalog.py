"""The catalog asset: DuckDB views over every lake table that exists."""

import dagster as dg

from jbag_pipeline.catalog import build_catalog, catalog_path
from jbag_pipeline.resources import JbagSettings


@dg.asset(group_name="catalog", deps=["selfplay_games", "selfplay_states", "state_tokens", "sampled_states", "trajectory_bags",
                                      "winner_prototypes", "winner_classification", "variant_classification",
                                      "segmented_bags", "selected_features", "feature_summary",
                                      "evaluation_control", "evaluation_games", "stability_games", "evaluation_summary",
                                      "stability_summary", "verdicts", "paper_table_1", "paper_table_2",
                                      "effect_sizes", "token_mappings", "transfer_results",
                                      "tictactoe_values", "tictactoe_compression", "tictactoe_jsonbag",
                                      "ingested_games", "ingested_tokens", "ingested_bags", "ingested_prototypes",
                                      "ingested_classification"],
          description="data/jbag.duckdb: one view per lake table (games, states, tokens, bags, prototypes, ...).")
def catalog(context: dg.AssetExecutionContext, settings: JbagSettings) -> dg.MaterializeResult:
    root = settings.root()
    views = build_catalog(root)
    listing = "\n".join(f"- `{view}` -> lake table `{table}`" for view, table in views.items())
    return dg.MaterializeResult(metadata={
        "path": dg.MetadataValue.path(str(catalog_path(root))),
        "views": dg.MetadataValue.md(listing or "*(no tables yet)*"),
        "view_count": len(views),
    })
