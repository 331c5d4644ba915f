"""Figures of a comparison: MOGA's Pareto front, slot prices over time, a provider's Gantt chart.

matplotlib only (Agg, no display). Inputs are the plain results of
:func:`gridmarket.scenarios.experiment.compare` -- per-job records, the last MOGA
Pareto set, the providers' price logs -- so the figures can be redrawn from
a results folder. Times are seconds from simulation start (hours on the
axes); costs SU (processor-hours).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd

from gridmarket.atomicfile import save_figure
from gridmarket.scenarios.intervals import interval_of
from gridmarket.scenarios.pointtable import design_points
from gridmarket.vocabulary import metric

__all__ = ["MODEL_COLOURS", "gantt", "model_colour", "pareto_front", "price_history", "sweep_lines",
           "sweep_means", "sweep_winners"]

_KIND_COLOURS = {"job": "C0", "task": "C2", "reservation": "C3"}

MODEL_COLOURS = {
    "best-effort": "#4d4d4d", "mcmf": "#1f77b4", "stable": "#9ecae1", "grand": "#17becf",
    "moga": "#2ca02c", "greedy": "#98df8a", "var": "#8c564b", "combined": "#c49c94",
    "first-price": "#ff7f0e", "vickrey": "#ffbb78", "english": "#d62728", "dutch": "#ff9896",
    "double": "#9467bd", "double-gd": "#c5b0d5", "negotiate": "#bcbd22", "dbc": "#e377c2",
    "dbc-cycle": "#f7b6d2", "sla": "#393b79", "sla-predict": "#8c8fdf",
}  # fmt: skip
"""One colour per registered interaction model, the same in every figure: a family shares a hue (the
metaschedulers blue, the provisioning brokers green, the reservations brown, the auctions orange and red)."""

_OTHER_COLOURS = ("#637939", "#b5cf6b", "#8c6d31", "#e7ba52", "#843c39", "#d6616b", "#7b4173", "#ce6dbd",
                  "#5254a3", "#cedb9c")


def model_colour(model: str) -> str:
    """The colour of interaction model ``model`` in every figure (:data:`MODEL_COLOURS`).

    A model outside the table (a plug-in) takes a colour of a second palette chosen by a checksum
    of its name, so it too keeps its colour from one figure and one run to the next.

    >>> model_colour("mcmf"), model_colour("mcmf") == model_colour("mcmf")
    ('#1f77b4', True)
    """
    import zlib

    if model in MODEL_COLOURS:
        return MODEL_COLOURS[model]
    return _OTHER_COLOURS[zlib.crc32(str(model).encode()) % len(_OTHER_COLOURS)]


def _figure(size):
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    return Figure(figsize=size, layout="constrained")


def pareto_front(front: Sequence[tuple[float, float]], choice: int | None, path: Path, title: str) -> None:
    """The last MOGA Pareto set (allocation cost SU vs makespan h), the eq. (15) choice marked (Singh Fig. 13)."""
    fig = _figure((6, 4.5))
    ax = fig.subplots()
    if front:
        cost = [c for c, _ in front]
        span = [m / 3600 for _, m in front]
        ax.plot(cost, span, "o-", color="C0", label="Pareto set")
        if choice is not None:
            ax.plot([cost[choice]], [span[choice]], "*", markersize=16, color="C3", label="chosen by α (eq. 15)")
        ax.legend()
    else:
        ax.text(0.5, 0.5, "no MOGA provisioning in this run", ha="center", va="center", transform=ax.transAxes)
    ax.set_xlabel(metric("allocation_cost").heading)
    ax.set_ylabel(f"{metric('makespan').title} (h)")
    ax.set_title(title)
    save_figure(fig, path, dpi=110)


def price_history(logs: Mapping[str, Mapping[str, Sequence[tuple[int, float, str]]]], path: Path,
                  title: str, *, until: float | None = None):
    """Slot prices over time: one panel per interaction model that priced slots, SU.

    Quotes asked are dots, prices paid crosses; each provider keeps one colour in every panel and
    the legend sits outside the data. The time axis covers the whole run (``until``, seconds; else
    the last price). Prices spanning more than 50x use a log axis, on which free slots (0 SU) are
    drawn as triangles along the bottom edge and named so in the legend (a log axis has no 0).
    Returns the matplotlib figure (also saved to ``path``).
    """
    from matplotlib.lines import Line2D

    models = [(m, {s: pd.DataFrame(log, columns=["time", "price", "kind"]).dropna() for s, log in by.items() if log})
              for m, by in logs.items()]
    models = [(m, frames) for m, frames in models if frames]
    sites = sorted({s for _, frames in models for s in frames})
    colour = {s: f"C{k % 10}" for k, s in enumerate(sites)}
    fig = _figure((10, 1.2 + 2.2 * max(len(models), 1)))
    if not models:
        ax = fig.subplots()
        ax.text(0.5, 0.5, "no slot was quoted or bought", ha="center", va="center", transform=ax.transAxes)
        ax.set_title(title)
        save_figure(fig, path, dpi=110)
        return fig
    axes = fig.subplots(len(models), 1, sharex=True, squeeze=False)[:, 0]
    prices = pd.concat([f["price"] for _, frames in models for f in frames.values()])
    positive = prices[prices > 0]
    log = len(positive) > 0 and positive.max() / positive.min() > 50
    floor = positive.min() / 2 if log else 0.0
    any_free = False
    for ax, (model, frames) in zip(axes, models):
        for site, frame in frames.items():
            for kind, marker in (("quote", "."), ("paid", "x")):
                part = frame[frame["kind"] == kind]
                free = part["price"] <= 0 if log else part["price"] < 0
                ax.plot(part.loc[~free, "time"] / 3600, part.loc[~free, "price"], marker, color=colour[site],
                        linestyle="none")
                if free.any():
                    any_free = True
                    ax.plot(part.loc[free, "time"] / 3600, [floor] * int(free.sum()), "v", color=colour[site],
                            linestyle="none")
        if log:
            ax.set_yscale("log")
            ax.set_ylim(bottom=floor * 0.8)
        else:
            ax.set_ylim(bottom=0)
        ax.set_title(model, loc="left", fontsize=9)
        ax.set_ylabel("SU")
        ax.grid(alpha=0.3)
    end = (until if until is not None else max(f["time"].max() for _, fr in models for f in fr.values())) / 3600
    axes[-1].set_xlim(0, max(end, 1e-9))
    axes[-1].set_xlabel("time (h)")
    handles = [Line2D([], [], color=colour[s], marker="s", linestyle="none", label=s) for s in sites]
    handles += [Line2D([], [], color="0.3", marker=".", linestyle="none", label="quote asked"),
                Line2D([], [], color="0.3", marker="x", linestyle="none", label="price paid")]
    if any_free:
        handles.append(Line2D([], [], color="0.3", marker="v", linestyle="none", label="free (0 SU), at the bottom"))
    fig.legend(handles=handles, loc="outside right upper", fontsize=8)
    fig.suptitle(title)
    save_figure(fig, path, dpi=110)
    return fig


def gantt(records: pd.DataFrame, procs: int, path: Path, title: str, *, limit: int = 400) -> None:
    """Each job as a bar of its processors over ``[start, end)`` (first-fit rows), coloured by kind.

    The thesis's Fig. 1/20 picture of one provider's schedule: jobs from the
    local queue, workflow tasks and reservations bought by a broker. Only the
    first ``limit`` jobs by start are drawn.
    """
    fig = _figure((10, 4.5))
    ax = fig.subplots()
    frame = records.sort_values(["start", "job_id"]).head(limit)
    # first fit: processor rows free at each job's start (a picture, not the machine's own allocation)
    free_at = [0] * procs
    for row in frame.itertuples(index=False):
        rows = [i for i, t in enumerate(free_at) if t <= row.start][: row.procs]
        if len(rows) < row.procs:  # an overlap the picture cannot place: draw it on top
            rows = list(range(min(row.procs, procs)))
        for i in rows:
            free_at[i] = row.end
        colour = _KIND_COLOURS.get(getattr(row, "kind", "job"), "C0")
        for lo in _runs(sorted(rows)):
            ax.broken_barh([(row.start / 3600, (row.end - row.start) / 3600)], (lo[0], lo[1] - lo[0] + 1),
                           facecolors=colour, edgecolors="white", linewidth=0.3)
    handles = [ax.bar(0, 0, color=c, label=k) for k, c in _KIND_COLOURS.items()]
    ax.legend(handles=handles, fontsize=8, loc="upper right")
    ax.set_ylim(0, procs)
    ax.set_xlabel("time (h)")
    ax.set_ylabel("processors")
    ax.set_title(title)
    save_figure(fig, path, dpi=110)


def _runs(rows: list[int]) -> list[tuple[int, int]]:
    """Consecutive stretches of row numbers: ``[0, 1, 2, 5]`` -> ``[(0, 2), (5, 5)]``."""
    out: list[tuple[int, int]] = []
    for r in rows:
        if out and out[-1][1] == r - 1:
            out[-1] = (out[-1][0], r)
        else:
            out.append((r, r))
    return out


_SWEEP_METRICS = ("mean_wait", "mean_response", "mean_bsld", "electricity_cost")


def _axis(name: str) -> str:
    """A panel's title: the metric's full name and unit, and which way is better (:mod:`gridmarket.vocabulary`)."""
    m = metric(name)
    return m.heading + (f"\n{m.direction}" if m.better else "")


def sweep_means(table: pd.DataFrame, path: Path, title: str):
    """A sweep's metrics per design point and model: the mean over seeds with its 95 % interval.

    ``table`` is a sweep's combined table (``sweep.csv``: ``grid.*`` columns, ``model``, ``seed``
    and the summary metrics). Rows that differ only in their seed form one bar, in its model's colour
    (:func:`model_colour`); its error bar is :func:`gridmarket.scenarios.intervals.interval_of` over those
    seeds (none with one seed). Returns the figure.
    """
    keys = design_points(table)
    groups = list(table.groupby(keys, sort=False, dropna=False)) if len(table) else []
    labels = [" | ".join(f"{k.removeprefix('grid.')}={v}" if k != "model" else str(v)
                         for k, v in zip(keys, key if isinstance(key, tuple) else (key,))) for key, _ in groups]
    models = [str(g["model"].iloc[0]) for _, g in groups]
    metrics = [c for c in _SWEEP_METRICS if c in table]
    fig = _figure((4 * max(len(metrics), 1), 1.6 + 0.3 * max(len(groups), 1)))
    axes = fig.subplots(1, max(len(metrics), 1), sharey=True, squeeze=False)[0]
    seeds = [len(g) for _, g in groups]
    methods = set()
    for ax, col in zip(axes, metrics):
        stats = [interval_of(col, g[col].tolist()) for _, g in groups]
        methods |= {s.method for s in stats if s.n > 1}
        means = [s.mean for s in stats]
        err = [[s.mean - s.low if s.low == s.low else 0 for s in stats],
               [s.high - s.mean if s.high == s.high else 0 for s in stats]]
        ax.barh(range(len(groups)), means, xerr=err, color=[model_colour(m) for m in models], capsize=3)
        ax.set_yticks(range(len(groups)), labels, fontsize=8)
        ax.set_title(_axis(col), fontsize=9)
        ax.grid(axis="x", alpha=0.3)
    axes[0].invert_yaxis()  # once: the panels share the y axis, and each call would flip it back
    n = f"{min(seeds)}-{max(seeds)}" if seeds and min(seeds) != max(seeds) else str(seeds[0] if seeds else 0)
    fig.suptitle(f"{title}: mean over {n} seed(s)" + (f", 95 % interval: {' / '.join(sorted(methods))}" if methods
                                                       else ""), fontsize=10)
    save_figure(fig, path, dpi=110)
    return fig


MARKET_PANELS = ("social_welfare", "users_surplus", "provider_revenue", "mean_response")
"""The panels of :func:`sweep_lines` by default: the job markets' outcomes (welfare, surplus, revenue) and the
users' response."""


