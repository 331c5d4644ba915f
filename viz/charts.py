"""The page's charts as data and as matplotlib figures, from a :class:`gridmarket.viz.model.MarketView`.

Each chart has a data function (plain Python / pandas, tested without a
browser) and a figure function drawing it with ``matplotlib.figure.Figure``
(no pyplot state, so renders from several browser sessions do not share a
current figure). Times are seconds from simulation start in the data and
hours on the axes; slot prices are SU (processor-hours), electricity prices
currency per MWh.

- :func:`gantt_figure`: each provider's plan over the next hours (Singh 2008,
  Fig. 1, 20 and 21), data from :func:`gridmarket.viz.plan.machine_plan`.
- :func:`price_data` / :func:`price_figure`: electricity price per site and
  slot prices over time per provider (quotes asked, prices paid).
- :func:`load_data` / :func:`load_figure`: queue length and utilization per provider.
- :func:`pareto_data`, :func:`dispatch_data` / :func:`agents_figure`: the
  brokers' last MOGA Pareto front with the chosen plan (Singh ch. 4, Fig. 9),
  the metascheduler's jobs dispatched per site per cycle (Murali & Vadhiyar).
"""

from __future__ import annotations

import pandas as pd
from matplotlib.figure import Figure

from gridmarket.plots import draw_pareto, live_prices, queues
from gridmarket.plots.blocks import assign_rows, draw_blocks
from gridmarket.plots.canvas import LABEL_PT, LEGEND_PT, TICK_PT, TITLE_PT, note_figure
from gridmarket.viz.plan import machine_plan

__all__ = [
    "DPI",
    "agents_figure",
    "dispatch_data",
    "gantt_figure",
    "load_data",
    "load_figure",
    "pareto_data",
    "price_data",
    "price_figure",
]

DPI = 80
"""Pixels per inch of the PNGs the page shows (a 6.5 x 4.6 in figure is 520 x 368 px)."""

_SIZE = (6.5, 4.6)
# Text sizes are the page's (gridmarket.plots.canvas): 9 pt at 80 dpi, drawn at ~0.75 of 520 px, is ~7.5 px.
_HOUR = 3600

def _message(text: str) -> Figure:
    return note_figure(text, width=_SIZE[0], dpi=DPI, fontsize=TITLE_PT)


# ----------------------------------------------------------------------------- Gantt
def gantt_figure(view) -> Figure:
    """Each provider's plan from one step ago to ``horizon_seconds`` ahead (Singh 2008, Fig. 1, 20, 21).

    Processors up the y-axis, hours along the x-axis, one panel per
    provider; the red line is now. Ended jobs (grey), running jobs to their
    planned end (blue), reservations (purple), queued jobs at their planned
    start (orange; hatched: a forecast for policies without a plan), and the
    free capacity cut into slots (green; solid green: slots of a real plan,
    which a provider advertises, ch. 3).

    A two-tier provider (KEASY, REASY, MEASY; Liu et al. 2012) has a fg and a
    bg VM on every processor: each processor's row is split, the fg tier
    (its jobs, on the processors they hold, the free fg capacity, ended and
    queued jobs) in the lower half, jobs in the bg tier (cyan) in the upper
    half, so a processor shared by a fg and a bg job shows both; half-rows
    have thin edges (a few pixels high on a large machine). Each
    kind's blocks are one collection whose ``gid`` is the kind.
    """
    market = view.market
    if market is None:
        return _message(view.error or "no market")
    now = view.now
    lo, hi = max(0, now - view.step_seconds), now + view.horizon_seconds
    providers = list(market.providers.values())
    fig = Figure(figsize=_SIZE, dpi=DPI)
    axes = fig.subplots(len(providers), 1, sharex=True, squeeze=False,
                        gridspec_kw={"height_ratios": [max(p.procs, 16) for p in providers]})[:, 0]
    labelled: set[str] = set()
    for ax, p in zip(axes, providers, strict=True):
        placed = assign_rows(machine_plan(p.machine, now, window=(lo, hi)), p.procs)
        two_tier = getattr(p.machine.scheduler, "tiers", None) is not None
        draw_blocks(ax, [(b.kind, b.start, b.end, rows) for b, rows in placed], two_tier=two_tier, labelled=labelled)
        ax.axvline(now / _HOUR, color="#d62728", linewidth=1.2)
        ax.set_ylim(0, p.procs)
        ax.set_ylabel("procs (fg | bg)" if two_tier else "procs", fontsize=LABEL_PT)
        n_queued = len(p.machine.scheduler.queue)
        title = f"{p.name}: {p.policy}, {p.procs} procs, {n_queued} queued"
        if two_tier:
            n_bg = sum(tier == "bg" for tier, _ in p.machine.scheduler.tiers.values())
            title += f", {n_bg} in bg tier"
        ax.set_title(title, fontsize=TITLE_PT, loc="left", pad=2)
        ax.tick_params(labelsize=TICK_PT)
    axes[-1].set_xlim(lo / _HOUR, hi / _HOUR)
    axes[-1].set_xlabel(f"hours (now = {now / _HOUR:g} h)", fontsize=LABEL_PT)
    handles, labels = [], []
    for ax in axes:
        for h, lab in zip(*ax.get_legend_handles_labels(), strict=True):
            if lab not in labels:
                handles.append(h)
                labels.append(lab)
    if handles:
        fig.legend(handles, labels, loc="upper center", ncols=4, fontsize=LEGEND_PT, frameon=False)
    fig.subplots_adjust(left=0.09, right=0.98, top=0.86, bottom=0.1, hspace=0.45)
    return fig


