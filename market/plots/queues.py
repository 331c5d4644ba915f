"""Queue length and utilization per provider over time. Times in seconds, hours on the axis."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from gridmarket.atomicfile import save_figure
from gridmarket.plots.canvas import LABEL_PT, LEGEND_PT, TICK_PT, TITLE_PT, new_figure

__all__ = ["queues"]


def queues(samples: pd.DataFrame, *, size: tuple[float, float] = (6.5, 4.6), dpi: float | None = None,
           path: Path | None = None):
    """Queue length (jobs) and utilization (busy / processors) per provider, one sample per row.

    ``samples`` has columns ``time`` (s), ``provider``, ``queued`` (jobs) and ``utilization`` (0 to 1);
    each provider keeps its colour in both panels. Returns the figure (also saved to ``path`` if given).
    """
    fig = new_figure(size, dpi=dpi, constrained=False)
    top, bottom = fig.subplots(2, 1, sharex=True)
    for i, (name, g) in enumerate(samples.groupby("provider", sort=False)):
        top.plot(g["time"] / 3600, g["queued"], marker=".", color=f"C{i}", label=name)
        bottom.plot(g["time"] / 3600, g["utilization"], marker=".", color=f"C{i}", label=name)
    top.set_title("queue length (jobs)", fontsize=TITLE_PT, loc="left", pad=2)
    bottom.set_title("utilization (busy / processors)", fontsize=TITLE_PT, loc="left", pad=2)
    bottom.set_ylim(0, 1.05)
    bottom.set_xlabel("hours", fontsize=LABEL_PT)
    if len(samples):
        top.legend(fontsize=LEGEND_PT, loc="upper right")
    for ax in (top, bottom):
        ax.tick_params(labelsize=TICK_PT)
    fig.subplots_adjust(left=0.09, right=0.98, top=0.94, bottom=0.1, hspace=0.35)
    if path is not None:
        save_figure(fig, path, dpi=dpi or 110)
    return fig
