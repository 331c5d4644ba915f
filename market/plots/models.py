"""Metrics per interaction model: bars of one run's summary, and means over seeds with their 95 % intervals.

The intervals are the caller's (a sweep's point table, :func:`gridmarket.scenarios.pointtable.point_table`):
a figure draws the numbers its table prints. Axis titles, units and which way is better come from
:mod:`gridmarket.vocabulary`; each model keeps its colour (:func:`gridmarket.plots.model_colour`).
Metrics keep their units (seconds, SU, ...).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from gridmarket.atomicfile import save_figure
from gridmarket.errors import InvalidInput
from gridmarket.plots.canvas import new_figure
from gridmarket.plots.colours import model_colour
from gridmarket.vocabulary import MESSAGE_PREFIX, metric

__all__ = ["BAR_METRICS", "LINE_METRICS", "POINT_COLUMNS", "SUMMARY_METRICS", "heading", "message_table",
           "metric_by_model", "metric_lines", "model_bars"]

POINT_COLUMNS = ("metric", "n", "mean", "low", "high", "method")
"""The columns of a table of means over seeds; the other columns (``model``, ``grid.*``) name its design points."""

BAR_METRICS = ("mean_wait", "mean_response", "mean_bsld", "electricity_cost")
"""The panels of :func:`metric_by_model` by default."""

LINE_METRICS = ("social_welfare", "users_surplus", "provider_revenue", "mean_response")
"""The panels of :func:`metric_lines` by default: the job markets' outcomes (welfare, surplus, revenue) and the
users' response."""

SUMMARY_METRICS = ("mean_wait", "mean_response", "mean_bsld", "makespan", "allocation_cost", "electricity_cost")
"""The six panels of :func:`model_bars`."""


def heading(name: str) -> str:
    """A panel's title: the metric's full name and unit, and which way is better (:mod:`gridmarket.vocabulary`).

    >>> heading("mean_wait")
    'mean wait (s)\\nlower is better'
    """
    m = metric(name)
    return m.heading + (f"\n{m.direction}" if m.better else "")


def _keys(points: pd.DataFrame) -> list[str]:
    return [c for c in points.columns if c not in POINT_COLUMNS]


def _error(stats: pd.DataFrame) -> list[list[float]]:
    low = (stats["mean"] - stats["low"]).fillna(0)
    high = (stats["high"] - stats["mean"]).fillna(0)
    return [low.tolist(), high.tolist()]


def _seeds(n: pd.Series) -> str:
    return f"{n.min()}-{n.max()}" if len(n) and n.min() != n.max() else str(n.max() if len(n) else 0)


def metric_by_model(points: pd.DataFrame, path: Path | None, title: str, *,
                    metrics: Sequence[str] = BAR_METRICS):
    """Each metric's mean over seeds per design point, a bar in its model's colour with its 95 % interval.

    ``points`` is the long table of means (``model``, any ``grid.*`` columns, then :data:`POINT_COLUMNS`); a
    point measured on one seed has no interval (``low``/``high`` NaN) and no error bar. The interval methods
    are named in the title. Returns the figure (also saved to ``path`` if given).
    """
    keys = _keys(points)
    names = [m for m in metrics if m in set(points["metric"])]
    fig = new_figure((4 * max(len(names), 1), 1.6 + 0.3 * max(points[keys].drop_duplicates().shape[0], 1)))
    axes = fig.subplots(1, max(len(names), 1), sharey=True, squeeze=False)[0]
    methods: set[str] = set()
    for ax, name in zip(axes, names):
        stats = points[points["metric"] == name].reset_index(drop=True)
        labels = [" | ".join(f"{k.removeprefix('grid.')}={r[k]}" if k != "model" else str(r[k]) for k in keys)
                  for _, r in stats.iterrows()]
        methods |= set(stats.loc[stats["n"] > 1, "method"])
        ax.barh(range(len(stats)), stats["mean"], xerr=_error(stats),
                color=[model_colour(str(m)) for m in stats["model"]], capsize=3)
        ax.set_yticks(range(len(stats)), labels, fontsize=8)
        ax.set_title(heading(name), fontsize=9)
        ax.grid(axis="x", alpha=0.3)
    axes[0].invert_yaxis()  # once: the panels share the y axis, and each call would flip it back
    n = _seeds(points["n"])
    fig.suptitle(f"{title}: mean over {n} seed(s)" + (f", 95 % interval: {' / '.join(sorted(methods))}"
                                                       if methods else ""), fontsize=10)
    if path is not None:
        save_figure(fig, path, dpi=110)
    return fig


