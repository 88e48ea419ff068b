"""chain_assets builds one asset per step of a chain: named by the chain's tables, reading its input tables, with
the step's checks, the chain's partitions, group, blacklist and the inputs the lake IO manager fingerprints."""

import dagster as dg
import polars as pl
import pytest

from jbag_pipeline.assets.model_chain import Chain, Check, Step, chain_assets
from jbag_pipeline.resources import JbagSettings
from jbag_pipeline.resources.io_manager import FINGERPRINT_INPUTS

TOY_GAMES = dg.StaticPartitionsDefinition(["nim", "chess"])


@dg.asset(partitions_def=TOY_GAMES)
def toy_counts(context: dg.AssetExecutionContext) -> pl.DataFrame:
    return pl.DataFrame({"game": [context.partition_key] * 3, "count": [1, 2, 5]})


def positive(run, shares, counts, totals):
    return dg.AssetCheckResult(check_name="shares_positive", passed=bool((shares["p"] > 0).all()),
                               metadata={"rows": len(shares)})


TOY = Chain(
    tables={"counts": "toy_counts", "total": "toy_total", "shares": "toy_shares"},
    steps=(Step("total", ("counts",), lambda run, counts: counts.select(pl.col("count").sum()), "The total count."),
           Step("shares", ("counts", "total"),
                lambda run, counts, totals: counts.with_columns(p=pl.col("count") / totals["count"][0],
                                                                blacklist=pl.lit(",".join(run.blacklist))),
                "Each count's share of the total.", (Check("shares_positive", positive),),
                lambda run, shares, *inputs: {"table": run.table, "rows": len(shares)})),
    partitions_def=TOY_GAMES, group_name="toy", blacklist=lambda preset, game: (game, preset.name),
    fingerprinted=True)


def test_a_chain_gives_one_asset_per_step_with_its_tables_deps_checks_and_group():
    total, shares = chain_assets(TOY)
    assert [total.key, shares.key] == [dg.AssetKey("toy_total"), dg.AssetKey("toy_shares")]
    assert set(total.asset_deps[total.key]) == {dg.AssetKey("toy_counts")}
    assert set(shares.asset_deps[shares.key]) == {dg.AssetKey("toy_counts"), dg.AssetKey("toy_total")}
    assert sorted(shares.keys_by_input_name) == ["toy_counts", "toy_total"]
    assert list(total.check_keys) == []
    assert list(shares.check_keys) == [dg.AssetCheckKey(dg.AssetKey("toy_shares"), "shares_positive")]
    assert {shares.partitions_def, total.partitions_def} == {TOY_GAMES}
    assert shares.group_names_by_key[shares.key] == "toy"
    assert shares.descriptions_by_key[shares.key] == "Each count's share of the total."
    assert TOY.links() == [("toy_total", ("toy_counts",)), ("toy_shares", ("toy_counts", "toy_total"))]
    assert shares.metadata_by_key[shares.key][FINGERPRINT_INPUTS] == ["toy_counts", "toy_total"]  # in input order


def test_a_chain_asset_computes_from_its_inputs_and_yields_its_checks_and_metadata():
    result = dg.materialize([toy_counts, *chain_assets(TOY)], partition_key="chess",
                            resources={"settings": JbagSettings(preset="smoke")})
    assert result.success
    shares = result.output_for_node("toy_shares")
    assert shares["p"].to_list() == [0.125, 0.25, 0.625]
    assert set(shares["blacklist"]) == {"chess,smoke"}  # the chain's blacklist rule for the partition's game
    (event,) = result.asset_materializations_for_node("toy_shares")
    assert {k: event.metadata[k].value for k in ("table", "rows")} == {"table": "toy_shares", "rows": 3}
    (check,) = result.get_asset_check_evaluations()
    assert (check.asset_key, check.check_name, check.passed) == (dg.AssetKey("toy_shares"), "shares_positive", True)


def test_a_step_reading_a_role_without_a_table_is_refused():
    chain = Chain(tables={"counts": "toy_counts", "total": "toy_total"},
                  steps=(Step("total", ("count",), lambda run, counts: counts, "A typo in a role."),),
                  partitions_def=TOY_GAMES, group_name="toy", blacklist=lambda preset, game: ())
    with pytest.raises(ValueError, match=r"chain 'toy': step 'total' names roles \['count'\] without a table"):
        chain_assets(chain)

