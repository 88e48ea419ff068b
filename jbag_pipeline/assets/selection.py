"""Feature-selection assets per game: segmented datasets and Random-Forest selected tokens per variant."""

import tempfile
from pathlib import Path

import dagster as dg
import polars as pl

from jbag_pipeline.assets.common import game_partitions, preview, sum_to_one_check
from jbag_pipeline.resources import JbagSettings
from jbag_pipeline.transforms.segments import segmented_bags as build_segmented_bags
from jbag_pipeline.training.value_function import TrainingSettings, feature_selection


@dg.asset(group_name="selection", partitions_def=game_partitions,
          check_specs=[dg.AssetCheckSpec("segments_sum_to_one", asset="segmented_bags")],
          description="D_i per frequency: each trajectory truncated after segment i of N_S, as a normalised bag.")
def segmented_bags(context: dg.AssetExecutionContext, settings: JbagSettings, state_tokens: pl.LazyFrame,
                   sampled_states: pl.DataFrame):
    preset = settings.get_preset()
    # several times state_tokens' games: written a block of games at a time to scratch files, which the lake writer
    # sinks into one; Dagster stores the output as it is yielded, so the files outlive the store and the check
    with tempfile.TemporaryDirectory(prefix="jbag-scratch-") as scratch:
        bags = build_segmented_bags(state_tokens, sampled_states, n_segments=preset.segments,
                                    blacklist=preset.blacklist_for(context.partition_key),
                                    memory_limit=preset.duckdb_memory_limit, folder=Path(scratch))
        yield dg.Output(bags, metadata={"segments": preset.segments})
        yield sum_to_one_check(bags, ["frequency", "segment", "game_id"], "segments_sum_to_one")


@dg.multi_asset(
    partitions_def=game_partitions,
    outs={
        "selected_features": dg.AssetOut(group_name="selection", description=(
            "Tokens kept per feature variant (RF MDI top-k, segmented union, adaptive, none).")),
        "feature_summary": dg.AssetOut(group_name="selection", description=(
            "Per variant: tokens kept and the forest's out-of-bag winner accuracy.")),
    },
    check_specs=[dg.AssetCheckSpec("every_variant_present", asset="feature_summary")],
)
def selected_features(settings: JbagSettings, segmented_bags: pl.LazyFrame, selfplay_games: pl.DataFrame):
    preset = settings.get_preset()
    selection = feature_selection(segmented_bags, selfplay_games, TrainingSettings.of_preset(preset))
    top = selection.features.filter(pl.col("variant") == "full").head(15)
    yield dg.Output(selection.features, output_name="selected_features", metadata={"top_full": preview(top, 15)})
    yield dg.Output(selection.summary, output_name="feature_summary",
                    metadata={"variants": preview(selection.summary, 20)})
    expected = {"full", "interval", "random", "full_seg", "interval_seg", "random_seg", "none", "adaptive"}
    missing = sorted(expected - set(selection.summary["variant"]))
    yield dg.AssetCheckResult(asset_key="feature_summary", check_name="every_variant_present", passed=not missing,
                              metadata={"missing": ", ".join(missing) or "none"})
