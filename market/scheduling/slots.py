"""The non-delaying slot scheduler: the schedule kept as its set of free slots.

Singh 2008, ch. 3: slot model (eqs. 1-2), Fig. 1 (a schedule and its slots),
Table 1 (divisible / extensible slots), Fig. 2 (scheduling a task on one slot
or a vertical stack of slots) and Fig. 3 (the left-over slots). Times are
integer seconds from simulation start; a slot that reaches the end of the
plan has an infinite duration (``math.inf``).

The scheduler never builds a Gantt chart of queued jobs: it keeps the free
capacity of the plan as a list of :class:`FreeSlot` records and plans each
arriving job on it (Fig. 2), replacing the slots it used by their left-overs
(Fig. 3). The list it keeps is exactly what a provider advertises
(:meth:`SlotScheduler.free_slots`), so advertising costs nothing (ch. 3, "there
is no cost involved in creating the slot information").

Canonical slots
---------------
Free capacity can be cut into rectangles in many ways. This module keeps one
cut, the *layered* one: level ``k`` of the free profile ``f`` (the ``k``-th
free processor, counted from the bottom) is free over the maximal intervals
where ``f >= k``, and consecutive levels free over the same interval form one
slot. On the thesis's Fig. 1 this cut gives exactly its five slots S1-S5. It
is what makes Fig. 2 exact: if ``n`` processors are free over ``[t, t + d)``,
the slots of levels ``1..n`` each cover the whole window, so a vertical stack
exists and Fig. 2 finds the same earliest start as conservative backfilling
on the profile. Other cuts can hide a start behind a horizontal seam (a
1-processor slot over ``[0, 3)`` beside another over ``[1, inf)`` cannot take
a 1-processor job of 10 h at time 0, though a processor is free throughout).
The thesis's per-slot left-overs (Fig. 3) may leave such seams, so here the
left-overs are cut from the pool of every slot that overlaps or abuts the
job's window (a superset of Fig. 2's stack ``Z``): re-cutting that pool is
enough to restore the layered cut (see :meth:`SlotScheduler._recut`).
"""

from __future__ import annotations

import math
from bisect import bisect_right
from dataclasses import dataclass
from heapq import heappop, heappush
from operator import attrgetter
from typing import overload

from gridmarket.errors import Infeasible, InvalidInput
from gridmarket.job import Job
from gridmarket.reservation import Reservation
from gridmarket.scheduling.base import LocalScheduler
from gridmarket.scheduling.conservative import ConservativeScheduler
from gridmarket.scheduling.profile import AvailabilityProfile, Profile  # noqa: F401 - Profile: the doctests use it

__all__ = ["FreeSlot", "LayeredSlotScheduler", "SlotScheduler", "decompose"]

INF = math.inf
_START = attrgetter("start")


@dataclass(frozen=True, slots=True)
class FreeSlot:
    """``procs`` free processors over ``[start, start + duration)`` (Singh 2008, eqs. 1-2).

    The thesis's slot ``<s, n, d, c, f, b, e>`` without its prices (the priced
    ``Slot`` lives with the pricing mechanisms).

    Parameters
    ----------
    start : int
        First free instant (seconds).
    procs : int
        Free processors, >= 1.
    duration : int or float
        Seconds, >= 1, or ``math.inf`` for a slot that reaches the end of the plan.
    divisible : bool
        A buyer may take part of it (Table 1, ``b``).
    extensible : bool
        A buyer may take it past its end (Table 1, ``e``); required for an
        infinite duration.

    Examples
    --------
    >>> FreeSlot(7200, procs=1, duration=3600, divisible=False, extensible=False).end
    10800
    >>> FreeSlot(0, 2, math.inf, True, True).end
    inf
    """

    start: int
    procs: int
    duration: int | float
    divisible: bool
    extensible: bool

    def __post_init__(self) -> None:
        # type(...) is int: bool is refused, and the scheduler builds many slots
        if type(self.start) is not int or self.start < 0:
            raise InvalidInput(f"free slot: start must be an int >= 0, got {self.start!r}")
        if type(self.procs) is not int or self.procs < 1:
            raise InvalidInput(f"free slot: procs must be an int >= 1, got {self.procs!r}")
        d = self.duration
        if d == INF:
            if not self.extensible:
                raise InvalidInput("free slot: an infinite duration needs extensible=True")
        elif type(d) is not int or d < 1:
            raise InvalidInput(f"free slot: duration must be an int >= 1 or math.inf, got {d!r}")

    @property
    def end(self) -> int | float:
        """First instant after the slot (seconds; ``inf`` if it reaches the end of the plan)."""
        return self.start + self.duration


