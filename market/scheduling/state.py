"""A machine's scheduler state at one instant, what a plan of its queue starts from.

Running jobs (to their planned ends), queued jobs and reservations: the input of slot
advertisement and pricing (Singh 2008, ch. 3 and ch. 5, Fig. 22: "existing slots and running
tasks", "set of queued tasks Q") and of every planner
(:mod:`gridmarket.scheduling.planner`). It is read from a running scheduler
(:func:`state_from_scheduler`) or from a provider's ``state.json``
(:func:`gridmarket.pricing.state.read_state`). Times are integer seconds from simulation start.

``policy_state`` is what the provider's policy knows beyond its jobs and a plan of its queue
needs (:meth:`~gridmarket.scheduling.base.LocalScheduler.planning_state`); None for a policy
that keeps none.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from gridmarket.errors import InvalidInput
from gridmarket.job import Job
from gridmarket.limits import KERNEL_INT_LIMIT, SECONDS_LIMIT
from gridmarket.reservation import Reservation
from gridmarket.scheduling.profile import AvailabilityProfile, held_profile
from gridmarket.validation import check_number

__all__ = [
    "ProviderState",
    "RunningJob",
    "base_profile",
    "scheduler_base_profile",
    "no_planning_state",
    "planning_state_of",
    "state_from_scheduler",
]


def no_planning_state(policy: str | type, planning_state: Mapping) -> InvalidInput:
    """The error for a ``policy_state`` handed to a policy that keeps none (one line, says what to do).

    >>> print(no_planning_state("easy", {"accuracy": {}}))
    policy 'easy' keeps no planning state, got policy_state {'accuracy': {}}: plan under the policy that recorded it, or drop policy_state
    """
    return InvalidInput(f"policy {policy!r} keeps no planning state, got policy_state {dict(planning_state)!r}: "
                        "plan under the policy that recorded it, or drop policy_state")


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True, slots=True)
class RunningJob:
    """A job holding ``procs`` processors from ``start`` until its planned ``end`` (start + estimate).

    Examples
    --------
    >>> RunningJob(7, procs=4, start=0, end=3600).procs
    4
    """

    id: int
    procs: int
    start: int
    end: int
    user: int = -1

    def __post_init__(self) -> None:
        for name in ("id", "procs", "start", "end", "user"):
            if not _is_int(getattr(self, name)):
                raise InvalidInput(f"running job {self.id!r}: {name} must be an int, got {getattr(self, name)!r}")
        if self.procs < 1:
            raise InvalidInput(f"running job {self.id!r}: procs must be >= 1, got {self.procs}")
        if self.end <= self.start:
            raise InvalidInput(f"running job {self.id!r}: end ({self.end}) must be after start ({self.start})")
        check_number(f"running job {self.id!r}: procs", self.procs, "processors")
        check_number(f"running job {self.id!r}: end", self.end, "instant")


@dataclass(frozen=True, slots=True)
class ProviderState:
    """One machine's state at ``now``: what pricing plans around.

    Parameters
    ----------
    now : int
        Current time (seconds).
    procs : int
        Processors of the machine.
    running : tuple of RunningJob
        Started jobs; each holds its processors over ``[start, end)`` with
        ``start <= now < end``.
    queue : tuple of Job
        Waiting jobs in arrival order (the order the policy serves them).
    reservations : tuple of Reservation
        Held capacity ending after ``now`` (one may have begun already).
    policy_state : mapping, optional
        What the policy knows beyond its jobs (module docstring, ``policy_state``); None if nothing.

    Raises
    ------
    InvalidInput
        A field is out of range (the message names it), ids repeat, or
        running jobs and reservations need more processors than the machine
        has at some instant.
    """

    now: int
    procs: int
    running: tuple[RunningJob, ...] = ()
    queue: tuple[Job, ...] = ()
    reservations: tuple[Reservation, ...] = ()
    policy_state: Mapping | None = field(default=None, hash=False)

    def __post_init__(self) -> None:
        if not _is_int(self.now) or self.now < 0:
            raise InvalidInput(f"state: now must be an int >= 0, got {self.now!r}")
        if not _is_int(self.procs) or self.procs < 1:
            raise InvalidInput(f"state: procs must be an int >= 1, got {self.procs!r}")
        now, procs = self.now, self.procs
        seen: set[int] = set()
        for r in self.running:
            if r.id in seen:
                raise InvalidInput(f"state: job id {r.id!r} appears twice")
            seen.add(r.id)
            if r.procs > procs:
                raise InvalidInput(f"running job {r.id!r} holds {r.procs} processors; machine has {procs}")
            if r.start > now:
                raise InvalidInput(f"running job {r.id!r}: start ({r.start}) is after now ({now})")
            if r.end <= now:
                raise InvalidInput(f"running job {r.id!r}: end ({r.end}) must be after now ({now})")
        for job in self.queue:
            if job.id in seen:
                raise InvalidInput(f"state: job id {job.id!r} appears twice")
            seen.add(job.id)
            if job.procs > procs:
                raise InvalidInput(f"queued job {job.id!r} needs {job.procs} processors; machine has {procs}")
            if job.submit > now:
                raise InvalidInput(f"queued job {job.id!r}: submit ({job.submit}) is after now ({now})")
        names: set[str | int] = set()
        for res in self.reservations:
            if res.id in names:
                raise InvalidInput(f"state: reservation id {res.id!r} appears twice")
            names.add(res.id)
            if res.procs > procs:
                raise InvalidInput(f"reservation {res.id!r} holds {res.procs} processors; machine has {procs}")
            if res.end <= now:
                raise InvalidInput(f"reservation {res.id!r}: it ends at {res.end}, not after now ({now})")
        if self.policy_state is not None and not isinstance(self.policy_state, Mapping):
            raise InvalidInput(f"policy_state must be an object, got {type(self.policy_state).__name__}")
        check_number("state: now", now, "instant")
        check_number("state: procs", procs, "processors")
        _check_kernel_range(self)
        base_profile(self)  # capacity check

    def reservation(self, reservation_id: str | int) -> Reservation:
        """The reservation called ``reservation_id``; ``InvalidInput`` if there is none."""
        for res in self.reservations:
            if res.id == reservation_id:
                return res
        known = ", ".join(repr(r.id) for r in self.reservations) or "none"
        raise InvalidInput(f"unknown reservation id {reservation_id!r}; held: {known}")


def _check_kernel_range(state: ProviderState) -> None:
    """InvalidInput unless every price of ``state`` fits the compiled pricing kernel's int64.

    A slot's price (Fig. 22) sums each queued job's delay times its processors. No job is
    planned after the last end of a running job or reservation, plus a slot starting and lasting
    up to :data:`~gridmarket.limits.SECONDS_LIMIT` each, plus the whole queue run one job after
    another; so no price exceeds that horizon times the queued processors, which must stay below
    :data:`~gridmarket.limits.KERNEL_INT_LIMIT` (a larger sum would wrap around to a wrong price).
    """
    ends = [state.now] + [r.end for r in state.running] + [r.end for r in state.reservations]
    horizon = max(ends) + 2 * SECONDS_LIMIT + sum(job.estimate for job in state.queue)
    weight = sum(job.procs for job in state.queue)
    if horizon * weight > KERNEL_INT_LIMIT:
        raise InvalidInput(f"{len(state.queue)} queued jobs of {weight} processors over a {horizon} s "
                           f"horizon could owe {horizon * weight} processor-seconds, past the pricing "
                           f"kernel's int64 limit of 2**62 ({KERNEL_INT_LIMIT})")


def base_profile(state: ProviderState) -> AvailabilityProfile:
    """Free processors from ``state.now`` on, counting running jobs and reservations only.

    The "existing slots and running tasks" of Fig. 22: what a new slot must
    not conflict with. Queued jobs are left out. Built in one sorted sweep,
    O(k log k) for k intervals.

    Raises
    ------
    InvalidInput
        More processors are held than the machine has at some instant.

    Examples
    --------
    >>> s = ProviderState(10, 4, running=(RunningJob(1, 3, 0, 50),),
    ...                   reservations=(Reservation("r", 40, 1, 20),))
    >>> base_profile(s).steps()
    [(10, 1), (40, 0), (50, 3), (60, 4)]
    >>> ProviderState(10, 4, running=(RunningJob(1, 3, 0, 50),), reservations=(Reservation("r", 40, 2, 20),))
    Traceback (most recent call last):
    ...
    gridmarket.errors.InvalidInput: running jobs and reservations hold 5 processors at 40; machine has 4
    """
    return _base(state.procs, state.now, ((r.end, r.procs) for r in state.running), state.reservations)


def scheduler_base_profile(scheduler, now: int) -> AvailabilityProfile:
    """``base_profile(state_from_scheduler(scheduler, now))``, without building the state record.

    What a broker ranking providers by their earliest start reads (one sweep over the running jobs
    and reservations, no queue).

    >>> from gridmarket.scheduling import EASYScheduler
    >>> s = EASYScheduler(4)
    >>> s.submit(Job(1, 0, 3, 100, 120), 0); _ = s.schedule(0); s.submit(Job(2, 5, 2, 10, 10), 5)
    >>> scheduler_base_profile(s, 5).steps() == base_profile(state_from_scheduler(s, 5)).steps() == [(5, 1), (120, 4)]
    True
    """
    running = ((start + job.estimate, job.procs) for job, start in scheduler.running.values()
               if start + job.estimate > now)
    return _base(scheduler.procs, now, running, [r for r in scheduler.reservations.values() if r.end > now])


def _base(procs: int, now: int, running, reservations) -> AvailabilityProfile:
    """Free processors from ``now``: running jobs ``(end, procs)`` from now to their ends, and ``reservations``."""
    held = [(now, end, n) for end, n in running]
    held += [(max(res.start, now), res.end, res.procs) for res in reservations]
    return held_profile(procs, now, held)


def state_from_scheduler(scheduler, now: int) -> ProviderState:
    """The state of a running :class:`~gridmarket.scheduling.base.LocalScheduler` at ``now``.

    Running jobs hold their processors to ``start + estimate`` (the plan a
    scheduler keeps); reservations that ended by ``now`` are left out.
    Nothing in the scheduler is changed.

    Examples
    --------
    >>> from gridmarket.scheduling import EASYScheduler
    >>> s = EASYScheduler(4)
    >>> s.submit(Job(1, 0, 3, 100, 120), 0); _ = s.schedule(0); s.submit(Job(2, 5, 2, 10, 10), 5)
    >>> st = state_from_scheduler(s, 5)
    >>> st.running, [j.id for j in st.queue]
    ((RunningJob(id=1, procs=3, start=0, end=120, user=-1),), [2])
    """
    running = tuple(
        RunningJob(job.id, job.procs, start, start + job.estimate, job.user)
        for job, start in scheduler.running.values()
        if start + job.estimate > now
    )
    reservations = tuple(r for r in scheduler.reservations.values() if r.end > now)
    return ProviderState(now, scheduler.procs, running, tuple(scheduler.queue), reservations,
                         planning_state_of(scheduler))


def planning_state_of(scheduler) -> dict | None:
    """``scheduler.planning_state()`` (:meth:`~gridmarket.scheduling.base.LocalScheduler.planning_state`), None without one."""
    planning_state = getattr(scheduler, "planning_state", None)
    return None if planning_state is None else planning_state()
