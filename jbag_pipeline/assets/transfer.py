"""Transfer assets: JSON-Bag value functions carried from one game variant to another (token mapping)."""

import dagster as dg
import polars as pl

from jbag_pipeline.assets.common import preview
from jbag_pipeline.resources import JbagCompute, JbagSettings
from jbag_pipeline.resources.io_manager import PARTITION_EXPR
from jbag_pipeline.schemas import TRANSFER_RESULTS
from jbag_pipeline.transfer.experiment import (CONTROL_METHOD, DEFAULT_PAIRS, prepare_transfer, selfplay_tables,
                                               transfer_experiment)

SHOWN_COLUMNS = ["method", "n_target_games", "games", "win_rate", "win_rate_low", "win_rate_high", "control_win_rate",
                 "p_value_holm", "verdict", "mean_score", "ci_low", "ci_high"]


def pair_key(pair: dict) -> str:
    """'connect4-6x7-to-8x8': a partition key naming one source -> target variant pair."""
    def size(params):
        return f"{params['rows']}x{params['cols']}"
    return f"{pair['game']}-{size(pair['source_params'])}-to-{size(pair['target_params'])}"


TRANSFER_PAIRS = {pair_key(pair): pair for pair in DEFAULT_PAIRS}
transfer_partitions = dg.StaticPartitionsDefinition(list(TRANSFER_PAIRS))


PAIR_FOLDERS = {PARTITION_EXPR: "pair"}  # lake partition pair=<key>


@dg.multi_asset(
    partitions_def=transfer_partitions,
    outs={
        "token_mappings": dg.AssetOut(group_name="transfer", metadata=PAIR_FOLDERS, description=(
            "Per target token: the source token it takes its weight from, match kind, distance.")),
        "transfer_results": dg.AssetOut(group_name="transfer", metadata=PAIR_FOLDERS, description=(
            "Transferred (zero-shot), target-trained, random-mapping and fine-tuned JSON-Bag OSLA against baseline "
            "OSLA on the target variant: win rate (Wilson 95%) against a control (baseline OSLA in every seat, same "
            "seeds), exact p stratified by seat, Holm across the methods, verdict; mean score with a bootstrap "
            "interval.")),
    },
    check_specs=[dg.AssetCheckSpec("every_method_played", asset="transfer_results")],
)
def transfer(context: dg.AssetExecutionContext, settings: JbagSettings, compute: JbagCompute):
    key = context.partition_key
    pair = TRANSFER_PAIRS[key]
    game = pair["game"]
    transfer_settings = settings.get_preset().transfer_settings(game)
    n_target = max([transfer_settings.target_games, *transfer_settings.finetune_games])
    games_on = compute.get_compute()
    source_tables = selfplay_tables(game, pair["source_params"], transfer_settings.source_games, 0, transfer_settings,
                                    games_on)
    target_tables = selfplay_tables(game, pair["target_params"], n_target, 1, transfer_settings, games_on)
    prepared = prepare_transfer(source_tables, target_tables, transfer_settings)
    mapping = prepared.mapping.with_columns(pl.lit(key).alias("pair"))
    results = transfer_experiment((game, pair["source_params"]), (game, pair["target_params"]),
                                  settings=transfer_settings, source_tables=source_tables,
                                  target_tables=target_tables, prepared=prepared, compute=games_on)
    results = results.with_columns(pl.lit(key).alias("pair"))
    kinds = mapping.group_by("match_kind").len().sort("match_kind")
    yield dg.Output(mapping, output_name="token_mappings", metadata={"match_kinds": preview(kinds)})
    verdicts = results.filter(pl.col("verdict").is_not_null()).group_by("verdict").len().sort("verdict")
    yield dg.Output(results, output_name="transfer_results",
                    metadata={"results": preview(results.select(SHOWN_COLUMNS), 20), "verdicts": preview(verdicts)})
    methods = set(results["method"])
    yield dg.AssetCheckResult(asset_key="transfer_results", check_name="every_method_played",
                              passed={"transferred", "random_mapping", "target_trained", CONTROL_METHOD} <= methods
                              and set(TRANSFER_RESULTS) <= set(results.columns))
