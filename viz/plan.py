"""A provider's plan as Gantt blocks: the picture of Singh 2008, Fig. 1, 20 and 21 for the live state.

Fig. 1 draws a machine's schedule with processors up the y-axis and time
along the x-axis: running and queued tasks, and the free *slots* left
between them. Fig. 20 is the same picture for conservative backfilling and
Fig. 21 adds an advance reservation. :func:`machine_plan` reads that picture
off a :class:`gridmarket.simulation.MachineSimulation` at an instant, and
:func:`assign_rows` gives every block the processor rows it is drawn on.

Times are integer seconds from simulation start; ``procs`` are processors.
Nothing here changes the machine: the plan is read, never re-planned.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from gridmarket.errors import InvalidInput
from gridmarket.scheduling import planner_of
from gridmarket.scheduling.planner import Planner
from gridmarket.scheduling.profile import AvailabilityProfile, Profile
from gridmarket.scheduling.slots import decompose
from gridmarket.scheduling.state import state_from_scheduler

__all__ = ["PLAN_KINDS", "PlanBlock", "assign_rows", "machine_plan"]

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


def _clipped(kind: str, start, end, procs: int, label: str, lo: int, hi: int, rows=None) -> PlanBlock | None:
    a, b = max(start, lo), min(end, hi)
    if b <= a:
        return None
    return PlanBlock(kind, int(a), int(b), int(procs), label, rows)


def _take(profile: AvailabilityProfile, start: int, end: int, procs: int) -> None:
    """Hold ``procs`` over ``[start, end)``, or what is free there: a drawing never fails on a plan it reads."""
    n = min(procs, profile.min_free(start, end - start))
    if n > 0:
        profile.reserve(start, end - start, n)


def machine_plan(machine, now: int, *, window: tuple[int, int], advertised=None) -> list[PlanBlock]:
    """The blocks of ``machine``'s plan at ``now``, clipped to ``window`` = (first, last) seconds.

    Parameters
    ----------
    machine : gridmarket.simulation.MachineSimulation
        Run up to ``now`` (its scheduler has seen every event at or before ``now``).
    now : int
        Current time (seconds). Before it only ``done`` and ``running`` blocks are drawn.
    window : tuple of int
        ``(first, last)`` instants drawn; ``first <= now < last``.
    advertised : iterable of slots, optional
        Slots the provider advertised (objects with ``start``, ``procs`` and
        ``duration``), drawn instead of the free capacity. By default the free
        capacity is cut into the layered slots of Fig. 1: ``advertised`` under
        a policy that keeps a plan (conservative, slots: those slots delay no
        queued job, what ch. 3 advertises), ``free`` otherwise.

    Returns
    -------
    list of PlanBlock
        Busy and free blocks; from ``now`` on they add up to the machine's
        processors at every instant of the window. On a two-tier machine
        (its scheduler view has ``tiers``, :mod:`gridmarket.twotier.stepper`)
        ``background`` blocks come on top: they hold bg VMs, not the fg
        capacity the other blocks share; its running blocks carry their rows.

    Examples
    --------
    Thesis Fig. 1: 5 processors, A (2 procs x 3 h), B (4 x 1 h), C (1 x 2 h),
    D (3 x 2 h) queued at 0 on the slot scheduler, drawn over 8 h:

    >>> from gridmarket.job import Job
    >>> from gridmarket.scheduling import SlotScheduler
    >>> from gridmarket.simulation import MachineSimulation
    >>> h = 3600
    >>> jobs = [Job(i, 0, n, d, d) for i, (n, d) in enumerate([(2, 3*h), (4, h), (1, 2*h), (3, 2*h)])]
    >>> m = MachineSimulation(SlotScheduler(5), jobs)
    >>> m.run_until(0)
    >>> for b in machine_plan(m, 0, window=(0, 8 * h)):
    ...     print(b.kind, b.label, b.start // h, b.end // h, b.procs)
    running 0 0 3 2
    running 2 0 2 1
    queued 1 3 4 4
    queued 3 4 6 3
    advertised  0 8 1
    advertised  0 3 1
    advertised  2 3 1
    advertised  4 8 1
    advertised  6 8 3
    """
    lo, hi = window
    if not lo <= now < hi:
        raise InvalidInput(f"plan window {window} must contain now ({now}) before its end")
    sched = machine.scheduler
    blocks: list[PlanBlock] = []
    running = dict(sched.running)
    tiers = getattr(sched, "tiers", None) or {}  # a two-tier machine's: job id -> (tier, processors)
    spans = sched.tier_spans if tiers else {}  # job id -> (entry into its tier, expected end)
    held = []  # (start, end, procs) of the jobs that hold the capacity drawn free: all but bg-tier jobs
    for job in machine.jobs:
        if job.id in machine.end and job.id not in running:
            b = _clipped("done", machine.start[job.id], machine.end[job.id], job.procs, str(job.id), lo, now)
            if b is not None:
                blocks.append(b)
    for job, start in running.values():
        if job.id not in tiers:
            end, kind, rows = start + job.estimate, "running", None
            held.append((start, end, job.procs))
        else:
            tier, rows = tiers[job.id]
            since, end = spans[job.id]
            kind = "running" if tier == "fg" else "background"
            if since > start:  # it waited in the bg tier first (on processors the machine no longer says)
                b = _clipped("background", start, since, job.procs, str(job.id), lo, now)
                if b is not None:
                    blocks.append(b)
                start = since
            if tier == "fg":
                held.append((start, min(end, hi), job.procs))
        b = _clipped(kind, start, end, job.procs, str(job.id), lo, hi, rows)
        if b is not None:
            blocks.append(b)
    for rid, r in sched.reservations.items():
        b = _clipped("reservation", r.start, r.end, r.procs, str(rid), lo, hi)
        if b is not None:
            blocks.append(b)

    planned = getattr(sched, "planned", None)
    queue = list(sched.queue)
    forecast_starts = {}
    if planned is None and queue:
        # the scheduler's own planner, as pricing uses it (a plug-in's too)
        planner: Planner | None
        try:
            planner = planner_of(sched)
        except InvalidInput:  # a policy whose scheduler refuses the stand-ins: queue order below
            planner = None
        if planner is not None and not planner.plans_whole_queue:
            forecast_starts = planner.plan(state_from_scheduler(sched, now))
    if planned is not None:
        for job in queue:
            if job.id in planned:
                b = _clipped("queued", planned[job.id], planned[job.id] + job.estimate, job.procs, str(job.id),
                             now, hi)
                if b is not None:
                    blocks.append(b)
    # free capacity left by running jobs, reservations and the plan (or the forecast)
    profile = Profile(sched.procs, origin=now)
    for _, end, n in held:
        if end > now:
            _take(profile, now, end, n)
    for r in sched.reservations.values():
        if r.end > now:
            _take(profile, max(r.start, now), r.end, r.procs)
    for job in queue:
        if planned is not None and job.id in planned:
            if planned[job.id] + job.estimate > now:
                _take(profile, max(planned[job.id], now), planned[job.id] + job.estimate, job.procs)
        else:  # a forecast only: the policy keeps no plan for it
            start = forecast_starts.get(job.id)
            if start is None:
                start = profile.reserve(profile.earliest_start(job.procs, job.estimate, now), job.estimate,
                                        job.procs)
            else:
                _take(profile, start, start + job.estimate, job.procs)
            b = _clipped("projected", start, start + job.estimate, job.procs, str(job.id), now, hi)
            if b is not None:
                blocks.append(b)
    if advertised is not None:
        kind, slots = "advertised", advertised
    else:
        kind, slots = ("free" if planned is None else "advertised"), decompose(profile)
    for s in slots:
        b = _clipped(kind, s.start, s.start + s.duration, s.procs, "", now, hi)
        if b is not None:
            blocks.append(b)
    return blocks


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
