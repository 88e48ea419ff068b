"""The lake IO manager, the one door between assets and the lake: an asset's returned polars frame becomes its lake
partition, its inputs load the upstream partitions, and the lineage of what a step loaded is stamped on what it
writes.

One asset is one lake table (its key's last part). Its Dagster partition is the lake partition: a game key is
`game=<key>`, a multi-partition key one folder per dimension (`game=<g>/<dimension>=<d>`), and an asset whose single
partition dimension is not a game names its folder key in the definition metadata `partition_expr` (transfer:
`pair`). An unpartitioned asset whose lake table is split by `partition_expr` all the same (ingested_games, which
writes its partitions itself) is read by a partitioned run one lake partition at a time: the run's key. Writes go
through lake.write_table (atomic), so the lake's layout does not change; a partition that holds segments (an ingest
extended it) is replaced with them in one staged transaction.

Lineage (storage/lake.py): load_input records, per step, the lineage stamped in the files it loads; handle_output
stamps the step's reads of other tables, plus the run's own generation (preset and seed) for a game partition.
An asset whose definition metadata names FINGERPRINT_INPUTS (the ingested model) gets the fingerprint of those
inputs' files as load_input found them (storage/fingerprint.py) in its materialisation's metadata.
"""

import dagster as dg
import polars as pl

import jbag_pipeline.storage.lake as lake
from jbag_pipeline.compute import usage
from jbag_pipeline.resources.compute import JbagCompute
from jbag_pipeline.resources.lake import LakeResource
from jbag_pipeline.resources.metadata import table_metadata
from jbag_pipeline.resources.settings import JbagSettings
from jbag_pipeline.storage.fingerprint import FINGERPRINT_KEY, fingerprint, partition_identity
from jbag_pipeline.storage.staging import transaction

PARTITION_EXPR = "partition_expr"  # definition metadata: the lake folder key of a single-dimension partition
OPTIONAL = "jbag/optional"  # input metadata: load the mapped partitions the lake holds, None when it holds none
FINGERPRINT_INPUTS = "jbag/fingerprint_inputs"  # definition metadata: the input tables to fingerprint, in order


def lake_partition(key: str | dg.MultiPartitionKey, metadata) -> dict[str, str]:
    """The lake partition of a Dagster partition key of an asset with definition metadata `metadata`."""
    if isinstance(key, dg.MultiPartitionKey):
        return dict(sorted(key.keys_by_dimension.items()))
    return {(metadata or {}).get(PARTITION_EXPR, "game"): str(key)}


