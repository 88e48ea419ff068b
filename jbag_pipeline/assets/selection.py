"""Feature-selection assets per game: segmented datasets and Random-Forest selected tokens per variant."""

import dagster as dg
import polars as pl

import jbag_pipeline.storage.lake as lake
from jbag_pipeline.assets.common import game_partitions, preview, read_partition, sum_to_one_check, table_metadata
from jbag_pipeline.resources import JbagSettings
from jbag_pipeline.storage.segments import segmented_bags as build_segmented_bags
from jbag_pipeline.model.selection import select_features


@dg.asset(group_name="selection", partitions_def=game_partitions, deps=["state_tokens", "sampled_states"],
          check_specs=[dg.AssetCheckSpec("segments_sum_to_one", asset="segmented_bags")],
          description="D_i per frequency: each trajectory truncated after segment i of N_S, as a normalised bag.")
def segmented_bags(context: dg.AssetExecutionContext, settings: JbagSettings):
    game = context.partition_key
    preset = settings.get_preset()
    bags = build_segmented_bags(read_partition(settings, "state_tokens", game), read_partition(settings, "sampled_states", game),
                                n_segments=preset.segments, blacklist=preset.blacklist_for(game),
                                memory_limit=preset.duckdb_memory_limit)
    path = lake.write_table(bags, settings.root(), "segmented_bags", {"game": game})
    yield dg.MaterializeResult(metadata={**table_metadata(bags, path), "segments": preset.segments})
    yield sum_to_one_check(bags, ["frequency", "segment", "game_id"], "segments_sum_to_one")


@dg.multi_asset(
    specs=[
        dg.AssetSpec("selected_features", group_name="selection", partitions_def=game_partitions,
                     deps=["segmented_bags", "selfplay_games"],
                     description="Tokens kept per feature variant (RF MDI top-k, segmented union, adaptive, none)."),
        dg.AssetSpec("feature_summary", group_name="selection", partitions_def=game_partitions,
                     deps=["segmented_bags", "selfplay_games"],
                     description="Per variant: tokens kept and the forest's out-of-bag winner accuracy."),
    ],
    check_specs=[dg.AssetCheckSpec("every_variant_present", asset="feature_summary")],
)
def selected_features(context: dg.AssetExecutionContext, settings: JbagSettings):
    game = context.partition_key
    preset = settings.get_preset()
    selection = select_features(read_partition(settings, "segmented_bags", game), read_partition(settings, "selfplay_games", game),
                                k=preset.top_k, n_estimators=preset.rf_trees, seed=preset.seed,
                                adaptive_share=preset.adaptive_share)
    root = settings.root()
    path = lake.write_table(selection.features, root, "selected_features", {"game": game})
    summary_path = lake.write_table(selection.summary, root, "feature_summary", {"game": game})
    top = selection.features.filter(pl.col("variant") == "full").head(15)
    yield dg.MaterializeResult(asset_key="selected_features",
                               metadata={**table_metadata(selection.features, path), "top_full": preview(top, 15)})
    yield dg.MaterializeResult(asset_key="feature_summary",
                               metadata={**table_metadata(selection.summary, summary_path),
                                         "variants": preview(selection.summary, 20)})
    expected = {"full", "interval", "random", "full_seg", "interval_seg", "random_seg", "none", "adaptive"}
    missing = sorted(expected - set(selection.summary["variant"]))
    yield dg.AssetCheckResult(asset_key="feature_summary", check_name="every_variant_present", passed=not missing,
                              metadata={"missing": ", ".join(missing) or "none"})
