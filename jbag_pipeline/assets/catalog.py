"""The catalog asset: publishes the lake and writes DuckDB views over it (see jbag_pipeline/storage/catalog.py)."""

import dagster as dg

from jbag_pipeline.assets.conditions import SUMMARY_CONDITION
from jbag_pipeline.run_policy import SUMMARY, YES
from jbag_pipeline.storage.catalog import VIEWS, catalog_path, publish
from jbag_pipeline.resources import LakeResource


@dg.asset(group_name="catalog", deps=list(dict.fromkeys(VIEWS.values())),
          description="data/jbag.duckdb: one view per lake table (games, states, tokens, bags, prototypes, ...).",
          tags={SUMMARY: YES}, automation_condition=SUMMARY_CONDITION,
          check_specs=[dg.AssetCheckSpec("one_generation_per_game", asset="catalog",
                                         description="no game partition was withheld for coming from another run")])
def catalog(context: dg.AssetExecutionContext, lake: LakeResource) -> dg.MaterializeResult:
    root = lake.root()
    published = publish(root)
    listing = "\n".join(f"- `{view}` -> lake table `{table}`" for view, table in published.views.items())
    withheld = "\n".join(f"- `{partition}`: {why}" for partition, why in published.withheld.items())
    for partition, why in published.withheld.items():
        context.log.warning(f"catalog: withheld {partition} from the views: {why}")
    check = dg.AssetCheckResult(check_name="one_generation_per_game", passed=not published.withheld,
                                severity=dg.AssetCheckSeverity.WARN,
                                metadata={"withheld": dg.MetadataValue.md(withheld or "*(none)*")})
    return dg.MaterializeResult(metadata={
        "path": dg.MetadataValue.path(str(catalog_path(root))),
        "published": dg.MetadataValue.path(str(published.folder or "")),
        "views": dg.MetadataValue.md(listing or "*(no tables yet)*"),
        "view_count": len(published.views),
        "withheld": dg.MetadataValue.md(withheld or "*(none)*"),
    }, check_results=[check])
