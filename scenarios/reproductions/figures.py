"""A reproduction's figures beside the paper's: one figure per figure or table of the paper it reproduces.

A report's rows (:class:`gridmarket.scenarios.reproductions.report.Row`) say where the paper shows each
number (``seed_ref``: ``"Table IV, XSEDE"``, ``"Figs. 6-7 (chart)"``, ``"ch. 4.7: 63 % for CTC"``). The rows
citing one figure or table form its figure; that figure is drawn when the reproduction's citation names it
or the paper prints a value in it. Rows citing no figure but holding a printed value (numbers stated in
the text) form one more figure, ``text``. The numbers are the report's (our value or our mean over seeds
and its interval, the paper's value the reproduction checks against), drawn by
:func:`gridmarket.plots.paper_vs_ours`; units are each row's own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from gridmarket.plots import paper_vs_ours

__all__ = ["FIGURE_PREFIX", "TEXT", "PaperFigure", "cited", "paper_figures", "reference", "write_paper_figures"]

FIGURE_PREFIX = "figure-"
"""File names of the figures start with it (``figure-table-iv.png``)."""

TEXT = "text"
"""The key of the figure of values printed in the paper's text (no figure or table cited)."""

_REF = re.compile(r"\b(Figs?\.|Tables?)\s*((?:[IVXLC]+\b|\d+)(?:\s*\([a-z]\)|[a-z]\b)?(?:\s*[-/,]\s*(?:[IVXLC]+|\d+)\b)*)")


@dataclass(frozen=True)
class PaperFigure:
    """One figure or table of the paper: its ``key`` (``"Table IV"``, ``"Figs. 6-7"`` or :data:`TEXT`), its title
    and its rows (the columns of :data:`gridmarket.plots.paper.PAPER_COLUMNS`)."""

    key: str
    title: str
    rows: pd.DataFrame

    @property
    def file_name(self) -> str:
        """``figure-`` and the key in lower case, runs of other characters as one ``-``, ``.png``."""
        return FIGURE_PREFIX + re.sub(r"[^a-z0-9]+", "-", self.key.lower()).strip("-") + ".png"


def _numbers(kind: str, spec: str) -> tuple[str, set[str]]:
    """A reference's kind (``fig``, ``table``) and the numbers it covers: ``Figs. 23-31`` covers 23 to 31."""
    out: set[str] = set()
    for part in re.split(r"\s*[/,]\s*", spec):
        ends = [m.group() for e in part.split("-") if (m := re.match(r"[IVXLC]+|\d+", e.strip()))]
        if len(ends) == 2 and ends[0].isdigit() and ends[1].isdigit():
            out |= {str(k) for k in range(int(ends[0]), int(ends[1]) + 1)}
        out |= set(ends)
    return ("fig" if kind.lower().startswith("fig") else "table"), out


def reference(seed_ref: str) -> str | None:
    """The first figure or table ``seed_ref`` cites, normalised (``"Figs. 39/43"``, ``"Table IV"``), or None.

    >>> reference("sec. 5.5, Fig. 8 (utilization)"), reference("Table IV, XSEDE"), reference("ch. 4.7: 63 %")
    ('Fig. 8', 'Table IV', None)
    >>> reference("Fig. 6(a): 67-85 % over 64-1024 tasks")
    'Fig. 6(a)'
    """
    m = _REF.search(seed_ref or "")
    if m is None:
        return None
    return f"{m.group(1)} {re.sub(r'\s+', '', m.group(2))}"


def cited(key: str, citation: str) -> bool:
    """Whether ``citation`` names every number of the figure or table ``key`` (``Figs. 6-8`` names ``Fig. 8``).

    >>> cited("Fig. 54", "Singh 2008, ch. 7.2 Figs. 52/54"), cited("Fig. 8", "Table IV (XSEDE) and Fig. 11")
    (True, False)
    """
    m = _REF.match(key)
    if m is None:
        return False
    kind, wanted = _numbers(m.group(1), m.group(2))
    have: set[str] = set()
    for c in _REF.finditer(citation):
        k, numbers = _numbers(c.group(1), c.group(2))
        if k == kind:
            have |= numbers
    return bool(wanted) and wanted <= have


def _rows(frame: pd.DataFrame) -> pd.DataFrame:
    """A report's table (``report.csv`` of one run or ``summary.csv`` of several seeds) as :data:`PAPER_COLUMNS`
    plus ``seed_ref``
    (:data:`gridmarket.plots.paper.PAPER_COLUMNS`): its figure rows, in its order."""
    part = frame[frame["kind"] == "figure"]
    if "ci95_low" in part:  # several seeds: mean and interval
        several = pd.to_numeric(part["n"]) > 1
        rows = pd.DataFrame({"metric": part["metric"], "mean": part["mean"],
                             "low": part["ci95_low"].where(several), "high": part["ci95_high"].where(several),
                             "n": pd.to_numeric(part["n"]), "method": part["ci_method"]})
    else:
        nan = float("nan")
        rows = pd.DataFrame({"metric": part["metric"], "mean": part["ours"], "low": nan, "high": nan, "n": 1,
                             "method": ""})
    rows["paper"] = pd.to_numeric(part["seed_value"], errors="coerce")
    rows["units"] = part["units"].fillna("").astype(str)
    rows["seed_ref"] = part["seed_ref"].fillna("").astype(str)
    for col in ("mean", "low", "high"):
        rows[col] = pd.to_numeric(rows[col], errors="coerce")
    return rows.reset_index(drop=True)


def paper_figures(frame: pd.DataFrame, *, name: str, citation: str, run: str) -> list[PaperFigure]:
    """The figures of a report's table ``frame`` (``Report.to_frame()`` or ``SeedsReport.to_frame()``) of the
    reproduction ``name`` citing ``citation``, in the order the report first cites them; ``run`` says which
    run it was (``"size small, seed 1"``), for the titles."""
    rows = _rows(frame)
    keys = [reference(r) or TEXT for r in rows["seed_ref"]]
    author = citation.split(",")[0]
    out = []
    for key in dict.fromkeys(keys):
        part = rows[[k == key for k in keys]]
        printed = part["paper"].notna().any()
        if key == TEXT:
            part = part[part["paper"].notna()]
        if not (printed or (key != TEXT and cited(key, citation))):
            continue
        what = "values printed in the text" if key == TEXT else key
        title = f"{author}, {what}: ours beside the paper's ({name}, {run})"
        out.append(PaperFigure(key, title, part.drop(columns="seed_ref").reset_index(drop=True)))
    return out


def write_paper_figures(out: Path, frame: pd.DataFrame, *, name: str, citation: str, run: str) -> list[Path]:
    """Draw each of :func:`paper_figures` into ``out`` (``figure-*.png``); return the paths written."""
    written = []
    for figure in paper_figures(frame, name=name, citation=citation, run=run):
        path = Path(out) / figure.file_name
        paper_vs_ours(figure.rows, path, figure.title)
        written.append(path)
    return written
