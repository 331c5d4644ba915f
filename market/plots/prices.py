"""Slot prices over time, one panel per interaction model (Singh 2008, ch. 5). Prices in SU, hours on the axis."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd

from gridmarket.atomicfile import save_figure
from gridmarket.plots.canvas import LABEL_PT, LEGEND_PT, TICK_PT, TITLE_PT, new_figure

__all__ = ["live_prices", "price_history"]


def price_history(logs: Mapping[str, Mapping[str, Sequence[tuple[int, float, str]]]], path: Path | None,
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
    fig = new_figure((10, 1.2 + 2.2 * max(len(models), 1)))
    if not models:
        ax = fig.subplots()
        ax.text(0.5, 0.5, "no slot was quoted or bought", ha="center", va="center", transform=ax.transAxes)
        ax.set_title(title)
        if path is not None:
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
    if path is not None:
        save_figure(fig, path, dpi=110)
    return fig


def live_prices(slots: pd.DataFrame, electricity: pd.DataFrame, *, now: int, sites: Sequence[str],
                size: tuple[float, float] = (6.5, 4.6), dpi: float | None = None, path: Path | None = None):
    """Slot prices per provider so far (top) and electricity prices per site around ``now`` (bottom).

    ``slots`` has columns ``site, time (s), su, kind`` (quotes hollow, paid filled, cancellation penalties
    crossed, SLA penalties paid back as down-triangles); ``electricity`` ``site, time (s, start of the hour),
    price_per_mwh``; ``sites`` fixes each site's colour; the red line is ``now`` (s). The live page's price
    chart. Returns the figure (also saved to ``path`` if given).
    """
    now_h = now / 3600
    fig = new_figure(size, dpi=dpi, constrained=False)
    top, bottom = fig.subplots(2, 1)
    colors = {name: f"C{i}" for i, name in enumerate(sites)}
    if len(slots):
        for (site, kind), g in slots.groupby(["site", "kind"], sort=True):
            c = colors.get(site, "k")
            style = {"quote": {"marker": "o", "facecolors": "none", "edgecolors": c},
                     "paid": {"marker": "o", "color": c},
                     "penalty": {"marker": "x", "color": c},
                     "sla-penalty": {"marker": "v", "color": c}}.get(kind, {"marker": ".", "color": c})
            top.scatter(g["time"] / 3600, g["su"], s=14, label=f"{site} {kind}", **style)
        top.legend(fontsize=LEGEND_PT, ncols=3, loc="best")  # the corner that hides the fewest prices
        top.set_xlim(0, max(now_h, 1))
    else:
        top.text(0.5, 0.5, "no slot prices: this interaction model neither quotes nor sells slots",
                 ha="center", va="center", transform=top.transAxes, fontsize=LABEL_PT)
    top.set_title("slot prices (SU)", fontsize=TITLE_PT, loc="left", pad=2)
    top.set_ylabel("SU", fontsize=LABEL_PT)
    elec = electricity
    for site, g in elec.groupby("site", sort=False):
        bottom.step(g["time"] / 3600, g["price_per_mwh"], where="post", color=colors.get(site, "k"),
                    linewidth=1.2, label=site)
    bottom.axvline(now_h, color="#d62728", linewidth=1.2)
    bottom.set_title("electricity price per site (per MWh)", fontsize=TITLE_PT, loc="left", pad=2)
    bottom.set_xlabel(f"hours (now = {now_h:g} h)", fontsize=LABEL_PT)
    if len(elec):
        bottom.legend(fontsize=LEGEND_PT, loc="best", ncols=3)
    for ax in (top, bottom):
        ax.tick_params(labelsize=TICK_PT)
    fig.subplots_adjust(left=0.09, right=0.98, top=0.94, bottom=0.1, hspace=0.45)
    if path is not None:
        save_figure(fig, path, dpi=dpi or 110)
    return fig
