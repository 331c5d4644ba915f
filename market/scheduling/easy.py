"""EASY (aggressive) backfilling: only the queue head holds a reservation.

Lifka 1995; Mu'alem & Feitelson 2001; the "aggressive backfilling" of Singh
2008, ch. 5.3 (Fig. 29). Times are integer seconds from simulation start.

Semantics (DEVELOPERS issue 2): in a pass, start queue heads in FCFS order
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

from market.job import Job
from market.scheduling.base import LocalScheduler

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

    def schedule(self, now: int) -> list[Job]:
        self._advance(now)
        profile, queue, started = self.profile, self.queue, []
        # Without reservations ahead, free processors never decrease before the
        # shadow time and the rule reduces to counting (the fast path).
        simple = now >= self._reserved_until
        fits = (lambda job: job.procs <= self.n_free) if simple else (
            lambda job: profile.min_free(now, job.estimate) >= job.procs
        )
        # 1. heads in FCFS order while they fit
        k = 0
        while k < len(queue) and fits(queue[k]):
            self._start(queue[k], now)
            started.append(queue[k])
            k += 1
        if k:
            del queue[:k]
        if not queue:
            self.shadow = None
            return started
        # 2. the blocked head's reservation at its shadow time
        head = queue[0]
        shadow = profile.earliest_start(head.procs, head.estimate, now)
        self.shadow = shadow
        profile._add(shadow, head.estimate, -head.procs)
        # 3. one backfilling scan over the rest of the queue
        free_now = profile.free_at(now)
        if free_now:
            extra = profile.free_at(shadow)
            kept = [head]
            for i in range(1, len(queue)):
                job = queue[i]
                procs = job.procs
                if procs > free_now:
                    kept.append(job)
                    continue
                if simple:
                    if now + job.estimate <= shadow:
                        pass
                    elif procs <= extra:
                        extra -= procs
                    else:
                        kept.append(job)
                        continue
                elif profile.min_free(now, job.estimate) < procs:
                    kept.append(job)
                    continue
                self._start(job, now)
                started.append(job)
                free_now -= procs
                if not free_now:
                    kept.extend(queue[i + 1 :])
                    break
            self.queue = kept
        profile._add(shadow, head.estimate, head.procs)
        return started
