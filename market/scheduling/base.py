"""The interface every local batch scheduler implements, and its shared bookkeeping.

One machine has ``procs`` identical processors. Times are integer seconds from
simulation start. Schedulers plan with each job's ``estimate`` (requested run
time); the simulator ends a job at ``start + min(runtime, estimate)`` and tells
the scheduler through :meth:`LocalScheduler.finish`.

The simulator drives a scheduler with this protocol, per event timestamp
``now`` (the same-timestamp rule, which every policy and engine here shares so that
no result depends on the order of simultaneous events): first :meth:`finish` for
every job completing at ``now``, then :meth:`submit` for every job arriving at
``now`` in id order, then exactly one :meth:`schedule` pass, which returns the
jobs to start at ``now``. Reservations are added with :meth:`add_reservation`
and are honoured by every policy.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from gridmarket.errors import Infeasible, InvalidInput
from gridmarket.job import Job
from gridmarket.reservation import Reservation
from gridmarket.scheduling.planner import ForwardPlanner, PlannerOf
from gridmarket.scheduling.profile import AvailabilityProfile, Profile, held_profile
from gridmarket.scheduling.state import no_planning_state

__all__ = ["LocalScheduler", "no_planning_state"]


class LocalScheduler:
    """Base class: queue, running set, reservations and the availability profile.

    The policy contract. A policy is a subclass with a unique ``name`` that implements
    :meth:`schedule`; it may override :meth:`submit`, :meth:`finish`, :meth:`withdraw`,
    :meth:`add_reservation` and :meth:`withdraw_reservation` to keep a plan of its own (calling
    ``super()`` for the bookkeeping; a policy that keeps a plan updates it in both reservation
    methods). A pass ``schedule(now)`` first calls :meth:`advance_to` ``(now)``, then, for
    each job it starts, removes it from :attr:`queue` and calls :meth:`start_job` ``(job, now)``,
    and returns the started jobs in order. It must start only jobs that fit in :attr:`n_free`
    processors beside the reservations held (read :attr:`profile`); the simulator checks the
    machine's capacity after every pass and stops with one line naming the policy
    (:class:`~gridmarket.errors.PolicyError`) when a pass over-commits it or starts a job twice.
    Register it with :func:`gridmarket.scheduling.register_policy`, or name it
    ``"package.module:Name"`` wherever a policy name is taken.

    Attributes
    ----------
    procs : int
        Processors of the machine.
    queue : list of Job
        Waiting jobs in arrival order (ties by id).
    running : dict of int to tuple of (Job, int)
        Running jobs by id, with their start time.
    reservations : dict
        Reservations by id.
    profile : Profile
        Free processors over time, counting running jobs up to ``start +
        estimate`` and every reservation. Policies that plan queued jobs keep
        their plan elsewhere (or in a copy).
    n_free : int
        Processors free right now.
    version : int
        Counts the changes of the running jobs, the queue and the reservations (a start, an end, a
        submission, a withdrawal, a reservation held or withdrawn): a plan or profile read from the
        scheduler holds while it is unchanged.
    """

    name: ClassVar[str] = ""
    planner = PlannerOf(ForwardPlanner)
    """How a plan of this policy's queue is made (:mod:`gridmarket.scheduling.planner`): by default the policy
    run forward from the state; a policy that plans its whole queue at earliest starts gives a greedy planner."""

    def __init__(self, procs: int) -> None:
        if not isinstance(procs, int) or isinstance(procs, bool) or procs < 1:
            raise InvalidInput(f"scheduler: procs must be a positive int, got {procs!r}")
        self.procs = procs
        self.queue: list[Job] = []
        self.running: dict[int, tuple[Job, int]] = {}
        self.reservations: dict[str | int, Reservation] = {}
        self._profile = Profile(procs)
        self._stale = False  # True while counting policies skip profile updates
        self._now = 0
        self.n_free = procs  # processors not held by running jobs (reservations aside)
        self._reserved_until = 0  # end of the last reservation held
        self.version = 0

    # ------------------------------------------------------------- what-if plans
    def planning_state(self) -> dict | None:
        """What this policy knows beyond its jobs that a plan of its queue needs, or None.

        Pricing and advertisement predict the queue's starts by running a fresh scheduler of the
        same class forward from the provider's state (:class:`~gridmarket.scheduling.planner.ForwardPlanner`); a policy
        whose order depends on history (PSP's users' accuracies) returns that history here as a
        JSON-able dict, and :meth:`for_planning` takes it back. Policies that keep nothing: None.
        """
        return None

    @classmethod
    def for_planning(cls, procs: int, planning_state: Mapping | None) -> LocalScheduler:
        """A fresh scheduler of ``procs`` processors to run forward from a provider state.

        ``planning_state`` is what :meth:`planning_state` returned (or the ``policy_state`` of a
        ``state.json``). This class keeps none, so anything but None is refused: a state recorded
        under another policy would otherwise be planned silently without what it says.
        """
        if planning_state is not None:
            raise no_planning_state(cls.name or cls.__name__, planning_state)
        return cls(procs)

    # ------------------------------------------------------------- protocol
    def submit(self, job: Job, now: int) -> None:
        """Enqueue ``job``, arriving at ``now``."""
        if job.procs > self.procs:
            raise Infeasible(f"job {job.id} needs {job.procs} processors; machine has {self.procs}")
        self.queue.append(job)
        self.version += 1

    def finish(self, job: Job, now: int) -> None:
        """``job`` ended at ``now`` (completed or killed at its estimate)."""
        _, start = self.running.pop(job.id)
        self.version += 1
        self.n_free += job.procs
        self._now = now
        planned_end = start + job.estimate
        if planned_end > now and not self._stale:  # ended early: hand back the rest
            self._profile._add(now, planned_end - now, job.procs)

    def withdraw(self, job_id: int, now: int) -> Job:
        """Take queued job ``job_id`` out of the queue at ``now`` (its user cancelled it); return it.

        Policies that plan the queue give its planned processors back and move
        later jobs earlier as after an early end; the caller runs a pass at
        ``now``. Raises ``InvalidInput`` (state unchanged) if it is not queued.
        """
        for i, job in enumerate(self.queue):  # noqa: B007 - i is used after the loop
            if job.id == job_id:
                break
        else:
            raise InvalidInput(f"job {job_id} is not in the queue")
        del self.queue[i]
        self.version += 1
        return job

    def schedule(self, now: int) -> list[Job]:
        """One scheduling pass at ``now``; return the jobs that start now."""
        raise NotImplementedError  # abstract: every policy defines its pass

    def add_reservation(self, reservation: Reservation, now: int) -> None:
        """Hold ``reservation``'s processors; raise ``Infeasible`` if they are taken.

        The reservation must fit beside the running jobs (planned to their
        estimates) and the reservations already held; it leaves state unchanged
        when it does not.
        """
        self._check_new(reservation, now)
        self.profile.reserve(reservation.start, reservation.duration, reservation.procs)
        self._hold(reservation)

    def withdraw_reservation(self, reservation_id: str | int, now: int) -> Reservation:
        """Drop reservation ``reservation_id`` at ``now`` (seconds): a cancelled sale (Singh 2008, ch. 6.4); return it.

        The part of the reservation from ``now`` on returns to :attr:`profile`. A policy that
        re-plans from the profile at every pass (EASY, FCFS, PSP) uses it at its next pass; one that
        keeps a plan of its queue overrides this method to move queued jobs up (conservative
        backfilling compresses its plan: nobody is delayed). The caller runs a pass at ``now``
        (``MachineSimulation.wake_at(now)``).

        Raises ``InvalidInput`` (state unchanged) for an id that is not held.

        Examples
        --------
        >>> from gridmarket.scheduling import ConservativeScheduler
        >>> s = ConservativeScheduler(4)
        >>> s.add_reservation(Reservation("r", 0, 4, 100), 0)
        >>> s.submit(Job(1, 0, 2, 50, 50), 0); s.planned
        {1: 100}
        >>> s.withdraw_reservation("r", 10).end, s.planned
        (100, {1: 10})
        """
        reservation = self.reservations.get(reservation_id)
        if reservation is None:
            known = ", ".join(repr(k) for k in self.reservations) or "none"
            raise InvalidInput(f"unknown reservation id {reservation_id!r}; held: {known}")
        if reservation.end > now:
            start = max(reservation.start, now)
            profile = self.profile
            profile.advance(now)
            profile.release(start, reservation.end - start, reservation.procs)
        del self.reservations[reservation_id]
        self.version += 1
        return reservation

    def _check_new(self, reservation: Reservation, now: int) -> None:
        if reservation.id in self.reservations:
            raise InvalidInput(f"reservation {reservation.id!r} is already held")
        if reservation.start < now:
            raise InvalidInput(
                f"reservation {reservation.id!r} starts at {reservation.start}, before now ({now})"
            )

    def _hold(self, reservation: Reservation) -> None:
        self.reservations[reservation.id] = reservation
        self._reserved_until = max(self._reserved_until, reservation.end)
        self.version += 1

    # ------------------------------------------------------------- helpers
    # ------------------------------------------------------------- profile
    @property
    def profile(self) -> AvailabilityProfile:
        """Free processors over time: running jobs to their estimates, and reservations.

        Counting policies (FCFS and EASY with no reservation ahead) do not need
        it and let it go stale; it is rebuilt from the running jobs and the
        reservations when read again, in O(n log n).
        """
        if self._stale:
            self._profile = self._rebuild_profile()
            self._stale = False
        return self._profile

    @profile.setter
    def profile(self, profile: AvailabilityProfile) -> None:
        self._profile = profile
        self._stale = False

    def _rebuild_profile(self) -> AvailabilityProfile:
        now = self._now
        held = [(start, start + job.estimate, job.procs) for job, start in self.running.values()]
        held += [(r.start, r.end, r.procs) for r in self.reservations.values()]
        # not checked: a pass that over-commits the machine is the simulator's to report (PolicyError)
        return held_profile(self.procs, now, ((max(a, now), b, n) for a, b, n in held if b > now), check=False)

    def start_job(self, job: Job, now: int) -> None:
        """Mark ``job`` running from ``now``; its processors are taken until its estimate.

        The call a policy's :meth:`schedule` makes for each job it starts (after taking the job
        out of :attr:`queue`, and only when ``job.procs <= n_free``), before returning it. It does
        not check the fit (the pass has); the simulator checks the machine's capacity after
        every pass and stops with :class:`~gridmarket.errors.PolicyError` when it is exceeded.
        """
        if not self._stale:
            self._profile._add(now, job.estimate, -job.procs)
        self.running[job.id] = (job, now)
        self.n_free -= job.procs
        self.version += 1

    def advance_to(self, now: int) -> None:
        """Move the clock and the profile's origin to ``now`` (seconds): the first call of every pass."""
        self._now = now
        if not self._stale:
            self._profile.advance(now)