def _order(slot: FreeSlot) -> tuple[int, int | float]:
    # start time, then bottom level first (a longer slot lies below a shorter one)
    return slot.start, -(slot.start + slot.duration)


def _layers(steps: list[tuple[int, int]]) -> list[FreeSlot]:
    """The layered cut of a step function ``steps`` (``(time, free)``, times increasing).

    Free is 0 before the first step and the last value holds forever. A stack
    holds the open bands ``[start, lowest level, highest level]``; a drop
    closes the bands above the new value, a rise opens one band. Slots that
    end are bounded by a job start: indivisible and non-extensible; the bands
    still open at the end reach the end of the plan: divisible and extensible
    (Singh 2008, ch. 3, end of the Fig. 2-3 discussion). O(len(steps)).
    """
    out: list[FreeSlot] = []
    stack: list[list[int]] = []
    top = 0
    for t, v in steps:
        while top > v:
            band = stack[-1]
            s, lo = band[0], band[1]
            if lo > v:
                stack.pop()
                out.append(FreeSlot(s, top - lo + 1, t - s, False, False))
                top = lo - 1
            else:
                out.append(FreeSlot(s, top - v, t - s, False, False))
                band[2] = top = v
        if v > top:
            stack.append([t, top + 1, v])
            top = v
    out.extend(FreeSlot(s, hi - lo + 1, INF, True, True) for s, lo, hi in stack)
    return out


def decompose(profile: AvailabilityProfile) -> list[FreeSlot]:
    """Cut the free capacity of ``profile`` into its layered free slots (thesis Fig. 1).

    Parameters
    ----------
    profile : Profile
        Free processors over time; not modified.

    Returns
    -------
    list of FreeSlot
        Sorted by start, bottom level first. Slots that end are indivisible
        and non-extensible; those reaching the end of the plan (infinite
        duration) are divisible and extensible.

    Notes
    -----
    Level ``k`` is free over the maximal intervals where at least ``k``
    processors are free; consecutive levels with the same interval form one
    slot. Summing the slots active at an instant gives the profile back.
    O(number of steps).

    Examples
    --------
    The schedule of the thesis's Fig. 1 (5 processors, A 2x3 h, B 4x1 h,
    C 1x2 h, D 3x2 h) leaves the five slots S1-S5 (ordered here by start):

    >>> h = 3600
    >>> p = Profile(5)
    >>> for start, n, d in [(0, 2, 3*h), (3*h, 4, h), (0, 1, 2*h), (4*h, 3, 2*h)]:
    ...     _ = p.reserve(start, d, n)
    >>> [(s.start // h, s.procs, s.duration / h, s.extensible) for s in decompose(p)]
    [(0, 1, inf, True), (0, 1, 3.0, False), (2, 1, 1.0, False), (4, 1, inf, True), (6, 3, inf, True)]
    """
    return sorted(_layers(profile.steps()), key=_order)


def _delineate(slots: list[FreeSlot], until: int | None) -> list[FreeSlot]:
    """``slots`` with the extensible ones ending at ``until`` (still extensible); unchanged if None."""
    if until is None:
        return slots
    last = slots[-1].start
    if not isinstance(until, int) or isinstance(until, bool) or until <= last:
        raise InvalidInput(f"free_slots: until must be an int after the last slot start ({last}), got {until!r}")
    return [FreeSlot(s.start, s.procs, until - s.start, s.divisible, True) if s.duration == INF else s
            for s in slots]


