"""The project follows dg's convention: `dg check defs` loads it and `dg list defs` lists every asset."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from jbag_pipeline.cli.asset_names import ASSET_NAMES

REPO = Path(__file__).resolve().parents[1]
DG = shutil.which("dg", path=str(Path(sys.executable).parent)) or shutil.which("dg")
pytestmark = [pytest.mark.slow, pytest.mark.skipif(DG is None, reason="the dg CLI (dagster-dg-cli) is not installed")]


def dg(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO), "NO_COLOR": "1"}  # this checkout's code, not the installed one
    return subprocess.run([DG, *args], cwd=REPO, env=env, capture_output=True, text=True, timeout=300)


def test_dg_check_defs_passes():
    result = dg("check", "defs")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "All definitions loaded successfully" in result.stdout + result.stderr


def test_dg_list_defs_lists_every_asset_and_the_automations():
    result = dg("list", "defs", "--json")
    assert result.returncode == 0, result.stderr
    listed = json.loads(result.stdout)
    assert sorted(a["asset_key"] for a in listed["assets"]) == sorted(ASSET_NAMES)
    assert {s["name"] for s in listed["sensors"]} == {"inbox_sensor", "selfplay_refresh_automation"}
    assert [s["name"] for s in listed["schedules"]] == ["selfplay_refresh_schedule"]
