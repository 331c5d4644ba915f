"""Shared fixtures: the real-data root (:func:`gridmarket.datasets.data_root`) and hypothesis profiles."""

import os
from pathlib import Path

import pytest
from hypothesis import settings

from gridmarket import datasets
from gridmarket.datasets import DATA_ENV, data_root, fetch_command

# CI (HYPOTHESIS_PROFILE=ci in .ci/run) draws the same examples every run, so a landing never hangs on a
# new random counterexample; local runs keep exploring (a counterexample found there becomes a test).
settings.register_profile("ci", derandomize=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

# Some machines (and CI, at times) keep a full data folder beside the clone; the tests read it as
# $GRIDMARKET_DATA when nothing else is set, as a user would. The product itself never looks there.
SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
if not os.environ.get(DATA_ENV) and SHARED_DATA.is_dir():
    os.environ[DATA_ENV] = str(SHARED_DATA)


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "data(*paths): the real-data files (paths under the data root) a test reads; it skips without them")


def pytest_runtest_setup(item):
    """Skip a test marked ``@pytest.mark.data(...)`` whose files the data root lacks, before its fixtures run."""
    marker = item.get_closest_marker("data")
    if marker is None:
        return
    root = data_root()
    missing = [p for m in item.iter_markers("data") for p in m.args if not (root / p).is_file()]
    if missing:
        pytest.skip(f"real data not found in {root} (${DATA_ENV}, else the cache): {', '.join(missing)}; "
                    f"get it with `{fetch_command(missing)}`")


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """The real-data root: ``$GRIDMARKET_DATA``, else the user cache (``$GRIDMARKET_CACHE``).

    A test names the files it reads with ``@pytest.mark.data("traces/X.swf.gz", ...)`` and skips, naming the
    ``gridmarket data fetch`` command, when the root lacks one of them; without files named it skips only when
    there is no root at all.
    """
    root = data_root()
    if not root.is_dir():
        pytest.skip(f"no real-data folder: set {DATA_ENV} or fill the cache with `gridmarket data fetch`")
    return root


SAMPLE_IN_REGISTRY = "workflows/pegasus-dax/Montage_25.xml"
"""A registered file that also ships whole as ``data/samples/Montage_25.xml``: a mirror that needs no real data."""


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """An empty user cache, and no $GRIDMARKET_DATA: files are read from the cache alone."""
    folder = tmp_path / "cache"
    monkeypatch.setenv(datasets.CACHE_ENV, str(folder))
    monkeypatch.delenv(DATA_ENV, raising=False)
    return folder


@pytest.fixture
def mirror(tmp_path):
    """A folder laid out like the data root holding :data:`SAMPLE_IN_REGISTRY` (the shipped sample's bytes)."""
    folder = tmp_path / "mirror"
    (folder / SAMPLE_IN_REGISTRY).parent.mkdir(parents=True)
    (folder / SAMPLE_IN_REGISTRY).write_bytes(datasets.sample("samples/Montage_25.xml").read_bytes())
    return folder
