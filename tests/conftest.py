"""Shared test fixtures."""

import os
from pathlib import Path

import pytest

# `jbag run` in a test's subprocess plays its few games in its own process: the default (local) would start a
# process pool per run, seconds each on CI's two cores; tests/compute exercises local and dask explicitly
os.environ.setdefault("JBAG_COMPUTE", "inline")

SHARED = Path(__file__).resolve().parents[1].parent / "shared"


@pytest.fixture
def shared_dir() -> Path:
    """The ../shared folder beside the repository; skips where a user's clone has none."""
    if not SHARED.is_dir():
        pytest.skip(f"{SHARED} is absent (it exists beside the repository only in the team's workspace and CI)")
    return SHARED
