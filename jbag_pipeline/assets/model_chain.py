"""The JSON-Bag model chain, declared once and built for each set of tables: tokens -> sampled states -> bags ->
prototypes -> P-NNS accuracy.

A Step names the table role it writes, the roles it reads and a pure compute over the input frames; a Chain maps
roles to lake tables (self-play: assets/model.py; ingested games: assets/ingested_model.py) and gives the
partitions, group and blacklist rule; chain_assets(chain) is one thin asset per step.
"""

import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

import dagster as dg
import polars as pl

from jbag_pipeline.analysis.classification import winner_classification_table
from jbag_pipeline.assets.classification import accuracy_check
from jbag_pipeline.assets.common import sum_to_one_check
from jbag_pipeline.presets import Preset
from jbag_pipeline.resources import JbagSettings
from jbag_pipeline.resources.io_manager import FINGERPRINT_INPUTS
from jbag_pipeline.transforms.bags_table import trajectory_bags_table
from jbag_pipeline.transforms.sampling import sampled_states as sample_states
from jbag_pipeline.training.value_function import winner_prototypes


@dataclass(frozen=True)
class Run:
    """What a step sees besides its input frames: the table it writes, the partition's game, the preset, the
    chain's blacklist for that game and a scratch folder that lasts until the step's output is stored and checked
    (a LazyFrame output may scan files there)."""

    table: str
    game: str
    preset: Preset
    blacklist: tuple[str, ...]
    scratch: Path | None = None


@dataclass(frozen=True)
class Check:
    """An asset check of a step: its name and evaluate(run, output, *inputs) -> dg.AssetCheckResult."""

    name: str
    evaluate: Callable[..., dg.AssetCheckResult]


@dataclass(frozen=True)
class Step:
    """One model asset: the role it writes, the roles it reads (in the order compute takes them),
    compute(run, *inputs) -> the partition, and optionally checks and metadata(run, output, *inputs) -> dict."""

    role: str
    reads: tuple[str, ...]
    compute: Callable[..., pl.DataFrame]
    description: str
    checks: tuple[Check, ...] = ()
    metadata: Callable[..., dict] | None = None


@dataclass(frozen=True)
class Chain:
    """Steps (in build order) over the lake tables `tables` (role -> table), with the chain's partitions, group and
    blacklist(preset, game); `fingerprinted`: the lake IO manager records each output's input fingerprint."""

    tables: Mapping[str, str]
    steps: tuple[Step, ...]
    partitions_def: dg.PartitionsDefinition
    group_name: str
    blacklist: Callable[[Preset, str], tuple[str, ...]]
    fingerprinted: bool = False
    lazy_roles: tuple[str, ...] = ()  # roles every step reads as a pl.LazyFrame (a scan of its lake partition)

    def inputs(self, step: Step) -> tuple[str, ...]:
        """The tables `step` reads, in the order its compute takes them."""
        missing = [role for role in (step.role, *step.reads) if role not in self.tables]
        if missing:
            raise ValueError(f"chain {self.group_name!r}: step {step.role!r} names roles {missing} without a table")
        return tuple(self.tables[role] for role in step.reads)

    def links(self) -> list[tuple[str, tuple[str, ...]]]:
        """(table, input tables) of each step, in build order."""
        return [(self.tables[step.role], self.inputs(step)) for step in self.steps]


def chain_asset(chain: Chain, step: Step) -> dg.AssetsDefinition:
    """The asset of `step` in `chain`: reads its input tables' partition, writes its table's, yields its checks."""
    table, inputs = chain.tables[step.role], chain.inputs(step)
    lazy = {chain.tables[role] for role in chain.lazy_roles}
    fingerprint = {FINGERPRINT_INPUTS: list(inputs)} if chain.fingerprinted else None

    @dg.asset(name=table, group_name=chain.group_name, partitions_def=chain.partitions_def,
              description=step.description, metadata=fingerprint,
              ins={name: dg.AssetIn(name, **({"dagster_type": pl.LazyFrame} if name in lazy else {})) for name in inputs},
              check_specs=[dg.AssetCheckSpec(check.name, asset=table) for check in step.checks])
    def build(context: dg.AssetExecutionContext, settings: JbagSettings, **frames: pl.DataFrame | pl.LazyFrame):
        preset, game = settings.get_preset(), context.partition_key
        # Dagster stores each output as it is yielded, so the scratch files outlive the store and the checks
        with tempfile.TemporaryDirectory(prefix="jbag-scratch-") as scratch:
            run = Run(table, game, preset, chain.blacklist(preset, game), Path(scratch))
            args = [frames[name] for name in inputs]
            output = step.compute(run, *args)
            yield dg.Output(output, metadata=step.metadata(run, output, *args) if step.metadata else {})
            for check in step.checks:
                yield check.evaluate(run, output, *args)

    return build


def chain_assets(chain: Chain) -> list[dg.AssetsDefinition]:
    """One asset per step of `chain`, in build order."""
    return [chain_asset(chain, step) for step in chain.steps]


# the computes and checks both chains share
def sample(run: Run, states: pl.DataFrame, games: pl.DataFrame) -> pl.DataFrame:
    return sample_states(states, games, run.preset.seed)


def bag(run: Run, tokens: pl.DataFrame | pl.LazyFrame, sampled: pl.DataFrame) -> pl.LazyFrame:
    # written a block of games at a time to the step's scratch folder, then streamed into the lake
    return trajectory_bags_table(tokens, sampled, run.blacklist, run.preset.duckdb_memory_limit, run.scratch)[0]


def prototype(run: Run, bags: pl.DataFrame | pl.LazyFrame, games: pl.DataFrame) -> pl.DataFrame:
    return winner_prototypes(bags, games, run.preset.duckdb_memory_limit)


def classify(run: Run, tokens: pl.DataFrame, states: pl.DataFrame, games: pl.DataFrame) -> pl.DataFrame:
    return winner_classification_table(tokens, states, games, test_share=run.preset.test_share,
                                       blacklist=run.blacklist)


def sum_to_one(name: str, keys: list[str]) -> Check:
    """The check `name`: the output's `p` sums to 1 in every group of `keys`."""
    return Check(name, lambda run, output, *inputs: sum_to_one_check(output, keys, name))


BAGS_SUM_TO_ONE = sum_to_one("bags_sum_to_one", ["frequency", "game_id"])
PROTOTYPES_SUM_TO_ONE = sum_to_one("prototypes_sum_to_one", ["frequency", "seat"])
ACCURACY_IN_RANGE = Check("accuracy_in_range", lambda run, table, *inputs: accuracy_check(table, run.table))
