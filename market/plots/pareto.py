"""MOGA's Pareto set of allocation cost and makespan, the eq. (15) choice marked (Singh 2008, ch. 4, Fig. 13).

Costs SU (processor-hours), makespans seconds in the data and hours on the axis.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from gridmarket.atomicfile import save_figure
from gridmarket.plots.canvas import new_figure
from gridmarket.vocabulary import metric

__all__ = ["draw_pareto", "pareto_front"]


def draw_pareto(ax, front: Sequence[tuple[float, float]], choice: int | None, *, name: str = "Pareto set",
                colour: str = "C0", fontsize: float | None = None) -> None:
    """Draw one Pareto set on ``ax``: (allocation cost SU, makespan s) points joined in cost order, the plan
    chosen by α (eq. 15) starred. ``name`` labels the set in the legend."""
    points = sorted(enumerate(front), key=lambda p: p[1])
    cost = [c for _, (c, _) in points]
    span = [m / 3600 for _, (_, m) in points]
    ax.plot(cost, span, "o-", color=colour, ms=4, lw=1, label=name)
    if choice is not None and 0 <= choice < len(front):
        c, m = front[choice]
        ax.plot([c], [m / 3600], "*", markersize=14, color="#d62728", zorder=3,
                label=f"{name}: chosen by α (eq. 15)" if name != "Pareto set" else "chosen by α (eq. 15)")
    ax.set_xlabel(metric("allocation_cost").heading, fontsize=fontsize)
    ax.set_ylabel(f"{metric('makespan').title} (h)", fontsize=fontsize)


def pareto_front(front: Sequence[tuple[float, float]], choice: int | None, path: Path | None, title: str):
    """The last MOGA Pareto set (allocation cost SU vs makespan h), the eq. (15) choice marked (Singh Fig. 13).

    Returns the figure (also saved to ``path``).
    """
    fig = new_figure((6, 4.5))
    ax = fig.subplots()
    if front:
        draw_pareto(ax, front, choice)
        ax.legend()
    else:
        ax.text(0.5, 0.5, "no MOGA provisioning in this run", ha="center", va="center", transform=ax.transAxes)
        ax.set_xlabel(metric("allocation_cost").heading)
        ax.set_ylabel(f"{metric('makespan').title} (h)")
    ax.set_title(title)
    if path is not None:
        save_figure(fig, path, dpi=110)
    return fig
