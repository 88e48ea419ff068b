"""The lake IO manager writes an asset's frame to its lake partition (game, game/pair, or the folder key its metadata
names) with row count, path, preview and lineage, and loads the partitions an input maps to."""

import subprocess
import sys
from pathlib import Path

import dagster as dg
import numpy as np
import polars as pl
import pytest

import jbag_pipeline.storage.lake as lake
from jbag_pipeline.resources import JbagSettings, LakeResource
from jbag_pipeline.resources.io_manager import OPTIONAL, PARTITION_EXPR, lake_partition, lake_resources

GAMES = dg.StaticPartitionsDefinition(["a", "b"])
GAME_PAIRS = dg.MultiPartitionsDefinition({"game": GAMES, "pair": dg.StaticPartitionsDefinition(["x", "y"])})


@dg.asset(partitions_def=GAMES)
def per_game(context: dg.AssetExecutionContext) -> pl.DataFrame:
    return pl.DataFrame({"game": [context.partition_key] * 2, "v": [1, 2]})


@dg.asset(partitions_def=GAMES)
def per_game_doubled(per_game: pl.DataFrame) -> pl.DataFrame:
    return per_game.with_columns(pl.col("v") * 2)


@dg.asset(partitions_def=GAME_PAIRS)
def per_pair(context: dg.AssetExecutionContext, per_game: pl.DataFrame):
    pair = context.partition_key.keys_by_dimension["pair"]
    yield dg.Output(per_game.with_columns(pl.lit(pair).alias("pair")), metadata={"preview": "given"})


@dg.asset(partitions_def=GAMES, metadata={PARTITION_EXPR: "variant"})
def per_variant(context: dg.AssetExecutionContext) -> pl.DataFrame:
    return pl.DataFrame({"variant": [context.partition_key]})


@dg.asset(ins={"per_game": dg.AssetIn(partition_mapping=dg.SpecificPartitionsPartitionMapping(["b"]))})
def of_b(per_game: pl.DataFrame) -> pl.DataFrame:
    return per_game


@dg.asset
def of_all(per_pair: pl.DataFrame) -> pl.DataFrame:
    return per_pair


@dg.asset
def big() -> pl.DataFrame:
    block = np.ones(50_000_000)  # 400 MB resident while this op runs
    return pl.DataFrame({"v": [float(block.sum())]})


@dg.asset
def small(big: pl.DataFrame) -> pl.DataFrame:
    return big


@dg.asset(partitions_def=GAMES)
def streamed(context: dg.AssetExecutionContext) -> pl.LazyFrame:
    return pl.LazyFrame({"game": [context.partition_key] * 3, "v": [3, 1, 2]}).sort("v")


@dg.asset(partitions_def=GAMES)
def scanned(streamed: pl.LazyFrame) -> pl.DataFrame:
    assert isinstance(streamed, pl.LazyFrame)  # a scan of the lake file, read only as the query needs it
    return streamed.filter(pl.col("v") > 1).collect()


@dg.multi_asset(outs={"first": dg.AssetOut(), "second": dg.AssetOut()})
def two_outputs():
    yield dg.Output(pl.DataFrame({"v": [1.0]}), output_name="first")
    block = np.ones(50_000_000)  # 400 MB after the first output was stored: still this op's
    yield dg.Output(pl.DataFrame({"v": [float(block.sum())]}), output_name="second")


@dg.asset
def after_two(second: pl.DataFrame) -> pl.DataFrame:
    return second


@dg.asset(ins={"per_game": dg.AssetIn(metadata={OPTIONAL: True})})
def if_any(per_game: pl.DataFrame | None) -> pl.DataFrame:
    return pl.DataFrame({"games": [] if per_game is None else sorted(set(per_game["game"]))}, schema={"games": pl.String})


ASSETS = [per_game, per_game_doubled, per_pair, per_variant, of_b, of_all, big, small, streamed, scanned,
          two_outputs, after_two, if_any]


def run(root, selection, partition_key=None):
    resources = lake_resources(JbagSettings(preset="smoke"), LakeResource(data_dir=str(root)))
    result = dg.materialize(ASSETS, selection=selection, partition_key=partition_key, resources=resources,
                            instance=dg.DagsterInstance.ephemeral())
    assert result.success
    return result


def test_lake_partition_of_keys():
    assert lake_partition("a", None) == {"game": "a"}
    assert lake_partition("a", {PARTITION_EXPR: "pair"}) == {"pair": "a"}
    assert lake_partition(dg.MultiPartitionKey({"pair": "x", "game": "a"}), None) == {"game": "a", "pair": "x"}


def test_outputs_land_in_their_lake_partitions_and_inputs_load_what_they_map_to(tmp_path):
    for game in ("a", "b"):
        result = run(tmp_path, ["per_game", "per_game_doubled", "per_variant"], game)
        (event,) = result.asset_materializations_for_node("per_game_doubled")
        path = lake.partition_path(tmp_path.resolve(), "per_game_doubled", {"game": game})
        assert event.metadata["path"].value == str(path) and event.metadata["dagster/row_count"].value == 2
        assert "preview" in event.metadata
        assert lake.read_table(tmp_path, "per_game_doubled", {"game": game})["v"].to_list() == [2, 4]
    assert lake.read_table(tmp_path, "per_variant", {"variant": "b"})["variant"].to_list() == ["b"]
    for key in ("a|x", "b|y"):
        result = run(tmp_path, ["per_pair"], GAME_PAIRS.get_partition_key_from_str(key))
        (event,) = result.asset_materializations_for_node("per_pair")
        assert event.metadata["preview"].value == "given"  # the asset's own preview wins
    game, pair = "b", "y"
    assert lake.read_table(tmp_path, "per_pair", {"game": game, "pair": pair})["game"].to_list() == [game] * 2
    run(tmp_path, ["of_b", "of_all"])
    assert lake.read_table(tmp_path, "of_b")["game"].to_list() == ["b", "b"]  # one mapped partition
    assert lake.read_table(tmp_path, "of_all")["pair"].to_list() == ["x", "x", "y", "y"]  # every partition written


