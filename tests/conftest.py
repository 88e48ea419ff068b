"""Shared test fixtures."""

from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[1].parent / "shared"


@pytest.fixture
def shared_dir() -> Path:
    """The ../shared folder beside the repository; skips where a user's clone has none."""
    if not SHARED.is_dir():
        pytest.skip(f"{SHARED} is absent (it exists beside the repository only in the team's workspace and CI)")
    return SHARED
