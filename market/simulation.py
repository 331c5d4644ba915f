"""Event-driven simulation of one machine running a local batch policy.

Times are integer seconds from the start of the workload.

Events are job arrivals (read in order from the workload, never queued),
job ends (a ``heapq`` of ``(time, seq, job)``) and policy wake-ups
(reservation ends, planned starts). At each event time ``t`` the simulator
applies every end at ``t``, then every arrival at ``t`` in id order, then runs
exactly ONE scheduling pass (the same-timestamp rule of :mod:`gridmarket.scheduling.base`). A job
runs for ``min(runtime, estimate)``: it is killed at its estimate.

Why a bare heap and not Mesa's event list: Mesa 3.5 runs ~45k events/s against
~330k for a bare heapq loop (``shared/notes/mesa-3.5.md``, measured on this
machine kind), and a trace run is two events per job, so the single-machine
path keeps its own heap; :func:`run_machine` is a plain function a
``mesa.Model`` can call or step through :class:`MachineSimulation`.
"""

from __future__ import annotations

import bisect
import heapq
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import replace

import numpy as np
import pandas as pd

from gridmarket.errors import InvalidInput, PolicyError
from gridmarket.job import Job
from gridmarket.metrics import summarize
from gridmarket.reservation import Reservation
from gridmarket.scheduling import LocalScheduler, make_scheduler
from gridmarket.simulation_result import SimulationResult
from gridmarket.workloads.workload import Workload

__all__ = [
    "ESTIMATES",
    "TWO_TIER_NAMES",
    "MachineSimulation",
    "SimulationResult",
    "job_records",
    "simulate",
]

ESTIMATES = ("requested", "exact")
TWO_TIER_NAMES = ("keasy", "reasy", "measy")
"""Policies of :mod:`gridmarket.twotier` (foreground/background VMs), run by their own engine."""


class MachineSimulation:
    """One machine's event loop, steppable so an outer clock can drive it.

    Parameters
    ----------
    scheduler : LocalScheduler
        The policy instance (fresh, empty).
    jobs : sequence of Job
        Arrivals sorted by ``(submit, id)``.

    Examples
    --------
    >>> from gridmarket.scheduling import EASYScheduler
    >>> sim = MachineSimulation(EASYScheduler(2), [Job(1, 0, 2, 10, 10), Job(2, 5, 1, 3, 3)])
    >>> sim.run_until(None)
    >>> sim.start, sim.end
    ({1: 0, 2: 10}, {1: 10, 2: 13})
    """

    def __init__(self, scheduler: LocalScheduler, jobs: list[Job] | tuple[Job, ...] = ()) -> None:
        self.scheduler = scheduler
        self.jobs = jobs if isinstance(jobs, list) else list(jobs)
        self.start: dict[int, int] = {}
        self.end: dict[int, int] = {}
        self._next = 0  # index of the next arrival
        self._heap: list[tuple[int, int, Job | None]] = []
        self._seq = 0
        self.now = 0
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
        """Process every event at times <= ``until`` (all of them if None)."""
        jobs, heap, n = self.jobs, self._heap, len(self.jobs)
        sched, start, end = self.scheduler, self.start, self.end
        finish, submit, schedule = sched.finish, sched.submit, sched.schedule
        wakeup = getattr(sched, "wakeup", None)
        heappush, heappop = heapq.heappush, heapq.heappop
        i, seq = self._next, self._seq
        last_wake = None
        last_t = self.now
        killed = self.killed
        procs, busy = sched.procs, self.busy
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
                    self.busy = busy
                    raise PolicyError(f"policy {_policy_name(sched)}: job {job.id} started again at {t} "
                                      f"(it started at {start[job.id]})")
                start[job.id] = t
                busy += job.procs
                seq += 1
                heappush(heap, (t + min(job.runtime, job.estimate), seq, job))
            if busy > procs:  # the one invariant no policy may break, checked after every pass
                self.busy = busy
                raise PolicyError(f"policy {_policy_name(sched)} over-committed the machine at t={t}: "
                                  f"{busy} processors busy of {procs}")
            if wakeup is not None:
                w = wakeup(t)
                if w is not None and w != last_wake and w > t:
                    seq += 1
                    heappush(heap, (w, seq, None))
                    last_wake = w
        self._next, self._seq, self.busy = i, seq, busy
        if until is not None:
            self.now = max(self.now, until)
        else:
            self.now = max(self.now, last_t)


def _policy_name(scheduler: LocalScheduler) -> str:
    """How an error names a scheduler: its registered name and its class, e.g. ``'sjf' (sjf_policy.SJFScheduler)``."""
    cls = type(scheduler)
    return f"{scheduler.name or cls.__name__!r} ({cls.__module__}.{cls.__qualname__})"


def _check_jobs(jobs: Iterable[Job], procs: int, name: str) -> tuple[list[Job], dict[str, int]]:
    kept, dropped = [], {}
    too_big = 0
    last = None
    for job in jobs:
        key = (job.submit, job.id)
        if last is not None and key < last:
            raise InvalidInput(
                f"{name}: job {job.id} submits at {job.submit}, before job {last[1]} at {last[0]}"
            )
        last = key
        if job.procs > procs:
            too_big += 1
        else:
            kept.append(job)
    if too_big:
        reason = f"needs more than the machine's {procs} processors"
        dropped[reason] = too_big
        warnings.warn(f"{name}: dropped {too_big} job(s) that {reason}", stacklevel=3)
    return kept, dropped