# ----------------------------------------------------------------------------- prices
def price_data(view, *, before: int = 24 * _HOUR, ahead: int = 12 * _HOUR) -> dict[str, pd.DataFrame]:
    """Electricity prices per site around now, and every slot price logged so far.

    Returns
    -------
    dict
        ``"electricity"``: rows ``site, time (s, start of the hour), price_per_mwh``
        over ``[now - before, now + ahead)`` within each series;
        ``"slots"``: rows ``site, time (s), su, kind`` (``quote``, ``paid``,
        ``penalty``: a cancellation the broker paid, ``sla-penalty``: an SLA
        penalty the provider paid back for a late start or a breach) from the
        providers' ``price_log`` up to now (empty when the interaction model
        prices no slot).
    """
    market = view.market
    now = view.now
    elec, slots = [], []
    for p in market.providers.values():
        if p.prices is not None:
            first = max(0, (now - before) // _HOUR)
            last = min(p.prices.n_hours, -(-(now + ahead) // _HOUR))
            for k in range(first, last):
                elec.append((p.name, k * _HOUR, float(p.prices.prices[k])))
        for t, su, kind in getattr(p, "price_log", ()):
            if t <= now:
                slots.append((p.name, int(t), float(su), str(kind)))
    return {
        "electricity": pd.DataFrame(elec, columns=["site", "time", "price_per_mwh"]),
        "slots": pd.DataFrame(slots, columns=["site", "time", "su", "kind"]),
    }


def price_figure(view) -> Figure:
    """Slot prices per provider (quotes hollow, paid filled, cancellation penalties crossed, SLA penalties paid back
    as down-triangles) and electricity price per site."""
    if view.market is None:
        return _message(view.error or "no market")
    data = price_data(view)
    return live_prices(data["slots"], data["electricity"], now=view.now, sites=list(view.market.providers),
                       size=_SIZE, dpi=DPI)


# ----------------------------------------------------------------------------- queue and utilization
def load_data(view) -> pd.DataFrame:
    """Rows ``time (s), provider, queued, busy, procs, utilization`` sampled after every step."""
    frame = pd.DataFrame(view.samples, columns=["time", "provider", "queued", "busy", "procs"])
    frame["utilization"] = frame["busy"] / frame["procs"]
    return frame


def load_figure(view) -> Figure:
    """Queue length (jobs) and utilization (busy / processors) per provider, sampled after every step."""
    if view.market is None:
        return _message(view.error or "no market")
    return queues(load_data(view), size=_SIZE, dpi=DPI)


# ----------------------------------------------------------------------------- brokers and metascheduler
def pareto_data(market) -> pd.DataFrame:
    """Rows ``broker, plan, allocation_cost (SU), makespan (s), chosen`` of each broker's last MOGA front."""
    rows = []
    for name, broker in sorted((getattr(market, "brokers", None) or {}).items()):
        front = getattr(broker, "last_front", None) or []
        choice = getattr(broker, "last_choice", None)
        for k, (cost, makespan) in enumerate(front):
            rows.append((name, k, float(cost), float(makespan), k == choice))
    return pd.DataFrame(rows, columns=["broker", "plan", "allocation_cost", "makespan", "chosen"])


def dispatch_data(market) -> pd.DataFrame:
    """Rows ``cycle (s), site, jobs`` the metascheduler dispatched; empty without one.

    Read from its ``dispatch_log`` when it keeps one, else from the jobs the
    providers received from it (their submit time is the cycle's).
    """
    meta = getattr(market, "metascheduler", None)
    if meta is None:
        return pd.DataFrame(columns=["cycle", "site", "jobs"])
    log = getattr(meta, "dispatch_log", None)
    if log is not None:
        frame = pd.DataFrame(list(log), columns=["cycle", "site", "jobs"])
    else:
        routed = meta.predicted_wait
        rows = [(j.submit, name) for name, p in market.providers.items() for j in p.machine.jobs if j.id in routed]
        frame = pd.DataFrame(rows, columns=["cycle", "site"]).groupby(["cycle", "site"]).size()
        frame = frame.rename("jobs").reset_index()
    return frame.groupby(["cycle", "site"], as_index=False)["jobs"].sum().sort_values(["cycle", "site"],
                                                                                        ignore_index=True)


def agents_figure(view) -> Figure:
    """The brokers' last Pareto front (chosen plan starred) and/or jobs dispatched per site per cycle."""
    market = view.market
    if market is None:
        return _message(view.error or "no market")
    front = pareto_data(market)
    brokers = (getattr(market, "brokers", None) or {}).values()
    moga = len(front) > 0 or any(getattr(b, "method", None) == "moga" for b in brokers)
    meta = getattr(market, "metascheduler", None)
    panels = (["front"] if moga else []) + (["dispatch"] if meta is not None else [])
    if not panels:
        return _message("no MOGA broker and no metascheduler in this interaction model")
    fig = Figure(figsize=_SIZE, dpi=DPI)
    axes = fig.subplots(len(panels), 1, squeeze=False)[:, 0]
    for ax, what in zip(axes, panels, strict=True):
        ax.tick_params(labelsize=TICK_PT)
        if what == "front":
            ax.set_title("broker: last MOGA Pareto front (chosen plan starred)", fontsize=TITLE_PT, loc="left", pad=2)
            for i, (name, g) in enumerate(front.groupby("broker")):
                chosen = [k for k, c in enumerate(g["chosen"]) if c]
                draw_pareto(ax, list(zip(g["allocation_cost"], g["makespan"])), chosen[0] if chosen else None,
                            name=str(name), colour=f"C{i}", fontsize=LABEL_PT)
            if len(front):
                ax.legend(fontsize=LEGEND_PT)
            else:
                ax.text(0.5, 0.5, "no MOGA provisioning yet", ha="center", va="center", transform=ax.transAxes,
                        fontsize=LABEL_PT)
                draw_pareto(ax, [], None, fontsize=LABEL_PT)
        else:
            data = dispatch_data(market)
            ax.set_title("metascheduler: jobs dispatched per site per cycle", fontsize=TITLE_PT, loc="left", pad=2)
            if len(data):
                table = data.pivot_table(index="cycle", columns="site", values="jobs", aggfunc="sum", fill_value=0)
                x = table.index.to_numpy() / _HOUR
                width = 0.8 * meta.spec.cycle / _HOUR if hasattr(meta, "spec") else 0.1  # type: ignore[union-attr]  # hasattr: not None
                bottom = 0
                for i, site in enumerate(market.providers):
                    if site in table:
                        ax.bar(x, table[site].to_numpy(), width=width, bottom=bottom, color=f"C{i}", label=site,
                               align="edge")
                        bottom = bottom + table[site].to_numpy()
                ax.legend(fontsize=LEGEND_PT)
            else:
                ax.text(0.5, 0.5, "no dispatch yet", ha="center", va="center", transform=ax.transAxes, fontsize=LABEL_PT)
            ax.set_xlabel("cycle (hours)", fontsize=LABEL_PT)
            ax.set_ylabel("jobs", fontsize=LABEL_PT)
    fig.subplots_adjust(left=0.1, right=0.98, top=0.93, bottom=0.1, hspace=0.55)
    return fig
