"""Winner-leakage assets per game: tokens that alone give the winner away; the counters-kept sensitivity inputs."""

import dagster as dg
import polars as pl

from jbag_pipeline.assets.common import game_partitions, preview
from jbag_pipeline.analysis.ablation import full_tables, turn_order_fields
from jbag_pipeline.analysis.leakage import LEAK_MARGIN, MIN_TEST_GAMES, leaky_tokens_table
from jbag_pipeline.resources import JbagSettings
from jbag_pipeline.model.tokenize import TokenFilter


def _tokens(tokens: list[str], limit: int = 30) -> str:
    return ", ".join(f"`{t}`" for t in tokens[:limit]) + (f" ... ({len(tokens)} in all)" if len(tokens) > limit else "")


@dg.asset(group_name="leakage", partitions_def=game_partitions,
          check_specs=[dg.AssetCheckSpec("no_leaky_token_kept", asset="leaky_tokens")],
          description="Tokens that alone (a one-token stump) predict the winner of held-out complete trajectories "
                      "far better than the majority seat, and whether the game's blacklist removes them.")
def leaky_tokens(context: dg.AssetExecutionContext, settings: JbagSettings, state_tokens: pl.LazyFrame,
                 selfplay_games: pl.DataFrame):
    preset = settings.get_preset()
    blacklist = preset.blacklist_for(context.partition_key)
    table, tested = leaky_tokens_table(state_tokens, selfplay_games, test_share=preset.test_share, blacklist=blacklist)
    kept = table.filter(~pl.col("blacklisted"))["token"].unique(maintain_order=True).to_list()
    yield dg.Output(table, metadata={
        "tokens_tested": tested, "blacklist": ", ".join(blacklist),
        "leaky_tokens": dg.MetadataValue.md(_tokens(table["token"].unique(maintain_order=True).to_list()) or "none"),
        "leaky_tokens_kept": dg.MetadataValue.md(_tokens(kept) or "none"),
        "rule": dg.MetadataValue.md(
            f"one-token stump: Wilson lower bound of the held-out accuracy (95% simultaneous over the {tested} "
            f"tokens tested; seat s: the question 'did seat s win') >= the majority's accuracy + {LEAK_MARGIN}; "
            f"none with fewer than {MIN_TEST_GAMES} held-out games"),
        "top": preview(table, 20),
    })
    yield dg.AssetCheckResult(check_name="no_leaky_token_kept", passed=not kept, severity=dg.AssetCheckSeverity.WARN,
                              metadata={"kept_leaky_tokens": dg.MetadataValue.md(_tokens(kept) or "none"),
                                        "count": len(kept)})


@dg.multi_asset(
    partitions_def=game_partitions,
    outs={
        "counters_kept_prototypes": dg.AssetOut(group_name="leakage", description=(
            "Winner prototypes at frequency full with the turn-order fields kept (only the outcome fields "
            "dropped): the sensitivity row's prototypes.")),
        "counters_kept_features": dg.AssetOut(group_name="leakage", description=(
            "The Random-Forest `full` features with the turn-order fields kept.")),
    },
)
def counters_kept(context: dg.AssetExecutionContext, settings: JbagSettings, state_tokens: pl.LazyFrame,
                  sampled_states: pl.DataFrame, selfplay_games: pl.DataFrame):
    game = context.partition_key
    preset = settings.get_preset()
    prototypes, features = full_tables(
        state_tokens, sampled_states, selfplay_games, blacklist=preset.blacklist_for(game, keep_counters=True),
        k=preset.top_k, n_estimators=preset.rf_trees, seed=preset.seed, memory_limit=preset.duckdb_memory_limit)
    counters = turn_order_fields(preset, game)
    of_counters = TokenFilter(counters)
    n_counters = sum(not of_counters.keeps(t) for t in features["token"].to_list())
    yield dg.Output(prototypes, output_name="counters_kept_prototypes")
    yield dg.Output(features, output_name="counters_kept_features", metadata={
        "top_full": preview(features, 15),
        "turn_order_features": dg.MetadataValue.md(f"{n_counters} of {len(features)} selected tokens are of "
                                                   f"the turn-order fields {', '.join(counters) or '(none)'}")})
