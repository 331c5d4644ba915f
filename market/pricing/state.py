"""A provider's scheduler state at one instant: running jobs, queued jobs, reservations.

The input of slot advertisement and pricing (Singh 2008, ch. 3 and ch. 5,
Fig. 22: "existing slots and running tasks", "set of queued tasks Q"). It is
read from a running scheduler (:func:`state_from_scheduler`, so agents can
price mid-run) or from a ``state.json`` file (:func:`read_state`, the
``gridmarket quote`` input). Times are integer seconds from simulation start.

``state.json``::

    {"now": 100, "procs": 5,
     "running": [{"id": 1, "procs": 2, "start": 0, "end": 300}],
     "queued": [{"id": 2, "submit": 50, "procs": 2, "estimate": 200}],
     "reservations": [{"start": 400, "procs": 1, "duration": 100}]}

``end`` of a running job is its planned end (start + estimate); queued jobs
are taken in arrival order (``submit``, then ``id``); a reservation may carry
an ``id`` (default ``"r<index>"``). ``running``, ``queued`` and
``reservations`` may be omitted when empty. A running or queued job may carry
its ``user`` (an int >= 0; policies that rank users need it).

``policy_state`` (optional) is what the provider's policy knows beyond its jobs
and a plan of its queue needs (:meth:`~gridmarket.scheduling.base.LocalScheduler.planning_state`):
for ``psp`` and ``psp-slurm`` each user's current estimate accuracy,
``{"accuracy": {"7": 0.25}, "default_accuracy": 1.0}`` (Rocchetti et al., Sec. 4;
omitted: no job has ended yet, every user at the default), and for ``psp-slurm``
also ``"weights"`` and ``"bf_max_job_test"``. A policy that keeps none refuses it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from gridmarket.errors import InvalidInput
from gridmarket.job import Job
from gridmarket.limits import KERNEL_INT_LIMIT, SECONDS_LIMIT
from gridmarket.reservation import Reservation
from gridmarket.scheduling.profile import AvailabilityProfile, Profile
from gridmarket.validation import check_keys, check_number, read_json

__all__ = [
    "ProviderState",
    "RunningJob",
    "base_profile",
    "planning_state_of",
    "read_state",
    "state_from_dict",
    "state_from_scheduler",
    "state_to_dict",
]


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
    now, procs = state.now, state.procs
    change: dict[int, int] = {}
    for r in state.running:
        change[now] = change.get(now, 0) - r.procs
        change[r.end] = change.get(r.end, 0) + r.procs
    for res in state.reservations:
        a = max(res.start, now)
        change[a] = change.get(a, 0) - res.procs
        change[res.end] = change.get(res.end, 0) + res.procs
    change.setdefault(now, 0)
    profile = Profile(procs, now)
    times, free = profile.times, profile.free
    times.clear()
    free.clear()
    value = procs
    for t in sorted(change):
        value += change[t]
        if value < 0:
            raise InvalidInput(
                f"running jobs and reservations hold {procs - value} processors at {t}; machine has {procs}"
            )
        if free and free[-1] == value:
            continue
        times.append(t)
        free.append(value)
    return profile


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


# ------------------------------------------------------------------ state.json
def _field(item: Mapping, key: str, where: str, *, minimum: int, quantity: str = "seconds") -> int:
    if key not in item:
        raise InvalidInput(f"{where}: missing field {key!r}")
    value = item[key]
    field = f"{where}.{key}" if where.endswith("]") else f"{where}: {key}"  # a record's field, or the top's
    if not _is_int(value) or value < minimum:
        raise InvalidInput(f"{field} must be an int >= {minimum}, got {value!r}")
    return int(check_number(field, value, quantity, low=minimum))


def _records(data: Mapping, key: str, where: str) -> list:
    items = data.get(key, [])
    if not isinstance(items, list):
        raise InvalidInput(f"{where}: {key!r} must be a list, got {type(items).__name__}")
    for i, item in enumerate(items):
        if not isinstance(item, Mapping):
            raise InvalidInput(f"{where}: {key}[{i}] must be an object, got {item!r}")
    return items


def state_from_dict(data: object, *, source: str = "state") -> ProviderState:
    """Build a :class:`ProviderState` from the ``state.json`` layout (module docstring).

    Parameters
    ----------
    data : dict
        The decoded JSON object.
    source : str
        Name used in error messages (a file path).

    Raises
    ------
    InvalidInput
        A key is missing, a value has the wrong type or range (the message
        gives ``source`` and the field, e.g. ``queued[2].procs``), or the
        state is inconsistent.

    Examples
    --------
    >>> st = state_from_dict({"now": 0, "procs": 4, "queued": [{"id": 1, "submit": 0, "procs": 2, "estimate": 60}]})
    >>> st.queue[0].estimate
    60
    >>> state_from_dict({"now": 0, "procs": 4, "queued": [{"id": 1, "submit": 0, "procs": 0, "estimate": 60}]})
    Traceback (most recent call last):
    ...
    gridmarket.errors.InvalidInput: state: queued[0].procs must be an int >= 1, got 0
    """
    if not isinstance(data, Mapping):
        raise InvalidInput(f"{source}: the top level must be an object, got {type(data).__name__}")
    check_keys(source, data, ("now", "procs", "running", "queued", "reservations", "policy_state"))
    now = _field(data, "now", source, minimum=0)
    procs = _field(data, "procs", source, minimum=1, quantity="processors")
    running = []
    for i, item in enumerate(_records(data, "running", source)):
        where = f"{source}: running[{i}]"
        check_keys(where, item, ("id", "procs", "start", "end", "user"))
        job_id = _field(item, "id", where, minimum=0, quantity="id")
        running.append(
            RunningJob(
                job_id, _field(item, "procs", where, minimum=1, quantity="processors"),
                _field(item, "start", where, minimum=0),
                _field(item, "end", where, minimum=1), _user(item, where),
            )
        )
    queue = []
    for i, item in enumerate(_records(data, "queued", source)):
        where = f"{source}: queued[{i}]"
        check_keys(where, item, ("id", "submit", "procs", "estimate", "user"))
        estimate = _field(item, "estimate", where, minimum=1)
        queue.append(
            Job(
                _field(item, "id", where, minimum=0, quantity="id"), _field(item, "submit", where, minimum=0),
                _field(item, "procs", where, minimum=1, quantity="processors"), estimate, estimate,
                user=_user(item, where),
            )
        )
    queue.sort(key=lambda job: (job.submit, job.id))
    reservations = []
    for i, item in enumerate(_records(data, "reservations", source)):
        where = f"{source}: reservations[{i}]"
        check_keys(where, item, ("id", "start", "procs", "duration"))
        res_id = item.get("id", f"r{i}")
        if not isinstance(res_id, (str, int)) or isinstance(res_id, bool):
            raise InvalidInput(f"{where}.id must be a string or an int, got {res_id!r}")
        reservations.append(
            Reservation(
                res_id, _field(item, "start", where, minimum=0),
                _field(item, "procs", where, minimum=1, quantity="processors"),
                _field(item, "duration", where, minimum=1),
            )
        )
    try:
        return ProviderState(now, procs, tuple(running), tuple(queue), tuple(reservations), data.get("policy_state"))
    except InvalidInput as err:
        raise InvalidInput(f"{source}: {err}") from None


def _user(item: Mapping, where: str) -> int:
    """The optional ``user`` of a job record (-1, no user, when absent)."""
    return _field(item, "user", where, minimum=0) if "user" in item else -1


def read_state(path: str | Path) -> ProviderState:
    """Read a ``state.json`` file (module docstring); errors name the path (and line for bad JSON)."""
    path = Path(path)
    return state_from_dict(read_json(path, "state"), source=str(path))


def state_to_dict(state: ProviderState) -> dict:
    """The ``state.json`` layout of ``state`` (inverse of :func:`state_from_dict`; JSON makes user ids strings)."""
    def user(record: dict, user_id: int) -> dict:
        if user_id >= 0:
            record["user"] = user_id
        return record

    data = {
        "now": state.now,
        "procs": state.procs,
        "running": [user({"id": r.id, "procs": r.procs, "start": r.start, "end": r.end}, r.user)
                    for r in state.running],
        "queued": [
            user({"id": j.id, "submit": j.submit, "procs": j.procs, "estimate": j.estimate}, j.user)
            for j in state.queue
        ],
        "reservations": [
            {"id": r.id, "start": r.start, "procs": r.procs, "duration": r.duration} for r in state.reservations
        ],
    }
    if state.policy_state is not None:
        data["policy_state"] = state.policy_state
    return data
