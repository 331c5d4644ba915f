"""Reports of named reproductions: our figures beside a seed paper's, and whether its direction holds.

A reproduction (:class:`Reproduction`) reruns one seed's main experiment in
shape, at a ``small`` size (seconds) or at the seed's ``full`` size, and
returns a :class:`Report`: rows of (metric, our value, the seed's value,
units, where the seed states it) and direction checks (the seed's qualitative
finding and whether our run shows it). The registry :data:`REPRODUCTIONS`
holds them by name; :func:`register` adds one.

Real data (traces, electricity prices) is found by :func:`data_file`: ``--data DIR``, else
``$GRIDMARKET_DATA``, else the user cache that ``gridmarket data fetch`` fills
(:mod:`gridmarket.datasets`); nothing here is read at import. Units are in each row.
"""

from __future__ import annotations

import math
import sys
import time
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import pandas as pd

from gridmarket.datasets import DATA_ENV, data_root, locate
from gridmarket.decoding import read_json
from gridmarket.errors import InvalidInput, MarketError
from gridmarket.plugins import InstanceContract, Registry
from gridmarket.scenarios.config import suggest
from gridmarket.scenarios.intervals import BOOTSTRAP, BOOTSTRAP_SEED, RESAMPLES, STUDENT_T, ci95, interval
from gridmarket.scenarios.outfolder import check_files
from gridmarket.vocabulary import AMOUNT_UNITS, lowest_of_unit

__all__ = [
    "DATA_ENV",
    "REPRODUCTIONS",
    "SIZES",
    "SETUP",
    "CI_METHOD",
    "REPRODUCED_SHARE",
    "Check",
    "Report",
    "Reproduction",
    "Row",
    "SeedDirection",
    "SeedMetric",
    "SeedsReport",
    "ci95",
    "data_file",
    "default_data_dir",
    "against_control",
    "axis_range",
    "controlled",
    "get_reproduction",
    "paper_number",
    "read_report",
    "read_seed_reports",
    "read_trace",
    "register",
    "setup_check",
    "steps",
    "write_report",
    "write_seeds_report",
]

SIZES = ("small", "medium", "full")
"""Every size a reproduction may define: ``small`` (seconds, for tests and a first look), ``medium`` (minutes;
only where a reproduction registers it) and ``full`` (the seed's own scale, minutes to hours)."""

DEFAULT_SIZES = ("small", "full")
"""The sizes a reproduction has unless :func:`register` names others."""




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


SETUP = "set-up check"
"""The ``control`` of a check that tests the set-up (a generated workload's shape, a calibration target, an
illustration's hand-set inputs), not a finding: it has no control run and is not counted as a direction."""


@dataclass(frozen=True, slots=True)
class Check:
    """A direction the seed reports (``statement``) and whether our run shows it (``detail``: our numbers).

    ``control`` says what the direction was also checked against: the same run with the mechanism under
    test switched off or replaced (plain EASY for PSP, best effort for a broker, BS for MCMF), or a bound
    the claim must beat; ``control_holds`` is whether the same statement held there. A direction
    *discriminates* when it held in our run and not on its control: only then could it have failed.
    A check of the set-up (``control`` starting with :data:`SETUP`, made by :func:`setup_check`) has no
    control and never discriminates; ``control = ""`` means not yet classified, which
    :meth:`Reproduction.run` refuses.
    """

    statement: str
    holds: bool
    detail: str = ""
    control: str = ""
    control_holds: bool | None = None

    def __post_init__(self):
        if self.control_holds is not None and (not self.control or self.control.startswith(SETUP)):
            raise InvalidInput(f"check {self.statement!r}: a control result needs a control to name")

    @property
    def setup(self) -> bool:
        """True for a check of the set-up (no control; not counted as a direction)."""
        return self.control.startswith(SETUP)

    @property
    def discriminates(self) -> bool:
        """Held in our run and not on the control (False for a set-up check)."""
        return bool(self.holds) and self.control_holds is False


def setup_check(check: Check, why: str) -> Check:
    """``check`` marked as a check of the set-up, ``why`` saying what it checks (a workload's shape, ...).

    >>> setup_check(Check("FWload's mean size is 23.4", True), "a property of the generated workload").control
    'set-up check: a property of the generated workload'
    """
    if not why:
        raise InvalidInput(f"check {check.statement!r}: say why it is a set-up check")
    return Check(check.statement, check.holds, check.detail, f"{SETUP}: {why}", None)