def simulate(
    workload: Workload | Iterable[Job],
    *,
    procs: int | None = None,
    policy: str | type[LocalScheduler] = "easy",
    estimates: str = "requested",
    reservations: Iterable[Reservation] = (),
    rng: np.random.Generator | None = None,
) -> SimulationResult:
    """Run ``workload`` on one machine of ``procs`` processors under ``policy``.

    Parameters
    ----------
    workload : Workload or iterable of Job
        Jobs sorted by ``(submit, id)``.
    procs : int, optional
        Machine size; defaults to the workload's ``max_procs``.
    policy : str or LocalScheduler subclass
        ``fcfs``, ``easy``, ``conservative``, ``slots``, ``psp`` or any registered
        name; or a two-tier policy ``keasy``, ``reasy``, ``measy``
        (:func:`gridmarket.twotier.simulate_twotier` with its defaults).
    estimates : {"requested", "exact"}
        Plan with the user's estimates, or with the actual runtimes (the
        thesis's experiments, Singh 2008 ch. 3.1).
    reservations : iterable of Reservation
        Placed in the plan at time 0 and honoured by the policy.
    rng : numpy.random.Generator, optional
        Required by stochastic policies (the two-tier ones draw CPU usages,
        slowdowns and losses); the rigid-job policies are deterministic.

    Returns
    -------
    SimulationResult

    Raises
    ------
    InvalidInput
        Unknown policy or estimate mode, no machine size, no jobs, jobs out of order.

    Examples
    --------
    >>> jobs = [Job(1, 0, 4, 100, 100), Job(2, 0, 4, 50, 50), Job(3, 0, 1, 200, 900)]
    >>> r = simulate(jobs, procs=4, policy="fcfs")
    >>> r.records[["job_id", "start", "end"]].values.tolist()
    [[1, 0, 100], [2, 100, 150], [3, 150, 350]]
    """
    if estimates not in ESTIMATES:
        raise InvalidInput(f"estimates must be one of {ESTIMATES}, got {estimates!r}")
    if isinstance(policy, str) and policy in TWO_TIER_NAMES:
        from gridmarket.twotier import simulate_twotier  # late: only two-tier runs load its engine

        if reservations:
            raise InvalidInput(f"policy {policy!r} does not take reservations")
        if rng is None:
            raise InvalidInput(f"policy {policy!r} is stochastic: pass rng=numpy.random.default_rng(seed)")
        return simulate_twotier(workload, procs=procs, policy=policy, rng=rng, estimates=estimates)
    jobs_in: Sequence[Job]
    if isinstance(workload, Workload):
        name, jobs_in, dropped = workload.name or "workload", workload.jobs, dict(workload.dropped)
        procs = procs if procs is not None else workload.max_procs
    else:
        name, jobs_in, dropped = "workload", tuple(workload), {}
    if procs is None:
        raise InvalidInput(f"{name}: no machine size: pass procs (the workload declares none)")
    scheduler = make_scheduler(policy, procs)
    if not jobs_in:
        raise InvalidInput(f"{name}: the workload has no jobs")
    if estimates == "exact":
        jobs_in = [j if j.estimate == j.runtime else replace(j, estimate=j.runtime) for j in jobs_in]
    jobs, too_big = _check_jobs(jobs_in, procs, name)
    dropped.update(too_big)
    sim = MachineSimulation(scheduler, jobs)
    for reservation in reservations:
        sim.add_reservation(reservation)
    sim.run_until(None)
    records = job_records(jobs, sim.start, sim.end)
    return SimulationResult(
        records=records,
        summary=summarize(records, procs, dropped=dropped),
        procs=procs,
        policy=scheduler.name,
        dropped=dropped,
    )


def job_records(jobs: list[Job], start: dict[int, int], end: dict[int, int]) -> pd.DataFrame:
    """Per-job records (see :class:`SimulationResult`) of ``jobs`` that all ended."""
    n = len(jobs)
    if len(start) != n or len(end) != n:
        missing = [j.id for j in jobs if j.id not in end][:5]
        raise RuntimeError(f"simulation ended with {n - len(end)} unfinished job(s), e.g. {missing}")
    ids = np.fromiter((j.id for j in jobs), np.int64, n)
    runtime = np.fromiter((j.runtime for j in jobs), np.int64, n)
    estimate = np.fromiter((j.estimate for j in jobs), np.int64, n)
    submit = np.fromiter((j.submit for j in jobs), np.int64, n)
    starts = np.fromiter((start[j.id] for j in jobs), np.int64, n)
    return pd.DataFrame(
        {
            "job_id": ids,
            "submit": submit,
            "start": starts,
            "end": np.fromiter((end[j.id] for j in jobs), np.int64, n),
            "procs": np.fromiter((j.procs for j in jobs), np.int64, n),
            "runtime": runtime,
            "estimate": estimate,
            "wait": starts - submit,
            "user": np.fromiter((j.user for j in jobs), np.int64, n),
            "outcome": np.where(runtime > estimate, "killed", "completed"),
        }
    )
