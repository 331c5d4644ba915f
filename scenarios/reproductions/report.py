"""Reports of named reproductions: our figures beside a seed paper's, and whether its direction holds.

A reproduction (:class:`Reproduction`) reruns one seed's main experiment in
shape, at a ``small`` size (seconds) or at the seed's ``full`` size, and
returns a :class:`Report`: rows of (metric, our value, the seed's value,
units, where the seed states it) and direction checks (the seed's qualitative
finding and whether our run shows it). The registry :data:`REPRODUCTIONS`
holds them by name; :func:`register` adds one.

Real data (traces, electricity prices) is read from ``$GRIDMARKET_DATA`` or
``../shared/data`` beside the repository (:func:`data_file`); nothing here is
read at import. Units are in each row.
"""

from __future__ import annotations

import math
import os
import sys
import time
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import pandas as pd

from market.errors import InvalidInput
from scenarios.config import suggest

__all__ = [
    "DATA_ENV",
    "REPRODUCTIONS",
    "SIZES",
    "Check",
    "Report",
    "Reproduction",
    "Row",
    "data_file",
    "default_data_dir",
    "get_reproduction",
    "read_trace",
    "register",
    "steps",
    "write_report",
]

SIZES = ("small", "full")
"""``small``: seconds, for tests and a first look; ``full``: the seed's own scale (minutes to hours)."""

DATA_ENV = "GRIDMARKET_DATA"
"""Environment variable naming the data folder (``traces/``, ``prices/``, ``workflows/``)."""


@dataclass(frozen=True, slots=True)
class Row:
    """One figure: ours beside the seed's.

    ``seed_value`` is None where the seed gives the figure only as a chart or
    in words; ``seed_ref`` then says what it shows and where.
    """

    metric: str
    ours: float
    seed_value: float | None
    units: str
    seed_ref: str = ""


@dataclass(frozen=True, slots=True)
class Check:
    """A direction the seed reports (``statement``) and whether our run shows it (``detail``: our numbers)."""

    statement: str
    holds: bool
    detail: str = ""


@dataclass(frozen=True)
class Report:
    """What one run of a reproduction produced."""

    name: str
    citation: str
    size: str
    seed: int
    rows: tuple[Row, ...]
    checks: tuple[Check, ...]
    settings: Mapping = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    seconds: float = math.nan

    @property
    def all_hold(self) -> bool:
        """True when every direction check holds."""
        return all(c.holds for c in self.checks)

    def to_frame(self) -> pd.DataFrame:
        """Figure rows then direction rows: ``kind, metric, ours, seed_value, units, seed_ref, holds``."""
        figures = [{"kind": "figure", "metric": r.metric, "ours": r.ours, "seed_value": r.seed_value,
                    "units": r.units, "seed_ref": r.seed_ref, "holds": None} for r in self.rows]
        directions = [{"kind": "direction", "metric": c.statement, "ours": None, "seed_value": None, "units": "",
                       "seed_ref": c.detail, "holds": c.holds} for c in self.checks]
        return pd.DataFrame(figures + directions,
                            columns=["kind", "metric", "ours", "seed_value", "units", "seed_ref", "holds"])

    def title(self) -> str:
        return f"{self.name}: {self.citation} (size {self.size}, seed {self.seed}, {self.seconds:.1f} s)"

    def format_text(self) -> str:
        """The printed report: a fixed-width table and one ``direction holds`` line per check."""
        header = ("metric", "ours", "seed", "units", "seed's figure")
        cells = [(r.metric, _fmt(r.ours), _fmt(r.seed_value), r.units, r.seed_ref) for r in self.rows]
        widths = [max(len(header[i]), *(len(c[i]) for c in cells)) if cells else len(header[i]) for i in range(4)]

        def line(c) -> str:
            return (f"{c[0]:<{widths[0]}}  {c[1]:>{widths[1]}}  {c[2]:>{widths[2]}}  {c[3]:<{widths[3]}}  "
                    f"{c[4]}").rstrip()

        out = [self.title(), line(header), line(tuple("-" * w for w in widths) + ("-" * 13,))]
        out += [line(c) for c in cells]
        out.append("")
        for c in self.checks:
            detail = f" [{c.detail}]" if c.detail else ""
            out.append(f"direction holds: {'yes' if c.holds else 'no '}  {c.statement}{detail}")
        out += [f"note: {n}" for n in self.notes]
        return "\n".join(out)

    def to_markdown(self) -> str:
        """The report as Markdown (a table of figures and a list of directions)."""
        out = [f"# {self.title()}", "", "| metric | ours | seed | units | seed's figure |", "|---|---:|---:|---|---|"]
        out += [f"| {r.metric} | {_fmt(r.ours)} | {_fmt(r.seed_value)} | {r.units} | {r.seed_ref} |"
                for r in self.rows]
        out += ["", "## Directions", ""]
        for c in self.checks:
            detail = f" ({c.detail})" if c.detail else ""
            out.append(f"- **{'holds' if c.holds else 'does not hold'}**: {c.statement}{detail}")
        if self.notes:
            out += ["", "## Notes", ""] + [f"- {n}" for n in self.notes]
        return "\n".join(out) + "\n"


def _fmt(value: float | None) -> str:
    if value is None:
        return "-"
    if isinstance(value, float) and math.isnan(value):
        return "nan"
    if abs(value) >= 10_000:
        return f"{value:,.0f}"
    if abs(value) >= 10:
        return f"{value:,.1f}"
    if abs(value) >= 1:
        return f"{value:.2f}"
    return f"{value:.3g}"


