"""A provider's plan as Gantt blocks: the picture of Singh 2008, Fig. 1, 20 and 21 for the live state.

Fig. 1 draws a machine's schedule with processors up the y-axis and time
along the x-axis: running and queued tasks, and the free *slots* left
between them. Fig. 20 is the same picture for conservative backfilling and
Fig. 21 adds an advance reservation. :func:`machine_plan` reads that picture
off a :class:`gridmarket.simulation.MachineSimulation` at an instant, and
:func:`assign_rows` (:mod:`gridmarket.plots.blocks`, where the blocks are drawn too) gives every block the
processor rows it is drawn on.

Times are integer seconds from simulation start; ``procs`` are processors.
Nothing here changes the machine: the plan is read, never re-planned.
"""

from __future__ import annotations

from gridmarket.errors import InvalidInput
from gridmarket.plots.blocks import PLAN_KINDS, PlanBlock, assign_rows
from gridmarket.scheduling import planner_of
from gridmarket.scheduling.planner import Planner
from gridmarket.scheduling.profile import AvailabilityProfile, Profile
from gridmarket.scheduling.slots import decompose
from gridmarket.scheduling.state import state_from_scheduler

__all__ = ["PLAN_KINDS", "PlanBlock", "assign_rows", "machine_plan"]

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