def _clip(slots: list[FreeSlot], now: int) -> list[FreeSlot]:
    """``slots`` with the past cut away: slots active at ``now`` start at ``now``.

    Slots active at ``now`` are nested (a lower level outlasts a higher one),
    so after clipping those with the same end are adjacent levels and merge.
    """
    if slots[0].start >= now:
        return slots
    ends: dict[int | float, int] = {}
    k, n = 0, len(slots)
    while k < n and slots[k].start <= now:
        s = slots[k]
        end = s.start + s.duration
        if end > now:
            ends[end] = ends.get(end, 0) + s.procs
        k += 1
    head = [
        FreeSlot(now, p, e - now, e == INF, e == INF)
        for e, p in sorted(ends.items(), reverse=True)
    ]
    return head + slots[k:]


class LayeredSlotScheduler(LocalScheduler):
    """Non-delaying slot scheduler (Singh 2008, ch. 3, Fig. 2): conservative backfilling on free slots.

    Each arriving job is planned at its earliest start on one free slot or a
    vertical stack of free slots, and the slots it used are replaced by their
    left-overs. The free slots are the plan: :meth:`free_slots` returns them
    as a provider advertises them.

    Parameters
    ----------
    procs : int
        Processors of the machine.

    Attributes
    ----------
    planned : dict of int to int
        Planned start (seconds) of every queued job, by job id.

    Notes
    -----
    *Earliest start* (Fig. 2). The slots are scanned by start time. A slot
    long enough for the job (or extensible) is a candidate start; the job
    goes there if the candidate, alone (first case of Fig. 2) or stacked with
    earlier slots that stay free over the whole window (second case), has the
    processors. The thesis walks back from each candidate, O(S^2); here the
    earlier slots still free at the end of the current window are kept in a
    heap by end time, so the scan is O(S log S) for S slots and finds the same
    start. A job never delays a job planned before it, and with the layered
    cut (module notes) the start equals conservative backfilling's: the
    thesis's claim that Fig. 2 "effectively does conservative backfilling".

    *Left-over slots* (Fig. 3). The job's processors are removed over
    ``[start, start + estimate)`` from the pool of slots overlapping or
    abutting that window, and the pool is cut again into layered slots. No
    slot is extended "5 minutes past" the job as in the thesis: extensible
    slots already have an infinite duration.

    *Early completion.* The thesis (ch. 3, after Table 1) says a task
    finishing early "would create another slot", and, with inaccurate
    estimates (ch. 3.1), that "rescheduling might need to be done in order to
    utilize the resources made available". Both happen here: the rest of the
    job's planned interval is given back to the slots, then queued jobs, in
    arrival order, are each taken out and placed again by Fig. 2. A job's
    own interval is free when it is taken out, so it only moves earlier: no
    job starts after its first planned start unless a reservation displaced
    it. This is conservative backfilling's compression, so start times match
    ``conservative`` under any estimates, not only exact ones. Only adding
    the hole as a slot (the thesis's literal Fig. 1 remark) would leave it
    unused by a queue that waits for it, and the advertised slots would then
    describe a schedule that no longer follows conservative backfilling.

    *Reservations* are provisioned slots, "no different from other scheduled
    tasks as far as generating the free slot information is concerned"
    (ch. 3): one that fits in the free slots is cut from them. One that only
    fits beside running jobs and other reservations displaces queued jobs,
    which are re-planned in arrival order (as ``conservative`` does).

    Complexity, for S slots and Q queued jobs: O(S log S) per arrival; per
    early completion, Q searches of O(S log S) and a re-cut for each job
    that moves (a job's chance to move is sought before its interval is
    freed). ``self.profile`` (running jobs and reservations, the base-class
    contract) is kept too; queued jobs exist only in the slots.

    Examples
    --------
    Thesis Fig. 1: 5 processors, A (2 procs x 3 h), B (4 x 1 h), C (1 x 2 h),
    D (3 x 2 h) queued at time 0 give A 0-3 h, C 0-2 h, B 3-4 h, D 4-6 h, and
    the free capacity is the five slots S1-S5 (here up to the figure's 8 h);
    the three that reach the end of the plan are divisible and extensible.

    >>> h = 3600
    >>> s = SlotScheduler(5)
    >>> for i, (n, d) in enumerate([(2, 3*h), (4, h), (1, 2*h), (3, 2*h)]):
    ...     s.submit(Job(i, 0, n, d, d), 0)
    >>> {i: t // h for i, t in s.planned.items()}
    {0: 0, 1: 3, 2: 0, 3: 4}
    >>> for slot in s.free_slots(0, until=8 * h):
    ...     print(slot.start // h, slot.procs, slot.duration // h, slot.divisible, slot.extensible)
    0 1 8 True True
    0 1 3 False False
    2 1 1 False False
    4 1 4 True True
    6 3 2 True True
    >>> [j.id for j in s.schedule(0)]
    [0, 2]
    """

    name = "slots-layered"

    def __init__(self, procs: int) -> None:
        super().__init__(procs)
        self.planned: dict[int, int] = {}
        self._slots: list[FreeSlot] = [FreeSlot(0, procs, INF, True, True)]
        self._now = 0

    # ------------------------------------------------------------- protocol
    def submit(self, job: Job, now: int) -> None:
        """Enqueue ``job`` and plan it at its earliest start on the free slots (Fig. 2)."""
        self.advance_to(now)
        super().submit(job, now)
        start = self._fit(job.procs, job.estimate)
        self._recut(start, start + job.estimate, -job.procs)
        self.planned[job.id] = start

    def schedule(self, now: int) -> list[Job]:
        """Start the queued jobs planned to start at ``now``."""
        self.advance_to(now)
        planned, started, kept = self.planned, [], []
        for job in self.queue:
            if planned[job.id] == now:
                del planned[job.id]
                self.start_job(job, now)  # its interval left the slots when it was planned
                started.append(job)
            else:
                kept.append(job)
        if started:
            self.queue = kept
        return started

    def finish(self, job: Job, now: int) -> None:
        """``job`` ended at ``now``; an early end frees a slot and compresses the plan."""
        _, start = self.running[job.id]
        super().finish(job, now)
        self.advance_to(now)
        planned_end = start + job.estimate
        if planned_end > now:
            self._recut(now, planned_end, job.procs)
            self._compress(now)

    def withdraw(self, job_id: int, now: int) -> Job:
        """Drop queued ``job_id``: its interval returns to the free slots and the plan compresses."""
        job = super().withdraw(job_id, now)
        start = self.planned.pop(job.id)
        self.advance_to(now)
        self._recut(start, start + job.estimate, job.procs)
        self._compress(now)
        return job

    def wakeup(self, now: int) -> int | None:
        """Earliest planned start (the simulator wakes the policy then)."""
        return min(self.planned.values(), default=None)

    def add_reservation(self, reservation: Reservation, now: int) -> None:
        """Hold ``reservation``: cut it from the free slots, or re-plan the queue around it.

        Raises ``Infeasible`` (state unchanged) when running jobs or other
        reservations hold its processors.
        """
        self._check_new(reservation, now)
        self.advance_to(now)
        a, b, n = reservation.start, reservation.end, reservation.procs
        if self._covered(a, b) >= n:
            self._recut(a, b, -n)
            self.profile.reserve(a, reservation.duration, n)
        else:
            profile = self.profile.copy()
            if profile.min_free(a, reservation.duration) < n:
                raise Infeasible(
                    f"reservation {reservation.id!r} needs {n} processors over "
                    f"[{a}, {b}); running jobs or reservations hold them"
                )
            profile.reserve(a, reservation.duration, n)
            self._slots = decompose(profile)
            for job in self.queue:
                start = self._fit(job.procs, job.estimate)
                self._recut(start, start + job.estimate, -job.procs)
                self.planned[job.id] = start
            self.profile = profile
        self._hold(reservation)

    def withdraw_reservation(self, reservation_id: str | int, now: int) -> Reservation:
        """Drop reservation ``reservation_id`` at ``now``: its interval returns to the free slots and the plan compresses."""
        reservation = super().withdraw_reservation(reservation_id, now)
        if reservation.end > now:
            self.advance_to(now)
            a = max(reservation.start, now)
            self._recut(a, reservation.end, reservation.procs)
            self._compress(now)
        return reservation

    # ------------------------------------------------------------- advertisement
    def free_slots(self, now: int, *, until: int | None = None) -> list[FreeSlot]:
        """The free slots of the current plan from ``now`` on: what the provider advertises.

        Parameters
        ----------
        now : int
            Current time (seconds), not before the last event the scheduler saw.
        until : int, optional
            Delineation time of the advertisement: extensible slots end there
            and stay extensible (Fig. 1 draws 8 h; ch. 3.1 advertises 48 h
            ahead or :attr:`plan_end` + 5 min, whichever is later). Must be
            after every slot's start. By default they have infinite duration.

        Returns
        -------
        list of FreeSlot
            Sorted by start, bottom level first. None of them delays a
            planned job: slots bounded by a job start are indivisible and
            non-extensible, slots reaching the end of the plan are divisible
            and extensible (ch. 3, after Fig. 3).

        Raises
        ------
        InvalidInput
            ``now`` is before the scheduler's clock, or ``until`` is not after
            every slot's start.
        """
        if now < self._now:
            raise InvalidInput(f"free_slots: now ({now}) is before the scheduler's clock ({self._now})")
        slots = sorted(_clip(self._slots, now), key=_order)
        return _delineate(slots, until)

    @property
    def plan_end(self) -> int:
        """First instant from which the whole machine is free in the plan (seconds).

        The thesis's "maximum finish time of any task in the current schedule"
        (ch. 3.1); the scheduler's clock if the machine is idle.
        """
        return max(self._slots[-1].start, self._now)

    # ------------------------------------------------------------- Fig. 2 and Fig. 3
    @overload
    def _fit(self, procs: int, duration: int) -> int: ...
    @overload
    def _fit(self, procs: int, duration: int, before: int | float) -> int | float: ...

    def _fit(self, procs: int, duration: int, before: int | float = INF) -> int | float:
        """Earliest start of ``procs`` x ``duration`` on one slot or a vertical stack (Fig. 2).

        With ``before``, only starts earlier than ``before`` are sought, and a
        window need only be free up to ``before`` (what a job planned at
        ``before`` needs to move earlier once its own interval is freed);
        ``inf`` is returned if there is none.
        """
        slots = self._slots
        heap: list[tuple[int | float, int]] = []  # (end, index) of the stackable slots seen
        pool = 0
        for i, s in enumerate(slots):
            start = s.start
            if start >= before:
                return INF
            window_end: int | float = start + duration
            if window_end > before:
                window_end = before
            while heap and heap[0][0] < window_end:  # no longer free to the window's end
                pool -= slots[heappop(heap)[1]].procs
            end = start + s.duration
            if end >= window_end:  # long enough, or extensible (infinite)
                if s.procs >= procs:
                    return start  # first case: one slot
                pool += s.procs
                heappush(heap, (end, i))
                if pool >= procs:
                    return start  # second case: a vertical stack
        if before != INF:
            return INF
        # unreachable: the top slots reach the end of the plan with every processor
        raise Infeasible(f"{procs} processors requested; machine has {self.procs}")

    def _recut(self, a: int, b: int, delta: int, *more: tuple[int, int, int]) -> None:
        """Add ``delta`` free processors over ``[a, b)`` and restore the layered cut (Fig. 3).

        ``more`` holds further ``(a, b, delta)`` changes made at once (a job
        moved by compression gives back one interval and takes another).

        Only slots whose closed interval meets a changed ``[a, b]`` can
        change: in the layered cut a slot that meets one lies below every slot
        that meets none, at any instant both are free, so the layered cut of
        the pool of touching slots (plus the changes) is the new cut there,
        and every other slot stays as it is. Raises ``Infeasible`` (slots
        unchanged) if fewer processors are free somewhere than are taken.
        """
        slots = self._slots
        change: dict[int | float, int] = {a: delta, b: -delta}  # no slot ends at inf: the guard below
        if more:
            windows = [(a, b), *((x, y) for x, y, _ in more)]
            for x, y, d in more:
                change[x] = change.get(x, 0) + d
                change[y] = change.get(y, 0) - d
            i = bisect_right(slots, max(y for _, y in windows), key=_START)
            touched, kept = [], []
            for s in slots[:i]:
                start, end = s.start, s.start + s.duration
                for x, y in windows:
                    if start <= y and end >= x:
                        touched.append(s)
                        break
                else:
                    kept.append(s)
        else:
            i = bisect_right(slots, b, key=_START)
            kept = [s for s in slots[:i] if s.start + s.duration < a]
            touched = [s for s in slots[:i] if s.start + s.duration >= a]
        for s in touched:
            change[s.start] = change.get(s.start, 0) + s.procs
            if s.duration != INF:
                e = s.start + s.duration
                change[e] = change.get(e, 0) - s.procs
        steps, v = [], 0
        for t in sorted(change):
            v += change[t]
            if v < 0:
                if more:
                    raise Infeasible(f"the changes take processors that are not free at {t}")
                raise Infeasible(f"{-delta} processors are not free over [{a}, {b})")
            steps.append((t, v))
        kept.extend(_layers(steps))  # type: ignore[arg-type]  # steps end before inf (see change)
        kept.extend(slots[i:])
        kept.sort(key=_START)  # runs of sorted slots: a merge
        self._slots = kept

    def _covered(self, a: int, b: int) -> int:
        """Processors free over all of ``[a, b)``: the slots that cover it form a stack."""
        total = 0
        for s in self._slots:
            if s.start > a:
                break
            if s.start + s.duration >= b:
                total += s.procs
        return total

    def _compress(self, now: int) -> None:
        """Move queued jobs, in arrival order, to their earliest start if it is earlier.

        Taking a job out of the plan and putting it back at its earliest start
        (as conservative does) moves it to the earliest ``t < old`` with its
        processors free over ``[t, min(t + estimate, old))`` in the current
        slots, since its own interval from ``old`` on would be free: so the
        search runs first and the slots are re-cut only for jobs that move.
        """
        planned, fit, recut = self.planned, self._fit, self._recut
        for job in self.queue:
            old = planned[job.id]
            if old == now:
                continue  # cannot move earlier
            new = fit(job.procs, job.estimate, old)
            if new < old:
                recut(old, old + job.estimate, job.procs, (new, new + job.estimate, -job.procs))  # type: ignore[arg-type]  # < old: not inf
                planned[job.id] = new  # type: ignore[assignment]  # < old: not inf

    def advance_to(self, now: int) -> None:
        if now < self._now:
            raise InvalidInput(f"slots: time {now} is before the scheduler's clock ({self._now})")
        super().advance_to(now)
        self._slots = _clip(self._slots, now)
        self._now = now


