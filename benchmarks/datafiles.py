"""How the benchmarks find real data: the rule of :mod:`gridmarket.datasets` and nothing else.

A file is read from ``--data DIR`` where a benchmark has it, else ``$GRIDMARKET_DATA``, else the user cache that
``gridmarket data fetch`` fills. A benchmark missing its data stops with one line naming the file and the
``gridmarket data fetch`` command that gets it, exit status 2 (as the ``gridmarket`` command does), never with an
empty table. Run with a full data folder as ``GRIDMARKET_DATA=../shared/data python benchmarks/NAME.py``.
"""

from __future__ import annotations

import fnmatch
import sys
from pathlib import Path

from gridmarket.datasets import data_root, fetch_command, locate, registry
from gridmarket.errors import InvalidInput

__all__ = ["data_file", "given_or_registered", "stop", "traces"]


def stop(message: object) -> None:
    """Print ``<script>: error: message`` on one line and exit with status 2."""
    print(f"{Path(sys.argv[0]).name}: error: {message}", file=sys.stderr)
    raise SystemExit(2)


def data_file(path: str, data: str | Path | None = None, *, needed_by: str) -> Path:
    """The registered file ``path`` (``traces/CTC-SP2-1996-3.1-cln.swf.gz``) under the data root; else :func:`stop`."""
    try:
        return locate(path, data, needed_by=needed_by)
    except InvalidInput as err:
        stop(err)
        raise  # unreachable: stop exits


def traces(pattern: str = "*", data: str | Path | None = None, *, needed_by: str) -> list[Path]:
    """The registered traces whose file name matches ``pattern`` (a glob) found under the data root, in registry
    order; :func:`stop` when none is there."""
    root = data_root(data)
    wanted = [p for p in registry() if p.startswith("traces/") and fnmatch.fnmatch(p.removeprefix("traces/"), pattern)]
    if not wanted:
        stop(f"no registered trace matches {pattern!r} (`gridmarket data list --kind traces`)")
    found = [root / p for p in wanted if (root / p).is_file()]
    if not found:
        stop(f"{needed_by} found none of the {len(wanted)} registered traces matching {pattern!r} in {root}; get them "
             f"with `{fetch_command(wanted)}`")
    return found


def given_or_registered(given: str | None, default: str, *, needed_by: str) -> Path:
    """A file the user named (``--trace FILE``; it must exist), else the registered ``default`` under the data root."""
    if given:
        if not Path(given).is_file():
            stop(f"{given}: no such file")
        return Path(given)
    return data_file(default, needed_by=needed_by)