def metric_lines(points: pd.DataFrame, path: Path | None, title: str, *, x: str = "grid.workload.load_factor",
                 metrics: Sequence[str | tuple[str, str]] = LINE_METRICS, xlabel: str | None = None):
    """A sweep over one numeric parameter ``x``: each metric against ``x``, one line per model.

    ``points`` is the long table of means over seeds (:func:`metric_by_model`) of a sweep that varies only
    the model and ``x``; each point is a mean, its band the 95 % interval. A metric is a name of
    :mod:`gridmarket.vocabulary` (its panel titled from there) or a ``(name, title)`` pair for a column of
    the caller's own. The x axis is logarithmic when ``x`` spans more than a factor of 5. Returns the figure.
    """
    others = [k for k in _keys(points) if k not in ("model", x)]
    if others and (points.groupby(["model", x, "metric"]).size() > 1).any():
        raise InvalidInput(f"metric lines: the sweep varies {', '.join(others)} besides {x}; plot one value of it "
                           "at a time")
    panels = [item if isinstance(item, tuple) else (item, heading(item)) for item in metrics]
    panels = [(c, name) for c, name in panels if c in set(points["metric"])]
    models = list(dict.fromkeys(points["model"]))
    fig = new_figure((4.2 * max(len(panels), 1), 4.6))
    axes = fig.subplots(1, max(len(panels), 1), squeeze=False)[0]
    xs = points[x].astype(float)
    ticks = sorted(set(xs))
    methods: set[str] = set()
    for ax, (col, name) in zip(axes, panels):
        stats = points[points["metric"] == col]
        methods |= set(stats.loc[stats["n"] > 1, "method"])
        for k, model in enumerate(models):
            s = stats[stats["model"] == model].sort_values(x)
            ax.plot(s[x].astype(float), s["mean"], "-" if k % 2 == 0 else "--", marker="o", ms=3,
                    color=model_colour(str(model)), label=model)
            if s["low"].notna().any():
                ax.fill_between(s[x].astype(float), s["low"], s["high"], color=model_colour(str(model)),
                                alpha=0.07, lw=0)
        if len(xs) and xs.min() > 0 and xs.max() / xs.min() > 5:
            ax.set_xscale("log")
            ax.minorticks_off()
        if len(ticks) <= 12:
            ax.set_xticks(ticks, [f"{v:g}" for v in ticks])
        ax.set_xlabel(xlabel or x.removeprefix("grid."))
        ax.set_title(name, fontsize=9)
        ax.grid(alpha=0.3)
    axes[-1].legend(fontsize=7, loc="center left", bbox_to_anchor=(1.02, 0.5))
    fig.suptitle(f"{title}: mean over {_seeds(points['n'])} seed(s)" + (
        f", 95 % band: {' / '.join(sorted(methods))}" if methods else ""), fontsize=10)
    if path is not None:
        save_figure(fig, path, dpi=110)
    return fig


def model_bars(summary: pd.DataFrame, path: Path | None, title: str, *, currency: str = ""):
    """Six panels of one run's per-model metrics (:data:`SUMMARY_METRICS`), one horizontal bar per model.

    The run's makespan is usually set by the last long job and equal for every model, so it is
    said in the title and the panel shows the workflows' mean makespan instead (where workflows ran).
    ``currency`` names the electricity prices' currency on its axis. Returns the figure.
    """
    panels = [(name, metric(name).heading) for name in SUMMARY_METRICS]
    makespan = summary.get("makespan")
    note = ""
    if "workflow_makespan" in summary and summary["workflow_makespan"].notna().any():
        panels[3] = ("workflow_makespan", metric("workflow_makespan").heading)
        if makespan is not None and makespan.notna().all():
            spread = makespan.max() - makespan.min()
            note = (f"; run makespan {makespan.min() / 3600:.1f} h for every model" if spread == 0 else
                    f"; run makespan {makespan.min() / 3600:.1f}-{makespan.max() / 3600:.1f} h")
    if currency:  # the vocabulary's unit is "the prices' currency": name it when the run knows it
        panels[5] = ("electricity_cost", f"{metric('electricity_cost').title} ({currency})")
    models = list(summary["model"])
    fig = new_figure((12, 1.6 + 0.55 * len(models) * 2))
    axes = fig.subplots(2, 3, sharey=True).ravel()
    colours = [model_colour(m) for m in models]
    y = range(len(models))
    for ax, (col, label) in zip(axes, panels):
        values = summary[col] if col in summary else pd.Series([float("nan")] * len(models))
        ax.barh(list(y), values, color=colours)
        ax.set_title(label + (f", {metric(col).direction}" if metric(col).better else ""), fontsize=10)
        ax.set_yticks(list(y), models)
        ax.grid(axis="x", alpha=0.3)
    axes[0].invert_yaxis()  # once: the panels share the y axis, and each call would flip it back
    fig.suptitle(title + note)
    if path is not None:
        save_figure(fig, path, dpi=110)
    return fig


def message_table(summary: pd.DataFrame, path: Path | None, title: str):
    """Messages per type (columns) and model (rows) as a table of counts shaded on a log scale.

    The counts span orders of magnitude (thousands of submits, a handful of SLA offers) and a run has up
    to a dozen types: as bars they overlapped and repeated colours; as a table every count is printed.
    Returns the figure.
    """
    import numpy as np
    from matplotlib.colors import LogNorm

    kinds = [c for c in summary.columns if c.startswith(MESSAGE_PREFIX)]
    counts = summary[kinds].fillna(0).to_numpy(dtype=float) if kinds else np.zeros((len(summary), 0))
    models = [str(m) for m in summary["model"]]
    fig = new_figure((1.6 + 0.85 * max(len(kinds), 1), 1.3 + 0.32 * max(len(models), 1)))
    ax = fig.subplots()
    if counts.size and counts.max() > 0:
        shown = np.where(counts > 0, counts, np.nan)
        ax.imshow(shown, cmap="Blues", norm=LogNorm(vmin=1, vmax=max(counts.max(), 10)), aspect="auto")
        top = np.log10(max(counts.max(), 10))
        for i, j in np.ndindex(counts.shape):
            dark = counts[i, j] > 0 and np.log10(counts[i, j]) > 0.6 * top
            ax.text(j, i, f"{counts[i, j]:.0f}" if counts[i, j] else "-", ha="center", va="center", fontsize=8,
                    color="white" if dark else "black")
    else:
        ax.text(0.5, 0.5, "no messages", ha="center", va="center", transform=ax.transAxes)
    ax.set_xticks(range(len(kinds)), [metric(k).label for k in kinds], rotation=30, ha="right", fontsize=8)
    ax.set_yticks(range(len(models)), models, fontsize=8)
    ax.set_title(f"{title}: messages sent, by type", fontsize=10)
    if path is not None:
        save_figure(fig, path, dpi=110)
    return fig
