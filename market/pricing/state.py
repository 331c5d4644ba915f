"""A provider's scheduler state at one instant as a document: ``state.json`` in and out.

The record, :class:`~gridmarket.scheduling.state.ProviderState` (running jobs, queued jobs,
reservations; Singh 2008, ch. 3 and ch. 5, Fig. 22), lives with the planners that read it
(:mod:`gridmarket.scheduling.state`) and is re-exported here. It is read from a running scheduler
(:func:`state_from_scheduler`, so agents can price mid-run) or from a ``state.json`` file
(:func:`read_state`, the ``gridmarket quote`` input). Times are integer seconds from simulation start.

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
from pathlib import Path

from gridmarket.errors import InvalidInput
from gridmarket.job import Job
from gridmarket.reservation import Reservation
from gridmarket.scheduling.state import (
    ProviderState,
    RunningJob,
    base_profile,
    planning_state_of,
    state_from_scheduler,
)
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
