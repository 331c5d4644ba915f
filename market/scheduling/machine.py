"""One machine's event loop: the step every simulation and every forward plan of a policy runs through.

Times are integer seconds from the start of the workload.

Events are job arrivals (read in order from the workload, never queued),
job ends (a ``heapq`` of ``(time, seq, job)``) and policy wake-ups
(reservation ends, planned starts). One *step* takes the next event time ``t``
and applies every end at ``t``, then every arrival at ``t`` in id order, then
runs exactly ONE scheduling pass (the same-timestamp rule of
:mod:`gridmarket.scheduling.base`), and checks the machine's capacity. A job
runs for ``min(runtime, estimate)`` (it is killed at its estimate), or for its
estimate in a plan (``to_estimates``: the run a scheduler can foresee).

:meth:`MachineSimulation.steps` is that step, one event time per iteration:
:func:`gridmarket.simulation.simulate` runs it to the end, an outer clock
(the agent market) up to an instant, and a forward plan of a policy from a
provider's state (:class:`gridmarket.scheduling.planner.ForwardPlanner`, Singh
2008, ch. 5, Fig. 22, step 1) until the queue is empty.

Why a bare heap and not Mesa's event list: Mesa 3.5 runs ~45k events/s against
~330k for a bare heapq loop (``shared/notes/mesa-3.5.md``, measured on this
machine kind), and a trace run is two events per job, so the single-machine
path keeps its own heap; a ``mesa.Model`` steps it through :class:`MachineSimulation`.
"""

from __future__ import annotations

import bisect
import heapq
from collections import deque
from collections.abc import Iterator
from typing import TYPE_CHECKING

from gridmarket.errors import InvalidInput, PolicyError
from gridmarket.job import Job
from gridmarket.reservation import Reservation

if TYPE_CHECKING:  # the planners drive this loop and every scheduler class gives its planner: no run-time import
    from gridmarket.scheduling.base import LocalScheduler

__all__ = ["MachineSimulation", "policy_label"]


