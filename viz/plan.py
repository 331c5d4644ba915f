"""A provider's plan as Gantt blocks: the picture of Singh 2008, Fig. 1, 20 and 21 for the live state.

Fig. 1 draws a machine's schedule with processors up the y-axis and time
along the x-axis: running and queued tasks, and the free *slots* left
between them. Fig. 20 is the same picture for conservative backfilling and
Fig. 21 adds an advance reservation. :func:`machine_plan` reads that picture
off a :class:`market.simulation.MachineSimulation` at an instant, and
:func:`assign_rows` gives every block the processor rows it is drawn on.

Times are integer seconds from simulation start; ``procs`` are processors.
Nothing here changes the machine: the plan is read, never re-planned.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from market.errors import InvalidInput
from market.pricing.forecast import BACKFILL_POLICIES, check_policy, forecast
from market.pricing.state import state_from_scheduler
from market.scheduling import policy_of
from market.scheduling.profile import Profile
from market.scheduling.slots import decompose

__all__ = ["PLAN_KINDS", "PlanBlock", "assign_rows", "machine_plan"]

PLAN_KINDS = ("done", "running", "reservation", "queued", "projected", "free", "advertised")
"""Kinds of block, in drawing order.

``done`` ended jobs (actual interval); ``running`` running jobs up to their
planned end (start + estimate: the plan does not know the runtime);
``reservation`` advance reservations; ``queued`` queued jobs at the start the
policy planned (conservative backfilling, the slot scheduler); ``projected``
queued jobs of a policy that keeps no plan, at a forecast start: FCFS, EASY
and any other policy pricing can run forward (plug-ins included) are run
forward from the state (``market.pricing.forecast``, what adaptive pricing
plans with, Singh 2008 ch. 5.3); a policy that cannot be (PSP, which ranks
users) is placed in queue order at its jobs' earliest starts;
``free`` free capacity cut into the layered slots of Fig. 1 around running
jobs, reservations and a forecast; ``advertised`` the same cut around a real
plan: non-delaying slots, what a provider advertises (ch. 3).
"""


@dataclass(frozen=True, slots=True)
class PlanBlock:
    """``procs`` processors of one kind over ``[start, end)`` seconds, with a label (job or reservation id)."""

    kind: str
    start: int
    end: int
    procs: int
    label: str = ""

    def __post_init__(self) -> None:
        if self.kind not in PLAN_KINDS:
            raise InvalidInput(f"plan block: unknown kind {self.kind!r}; known: {', '.join(PLAN_KINDS)}")
        if self.end <= self.start:
            raise InvalidInput(f"plan block {self.label!r}: end {self.end} must be after start {self.start}")
        if self.procs < 1:
            raise InvalidInput(f"plan block {self.label!r}: procs must be >= 1, got {self.procs}")


def _clipped(kind: str, start, end, procs: int, label: str, lo: int, hi: int) -> PlanBlock | None:
    a, b = max(start, lo), min(end, hi)
    if b <= a:
        return None
    return PlanBlock(kind, int(a), int(b), int(procs), label)


def _take(profile: Profile, start: int, end: int, procs: int) -> None:
    """Hold ``procs`` over ``[start, end)``, or what is free there: a drawing never fails on a plan it reads."""
    n = min(procs, profile.min_free(start, end - start))
    if n > 0:
        profile.reserve(start, end - start, n)


def machine_plan(machine, now: int, *, window: tuple[int, int], advertised=None) -> list[PlanBlock]:
    """The blocks of ``machine``'s plan at ``now``, clipped to ``window`` = (first, last) seconds.

    Parameters
    ----------
    machine : market.simulation.MachineSimulation
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
        processors at every instant of the window.

    Examples
    --------
    Thesis Fig. 1: 5 processors, A (2 procs x 3 h), B (4 x 1 h), C (1 x 2 h),
    D (3 x 2 h) queued at 0 on the slot scheduler, drawn over 8 h:

    >>> from market.job import Job
    >>> from market.scheduling import SlotScheduler
    >>> from market.simulation import MachineSimulation
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
    for job in machine.jobs:
        if job.id in machine.end and job.id not in running:
            b = _clipped("done", machine.start[job.id], machine.end[job.id], job.procs, str(job.id), lo, now)
            if b is not None:
                blocks.append(b)
    for job, start in running.values():
        b = _clipped("running", start, start + job.estimate, job.procs, str(job.id), lo, hi)
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
        # the policy run forward, as pricing does (plug-ins too, by the name that leads back to their class)
        policy = policy_of(sched)
        try:
            check_policy(policy)
        except InvalidInput:  # a policy whose scheduler refuses the stand-ins: queue order below
            policy = None
        if policy is not None and policy not in BACKFILL_POLICIES:
            forecast_starts = forecast(state_from_scheduler(sched, now), policy)
    if planned is not None:
        for job in queue:
            if job.id in planned:
                b = _clipped("queued", planned[job.id], planned[job.id] + job.estimate, job.procs, str(job.id),
                             now, hi)
                if b is not None:
                    blocks.append(b)
    # free capacity left by running jobs, reservations and the plan (or the forecast)
    profile = Profile(sched.procs, origin=now)
    for job, start in running.values():
        if start + job.estimate > now:
            _take(profile, now, start + job.estimate, job.procs)
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

    The plan says how many processors a job holds, not which: blocks are
    placed in start order on rows free at their start, on one contiguous band
    when there is one, else on the lowest free rows. A feasible plan (never
    more than ``procs`` processors at an instant) always fits; a block that
    finds too few rows gets the rows there are, so a drawing never fails.
    O(B x procs) for B blocks.

    Examples
    --------
    >>> bs = [PlanBlock("running", 0, 10, 2, "a"), PlanBlock("running", 0, 5, 1, "b"),
    ...       PlanBlock("queued", 5, 9, 1, "c")]
    >>> [(b.label, rows) for b, rows in assign_rows(bs, 3)]
    [('a', [0, 1]), ('b', [2]), ('c', [2])]
    """
    free_at = [-math.inf] * procs
    order = sorted(range(len(blocks)), key=lambda i: (blocks[i].start, PLAN_KINDS.index(blocks[i].kind),
                                                      -blocks[i].procs, i))
    out: list[tuple[PlanBlock, list[int]] | None] = [None] * len(blocks)
    for i in order:
        b = blocks[i]
        avail = [r for r in range(procs) if free_at[r] <= b.start]
        rows = _contiguous(avail, b.procs) or avail[: b.procs]
        for r in rows:
            free_at[r] = b.end
        out[i] = (b, rows)
    return [o for o in out if o is not None]