def controlled(statement: str, test: Callable[[Any], tuple[Any, str]], ours: Any, control_run: Any, *,
               control: str) -> Check:
    """One direction evaluated by the same ``test`` on our run and on its control run.

    ``test(run) -> (holds, detail)``; ``control`` names the control (``"plain EASY (no PSP)"``). The detail
    gives both runs' numbers, so a reader sees what the direction was checked against.

    >>> lower = lambda r: (r["psp"] < r["base"], f"{r['psp']} vs {r['base']}")
    >>> c = controlled("PSP waits less", lower, {"psp": 1, "base": 2}, {"psp": 2, "base": 2}, control="EASY")
    >>> c.holds, c.control_holds, c.discriminates
    (True, False, True)
    """
    holds, detail = test(ours)
    control_holds, control_detail = test(control_run)
    return Check(statement, bool(holds), f"{detail}; control ({control}): {control_detail}", control,
                 bool(control_holds))


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

    def headline(self) -> str:
        """How many directions discriminate (held here, not on their control), and the set-up checks apart."""
        directions = [c for c in self.checks if not c.setup]
        setup = [c for c in self.checks if c.setup]
        return (f"directions that discriminate (held here, not on their control): "
                f"{sum(c.discriminates for c in directions)} of {len(directions)} "
                f"(held: {sum(c.holds for c in directions)}); set-up checks held: "
                f"{sum(c.holds for c in setup)} of {len(setup)}")

    def to_frame(self) -> pd.DataFrame:
        """Figure rows then direction rows: ``kind, metric, ours, seed_value, units, seed_ref, holds, control,
        control_holds, discriminates`` (``kind`` is ``setup`` for a check of the set-up)."""
        columns = ["kind", "metric", "ours", "seed_value", "units", "seed_ref", "holds", "control", "control_holds",
                   "discriminates"]
        figures = [{"kind": "figure", "metric": r.metric, "ours": r.ours, "seed_value": r.seed_value,
                    "units": r.units, "seed_ref": r.seed_ref, "holds": None} for r in self.rows]
        directions = [{"kind": "setup" if c.setup else "direction", "metric": c.statement, "ours": None,
                       "seed_value": None, "units": "", "seed_ref": c.detail, "holds": c.holds,
                       "control": c.control, "control_holds": c.control_holds, "discriminates": c.discriminates}
                      for c in self.checks]
        return pd.DataFrame(figures + directions, columns=columns)

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
        out += ["", self.headline()]
        for c in self.checks:
            if not c.setup:
                detail = f" [{c.detail}]" if c.detail else ""
                out.append(f"direction holds: {'yes' if c.holds else 'no '}  discriminates: "
                           f"{'yes' if c.discriminates else 'no '}  {c.statement}{detail}")
        for c in self.checks:
            if c.setup:
                detail = f" [{c.detail}]" if c.detail else ""
                out.append(f"set-up check holds: {'yes' if c.holds else 'no '}  {c.statement}{detail} "
                           f"({c.control})")
        out += [f"note: {n}" for n in self.notes]
        return "\n".join(out)

    def to_markdown(self) -> str:
        """The report as Markdown (a table of figures and a list of directions)."""
        out = [f"# {self.title()}", "", "| metric | ours | seed | units | seed's figure |", "|---|---:|---:|---|---|"]
        out += [f"| {r.metric} | {_fmt(r.ours)} | {_fmt(r.seed_value)} | {r.units} | {r.seed_ref} |"
                for r in self.rows]
        out += ["", "## Directions", "", self.headline(), ""]
        for c in self.checks:
            if not c.setup:
                detail = f" ({c.detail})" if c.detail else ""
                verdict = "holds" if c.holds else "does not hold"
                verdict += ", discriminates" if c.discriminates else (", holds on the control too" if c.holds else "")
                out.append(f"- **{verdict}**: {c.statement}{detail}")
        setup = [c for c in self.checks if c.setup]
        if setup:
            out += ["", "## Set-up checks (not counted)", ""]
            out += [f"- **{'holds' if c.holds else 'does not hold'}**: {c.statement} ({c.detail}; {c.control})"
                    for c in setup]
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
    sizes : tuple of str
        The sizes the runner accepts, a subset of :data:`SIZES`.
    pooled : callable or None
        ``pooled(metrics) -> list of Check``: directions that only a run over
        several seeds can test (e.g. one mean inside another's 95 % interval),
        from the :class:`SeedMetric` figures by metric name
        (:meth:`SeedsReport.pooled_checks`).
    """

    name: str
    citation: str
    summary: str
    runner: Callable
    sizes: tuple[str, ...] = DEFAULT_SIZES
    pooled: Callable | None = None

    @property
    def doc(self) -> str:
        """The runner's docstring: what is reproduced, the seed's direction, sizes and times."""
        return self.runner.__doc__ or ""

    def run(self, size: str = "small", seed: int = 1, *, data: str | Path | None = None,
            progress: bool = False) -> Report:
        """Run at ``size`` (``small`` or ``full``) with root seed ``seed``; ``data`` overrides the data folder.

        ``progress=True`` shows the runner's progress bars (:func:`steps`) on a terminal.
        """
        if size not in self.sizes:
            if size in SIZES:
                raise InvalidInput(f"{self.name} has no size {size!r}; its sizes are {', '.join(self.sizes)}")
            raise InvalidInput(f"size must be one of {', '.join(self.sizes)}, got {size!r}"
                               f"{suggest(str(size), self.sizes)}")
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise InvalidInput(f"seed must be an int >= 0, got {seed!r}")
        started = time.perf_counter()
        token = _PROGRESS.set(progress)
        try:
            rows, checks, settings, notes = self.runner(size, seed, Path(data) if data is not None else None)
        finally:
            _PROGRESS.reset(token)
        unclassified = [c.statement for c in checks if not c.control]
        if unclassified:  # a direction without a control could never have failed against one: say which
            raise MarketError(f"{self.name}: direction {unclassified[0]!r} names no control and is not marked a "
                              f"set-up check ({len(unclassified)} such)")
        return Report(self.name, self.citation, size, seed, tuple(rows), tuple(checks), dict(settings),
                      tuple(notes), time.perf_counter() - started)


REPRODUCTIONS: Registry[Reproduction] = Registry("reproduction", InstanceContract(Reproduction, accepts_plugins=False))
"""Named reproductions, filled by the seed modules of this package when it is imported."""


def register(name: str, *, citation: str, summary: str, sizes: Sequence[str] = DEFAULT_SIZES,
             pooled: Callable | None = None):
    """Decorator adding a runner to :data:`REPRODUCTIONS` as ``name``; ``sizes``: the sizes it accepts;
    ``pooled``: its directions over seeds (:class:`Reproduction`)."""
    sizes = tuple(sizes)
    unknown = [s for s in sizes if s not in SIZES]
    if unknown or not sizes:
        raise InvalidInput(f"reproduction {name!r}: sizes must be among {', '.join(SIZES)}, got {sizes!r}")

    def deco(runner):
        REPRODUCTIONS.register(name, Reproduction(name, citation, summary, runner, sizes, pooled))
        return runner

    return deco


def get_reproduction(name: str) -> Reproduction:
    """The registered reproduction ``name``; InvalidInput with the closest name otherwise."""
    return REPRODUCTIONS.resolve(name)


# ----------------------------------------------------------------------------- checks
def against_control(make_checks: Callable[[Any], Sequence[Check]], ours: Any, control_run: Any, *,
                    control: str, setup: Mapping[str, str] | None = None) -> list[Check]:
    """Every check ``make_checks(run)`` makes, evaluated on our run and on its control run.

    ``setup`` maps a statement (or its start) to why it is a set-up check (a calibration target, a
    property of the workload): those are marked with :func:`setup_check` instead. The two runs must
    give the same statements in the same order.

    >>> make = lambda r: [Check("MCMF faster than BS", r["mcmf"] < r["bs"], f"{r['mcmf']} vs {r['bs']}")]
    >>> [c.discriminates for c in against_control(make, {"mcmf": 1, "bs": 2}, {"mcmf": 2, "bs": 2}, control="BS")]
    [True]
    """
    out = []
    setup = dict(setup or {})
    for mine, theirs in zip(make_checks(ours), make_checks(control_run), strict=True):
        if mine.statement != theirs.statement:  # pragma: no cover - a runner's checks depend on its run's labels only
            raise MarketError(f"control run gave {theirs.statement!r} where ours gave {mine.statement!r}")
        why = next((w for k, w in setup.items() if mine.statement.startswith(k)), None)
        if why is not None:
            out.append(setup_check(mine, why))
        else:
            out.append(Check(mine.statement, mine.holds, f"{mine.detail}; control ({control}): {theirs.detail}",
                             control, bool(theirs.holds)))
    return out


def paper_number(metric: str, ours: float, paper: float, *, rel_tol: float = 0.0, abs_tol: float = 0.0,
                 where: str = "", units: str = "", control: str = "", control_ours: float | None = None) -> Check:
    """A number the paper prints, checked with a stated tolerance: holds when ``|ours - paper| <= tol``.

    ``tol = max(rel_tol * |paper|, abs_tol)``; the statement names the paper's
    figure, the tolerance and ``where`` (section, table, figure), so a report
    reader sees what was demanded. A NaN ``ours`` never holds. ``control_ours``
    is the same figure on the control run named by ``control`` (:class:`Check`),
    held to the same tolerance.

    >>> c = paper_number("cost ratio, 2 providers", 1.38, 1.43, rel_tol=0.05, where="Singh ch. 7.3")
    >>> c.holds, c.statement
    (True, "cost ratio, 2 providers = 1.43 ± 0.0715 (5% of the paper's figure) [Singh ch. 7.3]")
    >>> paper_number("x", 1.2, 1.43, rel_tol=0.05).holds
    False
    """
    if rel_tol < 0 or abs_tol < 0 or (rel_tol == 0 and abs_tol == 0):
        raise InvalidInput(f"{metric}: state a tolerance > 0 (rel_tol={rel_tol}, abs_tol={abs_tol})")
    tol = max(rel_tol * abs(paper), abs_tol)
    basis = f"{rel_tol:.0%} of the paper's figure" if rel_tol * abs(paper) >= abs_tol else "absolute"
    unit = f" {units}" if units else ""
    holds = not math.isnan(ours) and abs(ours - paper) <= tol
    statement = f"{metric} = {_fmt(paper)}{unit} ± {tol:.3g} ({basis})" + (f" [{where}]" if where else "")
    detail = f"ours {_fmt(ours)}{unit}, off by {_fmt(abs(ours - paper))}"
    if control_ours is None:
        return Check(statement, bool(holds), detail, control)
    control_holds = not math.isnan(control_ours) and abs(control_ours - paper) <= tol
    return Check(statement, bool(holds), f"{detail}; control ({control}): {_fmt(control_ours)}{unit}", control,
                 bool(control_holds))


def axis_range(metric: str, ours: float, low: float, high: float, *, where: str = "", units: str = "",
               control: str = "", control_ours: float | None = None) -> Check:
    """A figure shown only as a chart: ours must lie on the chart's value axis ``[low, high]``.

    A value past the axis is a finding (the detail says how many times the
    axis top it is), never a pass.

    >>> axis_range("makespan", 3.0e5, 0, 1.0e5, where="Fig. 52").detail
    'ours 300,000, 3.0x the axis top 100,000'
    >>> axis_range("makespan", 5.0e4, 0, 1.0e5).holds
    True
    """
    if not low < high:
        raise InvalidInput(f"{metric}: axis range needs low < high, got [{low}, {high}]")
    unit = f" {units}" if units else ""
    holds = not math.isnan(ours) and low <= ours <= high
    if ours > high and high > 0:
        detail = f"ours {_fmt(ours)}{unit}, {ours / high:.1f}x the axis top {_fmt(high)}"
    elif ours < low:
        detail = f"ours {_fmt(ours)}{unit}, below the axis bottom {_fmt(low)}"
    else:
        detail = f"ours {_fmt(ours)}{unit}"
    statement = f"{metric} lies on the chart's axis [{_fmt(low)}, {_fmt(high)}]{unit}"
    statement += f" [{where}]" if where else ""
    if control_ours is None:
        return Check(statement, bool(holds), detail, control)
    control_holds = not math.isnan(control_ours) and low <= control_ours <= high
    return Check(statement, bool(holds), f"{detail}; control ({control}): {_fmt(control_ours)}{unit}", control,
                 bool(control_holds))


# ----------------------------------------------------------------------------- data
def default_data_dir() -> Path:
    """``$GRIDMARKET_DATA`` if set, else the user cache (:func:`gridmarket.datasets.data_root`)."""
    return data_root()


def data_file(data: Path | None, relative: str, *, needed_by: str) -> Path:
    """``relative`` under ``data`` (default: :func:`default_data_dir`); one-line InvalidInput naming it, where it
    was looked for and the ``gridmarket data fetch`` command that gets it, when absent
    (:func:`gridmarket.datasets.locate`)."""
    return locate(relative, data, needed_by=needed_by)


@lru_cache(maxsize=4)
def _read_trace(path: str):
    from gridmarket.workloads import read_swf

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


def write_report(out: Path, report: Report, *, command: list[str] | None = None, figures: bool = True) -> list[Path]:
    """Write ``report.csv``, ``report.md``, the paper-vs-ours figures (``figure-*.png``, with ``figures``;
    :mod:`gridmarket.scenarios.reproductions.figures`) and ``manifest.json`` into the folder ``out`` (which must
    exist).

    The manifest comes last and lists the other two with their bytes, SHA-256 and (CSV) rows, which
    :func:`read_report` checks.
    """
    from gridmarket.scenarios.results import manifest, write_atomic, write_manifest

    doc = manifest({"reproduction": report.name, "citation": report.citation, "size": report.size,
                    "settings": dict(report.settings)}, report.seed, command=command)
    doc["seconds"] = round(report.seconds, 3)
    doc["directions"] = [{"statement": c.statement, "holds": bool(c.holds), "detail": c.detail, "control": c.control,
                          "control_holds": c.control_holds, "discriminates": c.discriminates}
                         for c in report.checks]
    doc["notes"] = list(report.notes)
    written = []
    frame = report.to_frame()
    for name, text in (("report.csv", frame.to_csv(index=False)), ("report.md", report.to_markdown())):
        write_atomic(Path(out) / name, text)
        written.append(Path(out) / name)
    if figures:
        from gridmarket.scenarios.reproductions.figures import write_paper_figures

        written += write_paper_figures(Path(out), frame, name=report.name, citation=report.citation,
                                       run=f"size {report.size}, seed {report.seed}")
    return [*written, write_manifest(Path(out), doc, written, {Path(out) / "report.csv": len(frame)})]


def read_report(folder: Path) -> Report:
    """The :class:`Report` that :func:`write_report` wrote into ``folder`` (``report.csv`` + ``manifest.json``).

    Figures come back to the last bit (the CSV holds Python's shortest float repr). Raises
    ``InvalidInput`` naming the file for a missing, malformed or incomplete one: the manifest's
    sizes and SHA-256 must match, and the CSV must hold a row per direction of the manifest.
    """
    folder = Path(folder)
    manifest_path, csv_path = folder / "manifest.json", folder / "report.csv"
    for path in (manifest_path, csv_path):
        if not path.is_file():
            raise InvalidInput(f"{path}: missing (a reproduction's report folder has report.csv and manifest.json)")
    try:
        doc = read_json(manifest_path, "reproduction manifest", allow_nan=True)
    except InvalidInput as err:  # the decoder's message starts with the path (and line) too
        raise InvalidInput(f"{manifest_path}: not a reproduction's manifest "
                           f"({str(err).removeprefix(str(manifest_path)).lstrip(':0123456789 ')})") from None
    try:
        scenario = doc["scenario"]
        name, size, seed = scenario["reproduction"], scenario["size"], int(doc["seed"])
        checks = tuple(Check(d["statement"], _holds(d["holds"]), d.get("detail", ""), d.get("control", ""),
                             None if d.get("control_holds") is None else _holds(d["control_holds"]))
                       for d in doc["directions"])
    except (ValueError, KeyError, TypeError) as err:
        raise InvalidInput(f"{manifest_path}: not a reproduction's manifest ({type(err).__name__}: {err})") from None
    if "files" in doc:
        check_files(folder, doc["files"], manifest_path)
    try:
        frame = pd.read_csv(csv_path, keep_default_na=False, na_values={"ours": [""], "seed_value": [""]})
        n_directions = int(frame["kind"].isin(("direction", "setup")).sum())
        if n_directions != len(checks):  # a manifest written before it listed its files: the rows it implies
            raise ValueError(f"{n_directions} direction rows, {manifest_path.name} has {len(checks)} (cut short?)")
        figures = frame[frame["kind"] == "figure"]
        rows = tuple(
            Row(str(r.metric), float(r.ours), None if pd.isna(r.seed_value) else float(r.seed_value), str(r.units),
                str(r.seed_ref))
            for r in figures.itertuples(index=False)
        )
    except (ValueError, KeyError, AttributeError, pd.errors.ParserError) as err:
        raise InvalidInput(f"{csv_path}: not a reproduction's report ({type(err).__name__}: {err})") from None
    return Report(name, scenario.get("citation", ""), size, seed, rows, checks,
                  settings=scenario.get("settings", {}), notes=tuple(doc.get("notes", ())),
                  seconds=float(doc.get("seconds", math.nan)))


def _holds(value) -> bool:
    # older versions wrote a numpy bool to report.csv as the string "True"/"False"; --join still reads them
    if isinstance(value, bool):
        return value
    if value in ("True", "False"):
        return value == "True"
    raise ValueError(f"holds must be true or false, got {value!r}")


def read_seed_reports(folders: Sequence[Path]) -> list[Report]:
    """Every seed's report under ``folders``: each a seed's folder or a multi-seed ``--out`` with ``seed-N/``.

    Raises ``InvalidInput`` for a folder with neither, or a seed found twice.
    """
    reports: dict[int, tuple[Report, Path]] = {}
    for folder in map(Path, folders):
        if (folder / "report.csv").is_file():
            found = [folder]
        else:
            found = sorted((p for p in folder.glob("seed-*") if p.is_dir()), key=lambda p: p.name)
            if not found:
                raise InvalidInput(f"{folder}: no report.csv and no seed-N/ folders: not a reproduction's --out")
        for path in found:
            report = read_report(path)
            if report.seed in reports:
                raise InvalidInput(f"{path}: seed {report.seed} is also in {reports[report.seed][1]}")
            for other, other_path in reports.values():
                if (other.name, other.size) != (report.name, report.size):
                    raise InvalidInput(f"{path}: {report.name} at size {report.size}, but {other_path} is "
                                       f"{other.name} at size {other.size}: only one reproduction at one size joins")
                break
            reports[report.seed] = (report, path)
    return [reports[s][0] for s in sorted(reports)]


# ----------------------------------------------------------------------------- seeds
REPRODUCED_SHARE = 0.8
"""A direction counts as reproduced when it holds in at least this share of the seeds (at most one seed in five may
go the other way)."""

CI_METHOD = (f"95 % over seeds: {BOOTSTRAP} (of the mean, {RESAMPLES} resamples, seed {BOOTSTRAP_SEED}) for "
             f"amounts that cannot be negative (units {', '.join(sorted(AMOUNT_UNITS))}), {STUDENT_T} "
             "(mean ± t(0.975, n-1) · s / sqrt(n)) otherwise; the 'CI by' column names each figure's")


@dataclass(frozen=True, slots=True)
class SeedMetric:
    """One figure over seeds: mean and 95 % interval of ours, beside the seed paper's."""

    metric: str
    mean: float
    low: float
    high: float
    n: int
    seed_value: float | None
    units: str
    seed_ref: str
    method: str = STUDENT_T


@dataclass(frozen=True, slots=True)
class SeedDirection:
    """One direction over seeds: held in ``held`` of ``of`` seeds, on its control in ``control_held``, and
    held here but not on the control (:attr:`Check.discriminates`) in ``discriminated``."""

    statement: str
    held: int
    of: int
    control: str = ""
    control_held: int = 0
    discriminated: int = 0

    @property
    def setup(self) -> bool:
        """A check of the set-up (:data:`SETUP`): reported apart, not counted."""
        return self.control.startswith(SETUP)

    @property
    def reproduced(self) -> bool:
        """Held in at least :data:`REPRODUCED_SHARE` of the seeds."""
        return self.of > 0 and self.held >= REPRODUCED_SHARE * self.of

    @property
    def discriminates(self) -> bool:
        """A direction (not a set-up check) that held while its control did not in at least
        :data:`REPRODUCED_SHARE` of the seeds: reproduced, and it could have failed."""
        return not self.setup and self.of > 0 and self.discriminated >= REPRODUCED_SHARE * self.of


@dataclass(frozen=True)
class SeedsReport:
    """The reports of one reproduction at one size over several seeds, and their aggregate."""

    reports: tuple[Report, ...]

    def __post_init__(self):
        if not self.reports:
            raise InvalidInput("a multi-seed report needs at least one seed's report")
        if len({(r.name, r.size) for r in self.reports}) != 1:
            raise InvalidInput("a multi-seed report joins runs of one reproduction at one size")

    @property
    def name(self) -> str:
        return self.reports[0].name

    @property
    def size(self) -> str:
        return self.reports[0].size

    @property
    def seeds(self) -> list[int]:
        return [r.seed for r in self.reports]

    def metrics(self) -> list[SeedMetric]:
        """Every figure row, in the first report's order (rows only some seeds have come after)."""
        order: dict[str, Row] = {}
        values: dict[str, list[float]] = {}
        for report in self.reports:
            for row in report.rows:
                order.setdefault(row.metric, row)
                values.setdefault(row.metric, []).append(row.ours)
        out = []
        for metric, row in order.items():
            s = interval(values[metric], low=lowest_of_unit(row.units))
            out.append(SeedMetric(metric, s.mean, s.low, s.high, s.n, row.seed_value, row.units, row.seed_ref,
                                  s.method))
        return out

    def directions(self) -> list[SeedDirection]:
        """Every direction, in the first report's order, with the seeds it held in."""
        held: dict[str, list[Check]] = {}
        for report in self.reports:
            for check in report.checks:
                held.setdefault(check.statement, []).append(check)
        return [SeedDirection(s, sum(bool(c.holds) for c in h), len(h), h[0].control,
                              sum(bool(c.control_holds) for c in h), sum(c.discriminates for c in h))
                for s, h in held.items()]

    def headline(self) -> str:
        """Discriminating directions reproduced (held and their control not, in >= 80 % of the seeds) of the
        directions that have a control; the set-up checks apart."""
        directions = [d for d in self.directions() if not d.setup]
        setup = [d for d in self.directions() if d.setup]
        return (f"discriminating directions reproduced: {sum(d.discriminates for d in directions)} of "
                f"{len(directions)} (held in >= {REPRODUCED_SHARE:.0%} of the seeds: "
                f"{sum(d.reproduced for d in directions)}); set-up checks held in >= {REPRODUCED_SHARE:.0%}: "
                f"{sum(d.reproduced for d in setup)} of {len(setup)}")

    def pooled_checks(self) -> list[Check]:
        """Directions over the seeds together (the reproduction's ``pooled``); none with fewer than 2 seeds."""
        reproduction = REPRODUCTIONS.get(self.name)
        if reproduction is None or reproduction.pooled is None or len(self.reports) < 2:
            return []
        return list(reproduction.pooled({m.metric: m for m in self.metrics()}))

    def title(self) -> str:
        seconds = sum(r.seconds for r in self.reports)
        return (f"{self.name}: {self.reports[0].citation} (size {self.size}, seeds {_seed_list(self.seeds)}, "
                f"{seconds:.1f} s of runs)")

    def format_text(self) -> str:
        """Mean and interval per figure, then ``reproduced: yes/no  k of n seeds`` per direction."""
        header = ("metric", "mean", "95% CI", "CI by", "n", "seed", "units", "seed's figure")
        cells = [(m.metric, _fmt(m.mean), _fmt_ci(m.low, m.high), m.method if m.n > 1 else "-", str(m.n),
                  _fmt(m.seed_value), m.units, m.seed_ref) for m in self.metrics()]
        widths = [max([len(header[i])] + [len(c[i]) for c in cells]) for i in range(7)]

        def line(c) -> str:
            return (f"{c[0]:<{widths[0]}}  {c[1]:>{widths[1]}}  {c[2]:>{widths[2]}}  {c[3]:<{widths[3]}}  "
                    f"{c[4]:>{widths[4]}}  {c[5]:>{widths[5]}}  {c[6]:<{widths[6]}}  {c[7]}").rstrip()

        out = [self.title(), f"interval: {CI_METHOD}", line(header),
               line(tuple("-" * w for w in widths) + ("-" * 13,))]
        out += [line(c) for c in cells]
        out += ["", self.headline()]
        share = f"{REPRODUCED_SHARE:.0%}"
        for d in self.directions():
            if not d.setup:
                out.append(f"discriminates: {'yes' if d.discriminates else 'no '}  held in {d.held} of {d.of} seeds, "
                           f"on the control in {d.control_held}  {d.statement} [control: {d.control}]")
        for d in self.directions():
            if d.setup:
                out.append(f"set-up check: held in {d.held} of {d.of} seeds  {d.statement} [{d.control}]")
        out.append(f"(a direction counts when it holds, and its control does not, in at least {share} of the seeds)")
        for c in self.pooled_checks():
            detail = f" [{c.detail}]" if c.detail else ""
            out.append(f"over the seeds: {'yes' if c.holds else 'no '}  {c.statement}{detail}")
        notes = dict.fromkeys(n for r in self.reports for n in r.notes)
        out += [f"note: {n}" for n in notes]
        return "\n".join(out)

    def to_markdown(self) -> str:
        out = [f"# {self.title()}", "", f"Interval: {CI_METHOD}.", "",
               "| metric | mean | 95% CI | CI by | n | seed | units | seed's figure |",
               "|---|---:|---:|---|---:|---:|---|---|"]
        out += [f"| {m.metric} | {_fmt(m.mean)} | {_fmt_ci(m.low, m.high)} | {m.method if m.n > 1 else '-'} | {m.n} | "
                f"{_fmt(m.seed_value)} | {m.units} | {m.seed_ref} |" for m in self.metrics()]
        out += ["", "## Directions", "", self.headline(), "",
                "| discriminates | held | on the control | statement | control |", "|---|---:|---:|---|---|"]
        out += [f"| {'yes' if d.discriminates else 'no'} | {d.held} of {d.of} | {d.control_held} | {d.statement} | "
                f"{d.control} |" for d in self.directions() if not d.setup]
        setup = [d for d in self.directions() if d.setup]
        if setup:
            out += ["", "## Set-up checks (not counted)", "", "| held | statement | why |", "|---:|---|---|"]
            out += [f"| {d.held} of {d.of} | {d.statement} | {d.control} |" for d in setup]
        pooled = self.pooled_checks()
        if pooled:
            out += ["", "## Directions over the seeds together", "", "| holds | statement | ours |", "|---|---|---|"]
            out += [f"| {'yes' if c.holds else 'no'} | {c.statement} | {c.detail} |" for c in pooled]
        notes = dict.fromkeys(n for r in self.reports for n in r.notes)
        if notes:
            out += ["", "## Notes", ""] + [f"- {n}" for n in notes]
        return "\n".join(out) + "\n"

    def to_frame(self) -> pd.DataFrame:
        """``kind, metric, mean, ci95_low, ci95_high, n, seed_value, units, seed_ref, held, of, reproduced, control,
        control_held, discriminated, discriminates, ci_method`` (``kind`` ``setup`` for a check of the set-up;
        ``ci_method`` the interval's method of a figure)."""
        rows = [{"kind": "figure", "metric": m.metric, "mean": m.mean, "ci95_low": m.low, "ci95_high": m.high,
                 "n": m.n, "seed_value": m.seed_value, "units": m.units, "seed_ref": m.seed_ref, "ci_method": m.method}
                for m in self.metrics()]
        rows += [{"kind": "setup" if d.setup else "direction", "metric": d.statement, "held": d.held, "of": d.of,
                  "reproduced": d.reproduced, "control": d.control, "control_held": d.control_held,
                  "discriminated": d.discriminated, "discriminates": d.discriminates} for d in self.directions()]
        return pd.DataFrame(rows, columns=["kind", "metric", "mean", "ci95_low", "ci95_high", "n", "seed_value",
                                           "units", "seed_ref", "held", "of", "reproduced", "control", "control_held",
                                           "discriminated", "discriminates", "ci_method"])

    def to_json(self) -> dict:
        """The ``--json`` document: name, size, seeds, headline, directions (claim, held, of, control,
        control_held, discriminated, discriminates, setup), metrics (mean, ci95, paper)."""
        return {
            "name": self.name,
            "size": self.size,
            "seeds": self.seeds,
            "ci_method": CI_METHOD,
            "headline": self.headline(),
            "directions": [{"claim": d.statement, "held": d.held, "of": d.of, "reproduced": d.reproduced,
                            "control": d.control, "control_held": d.control_held, "discriminated": d.discriminated,
                            "discriminates": d.discriminates, "setup": d.setup}
                           for d in self.directions()],
            "pooled": [{"claim": c.statement, "holds": bool(c.holds), "detail": c.detail, "control": c.control,
                        "discriminates": c.discriminates}
                       for c in self.pooled_checks()],
            "metrics": [{"metric": m.metric, "mean": _json_number(m.mean),
                         "ci95": [_json_number(m.low), _json_number(m.high)], "paper": _json_number(m.seed_value),
                         "units": m.units, "n": m.n, "ci_method": m.method} for m in self.metrics()],
        }


def _json_number(value: float | None) -> float | None:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    return float(value)


def _fmt_ci(low: float, high: float) -> str:
    if math.isnan(low):
        return "-"
    return f"[{_fmt(low)}, {_fmt(high)}]"


def _seed_list(seeds: Sequence[int]) -> str:
    if len(seeds) > 2 and list(seeds) == list(range(seeds[0], seeds[0] + len(seeds))):
        return f"{seeds[0]}..{seeds[-1]}"
    return ",".join(str(s) for s in seeds)


def write_seeds_report(out: Path, seeds_report: SeedsReport, *, command: list[str] | None = None) -> list[Path]:
    """Each seed's report in ``out/seed-N/``, and ``summary.csv``, ``summary.md``, the paper-vs-ours figures over
    the seeds (``figure-*.png``) and ``manifest.json`` in ``out``.

    ``manifest.json`` comes last and lists every file written (the seeds' too) with its bytes and SHA-256.
    """
    from gridmarket.scenarios.results import manifest, write_atomic, write_manifest

    written = []
    for report in seeds_report.reports:
        folder = Path(out) / f"seed-{report.seed}"
        folder.mkdir(exist_ok=True)
        written += write_report(folder, report, command=command, figures=False)
    first = seeds_report.reports[0]
    doc = manifest({"reproduction": first.name, "citation": first.citation, "size": first.size,
                    "settings": dict(first.settings)}, seeds_report.seeds[0], command=command)
    doc["seeds"] = seeds_report.seeds
    doc["seconds"] = {str(r.seed): round(r.seconds, 3) for r in seeds_report.reports}
    doc.update({k: v for k, v in seeds_report.to_json().items() if k in ("directions", "pooled", "metrics", "ci_method")})
    frame = seeds_report.to_frame()
    for name, text in (("summary.csv", frame.to_csv(index=False)), ("summary.md", seeds_report.to_markdown())):
        write_atomic(Path(out) / name, text)
        written.append(Path(out) / name)
    from gridmarket.scenarios.reproductions.figures import write_paper_figures

    written += write_paper_figures(Path(out), frame, name=first.name, citation=first.citation,
                                   run=f"size {first.size}, seeds {_seed_list(seeds_report.seeds)}")
    return [*written, write_manifest(Path(out), doc, written, {Path(out) / "summary.csv": len(frame)})]
