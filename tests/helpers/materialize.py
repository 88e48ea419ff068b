"""Materialise assets on the smoke preset into a temporary lake, and read their asset-check results."""

from __future__ import annotations

from pathlib import Path

import dagster as dg

from jbag_pipeline.resources import JbagSettings, LakeResource
from jbag_pipeline.resources.io_manager import lake_resources

GAME = "tictactoe"  # the cheapest game: every upstream table for it builds in about a second


def smoke_resources(root: Path) -> dict:
    return lake_resources(JbagSettings(preset="smoke"), LakeResource(data_dir=str(root)))


def materialize_with(assets: list, settings: JbagSettings, root: Path, **kwargs) -> dg.ExecuteInProcessResult:
    """Run `assets` with `settings` and the lake IO manager over the lake at `root`. The run knows the whole graph,
    so the IO manager loads inputs that the lake already holds (from earlier runs or written by the test)."""
    from jbag_pipeline.definitions import ALL_ASSETS

    known = {key for a in ALL_ASSETS for key in a.keys}  # ALL_ASSETS are copies: compare keys, not objects
    graph = [*ALL_ASSETS, *(a for a in assets if not known & set(a.keys))]
    selection = [key for a in assets for key in a.keys]
    return dg.materialize(graph, selection=selection,
                          resources=lake_resources(settings, LakeResource(data_dir=str(root))), **kwargs)


def materialize(assets: list, root: Path, partition_key: str | None = None, **kwargs) -> dg.ExecuteInProcessResult:
    """Run `assets` on the smoke preset with data under `root`; fails the test unless the run succeeded."""
    result = materialize_with(assets, JbagSettings(preset="smoke"), root, partition_key=partition_key,
                              instance=dg.DagsterInstance.ephemeral(), **kwargs)
    assert result.success
    return result


def check_results(result: dg.ExecuteInProcessResult) -> dict[tuple[str, str], bool]:
    """(asset, check name) -> passed, for every asset check the run evaluated."""
    return {(e.asset_key.to_user_string(), e.check_name): e.passed for e in result.get_asset_check_evaluations()}


def declared_checks(assets: list) -> set[tuple[str, str]]:
    """(asset, check name) of every asset check the asset definitions declare."""
    return {(key.asset_key.to_user_string(), key.name) for a in assets for key in a.check_keys}