class SlotScheduler(ConservativeScheduler):
    """Singh's non-delaying slot scheduler (2008, ch. 3): conservative backfilling, slots cut on demand.

    The plan the thesis's scheduler keeps in its free slots (Figs. 2-3,
    :class:`LayeredSlotScheduler`) is conservative backfilling's plan, and its
    free slots are the layered cut (:func:`decompose`) of that plan's free
    capacity; so this scheduler plans with the (compiled) conservative
    profile and cuts the slots only when :meth:`free_slots` is asked.
    ``tests/market/scheduling/test_slots.py`` checks it against the
    incremental :class:`LayeredSlotScheduler` event by event. Times in seconds.

    Examples
    --------
    Thesis Fig. 1 (5 processors; A 2x3 h, B 4x1 h, C 1x2 h, D 3x2 h):

    >>> h = 3600
    >>> s = SlotScheduler(5)
    >>> for i, (n, d) in enumerate([(2, 3*h), (4, h), (1, 2*h), (3, 2*h)]):
    ...     s.submit(Job(i, 0, n, d, d), 0)
    >>> [(x.start // h, x.procs, x.duration // h, x.extensible) for x in s.free_slots(0, until=8 * h)]
    [(0, 1, 8, True), (0, 1, 3, False), (2, 1, 1, False), (4, 1, 4, True), (6, 3, 2, True)]
    """

    name = "slots"

    def free_slots(self, now: int, *, until: int | None = None) -> list[FreeSlot]:
        """The free slots of the current plan from ``now`` on (see :meth:`LayeredSlotScheduler.free_slots`)."""
        if now < self._now:
            raise InvalidInput(f"free_slots: now ({now}) is before the scheduler's clock ({self._now})")
        plan = self.profile.copy()
        plan.advance(now)
        slots = decompose(plan)
        return _delineate(slots, until)

    @property
    def plan_end(self) -> int:
        """First instant from which the whole machine is free in the plan (seconds; ch. 3.1)."""
        return max(self.profile.times[-1], self._now)

    def advance_to(self, now: int) -> None:
        if now < self._now:
            raise InvalidInput(f"slots: time {now} is before the scheduler's clock ({self._now})")
        super().advance_to(now)
