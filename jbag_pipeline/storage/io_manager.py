"""The lake IO manager: an asset's returned polars frame becomes its lake partition, and inputs read upstream ones.

One asset is one lake table (its key's last part). Its Dagster partition is the lake partition: a game key is
`game=<key>`, a multi-partition key one folder per dimension (`game=<g>/<dimension>=<d>`), and an asset whose single
partition dimension is not a game names its folder key in the definition metadata `partition_expr` (transfer:
`pair`). An unpartitioned asset whose lake table is split by `partition_expr` all the same (ingested_games, which
writes its partitions itself) is read by a partitioned run one lake partition at a time: the run's key. Writes go through lake.write_table (atomic, with lineage), so the lake's layout does not change; a partition that
holds segments (an ingest extended it) is replaced with them in one staged transaction.
"""

import dagster as dg
import polars as pl

import jbag_pipeline.storage.lake as lake
from jbag_pipeline.compute import usage
from jbag_pipeline.storage.staging import transaction
from jbag_pipeline.resources import JbagCompute, JbagSettings

PARTITION_EXPR = "partition_expr"  # definition metadata: the lake folder key of a single-dimension partition


def lake_partition(key: str | dg.MultiPartitionKey, metadata) -> dict[str, str]:
    """The lake partition of a Dagster partition key of an asset with definition metadata `metadata`."""
    if isinstance(key, dg.MultiPartitionKey):
        return dict(sorted(key.keys_by_dimension.items()))
    return {(metadata or {}).get(PARTITION_EXPR, "game"): str(key)}


class LakeIOManager(dg.IOManager):
    """Stores asset outputs (polars DataFrames) in the Parquet lake under the data directory of `settings`."""

    def __init__(self, settings: JbagSettings):
        self.settings = settings
        self._measured: tuple[str | None, dict] = (None, {})  # the op last measured and its usage
        self._loading: str | None = None  # the op whose inputs were loaded last
        usage.mark_start()  # a run's first op starts here, not at the process's start

    def handle_output(self, context: dg.OutputContext, obj: pl.DataFrame | pl.LazyFrame) -> None:
        from jbag_pipeline.assets.common import table_metadata

        table = context.asset_key.path[-1]
        partition = lake_partition(context.asset_partition_key, context.definition_metadata) \
            if context.has_asset_partitions else None
        root = self.settings.root()
        if lake.segment_files(root, table, partition):  # an ingest extended it: the rebuild and their removal together
            with transaction(root) as tx:
                tx.write(obj, table, partition)
            path = lake.partition_path(root, table, partition)
        else:
            path = lake.write_table(obj, root, table, partition)
        given = context.output_metadata or {}  # what the asset's Output set wins (a preview without wide columns)
        context.add_output_metadata({k: v for k, v in {**table_metadata(obj, path), **self._op_usage(context)}.items()
                                     if k not in given})
        _release(context)

    def _op_usage(self, context: dg.OutputContext) -> dict:
        """Peak RSS (MB) and CPU seconds of the op writing this output, since its first input was loaded (an op
        without inputs: since the previous op's last output; ops run one after another in a run's process); an
        op's later outputs carry its usage so far, their storing included (the runner reads the largest)."""
        step, so_far = self._measured
        more = usage.take()
        if context.step_key == step:
            more = {"peak_rss_mb": max(so_far["peak_rss_mb"], more["peak_rss_mb"]),
                    "cpu_seconds": round(so_far["cpu_seconds"] + more["cpu_seconds"], 3)}
        self._measured = (context.step_key, more)
        return more

    def load_input(self, context: dg.InputContext) -> pl.DataFrame | pl.LazyFrame:
        if context.op_def.name != self._loading:  # the op's first input: the previous op has ended
            self._loading = context.op_def.name
            usage.mark_start()
        table = context.asset_key.path[-1]
        root = self.settings.root()
        if _wants_lazy(context):
            return lake.scan_table(root, table, lake_partition(context.asset_partition_key,
                                                               _upstream_metadata(context)))
        if not context.has_asset_partitions:
            metadata = context.upstream_output.definition_metadata if context.upstream_output else None
            if context.has_partition_key and PARTITION_EXPR in (metadata or {}):  # split in the lake, not in Dagster
                return lake.read_table(root, table, {metadata[PARTITION_EXPR]: context.partition_key})
            return lake.read_table(root, table)
        keys = list(context.asset_partition_keys)
        if not context.has_partition_key and len(keys) > 1:  # an unpartitioned reader of every partition: what exists
            return lake.read_table(root, table)
        partitions_def = context.asset_partitions_def
        if isinstance(partitions_def, dg.MultiPartitionsDefinition):
            keys = [partitions_def.get_partition_key_from_str(key) for key in keys]
        metadata = context.upstream_output.definition_metadata if context.upstream_output else None
        frames = [lake.read_table(root, table, lake_partition(key, metadata)) for key in keys]
        return frames[0] if len(frames) == 1 else pl.concat(frames, how="vertical_relaxed")


def _release(context: dg.OutputContext) -> None:
    """Forget the run's in-memory copy of a stored output. dg.materialize (execute_in_process, which `jbag run`
    uses) keeps every op's output for result.output_for_node until the run ends, so a game's run would hold all
    its tables at once (at 400 Sea Salt and Paper games, gigabytes); the lake has them, and inputs read it."""
    captured = getattr(context.step_context, "output_capture", None)  # Dagster's; None outside execute_in_process
    if captured:
        for handle in [h for h in captured if h.step_key == context.step_key and h.output_name == context.name]:
            captured[handle] = None


def _upstream_metadata(context: dg.InputContext):
    return context.upstream_output.definition_metadata if context.upstream_output else None


def _wants_lazy(context: dg.InputContext) -> bool:
    """An input typed pl.LazyFrame (by annotation or AssetIn's dagster_type) of one partition is scanned, not read."""
    typing_type = getattr(context.dagster_type, "typing_type", None)
    if typing_type is not pl.LazyFrame:
        return False
    if not context.has_asset_partitions or len(list(context.asset_partition_keys)) != 1:
        raise ValueError(f"input {context.asset_key.to_user_string()!r}: a LazyFrame input must read exactly one "
                         f"partition")
    return True


@dg.io_manager(required_resource_keys={"settings"},
               description="The Parquet lake under the data directory of the run's settings resource.")
def lake_io_manager(init_context: dg.InitResourceContext) -> LakeIOManager:
    """The lake IO manager of a run: built from the run's `settings` resource, so a run config overriding
    resources.settings (data_dir, preset) moves the lake with it."""
    return LakeIOManager(init_context.resources.settings)


def lake_resources(settings: JbagSettings, compute: JbagCompute | None = None) -> dict:
    """The resources every run takes: the settings, the lake IO manager reading its data directory from the run's
    settings resource (as run config leaves them), and where batches of games run (default inline: this process)."""
    return {"io_manager": lake_io_manager, "settings": settings,
            "compute": compute or JbagCompute(backend="inline")}
