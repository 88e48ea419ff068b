"""cli/asset_names.py, which `jbag run --select` is checked against, is what its generator writes from today's
definitions, and reading it (the argument checks) does not import Dagster."""

import json
import subprocess
import sys
from pathlib import Path

from jbag_pipeline.cli.runner import asset_names
from jbag_pipeline.cli.write_asset_names import TARGET, asset_names_source
from jbag_pipeline.definitions import ALL_ASSETS

REPO = Path(__file__).resolve().parents[2]


def test_the_generated_asset_names_are_the_definitions():
    assert TARGET.read_text() == asset_names_source(), \
        "the asset definitions changed: run `python -m jbag_pipeline.cli.write_asset_names` and commit the result"
    from jbag_pipeline.cli.asset_names import ASSET_NAMES

    assert sorted(ASSET_NAMES) == sorted(asset_names(ALL_ASSETS)) and len(set(ASSET_NAMES)) == len(ASSET_NAMES)


def test_checking_the_arguments_does_not_import_dagster():
    script = ("import json, sys; import jbag_pipeline.cli.checks, jbag_pipeline.cli.asset_names; "
              "print(json.dumps('dagster' in sys.modules))")
    done = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=120,
                          env={"PYTHONPATH": str(REPO), "PATH": ""})
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) is False
