"""One provider's schedule as a Gantt chart (Singh 2008, Fig. 1/20). Times in seconds, hours on the axis."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from gridmarket.atomicfile import save_figure
from gridmarket.plots.blocks import PlanBlock, assign_rows, draw_blocks
from gridmarket.plots.canvas import new_figure

__all__ = ["RECORD_STYLE", "gantt"]

RECORD_STYLE = {  # a record's kind -> facecolor, edgecolor, hatch, legend label
    "job": ("C0", "white", None, "job"),
    "task": ("C2", "white", None, "task"),
    "reservation": ("C3", "white", None, "reservation"),
}
"""How :func:`gantt` draws a per-job record of each ``kind`` (a job of the local queue, a workflow task, a
reservation a broker bought)."""


def gantt(records: pd.DataFrame, procs: int, path: Path | None, title: str, *, limit: int = 400):
    """Each job of ``records`` as a block of its processors over ``[start, end)``, coloured by kind.

    The thesis's Fig. 1/20 picture of one provider's schedule from a run's per-job records (``job_id``,
    ``start``, ``end``, ``procs``, optional ``kind``): jobs from the local queue, workflow tasks and
    reservations bought by a broker, placed on processor rows by :func:`gridmarket.plots.blocks.assign_rows`
    (the rows a picture gives them, not the machine's own allocation). Only the first ``limit`` jobs by
    start are drawn; a job that ran no time is not. Returns the figure (also saved to ``path`` if given).
    """
    fig = new_figure((10, 4.5))
    ax = fig.subplots()
    frame = records.sort_values(["start", "job_id"]).head(limit)
    frame = frame[frame["end"] > frame["start"]]
    kinds = [str(k) if k in RECORD_STYLE else "job" for k in (frame["kind"] if "kind" in frame else ["job"] * len(frame))]
    blocks = [PlanBlock("reservation" if kind == "reservation" else "done", int(r.start), int(r.end), int(r.procs),
                        str(r.job_id)) for kind, r in zip(kinds, frame.itertuples(index=False))]
    placed = assign_rows(blocks, procs)
    draw_blocks(ax, [(kind, b.start, b.end, rows) for kind, (b, rows) in zip(kinds, placed)], RECORD_STYLE)
    handles = [ax.bar(0, 0, color=face, label=label) for face, _, _, label in RECORD_STYLE.values()]
    ax.legend(handles=handles, fontsize=8, loc="upper right")
    ax.autoscale_view()
    if len(frame):
        ax.set_xlim(frame["start"].min() / 3600, frame["end"].max() / 3600)
    ax.set_ylim(0, procs)
    ax.set_xlabel("time (h)")
    ax.set_ylabel("processors")
    ax.set_title(title)
    if path is not None:
        save_figure(fig, path, dpi=110)
    return fig
