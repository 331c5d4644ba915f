"""One provider's schedule as a Gantt chart (Singh 2008, Fig. 1/20). Times in seconds, hours on the axis."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from gridmarket.atomicfile import save_figure
from gridmarket.plots.canvas import new_figure

__all__ = ["gantt"]

_KIND_COLOURS = {"job": "C0", "task": "C2", "reservation": "C3"}


def gantt(records: pd.DataFrame, procs: int, path: Path | None, title: str, *, limit: int = 400):
    """Each job as a bar of its processors over ``[start, end)`` (first-fit rows), coloured by kind.

    The thesis's Fig. 1/20 picture of one provider's schedule: jobs from the
    local queue, workflow tasks and reservations bought by a broker. Only the
    first ``limit`` jobs by start are drawn. Returns the figure (also saved to ``path`` if given).
    """
    fig = new_figure((10, 4.5))
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
    if path is not None:
        save_figure(fig, path, dpi=110)
    return fig


def _runs(rows: list[int]) -> list[tuple[int, int]]:
    """Consecutive stretches of row numbers: ``[0, 1, 2, 5]`` -> ``[(0, 2), (5, 5)]``."""
    out: list[tuple[int, int]] = []
    for r in rows:
        if out and out[-1][1] == r - 1:
            out[-1] = (out[-1][0], r)
        else:
            out.append((r, r))
    return out
