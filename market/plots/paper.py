"""Our figures beside a seed paper's printed values: one panel per unit, one row per figure.

The input is a reproduction's rows for one of the paper's figures or tables: our value (the mean over
seeds and its 95 % interval when several seeds ran) and the paper's printed value where it prints one.
Values keep the units their rows state (minutes, USD, %, ...).
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pandas as pd

from gridmarket.atomicfile import save_figure
from gridmarket.plots.canvas import new_figure

__all__ = ["PAPER_COLUMNS", "paper_vs_ours"]

PAPER_COLUMNS = ("metric", "mean", "low", "high", "n", "method", "paper", "units")
"""The columns :func:`paper_vs_ours` reads: our mean, the interval ``[low, high]`` over ``n`` seeds by ``method``
(NaN with one seed), the paper's value (NaN where it prints none) and the row's units."""

OURS, PAPER = "#1f77b4", "#d62728"
_WRAP = 48  # characters of a row's label per line


def _log_scale(values: pd.Series) -> bool:
    """A log axis when the values are all positive and span more than 50x (a small run beside a full one)."""
    finite = values[values.notna()]
    return len(finite) > 1 and bool((finite > 0).all()) and finite.max() / finite.min() > 50


def paper_vs_ours(rows: pd.DataFrame, path: Path | None, title: str):
    """Our values (dots, a bar for the 95 % interval over seeds) beside the paper's (red diamonds), per row.

    ``rows`` has the columns :data:`PAPER_COLUMNS`, one row per figure of the paper's figure or table,
    in the order to draw them (top to bottom). Rows of one unit share a panel; a panel whose values are
    all positive and span more than 50x has a log axis (said on it). The artists carry ``gid`` ``ours``,
    ``interval`` and ``paper`` and hold exactly the values of ``rows``. Returns the figure (also saved to
    ``path`` if given).
    """
    units = list(dict.fromkeys(rows["units"].fillna("")))
    counts = [int((rows["units"].fillna("") == u).sum()) for u in units]
    labels = {k: "\n".join(textwrap.wrap(str(m), _WRAP)) or " " for k, m in zip(rows.index, rows["metric"])}
    lines = [sum(labels[k].count("\n") + 1 for k in rows.index[rows["units"].fillna("") == u]) for u in units]
    fig = new_figure((9.5, 1.3 + sum(0.5 + 0.22 * n for n in lines)))
    axes = fig.subplots(len(units), 1, squeeze=False, gridspec_kw={"height_ratios": [0.6 + n for n in lines]})[:, 0]
    seeds = int(rows["n"].max()) if len(rows) else 0
    methods = sorted(set(rows.loc[rows["n"] > 1, "method"].dropna()))
    for ax, unit, count in zip(axes, units, counts):
        part = rows[rows["units"].fillna("") == unit]
        y = list(range(count))
        ax.plot(part["mean"], y, "o", color=OURS, ms=6, gid="ours", label="ours" if seeds <= 1 else
                f"ours, mean of {seeds} seeds")
        have = part["low"].notna()
        if have.any():
            yy = [y[i] for i, h in enumerate(have) if h]
            ax.hlines(yy, part.loc[have, "low"], part.loc[have, "high"], color=OURS, lw=2.5, alpha=0.6,
                      gid="interval", label="95 % interval over seeds")
        printed = part["paper"].notna()
        if printed.any():
            yy = [y[i] for i, p in enumerate(printed) if p]
            ax.plot(part.loc[printed, "paper"], yy, "D", color=PAPER, ms=6, mfc="none", mew=1.6, gid="paper",
                    label="the paper's value")
        log = _log_scale(pd.concat([part["mean"], part["paper"]]))
        if log:  # an interval reaching 0 or below is cut at the axis's left edge
            ax.set_xscale("log", nonpositive="clip")
        ax.set_yticks(y, [labels[k] for k in part.index], fontsize=8)
        ax.set_ylim(count - 0.5, -0.5)
        ax.set_xlabel((unit or "value") + (" (log scale)" if log else ""), fontsize=9)
        ax.tick_params(axis="x", labelsize=8)
        ax.grid(axis="x", alpha=0.3)
        values = pd.concat([part["mean"], part["paper"]])
        if not log and values.notna().any() and values.min() < 0 < values.max():
            ax.axvline(0, color="0.5", lw=0.8)
    handles: dict[str, object] = {}
    for ax in axes:
        for h, label in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(label, h)
    if handles:
        fig.legend(list(handles.values()), list(handles), loc="outside lower center", ncols=len(handles), fontsize=8,
                   frameon=False)
    interval = f"; interval: {' / '.join(methods)}" if methods else ""
    chart_only = "" if rows["paper"].notna().any() else "\nthe paper shows these as a chart only: no printed values"
    fig.suptitle(title + (f"\nmean of {seeds} seeds{interval}" if seeds > 1 else "") + chart_only, fontsize=10)
    if path is not None:
        save_figure(fig, path, dpi=110)
    return fig