def _by_point(table: pd.DataFrame, x: str, col: str) -> pd.DataFrame:
    """Mean and 95 % interval over seeds of ``col`` per model and value of ``x`` (:func:`interval_of`): columns
    model, x, mean, low, high, n, method."""
    rows = []
    for (model, value), g in table.groupby(["model", x], sort=True):
        s = interval_of(col, g[col].tolist())
        rows.append({"model": model, "x": value, "mean": s.mean, "low": s.low, "high": s.high, "n": len(g),
                     "method": s.method})
    return pd.DataFrame(rows)


def sweep_lines(table: pd.DataFrame, path: Path, title: str, *, x: str = "grid.workload.load_factor",
                metrics: Sequence[str | tuple[str, str]] = MARKET_PANELS, xlabel: str | None = None):
    """A sweep over one numeric parameter ``x``: each metric against ``x``, one line per model.

    ``table`` is a sweep's combined table (``sweep.csv``); each point is the mean over its seeds
    with a band for its 95 % interval (:func:`gridmarket.scenarios.intervals.interval_of`), each model in
    its colour (:func:`model_colour`). A metric is a name of :mod:`gridmarket.vocabulary` (its panel titled
    from there) or a ``(column, title)`` pair for a column of the caller's own. The x axis is logarithmic
    when ``x`` spans more than a factor of 5. Returns the figure.
    """
    panels = [item if isinstance(item, tuple) else (item, _axis(item)) for item in metrics]
    panels = [(c, name) for c, name in panels if c in table]
    models = list(dict.fromkeys(table["model"]))
    fig = _figure((4.2 * max(len(panels), 1), 4.6))
    axes = fig.subplots(1, max(len(panels), 1), squeeze=False)[0]
    xs = table[x].astype(float)
    colour = {m: model_colour(m) for m in models}
    ticks = sorted(set(xs))
    methods = set()
    for ax, (col, name) in zip(axes, panels):
        stats = _by_point(table, x, col)
        methods |= set(stats.loc[stats["n"] > 1, "method"])
        for k, model in enumerate(models):
            s = stats[stats["model"] == model].sort_values("x")
            ax.plot(s["x"], s["mean"], "-" if k % 2 == 0 else "--", marker="o", ms=3, color=colour[model],
                    label=model)
            if s["low"].notna().any():
                ax.fill_between(s["x"], s["low"], s["high"], color=colour[model], alpha=0.07, lw=0)
        if len(xs) and xs.min() > 0 and xs.max() / xs.min() > 5:
            ax.set_xscale("log")
            ax.minorticks_off()
        if len(ticks) <= 12:
            ax.set_xticks(ticks, [f"{v:g}" for v in ticks])
        ax.set_xlabel(xlabel or x.removeprefix("grid."))
        ax.set_title(name, fontsize=9)
        ax.grid(alpha=0.3)
    axes[-1].legend(fontsize=7, loc="center left", bbox_to_anchor=(1.02, 0.5))
    n = table.groupby(["model", x]).size()
    seeds = f"{n.min()}-{n.max()}" if len(n) and n.min() != n.max() else str(n.max() if len(n) else 0)
    fig.suptitle(f"{title}: mean over {seeds} seed(s)" + (f", 95 % band: {' / '.join(sorted(methods))}" if methods
                                                           else ""), fontsize=10)
    save_figure(fig, path, dpi=110)
    return fig


def sweep_winners(table: pd.DataFrame, *, x: str = "grid.workload.load_factor",
                  metrics: Sequence[str] = ("social_welfare", "users_surplus", "provider_revenue")) -> pd.DataFrame:
    """Per value of ``x`` and metric, the model with the highest mean over seeds and that mean.

    The first column is named after ``x``'s last part (``load_factor``). A second model whose 95 % interval
    (:func:`interval_of`) contains the winner's mean is named as tied (``tied`` column).
    """
    rows = []
    for col in metrics:
        stats = _by_point(table, x, col)
        for value, g in stats.groupby("x", sort=True):
            g = g.sort_values("mean", ascending=False)
            best = g.iloc[0]
            tied = [r.model for r in g.iloc[1:].itertuples() if r.low <= best["mean"] <= r.high]
            rows.append({x.split(".")[-1]: value, "metric": col, "winner": best["model"],
                         "mean": best["mean"], "low": best["low"], "high": best["high"], "tied": ", ".join(tied)})
    return pd.DataFrame(rows)