def test_a_run_config_override_of_the_lake_moves_the_lake(tmp_path):
    default, chosen = tmp_path / "default", tmp_path / "chosen"
    resources = lake_resources(JbagSettings(preset="smoke"), LakeResource(data_dir=str(default)))
    result = dg.materialize(ASSETS, selection=["per_game"], partition_key="a", resources=resources,
                            run_config={"resources": {"lake": {"config": {"data_dir": str(chosen)}}}},
                            instance=dg.DagsterInstance.ephemeral())
    assert result.success
    assert lake.read_table(chosen, "per_game", {"game": "a"})["v"].to_list() == [1, 2]
    assert not lake.partition_path(default.resolve(), "per_game", {"game": "a"}).exists()
    assert not default.exists()


def test_each_op_gets_its_own_peak_rss_and_cpu_seconds(tmp_path):
    result = run(tmp_path, ["big", "small"])
    (big_event,) = result.asset_materializations_for_node("big")
    (small_event,) = result.asset_materializations_for_node("small")
    big_peak, small_peak = (e.metadata["peak_rss_mb"].value for e in (big_event, small_event))
    assert big_peak > small_peak + 300  # the peak was reset after big: small does not inherit its 400 MB
    assert big_event.metadata["cpu_seconds"].value > 0 and small_event.metadata["cpu_seconds"].value >= 0


def test_a_lazyframe_output_is_streamed_to_the_lake_and_a_lazyframe_input_scans_it(tmp_path):
    result = run(tmp_path, ["streamed", "scanned"], "b")
    (event,) = result.asset_materializations_for_node("streamed")
    assert event.metadata["dagster/row_count"].value == 3 and "preview" in event.metadata
    assert lake.read_table(tmp_path, "streamed", {"game": "b"})["v"].to_list() == [1, 2, 3]
    assert lake.read_table(tmp_path, "scanned", {"game": "b"})["v"].to_list() == [2, 3]
    path = lake.partition_path(tmp_path.resolve(), "streamed", {"game": "b"})
    path.write_bytes(path.read_bytes()[:20])  # truncated: the scan fails where the input is loaded, in one line
    with pytest.raises(Exception, match="not a readable Parquet file"):
        run(tmp_path, ["scanned"], "b")


def test_a_run_forgets_each_stored_output_instead_of_holding_every_table_to_its_end(tmp_path):
    result = run(tmp_path, ["big", "small"])
    assert result.output_for_node("big") is None and result.output_for_node("small") is None  # the lake has them
    assert lake.read_table(tmp_path, "small")["v"].to_list() == [5e7]


def test_an_ops_later_outputs_carry_its_usage_so_far_not_the_next_ops():
    import tempfile

    with tempfile.TemporaryDirectory() as root:
        result = run(root, ["first", "second", "after_two"])
        (first,) = [e for e in result.get_asset_materialization_events()
                    if e.asset_key == dg.AssetKey("first")]
        (second,) = [e for e in result.get_asset_materialization_events() if e.asset_key == dg.AssetKey("second")]
        (after,) = result.asset_materializations_for_node("after_two")
    peaks = [e.event_specific_data.materialization.metadata["peak_rss_mb"].value for e in (first, second)]
    assert peaks[1] > peaks[0] + 300  # the 400 MB block is the op's, counted at its later output
    assert after.metadata["peak_rss_mb"].value < peaks[1] - 300  # and not the next op's, which starts at its input


def test_an_optional_input_is_none_until_the_lake_holds_some_of_it_then_what_it_holds(tmp_path):
    run(tmp_path, ["if_any"])
    assert lake.read_table(tmp_path, "if_any")["games"].to_list() == []
    run(tmp_path, ["per_game"], "b")
    run(tmp_path, ["if_any"])
    assert lake.read_table(tmp_path, "if_any")["games"].to_list() == ["b"]


def test_lineage_is_the_steps_inputs_plus_the_runs_own_generation_for_a_game(tmp_path):
    run(tmp_path, ["per_game"], "a")
    resources = lake_resources(JbagSettings(preset="smoke", seed=7), LakeResource(data_dir=str(tmp_path)))
    assert dg.materialize(ASSETS, selection=["per_game_doubled"], partition_key="a", resources=resources,
                          instance=dg.DagsterInstance.ephemeral()).success
    run(tmp_path, ["per_game"], "b")
    run(tmp_path, ["of_b"])  # unpartitioned: no generation of its own, its input's
    smoke, seven = {"preset": "smoke", "seed": 0}, {"preset": "smoke", "seed": 7}
    assert lake.read_lineage(lake.partition_path(tmp_path, "per_game", {"game": "a"})) == {"a": [smoke]}
    assert lake.read_lineage(lake.partition_path(tmp_path, "per_game_doubled", {"game": "a"})) == \
        {"a": [smoke, seven]}  # its input's generation and its own: the catalog withholds it
    assert lake.read_lineage(lake.partition_path(tmp_path, "of_b")) == {"b": [smoke]}
    lake.write_table(pl.DataFrame({"v": [1]}), tmp_path, "outside")  # no IO manager: no lineage
    assert lake.read_lineage(lake.partition_path(tmp_path, "outside")) == {}


def test_the_lake_module_imports_no_dagster():
    code = "import sys, jbag_pipeline.storage.lake; print(sorted(m for m in sys.modules if m.startswith('dagster')))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          cwd=Path(__file__).resolve().parents[2])
    assert done.stdout.strip() == "[]"