class MachineSimulation:
    """One machine's event loop, steppable so an outer clock can drive it.

    Parameters
    ----------
    scheduler : LocalScheduler
        The policy instance (fresh, empty).
    jobs : sequence of Job
        Arrivals sorted by ``(submit, id)``.
    now : int
        The clock at the start (seconds); a plan resumed from a provider's state starts at its ``now``.
    to_estimates : bool
        Run every job for its estimate instead of ``min(runtime, estimate)``: a plan, which
        knows only the estimates (Singh 2008, ch. 5: jobs run for their requested times).

    Examples
    --------
    >>> from gridmarket.scheduling import EASYScheduler
    >>> sim = MachineSimulation(EASYScheduler(2), [Job(1, 0, 2, 10, 10), Job(2, 5, 1, 3, 3)])
    >>> sim.run_until(None)
    >>> sim.start, sim.end
    ({1: 0, 2: 10}, {1: 10, 2: 13})
    """

    def __init__(self, scheduler: LocalScheduler, jobs: list[Job] | tuple[Job, ...] = (), *, now: int = 0,
                 to_estimates: bool = False) -> None:
        self.scheduler = scheduler
        self.jobs = jobs if isinstance(jobs, list) else list(jobs)
        self.start: dict[int, int] = {}
        self.end: dict[int, int] = {}
        self._next = 0  # index of the next arrival
        self._heap: list[tuple[int, int, Job | None]] = []
        self._seq = 0
        self.now = now
        self.to_estimates = to_estimates  # a plan: every job runs for its estimate
        self.killed: set[int] = set()  # jobs ended early by :meth:`kill`
        self.busy = 0  # processors held by the jobs this simulation started and has not ended
        self.cancelled: set[int] = set()  # jobs withdrawn before they started (:meth:`cancel`)

    @property
    def submitted(self) -> int:
        """How many of ``jobs`` (a prefix of the list) have been handed to the scheduler."""
        return self._next

    @property
    def upcoming(self) -> list[Job]:
        """Jobs given to the simulation that have not been submitted to the scheduler yet (by submit time)."""
        return self.jobs[self._next :]

    def submit(self, job: Job) -> None:
        """Add an arrival after construction (an agent submitting a job).

        Pending arrivals stay sorted by ``(submit, id)``, whatever order agents
        send them in. Raises ``InvalidInput`` (state unchanged) if ``job``
        submits before an instant already simulated or is wider than the machine.
        """
        if job.procs > self.scheduler.procs:
            raise InvalidInput(
                f"job {job.id} needs {job.procs} processors; machine has {self.scheduler.procs}"
            )
        if job.submit < self.now:
            raise InvalidInput(f"job {job.id} submits at {job.submit}, before now ({self.now})")
        jobs = self.jobs
        if not jobs or (jobs[-1].submit, jobs[-1].id) <= (job.submit, job.id):
            jobs.append(job)
        else:
            key = (job.submit, job.id)
            at = bisect.bisect_right(jobs, key, lo=self._next, key=lambda j: (j.submit, j.id))
            jobs.insert(at, job)

    def add_reservation(self, reservation: Reservation) -> None:
        """Place ``reservation`` in the machine's plan and wake the policy at its end.

        A policy that re-plans its queue around the reservation may move a job
        to any instant, ``now`` included: the policy is woken then too (a
        second pass at ``now`` when needed).
        """
        self.scheduler.add_reservation(reservation, self.now)
        self._wake(reservation.end)
        wakeup = getattr(self.scheduler, "wakeup", None)
        if wakeup is not None:
            w = wakeup(self.now)
            if w is not None:
                self._wake(max(w, self.now))

    def advance(self, t: int) -> None:
        """Process every event before ``t``; the clock then reads ``t`` (events at ``t`` still pending).

        What an outside agent calls before it changes the plan at ``t`` (a
        reservation bought at ``t`` is placed at ``t``, not in the past).
        """
        if t > self.now:
            self.run_until(t - 1)
            self.now = t

    def wake_at(self, t: int) -> None:
        """Make the policy run a pass at ``t`` (seconds, >= now): after a change made from outside.

        A withdrawn reservation or a killed job frees processors; the policy
        sees them at its next pass, which this call makes happen at ``t``.
        """
        if t < self.now:
            raise InvalidInput(f"cannot wake the machine at {t}, before now ({self.now})")
        self._wake(t)

    def _wake(self, t: int) -> None:
        self._seq += 1
        heapq.heappush(self._heap, (t, self._seq, None))

    def cancel(self, job_id: int) -> Job:
        """Withdraw a job that has not started: not yet arrived, or waiting in the queue; return it.

        The job leaves :attr:`jobs` (it will never start or end) and is listed
        in :attr:`cancelled`; a queued job's plan is given back by the policy
        and a pass runs at ``now``. A running job is ended with :meth:`kill`.
        Raises ``InvalidInput`` (state unchanged) for a running, ended or unknown job.
        """
        if job_id in self.scheduler.running or job_id in self.end:
            raise InvalidInput(f"job {job_id} has started: cancel only withdraws a job that has not (see kill)")
        jobs = self.jobs
        for i in range(self._next, len(jobs)):
            if jobs[i].id == job_id:
                job = jobs.pop(i)
                self.cancelled.add(job_id)
                return job
        if not any(j.id == job_id for j in self.scheduler.queue):
            raise InvalidInput(f"job {job_id} is not waiting on this machine")
        job = self.scheduler.withdraw(job_id, self.now)
        i = next(k for k in range(self._next) if jobs[k].id == job_id)
        del jobs[i]
        self._next -= 1
        self.cancelled.add(job_id)
        self._wake(self.now)
        return job

    def kill(self, job_id: int) -> None:
        """End running job ``job_id`` now (a user cancelling it); its processors free at once.

        The job's end is ``now``; it is listed in :attr:`killed` and the
        policy runs a pass at ``now``. Raises ``InvalidInput`` (state
        unchanged) if the job is not running.
        """
        running = self.scheduler.running.get(job_id)
        if running is None:
            raise InvalidInput(f"job {job_id} is not running: only a running job can be killed")
        job = running[0]
        self.scheduler.finish(job, self.now)
        self.busy -= job.procs
        self.end[job_id] = self.now
        self.killed.add(job_id)
        self._wake(self.now)

    def next_time(self) -> int | None:
        """Time of the next event, or None when nothing is left."""
        t = self._heap[0][0] if self._heap else None
        if self._next < len(self.jobs):
            submit = self.jobs[self._next].submit
            if t is None or submit < t:
                t = submit
        return t

    def run_until(self, until: int | None) -> None:
        """Process every event at times <= ``until`` (all of them if None): the steps of :meth:`steps`, in one go."""
        deque(self._steps(until, False), maxlen=0)  # nothing is yielded: the steps run without a pause
        if until is not None:
            self.now = max(self.now, until)

    def steps(self, until: int | None = None) -> Iterator[int]:
        """Process the events one time at a time, up to ``until`` (all if None); yield each time after its step.

        A step at ``t``: every end at ``t``, every arrival at ``t`` in id order, then one pass of
        the policy; the jobs it starts are timed to end, the machine's capacity is checked and
        the policy's next wake-up is queued. Between two steps the caller may change the
        machine (submit, reserve, wake, cancel, kill) and read it; the clock reads ``t``.
        Stopping early (a plan stops when its queue is empty) leaves later events pending.

        Raises
        ------
        PolicyError
            A pass over-commits the machine or starts a job twice (one line naming the policy).
        """
        return self._steps(until, True)

    def _steps(self, until: int | None, pause: bool) -> Iterator[int]:
        """The steps (:meth:`steps`); with ``pause`` the loop yields after each, else it runs to the end.

        One loop for both, so a simulation and a plan take the same step; without pauses nobody can
        change the machine between steps, so its counters stay in local variables (the simulator's
        hot loop) and are written back once.
        """
        jobs, heap = self.jobs, self._heap
        sched, start, end = self.scheduler, self.start, self.end
        finish, submit, schedule = sched.finish, sched.submit, sched.schedule
        wakeup = getattr(sched, "wakeup", None)
        heappush, heappop = heapq.heappush, heapq.heappop
        last_wake = None
        killed = self.killed
        procs = sched.procs
        to_estimates = self.to_estimates
        i, n, seq, busy = self._next, len(jobs), self._seq, self.busy
        last_t = self.now
        while True:
            t = heap[0][0] if heap else None
            if i < n and (t is None or jobs[i].submit < t):
                t = jobs[i].submit
            if t is None or (until is not None and t > until):
                break
            last_t = t
            while heap and heap[0][0] == t:
                job = heappop(heap)[2]
                if job is not None:
                    if killed and job.id in killed:  # its end was moved to the kill
                        continue
                    end[job.id] = t
                    busy -= job.procs
                    finish(job, t)
            while i < n and jobs[i].submit == t:
                submit(jobs[i], t)
                i += 1
            for job in schedule(t):
                if job.id in start:
                    self._next, self._seq, self.busy = i, seq, busy
                    raise PolicyError(f"policy {policy_label(sched)}: job {job.id} started again at {t} "
                                      f"(it started at {start[job.id]})")
                start[job.id] = t
                busy += job.procs
                seq += 1
                heappush(heap, (t + (job.estimate if to_estimates else min(job.runtime, job.estimate)), seq, job))
            if busy > procs:  # the one invariant no policy may break, checked after every pass
                self._next, self._seq, self.busy = i, seq, busy
                raise PolicyError(f"policy {policy_label(sched)} over-committed the machine at t={t}: "
                                  f"{busy} processors busy of {procs}")
            if wakeup is not None:
                w = wakeup(t)
                if w is not None and w != last_wake and w > t:
                    seq += 1
                    heappush(heap, (w, seq, None))
                    last_wake = w
            if pause:
                self._next, self._seq, self.busy, self.now = i, seq, busy, t
                yield t
                # read back what the caller may have changed between the steps
                i, n, seq, busy = self._next, len(jobs), self._seq, self.busy
        self._next, self._seq, self.busy = i, seq, busy
        self.now = max(self.now, last_t)


def policy_label(scheduler: LocalScheduler) -> str:
    """How an error names a scheduler: its registered name and its class, e.g. ``'sjf' (sjf_policy.SJFScheduler)``."""
    cls = type(scheduler)
    return f"{scheduler.name or cls.__name__!r} ({cls.__module__}.{cls.__qualname__})"