class LakeIOManager(dg.IOManager):
    """Stores asset outputs (polars DataFrames) in the Parquet lake of `location`, stamped with the lineage of the
    step's inputs and the generation of `settings`' preset."""

    def __init__(self, location: LakeResource, settings: JbagSettings):
        self.location, self.settings = location, settings
        self._generation: dict | None = None  # the run's preset and seed, read once
        self._loaded: tuple = (None, {}, {})  # (step, table -> lineage, table -> identity of the files it loaded)
        self._measured: tuple[str | None, dict] = (None, {})  # the op last measured and its usage
        self._loading: str | None = None  # the op whose inputs were loaded last
        usage.mark_start()  # a run's first op starts here, not at the process's start

    def handle_output(self, context: dg.OutputContext, obj: pl.DataFrame | pl.LazyFrame) -> None:
        table = context.asset_key.path[-1]
        partition = lake_partition(context.asset_partition_key, context.definition_metadata) \
            if context.has_asset_partitions else None
        root = self.location.root()
        lineage = self._lineage_of_write(_step(context), table, partition)
        if lake.segment_files(root, table, partition):  # an ingest extended it: the rebuild and their removal together
            with transaction(root) as tx:
                tx.write(obj, table, partition, lineage)
            path = lake.partition_path(root, table, partition)
        else:
            path = lake.write_table(obj, root, table, partition, lineage)
        given = context.output_metadata or {}  # what the asset's Output set wins (a preview without wide columns)
        added = {**table_metadata(obj, path), **self._op_usage(context), **self._fingerprint(context, partition)}
        context.add_output_metadata({k: v for k, v in added.items() if k not in given})
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

    def load_input(self, context: dg.InputContext) -> pl.DataFrame | pl.LazyFrame | None:
        if context.op_def.name != self._loading:  # the op's first input: the previous op has ended
            self._loading = context.op_def.name
            usage.mark_start()
        table = context.asset_key.path[-1]
        root = self.location.root()
        lazy = _wants_lazy(context)
        partitions = _partitions_read(context)
        files = [lake.table_files(root, table) if partition is None else lake.partition_files(root, table, partition)
                 for partition in partitions]
        if (context.definition_metadata or {}).get(OPTIONAL):  # the partitions the lake holds; None if it holds none
            partitions, files = [p for p, f in zip(partitions, files) if f], [f for f in files if f]
            if not partitions:
                return None
        self._note_reads(_step(context), table, files)
        if context.has_partition_key and partitions == [{"game": context.partition_key}]:  # for _fingerprint
            self._of_step(_step(context))[2][table] = partition_identity(root, table, context.partition_key)
        if lazy:
            return lake.scan_table(root, table, partitions[0])
        frames = [lake.read_table(root, table, partition) for partition in partitions]
        return frames[0] if len(frames) == 1 else pl.concat(frames, how="vertical_relaxed")

    def _of_step(self, step) -> tuple:
        """(step, table -> lineage, table -> file identity) of what `step` loaded so far; a new step starts from
        nothing."""
        if self._loaded[0] != step:
            self._loaded = (step, {}, {})
        return self._loaded

    def _note_reads(self, step, table: str, files: list[list]) -> None:
        if lake.is_seeded(table):
            read = self._of_step(step)[1].setdefault(table, {})
            for some in files:
                lake.merge_lineage(read, lake.lineage_of(some))

    def _fingerprint(self, context: dg.OutputContext, partition: dict[str, str] | None) -> dict:
        """{FINGERPRINT_KEY: ...} of the inputs the asset's definition metadata names (their files as loaded)."""
        inputs = (context.definition_metadata or {}).get(FINGERPRINT_INPUTS)
        if not inputs:
            return {}
        root, game, loaded = self.location.root(), partition["game"], self._of_step(_step(context))[2]
        lines = [line for table in inputs
                 for line in loaded.get(table) or partition_identity(root, table, game)]
        return {FINGERPRINT_KEY: fingerprint(repr(self.settings.get_preset()), lines)}

    def _lineage_of_write(self, step, table: str, partition: dict[str, str] | None) -> dict[str, list[dict]]:
        """What `step` read from other tables, plus its own run's generation for a game partition."""
        if not lake.is_seeded(table):
            return {}
        lineage: dict[str, list[dict]] = {}
        for source, read in self._of_step(step)[1].items():
            if source != table:  # a table's own earlier partitions are not its upstream
                lake.merge_lineage(lineage, read)
        if partition and "game" in partition:
            lake.merge_lineage(lineage, {partition["game"]: [self._run_generation()]})
        return lineage

    def _run_generation(self) -> dict:
        if self._generation is None:
            preset = self.settings.get_preset()
            self._generation = {"preset": preset.name, "seed": preset.seed}
        return self._generation


def _step(context: dg.InputContext | dg.OutputContext) -> tuple[str, str]:
    """(run id, step key) of the step loading or storing."""
    step_context = context.step_context
    return step_context.run_id, step_context.step.key


def _partitions_read(context: dg.InputContext) -> list[dict[str, str] | None]:
    """The lake partitions an input loads, in order (None: every partition the lake holds)."""
    metadata = _upstream_metadata(context)
    if not context.has_asset_partitions:
        if context.has_partition_key and PARTITION_EXPR in (metadata or {}):  # split in the lake, not in Dagster
            return [{metadata[PARTITION_EXPR]: context.partition_key}]
        return [None]
    keys = list(context.asset_partition_keys)
    if not context.has_partition_key and len(keys) != 1:  # an unpartitioned reader of every partition: what exists
        return [None]
    partitions_def = context.asset_partitions_def
    if isinstance(partitions_def, dg.MultiPartitionsDefinition):
        keys = [partitions_def.get_partition_key_from_str(key) for key in keys]
    return [lake_partition(key, metadata) for key in keys]


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


@dg.io_manager(required_resource_keys={"settings", "lake"},
               description="The Parquet lake of the run's lake resource, lineage from its settings resource.")
def lake_io_manager(init_context: dg.InitResourceContext) -> LakeIOManager:
    """The lake IO manager of a run: built from the run's `lake` and `settings` resources, so a run config
    overriding resources.lake (data_dir) moves the lake with it."""
    return LakeIOManager(init_context.resources.lake, init_context.resources.settings)


def lake_resources(settings: JbagSettings, location: LakeResource, compute: JbagCompute | None = None) -> dict:
    """The resources every run takes: the run's preset (settings), where the lake lives (lake), the lake IO manager
    over both (as run config leaves them), and where batches of games run (default inline: this process)."""
    return {"io_manager": lake_io_manager, "settings": settings, "lake": location,
            "compute": compute or JbagCompute(backend="inline")}
