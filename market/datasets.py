"""The real inputs gridmarket uses (traces, electricity prices, workflows): where they come from and where they are.

Every file is registered in ``data/registry.toml`` (shipped as :mod:`gridmarket.data`) by its path under a
data root (``traces/CTC-SP2-1996-3.1-cln.swf.gz``), with its public source, sha256, size in bytes, licence and
citation. Every command, reproduction, test and benchmark finds a file the same way: an explicit folder
(``--data DIR``), else ``$GRIDMARKET_DATA``, else the user cache (``$GRIDMARKET_CACHE``, else the platform's
cache folder for ``gridmarket``), which :func:`fetch` fills from the public source or from a mirror, checking
the sha256 first -- the way scikit-learn's ``fetch_*`` functions and pooch keep their data.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["CACHE_ENV", "DATA_ENV", "cache_dir", "data_root"]

DATA_ENV = "GRIDMARKET_DATA"
"""Environment variable naming a data folder laid out like the registry (``traces/``, ``prices/``, ...)."""

CACHE_ENV = "GRIDMARKET_CACHE"
"""Environment variable naming the cache folder :func:`fetch` fills (default: the platform's user cache)."""


def cache_dir() -> Path:
    """The user cache: ``$GRIDMARKET_CACHE`` if set, else the platform cache folder (``~/.cache/gridmarket``)."""
    env = os.environ.get(CACHE_ENV)
    if env:
        return Path(env).expanduser()
    import pooch  # only here: pooch pulls in requests, which listing and locating files do not need

    return Path(pooch.os_cache("gridmarket"))


def data_root(data: str | os.PathLike | None = None) -> Path:
    """The folder files are read from: ``data`` if given, else ``$GRIDMARKET_DATA`` if set, else :func:`cache_dir`.

    Examples
    --------
    >>> str(data_root("/srv/mirror"))
    '/srv/mirror'
    """
    if data is not None:
        return Path(data).expanduser()
    env = os.environ.get(DATA_ENV)
    if env:
        return Path(env).expanduser()
    return cache_dir()