_PROGRESS: ContextVar[bool] = ContextVar("gridmarket_reproduction_progress", default=False)


def steps(items: Iterable, desc: str) -> Iterable:
    """``items`` unchanged, or, inside ``Reproduction.run(progress=True)``, behind a tqdm bar on stderr.

    A runner wraps its outer loop (instants, requests, strategies) in it so a
    full-size run shows how far it is; tqdm draws on a terminal only.
    """
    if not _PROGRESS.get():
        return items
    from tqdm import tqdm

    items = list(items)
    return tqdm(items, desc=desc, total=len(items), file=sys.stderr, disable=None, leave=False)


@dataclass(frozen=True)
class Reproduction:
    """A named reproduction of one seed's experiment.

    Parameters
    ----------
    name : str
        Registry name (``singh-var``).
    citation : str
        Seed file and the table/figure reproduced.
    summary : str
        One line for ``gridmarket run --list``.
    runner : callable
        ``runner(size, seed, data) -> (rows, checks, settings, notes)``; its
        docstring states the table/figure, the seed's direction and the
        expected time of ``full``.
    """

    name: str
    citation: str
    summary: str
    runner: Callable

    @property
    def doc(self) -> str:
        """The runner's docstring: what is reproduced, the seed's direction, sizes and times."""
        return self.runner.__doc__ or ""

    def run(self, size: str = "small", seed: int = 1, *, data: str | Path | None = None,
            progress: bool = False) -> Report:
        """Run at ``size`` (``small`` or ``full``) with root seed ``seed``; ``data`` overrides the data folder.

        ``progress=True`` shows the runner's progress bars (:func:`steps`) on a terminal.
        """
        if size not in SIZES:
            raise InvalidInput(f"size must be one of {', '.join(SIZES)}, got {size!r}{suggest(str(size), SIZES)}")
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise InvalidInput(f"seed must be an int >= 0, got {seed!r}")
        started = time.perf_counter()
        token = _PROGRESS.set(progress)
        try:
            rows, checks, settings, notes = self.runner(size, seed, Path(data) if data is not None else None)
        finally:
            _PROGRESS.reset(token)
        return Report(self.name, self.citation, size, seed, tuple(rows), tuple(checks), dict(settings),
                      tuple(notes), time.perf_counter() - started)


REPRODUCTIONS: dict[str, Reproduction] = {}
"""Named reproductions, filled by the seed modules of this package when it is imported."""


def register(name: str, *, citation: str, summary: str):
    """Decorator adding a runner to :data:`REPRODUCTIONS` as ``name``."""

    def deco(runner):
        if name in REPRODUCTIONS:
            raise InvalidInput(f"reproduction {name!r} is already registered")
        REPRODUCTIONS[name] = Reproduction(name, citation, summary, runner)
        return runner

    return deco


def get_reproduction(name: str) -> Reproduction:
    """The registered reproduction ``name``; InvalidInput with the closest name otherwise."""
    try:
        return REPRODUCTIONS[name]
    except KeyError:
        raise InvalidInput(f"unknown reproduction {name!r}{suggest(name, sorted(REPRODUCTIONS))}") from None


# ----------------------------------------------------------------------------- data
def default_data_dir() -> Path:
    """``$GRIDMARKET_DATA`` if set, else ``../shared/data`` beside the repository checkout."""
    env = os.environ.get(DATA_ENV)
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[3] / "shared" / "data"


def data_file(data: Path | None, relative: str, *, needed_by: str) -> Path:
    """``data / relative`` (default folder: :func:`default_data_dir`); InvalidInput naming it when absent."""
    root = Path(data) if data is not None else default_data_dir()
    path = root / relative
    if not path.is_file():
        raise InvalidInput(f"{needed_by} needs {path}, which is not there; pass --data DIR (or set {DATA_ENV}) "
                           f"to the folder holding {relative}")
    return path


@lru_cache(maxsize=4)
def _read_trace(path: str):
    from market.workloads import read_swf

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the cleaned PWA logs still drop a few jobs with unknown runtimes
        return read_swf(path)


def read_trace(path: Path):
    """An SWF trace as a `Workload`, cached per path (several reproductions read the same logs)."""
    return _read_trace(str(Path(path).resolve()))


def sequence_ints(seed: int, n: int) -> list[int]:
    """``n`` independent integer seeds derived from ``seed`` (for functions that take an int seed)."""
    import numpy as np

    return [int(s.generate_state(1)[0]) for s in np.random.SeedSequence(seed).spawn(n)]


def mean(values: Sequence[float]) -> float:
    """Arithmetic mean of a non-empty sequence, as a float."""
    return float(sum(values) / len(values))


def write_report(out: Path, report: Report, *, command: list[str] | None = None) -> list[Path]:
    """Write ``report.csv``, ``report.md`` and ``manifest.json`` into the folder ``out`` (which must exist)."""
    import json

    from scenarios.results import manifest, write_atomic

    doc = manifest({"reproduction": report.name, "citation": report.citation, "size": report.size,
                    "settings": dict(report.settings)}, report.seed, command=command)
    doc["seconds"] = round(report.seconds, 3)
    doc["directions"] = [{"statement": c.statement, "holds": c.holds, "detail": c.detail} for c in report.checks]
    doc["notes"] = list(report.notes)
    written = []
    for name, text in (("report.csv", report.to_frame().to_csv(index=False)), ("report.md", report.to_markdown()),
                       ("manifest.json", json.dumps(doc, indent=2, default=str) + "\n")):
        write_atomic(Path(out) / name, text)
        written.append(Path(out) / name)
    return written
