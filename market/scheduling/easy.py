"""EASY (aggressive) backfilling: only the queue head holds a reservation.

Lifka 1995; Mu'alem & Feitelson 2001; the "aggressive backfilling" of Singh
2008, ch. 5.3 (Fig. 29). Times are integer seconds from simulation start.

Semantics (the same-timestamp rule of :mod:`gridmarket.scheduling.base`): in a pass, start queue heads in FCFS order
while they fit. For the blocked head, the *shadow time* is the earliest
instant at which the processors free then (free now plus those of running jobs
expected to end by then, at start + estimate) cover its need; the *extra*
processors are those free at the shadow time beyond its need. Then the rest of
the queue is scanned once, in order: a job starts now if it fits now and
either ends (by its estimate) no later than the shadow time, or uses only
extra processors, which it then consumes.

Implementation: the head is planned into the availability profile at its
shadow time; a candidate then starts iff the profile has its processors free
over ``[now, now + estimate)``. Without reservations the profile's free count
never decreases before the shadow time, so this test is exactly the rule
above; with reservations it also keeps every reservation whole.
"""

from __future__ import annotations

from bisect import bisect_left, insort

from gridmarket.job import Job
from gridmarket.scheduling.base import LocalScheduler
from gridmarket.scheduling.profile import AvailabilityProfile, QueueKeys, backfill_by_counting, shadow_by_counting

__all__ = ["EASYScheduler"]


class EASYScheduler(LocalScheduler):
    """EASY backfilling on one machine.

    Examples
    --------
    Four processors; job 1 (3 procs) runs until 100. Job 2 needs all four, so
    its shadow time is 100 and there is no extra processor. Job 3 (1 proc,
    estimate 50) ends before the shadow time and backfills; job 4 (1 proc,
    estimate 500) would delay job 2 and waits.

    >>> s = EASYScheduler(4)
    >>> s.submit(Job(1, 0, 3, 100, 100), 0); [j.id for j in s.schedule(0)]
    [1]
    >>> for job in (Job(2, 1, 4, 10, 10), Job(3, 1, 1, 50, 50), Job(4, 1, 1, 500, 500)):
    ...     s.submit(job, 1)
    >>> [j.id for j in s.schedule(1)], s.shadow
    ([3], 100)
    """

    name = "easy"

    def __init__(self, procs: int) -> None:
        super().__init__(procs)
        self.shadow: int | None = None  # shadow time of the blocked head after the last pass
        # Incremental passes: when only arrivals happened since the last pass
        # (no end, no reservation), the head is still blocked at the same
        # shadow time and every job the last scan refused is refused again
        # (free processors and extras did not grow, time only moved on), so
        # only the new arrivals need a look.
        self._arrived: list[Job] = []
        self._ends: list[tuple[int, int, int]] = []  # (planned end, id, procs) of running jobs
        self._last_head: Job | None = None
        self._extra = 0
        # the queue's processors and estimates in C arrays for the full backfill scan (compiled kernel):
        # a long queue is scanned at every job end, and reading two attributes per job dominated
        self._keys = QueueKeys() if QueueKeys is not None else None

    def submit(self, job: Job, now: int) -> None:
        super().submit(job, now)
        self._arrived.append(job)

    def finish(self, job: Job, now: int) -> None:
        _, start = self.running[job.id]
        super().finish(job, now)
        ends = self._ends
        del ends[bisect_left(ends, (start + job.estimate, job.id))]
        self._last_head = None

    def start_job(self, job: Job, now: int) -> None:
        super().start_job(job, now)
        insort(self._ends, (now + job.estimate, job.id, job.procs))

    def add_reservation(self, reservation, now: int) -> None:
        super().add_reservation(reservation, now)
        self._last_head = None

    def withdraw(self, job_id: int, now: int) -> Job:
        job = super().withdraw(job_id, now)
        if job in self._arrived:
            self._arrived.remove(job)
        self._last_head = None  # the next pass looks at the whole queue again
        return job

    def schedule(self, now: int) -> list[Job]:
        self.advance_to(now)
        queue, started = self.queue, []
        # Without reservations ahead, free processors never decrease before the
        # shadow time and the rule reduces to counting (the fast path), which
        # needs no profile: it is left stale until someone reads it.
        simple = now >= self._reserved_until
        arrived, self._arrived = self._arrived, []
        profile: AvailabilityProfile  # read on the profile path only
        if simple:
            self._stale = True
            if queue and queue[0] is self._last_head:
                return self._backfill_arrivals(now, arrived)
        else:
            profile = self.profile
        fits = (lambda job: job.procs <= self.n_free) if simple else (
            lambda job: profile.min_free(now, job.estimate) >= job.procs
        )
        # 1. heads in FCFS order while they fit
        k = 0
        while k < len(queue) and fits(queue[k]):
            self.start_job(queue[k], now)
            started.append(queue[k])
            k += 1
        if k:
            del queue[:k]
        if not queue:
            self.shadow = self._last_head = None
            return started
        # 2. the blocked head's reservation at its shadow time
        head = queue[0]
        extra = 0
        if simple:
            shadow, extra = shadow_by_counting(self._ends, self.n_free, head.procs, now)
            free_now = self.n_free
            self._last_head, self._extra = head, extra
        else:
            shadow = profile.earliest_start(head.procs, head.estimate, now)
            free_now = profile.free_at(now)
        self.shadow = shadow
        if not free_now:
            return started
        if simple:  # 3. one backfilling scan over the rest of the queue, by counting (compiled)
            backfilled, self._extra = backfill_by_counting(queue, 1, now, free_now, extra, shadow, self._keys)
            for i in backfilled:
                self.start_job(queue[i], now)
            if backfilled:
                started.extend(queue[i] for i in backfilled)
                for i in reversed(backfilled):
                    del queue[i]
            return started
        profile._add(shadow, head.estimate, -head.procs)
        # 3. one backfilling scan over the rest of the queue, on the profile
        backfilled = []
        lows = None  # profile path: prefix minima of the profile from now, rebuilt after a start
        for i in range(1, len(queue)):
            job = queue[i]
            procs = job.procs
            if procs > free_now:
                continue
            if lows is None:
                first, lows = profile.running_min(now)
                times = profile.times
            # == profile.min_free(now, job.estimate) < procs
            if lows[bisect_left(times, now + job.estimate, first + 1) - first - 1] < procs:
                continue
            lows = None  # the start below changes the profile
            self.start_job(job, now)
            backfilled.append(i)
            free_now -= procs
            if not free_now:
                break
        profile._add(shadow, head.estimate, head.procs)
        if backfilled:
            started.extend(queue[i] for i in backfilled)
            for i in reversed(backfilled):
                del queue[i]
        return started

    def _backfill_arrivals(self, now: int, arrived: list[Job]) -> list[Job]:
        """The counting rule applied to new arrivals only (see ``__init__``)."""
        picked, self._extra = backfill_by_counting(arrived, 0, now, self.n_free, self._extra,
                                                   self.shadow)  # type: ignore[arg-type]  # same head: shadow set
        started = [arrived[i] for i in picked]
        for job in started:
            self.start_job(job, now)
        if started:
            ids = {job.id for job in started}
            self.queue[:] = [job for job in self.queue if job.id not in ids]
        return started
