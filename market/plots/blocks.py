"""Gantt blocks of one machine and the processor rows they are drawn on (Singh 2008, Fig. 1, 20, 21).

A block is ``procs`` processors of one kind over ``[start, end)``; :func:`assign_rows` gives every block
the rows (processors) it is drawn on, :func:`draw_blocks` draws placed blocks on a matplotlib axis, one
collection per kind. The live page's plan view (:func:`gridmarket.viz.plan.machine_plan`) and a results
folder's Gantt chart (:func:`gridmarket.plots.gantt`) both place and draw their blocks here.
Times are integer seconds from simulation start (hours on the axis); ``procs`` are processors.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from gridmarket.errors import InvalidInput

__all__ = ["PLAN_KINDS", "PLAN_STYLE", "PlanBlock", "assign_rows", "draw_blocks"]

PLAN_KINDS = ("done", "running", "background", "reservation", "queued", "projected", "free", "advertised")
"""Kinds of block, in drawing order.

``done`` ended jobs (actual interval); ``running`` running jobs up to their
planned end (start + estimate: the plan does not know the runtime);
``background`` jobs running in the background tier of a two-tier machine
(KEASY, REASY, MEASY; Liu et al. 2012, sec. 2.1), on the bg VMs of
processors whose fg VMs may hold ``running`` jobs, up to the end their
estimate gives at their current rate; a job that moved to the fg tier is
``background`` before and ``running`` after (a two-tier machine's
``running`` blocks start at the job's entry into the fg tier and end at the
scheduler's expected end, and carry the processors the jobs are on);
``reservation`` advance reservations; ``queued`` queued jobs at the start the
policy planned (conservative backfilling, the slot scheduler); ``projected``
queued jobs of a policy that keeps no plan, at a forecast start: FCFS, EASY
and any other policy pricing can run forward (plug-ins included) are run
forward from the state (their planner, ``gridmarket.scheduling.planner``, what adaptive pricing
plans with, Singh 2008 ch. 5.3; PSP with its users' accuracies held); a
policy whose scheduler refuses the stand-ins (a two-tier machine's) is placed
in queue order at its jobs' earliest starts;
``free`` free capacity cut into the layered slots of Fig. 1 around running
jobs, reservations and a forecast; ``advertised`` the same cut around a real
plan: non-delaying slots, what a provider advertises (ch. 3).
"""


@dataclass(frozen=True, slots=True)
class PlanBlock:
    """``procs`` processors of one kind over ``[start, end)`` seconds, with a label (job or reservation id).

    ``rows``: the processors (indices from 0) the block is on, when the machine says which (a two-tier
    machine's running jobs); None when only how many is known.
    """

    kind: str
    start: int
    end: int
    procs: int
    label: str = ""
    rows: tuple[int, ...] | None = None

    def __post_init__(self) -> None:
        if self.kind not in PLAN_KINDS:
            raise InvalidInput(f"plan block: unknown kind {self.kind!r}; known: {', '.join(PLAN_KINDS)}")
        if self.end <= self.start:
            raise InvalidInput(f"plan block {self.label!r}: end {self.end} must be after start {self.start}")
        if self.procs < 1:
            raise InvalidInput(f"plan block {self.label!r}: procs must be >= 1, got {self.procs}")
        if self.rows is not None and (len(self.rows) != self.procs or len(set(self.rows)) != len(self.rows)
                                      or any(r < 0 for r in self.rows)):
            raise InvalidInput(f"plan block {self.label!r}: rows must be {self.procs} distinct processor indices "
                               f">= 0, got {self.rows}")


def _contiguous(avail: list[int], n: int) -> list[int] | None:
    run: list[int] = []
    for r in avail:
        run = run + [r] if run and r == run[-1] + 1 else [r]
        if len(run) == n:
            return run
    return None


def assign_rows(blocks: list[PlanBlock], procs: int) -> list[tuple[PlanBlock, list[int]]]:
    """Give each block the processor rows (0 .. procs - 1) it is drawn on, as in Fig. 1.

    A block that knows its processors (``rows``) keeps them (those below
    ``procs``). For the others the plan says how many processors a job holds,
    not which: they are placed in start order on rows free at their start and
    not held by a block with known rows during their span, on one contiguous
    band when there is one, else on the lowest such rows. A feasible plan
    (never more than ``procs`` processors at an instant) always fits; a block
    that finds too few rows gets rows free at its start, then the rows there
    are, so a drawing never fails. ``background`` blocks (a two-tier
    machine's bg VMs) are placed on rows of their own, apart from the other
    blocks (the fg VMs and the free capacity). O(B x procs x K) for B blocks,
    K the most blocks with known rows on a row.

    Examples
    --------
    >>> bs = [PlanBlock("running", 0, 10, 2, "a"), PlanBlock("running", 0, 5, 1, "b"),
    ...       PlanBlock("queued", 5, 9, 1, "c")]
    >>> [(b.label, rows) for b, rows in assign_rows(bs, 3)]
    [('a', [0, 1]), ('b', [2]), ('c', [2])]

    A two-tier machine: fg job "f" known on processor 1, bg job "g" on
    processors 0 and 1, and a free slot of 1 processor, which goes on row 0:

    >>> bs = [PlanBlock("running", 0, 10, 1, "f", (1,)), PlanBlock("background", 0, 10, 2, "g", (0, 1)),
    ...       PlanBlock("free", 0, 10, 1)]
    >>> [(b.label, rows) for b, rows in assign_rows(bs, 2)]
    [('f', [1]), ('g', [0, 1]), ('', [0])]
    """
    layers = ("background", "")  # bg VMs; everything else
    layer_of = [("background" if b.kind == "background" else "") for b in blocks]
    known: dict[str, list[list[tuple[int, int]]]] = {layer: [[] for _ in range(procs)] for layer in layers}
    for b, layer in zip(blocks, layer_of, strict=True):
        for r in b.rows or ():
            if r < procs:
                known[layer][r].append((b.start, b.end))
    free_at = {layer: [-math.inf] * procs for layer in layers}
    order = sorted(range(len(blocks)), key=lambda i: (blocks[i].start, PLAN_KINDS.index(blocks[i].kind),
                                                      -blocks[i].procs, i))
    out: list[tuple[PlanBlock, list[int]] | None] = [None] * len(blocks)
    for i in order:
        b, free, held = blocks[i], free_at[layer_of[i]], known[layer_of[i]]
        rows: list[int] | None
        if b.rows is not None:
            rows = sorted(r for r in b.rows if r < procs)
        else:
            avail = [r for r in range(procs) if free[r] <= b.start]
            clear = [r for r in avail if not any(s < b.end and b.start < e for s, e in held[r])]
            rows = _contiguous(clear, b.procs)
            if rows is None:
                rows = (clear + [r for r in avail if r not in clear])[: b.procs]
                if len(clear) < b.procs:
                    rows = _contiguous(avail, b.procs) or rows
        for r in rows:
            free[r] = max(free[r], b.end)
        out[i] = (b, rows)
    return [o for o in out if o is not None]


PLAN_STYLE = {  # kind -> facecolor, edgecolor, hatch, legend label
    "done": ("#c7c7c7", "#8c8c8c", None, "ended"),
    "running": ("#1f77b4", "#0b3d63", None, "running"),
    "background": ("#17becf", "#0b6570", None, "running (bg tier)"),
    "reservation": ("#9467bd", "#4b2a6b", None, "reservation"),
    "queued": ("#ff7f0e", "#9c4a00", None, "queued (planned)"),
    "projected": ("#ffd8a8", "#c26a00", "///", "queued (forecast)"),
    "free": ("#f1f8e9", "#dcedc8", None, "free slot"),
    "advertised": ("#66bb6a", "#1b5e20", None, "advertised slot"),
}
"""How each kind of :data:`PLAN_KINDS` is drawn: face and edge colour, hatch, legend label."""


def _runs(rows: Sequence[int]) -> list[tuple[int, int]]:
    """Consecutive rows as (first row, count) bands: ``[0, 1, 2, 5]`` -> ``[(0, 3), (5, 1)]``."""
    out: list[tuple[int, int]] = []
    for r in sorted(rows):
        if out and r == out[-1][0] + out[-1][1]:
            out[-1] = (out[-1][0], out[-1][1] + 1)
        else:
            out.append((r, 1))
    return out


def draw_blocks(ax, placed: Sequence[tuple[str, float, float, Sequence[int]]],
                style: Mapping[str, tuple[str, str, str | None, str]] = PLAN_STYLE, *, two_tier: bool = False,
                labelled: set[str] | None = None) -> None:
    """Draw placed blocks ``(kind, start s, end s, rows)`` on ``ax``, hours along x, processors up y.

    Each kind is one ``PolyCollection`` whose ``gid`` is the kind, drawn as ``style`` says, in ``style``'s
    order; ``labelled`` (kinds already in a legend, updated) keeps each legend label once over several axes.
    On a two-tier machine (``two_tier``: KEASY, REASY, MEASY; Liu et al. 2012) each processor's row is
    halved: ``background`` blocks in the upper half, every other kind in the lower.
    """
    from matplotlib.collections import PolyCollection

    labelled = set() if labelled is None else labelled
    verts: dict[str, list] = {kind: [] for kind in style}
    for kind, start, end, rows in placed:
        x0, x1 = start / 3600, end / 3600
        if two_tier:  # each row halved: fg VM below, bg VM above
            y = 0.5 if kind == "background" else 0.0
            verts[kind] += [[(x0, r + y), (x1, r + y), (x1, r + y + 0.5), (x0, r + y + 0.5)] for r in rows]
            continue
        for first, n in _runs(rows):
            verts[kind].append([(x0, first), (x1, first), (x1, first + n), (x0, first + n)])
    for kind, (face, edge, hatch, label) in style.items():
        if not verts[kind]:
            continue
        width = 0.2 if two_tier or kind in ("free", "advertised") else 0.4
        ax.add_collection(PolyCollection(verts[kind], facecolors=face, edgecolors=edge, hatch=hatch, linewidths=width,
                                         label=None if label in labelled else label, gid=kind))
        labelled.add(label)
