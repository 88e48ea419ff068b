"""Winner classification per prototype frequency and feature variant: do the prototypes carry any signal?"""

import dagster as dg
import polars as pl

from jbag_pipeline.assets.common import game_partitions, preview
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
          check_specs=[dg.AssetCheckSpec("accuracy_in_range", asset="variant_classification")],
          description="P-NNS winner accuracy on held-out games per prototype frequency (full/interval/random) and, "
                      "at frequency full, per feature variant, with a Wilson interval beside the majority seat.")
def variant_classification(context: dg.AssetExecutionContext, settings: JbagSettings, state_tokens: pl.LazyFrame,
                           sampled_states: pl.DataFrame, selfplay_games: pl.DataFrame, segmented_bags: pl.LazyFrame,
                           selected_features: pl.DataFrame):
    preset = settings.get_preset()
    features = train_selected_features(segmented_bags, selfplay_games, preset.test_share, k=preset.top_k,
                                       n_estimators=preset.rf_trees, seed=preset.seed,
                                       adaptive_share=preset.adaptive_share)
    every_state = sampled_states.filter(pl.col("frequency") == "full")  # (game_id, state_idx) of every state
    table = variant_classification_table(state_tokens, every_state, selfplay_games, sampled_states, features,
                                         test_share=preset.test_share,
                                         blacklist=preset.blacklist_for(context.partition_key))
    note = SELECTION_NOTE if features is not None else \
        "No feature variant: the training games were won by fewer than two seats, so no selection is possible."
    metadata = {"feature_selection": dg.MetadataValue.md(note),
                "whole_trajectories": preview(table.filter(pl.col("prefix") == 1.0), 20)}
    if features is not None:
        metadata["token_overlap"] = preview(token_overlap(features, selected_features), 10)
    yield dg.Output(table, metadata=metadata)
    yield accuracy_check(table, "variant_classification")
