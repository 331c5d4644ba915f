"""Conservative backfilling: every queued job holds a reservation.

Mu'alem & Feitelson 2001; Singh 2008, ch. 3 (Fig. 1) and ch. 5 (Fig. 20).
Times are integer seconds from simulation start.

Each arriving job is planned at its earliest start in the availability
profile (running jobs to their estimates, reservations, and every queued
job's planned interval), so a later arrival never delays an earlier one. When
a job ends before its estimate the plan is *compressed*: queued jobs, in
arrival order, are each taken out of the profile and put back at their
earliest start. A job's current interval is still free when it is taken out,
so it can only move earlier: no job ever starts after its first planned start
(the guarantee the property tests check).
"""

from __future__ import annotations

from gridmarket.errors import Infeasible
from gridmarket.job import Job
from gridmarket.reservation import Reservation
from gridmarket.scheduling.base import LocalScheduler
from gridmarket.scheduling.planner import GreedyPlanner, PlannerOf
from gridmarket.scheduling.profile import QueuePlan

__all__ = ["ConservativeScheduler"]


class ConservativeScheduler(LocalScheduler):
    """Conservative backfilling on one machine.

    Attributes
    ----------
    planned : dict of int to int
        Planned start (seconds) of every queued job, by job id. Read it; change
        the plan only through the methods (the scheduler keeps the earliest
        planned start beside it as its next wake-up).

    Examples
    --------
    Thesis Fig. 1: 5 processors, A (2 procs x 3 h), B (4 x 1 h), C (1 x 2 h),
    D (3 x 2 h) queued at 0 give A 0-3 h, C 0-2 h, B 3-4 h, D 4-6 h.

    >>> h = 3600
    >>> s = ConservativeScheduler(5)
    >>> for i, (n, d) in enumerate([(2, 3*h), (4, h), (1, 2*h), (3, 2*h)]):
    ...     s.submit(Job(i, 0, n, d, d), 0)
    >>> {i: t // h for i, t in s.planned.items()}
    {0: 0, 1: 3, 2: 0, 3: 4}
    >>> [j.id for j in s.schedule(0)]
    [0, 2]
    """

    name = "conservative"
    planner = PlannerOf(GreedyPlanner)  # its plan is every queued job at its earliest start

    def __init__(self, procs: int) -> None:
        super().__init__(procs)
        self.planned: dict[int, int] = {}
        self._first: int | None = None  # min(planned.values()): kept by every change of the plan
        self._plan = QueuePlan()  # queue and planned as C arrays, for compression and the due-split

    def submit(self, job: Job, now: int) -> None:
        super().submit(job, now)
        profile = self.profile
        profile.advance(now)
        start = profile.reserve(profile.earliest_start(job.procs, job.estimate, now), job.estimate, job.procs)
        self.planned[job.id] = start
        self._plan.append(job, start)
        if self._first is None or start < self._first:
            self._first = start

    def finish(self, job: Job, now: int) -> None:
        _, start = self.running[job.id]
        super().finish(job, now)
        if start + job.estimate > now:
            self.compress(now)

    def schedule(self, now: int) -> list[Job]:
        self.advance_to(now)
        first = self._first
        if first is None or first > now:  # nothing is due: no scan of the queue
            return []
        started, kept, self._first = self._plan.split_due(self.queue, self.planned, now)
        if started:
            self.queue = kept
            running = self.running
            for job in started:
                running[job.id] = (job, now)  # already in the profile since submit
                self.n_free -= job.procs
        return started

    def wakeup(self, now: int) -> int | None:
        """Earliest planned start after ``now`` (the simulator wakes the policy then)."""
        return self._first

    def add_reservation(self, reservation: Reservation, now: int) -> None:
        """Hold ``reservation``, re-planning queued jobs around it if they were in its way.

        Raises ``Infeasible`` (state unchanged) when running jobs or other
        reservations hold its processors. Queued jobs that overlap it are
        re-planned in arrival order at their earliest starts.
        """
        self._check_new(reservation, now)
        profile = self.profile
        profile.advance(now)
        if profile.min_free(reservation.start, reservation.duration) >= reservation.procs:
            profile.reserve(reservation.start, reservation.duration, reservation.procs)
        else:
            base = profile.copy()
            base.release_jobs(self.queue, self.planned)
            if base.min_free(reservation.start, reservation.duration) < reservation.procs:
                raise Infeasible(
                    f"reservation {reservation.id!r} needs {reservation.procs} processors over "
                    f"[{reservation.start}, {reservation.end}); running jobs or reservations hold them"
                )
            base.reserve(reservation.start, reservation.duration, reservation.procs)
            self._first = base.replan(self.queue, self.planned, now)
            self._plan.load(self.queue, self.planned)
            self.profile = base
        self._hold(reservation)

    def withdraw_reservation(self, reservation_id: str | int, now: int) -> Reservation:
        """Drop reservation ``reservation_id`` at ``now``; queued jobs move up where it freed processors."""
        reservation = super().withdraw_reservation(reservation_id, now)
        if reservation.end > now:
            self.compress(now)
        return reservation

    def withdraw(self, job_id: int, now: int) -> Job:
        """Drop queued ``job_id``: its planned processors return and the plan compresses."""
        job = super().withdraw(job_id, now)
        start = self.planned.pop(job.id)
        profile = self.profile
        profile.advance(now)
        profile.release(start, job.estimate, job.procs)
        self._plan.load(self.queue, self.planned)
        self.compress(now)
        return job

    def compress(self, now: int) -> None:
        """Move queued jobs earlier where processors came free (in arrival order; none moves later).

        The simulator's early ends and withdrawals call it; so does
        :meth:`withdraw_reservation` after giving a reservation's processors back.
        """
        profile = self.profile
        profile.advance(now)
        self._first = self._plan.compress(profile, self.queue, self.planned, now)
