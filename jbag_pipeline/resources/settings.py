"""The run's settings resource: which preset, seed and token blacklist a run uses (where the lake lives is
resources/lake.py's LakeResource)."""

from __future__ import annotations

import os

import dagster as dg

from jbag_pipeline.preset_files import load_preset, preset_reference
from jbag_pipeline.presets import Preset, with_turn_order_fields


class JbagSettings(dg.ConfigurableResource):
    """Preset, seed override and token blacklist; set from run config, else JBAG_PRESET.

    preset: a built-in preset's name (smoke, demo, paper) or the path of a TOML preset file
    (jbag_pipeline.preset_files), read and checked in every process that asks for the preset.

    token_blacklist: per game, the fields dropped besides the outcome fields (replacing the preset's
    turn-order fields of that game; see jbag_pipeline.analysis.leakage), e.g. {"connect4": ["moveCount"]}.
    """

    preset: str = "demo"
    seed: int | None = None
    token_blacklist: dict[str, list[str]] | None = None

    def setup_for_execution(self, context: dg.InitResourceContext) -> None:
        self.get_preset()  # a bad preset (file) or token_blacklist fails the step as it starts, before any work

    def get_preset(self) -> Preset:
        return with_turn_order_fields(load_preset(self.preset, self.seed), self.token_blacklist)


def settings_from_env() -> JbagSettings:
    """Settings as the environment gives them (what `dagster dev` and `jbag run` start from)."""
    return JbagSettings(preset=preset_reference(os.environ.get("JBAG_PRESET")))
