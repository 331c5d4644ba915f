"""Figures of a comparison: MOGA's Pareto front, slot prices over time, a provider's Gantt chart.

matplotlib only (Agg, no display). Inputs are the plain results of
:func:`scenarios.experiment.compare` -- per-job records, the last MOGA
Pareto set, the providers' price logs -- so the figures can be redrawn from
a results folder. Times are seconds from simulation start (hours on the
axes); costs SU (processor-hours).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd

__all__ = ["gantt", "pareto_front", "price_history"]

_KIND_COLOURS = {"job": "C0", "task": "C2", "reservation": "C3"}


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
    ax.set_xlabel("allocation cost (SU)")
    ax.set_ylabel("makespan (h)")
    ax.set_title(title)
    fig.savefig(path, dpi=110)


def price_history(logs: Mapping[str, Mapping[str, Sequence[tuple[int, float, str]]]], path: Path,
                  title: str) -> None:
    """Slot prices over time per model and provider: quotes asked (dots) and prices paid (crosses), SU."""
    fig = _figure((9, 4.5))
    ax = fig.subplots()
    k = 0
    for model, by_site in logs.items():
        for site, log in by_site.items():
            if not log:
                continue
            frame = pd.DataFrame(log, columns=["time", "price", "kind"]).dropna()
            for kind, marker in (("quote", "."), ("paid", "x")):
                part = frame[frame["kind"] == kind]
                if len(part):
                    ax.plot(part["time"] / 3600, part["price"], marker, color=f"C{k % 10}", linestyle="none",
                            label=f"{model} {site} {kind}")
            k += 1
    if k == 0:
        ax.text(0.5, 0.5, "no slot was quoted or bought", ha="center", va="center", transform=ax.transAxes)
    else:
        ax.set_yscale("symlog")
        ax.legend(fontsize=7, ncols=2)
    ax.set_xlabel("time (h)")
    ax.set_ylabel("price (SU)")
    ax.set_title(title)
    fig.savefig(path, dpi=110)


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
    fig.savefig(path, dpi=110)


def _runs(rows: list[int]) -> list[tuple[int, int]]:
    """Consecutive stretches of row numbers: ``[0, 1, 2, 5]`` -> ``[(0, 2), (5, 5)]``."""
    out: list[tuple[int, int]] = []
    for r in rows:
        if out and out[-1][1] == r - 1:
            out[-1] = (out[-1][0], r)
        else:
            out.append((r, r))
    return out
