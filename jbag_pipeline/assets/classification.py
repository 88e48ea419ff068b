"""Winner classification per prototype frequency and feature variant: do the prototypes carry any signal?"""

import dagster as dg
import polars as pl

import jbag_pipeline.storage.lake as lake
from jbag_pipeline.assets.common import game_partitions, preview, read_partition, table_metadata
from jbag_pipeline.analysis.classification import train_selected_features, token_overlap, variant_classification_table
from jbag_pipeline.resources import JbagSettings

SELECTION_NOTE = (
    "Variant rows use tokens re-selected by the same Random Forest procedure as `selected_features`, but on the "
    "training games only, so no held-out game informs them (the agent's variants are selected on all self-play "
    "games, held-out ones included; `token_overlap` shows how many tokens the two selections share). "
    "`above_majority`: the 95% Wilson interval of accuracy lies wholly above always guessing the majority seat.")


def accuracy_check(table: pl.DataFrame, asset: str) -> dg.AssetCheckResult:
    """Every computed accuracy lies in [0, 1] and within its own interval."""
    known = table.filter(pl.col("accuracy").is_not_null())
    inside = pl.col("accuracy").is_between(pl.col("accuracy_low") - 1e-12, pl.col("accuracy_high") + 1e-12)
    bad = known.filter(~pl.col("accuracy").is_between(0, 1) | ~inside)
    return dg.AssetCheckResult(asset_key=asset, check_name="accuracy_in_range", passed=bad.is_empty(),
                               metadata={"rows_out_of_range": len(bad)})


@dg.asset(group_name="selection", partitions_def=game_partitions,  # it reads selection's tables: not "model"
          deps=["state_tokens", "sampled_states", "selfplay_games", "segmented_bags", "selected_features"],
          check_specs=[dg.AssetCheckSpec("accuracy_in_range", asset="variant_classification")],
          description="P-NNS winner accuracy on held-out games per prototype frequency (full/interval/random) and, "
                      "at frequency full, per feature variant, with a Wilson interval beside the majority seat.")
def variant_classification(context: dg.AssetExecutionContext, settings: JbagSettings):
    game = context.partition_key
    preset = settings.get_preset()
    games = read_partition(settings, "selfplay_games", game)
    sampled = read_partition(settings, "sampled_states", game)
    features = train_selected_features(read_partition(settings, "segmented_bags", game), games, preset.test_share,
                                       k=preset.top_k, n_estimators=preset.rf_trees, seed=preset.seed,
                                       adaptive_share=preset.adaptive_share)
    every_state = sampled.filter(pl.col("frequency") == "full")  # (game_id, state_idx) of every recorded state
    table = variant_classification_table(read_partition(settings, "state_tokens", game), every_state, games, sampled,
                                         features, test_share=preset.test_share, blacklist=preset.blacklist_for(game))
    path = lake.write_table(table, settings.root(), "variant_classification", {"game": game})
    note = SELECTION_NOTE if features is not None else \
        "No feature variant: the training games were won by fewer than two seats, so no selection is possible."
    metadata = {**table_metadata(table, path), "feature_selection": dg.MetadataValue.md(note),
                "whole_trajectories": preview(table.filter(pl.col("prefix") == 1.0), 20)}
    if features is not None:
        overlap = token_overlap(features, read_partition(settings, "selected_features", game))
        metadata["token_overlap"] = preview(overlap, 10)
    yield dg.MaterializeResult(metadata=metadata)
    yield accuracy_check(table, "variant_classification")
