"""Shared fixtures: where the real data lives (``../shared/data`` beside the clone); hypothesis profiles."""

import os
from pathlib import Path

import pytest
from hypothesis import settings

# CI (HYPOTHESIS_PROFILE=ci in .ci/run) draws the same examples every run, so a landing never hangs on a
# new random counterexample; local runs keep exploring (a counterexample found there becomes a test).
settings.register_profile("ci", derandomize=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """``../shared/data`` beside the repository; tests needing it skip when it is absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"real data folder {SHARED_DATA} is not present")
    return SHARED_DATA
