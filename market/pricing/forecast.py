"""Planned starts of a provider's queued jobs under its own local policy (what-if planning).

Step 1 and step 4 of Singh 2008, ch. 5, Fig. 22: "create a schedule of the
tasks in Q using pi", with running jobs and reservations fixed. Times are
integer seconds from simulation start. Jobs run for their estimates (the plan
a scheduler can know); no further job arrives.

- ``conservative`` and ``slots`` (the thesis's non-delaying slot scheduler,
  which plans like conservative backfilling, ch. 3): each queued job, in
  arrival order, at its earliest start in the availability profile (Mu'alem
  & Feitelson 2001; thesis Fig. 1, Fig. 20).
- ``easy``, ``fcfs`` and any other local policy (registered, or a plug-in
  ``"package.module:Name"``, :func:`gridmarket.scheduling.resolve_policy`): these
  plan only the queue head, or a plan pricing cannot read, so the
  starts of the others are predicted by running the policy itself
  forward from the state: a fresh
  scheduler gets the running jobs, the reservations and the queue, and is
  driven with the simulator's protocol (ends, then one pass) at every planned
  end and reservation end until the queue is empty. The queue is handed over
  in the state's order (a live scheduler's own): exact for policies that order
  their queue by arrival or by a key of the job (FCFS, EASY, SJF, PSP), not for
  one whose order depends on the order it was handed the jobs. The fresh
  scheduler is :meth:`~gridmarket.scheduling.base.LocalScheduler.for_planning` of
  the state's ``policy_state``: what a policy knows beyond its jobs (PSP:
  each user's estimate accuracy, held at its current value over the plan,
  :class:`gridmarket.scheduling.psp.FrozenAccuracies`).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence

from gridmarket.errors import Infeasible, InvalidInput
from gridmarket.job import Job
from gridmarket.plugins import is_plugin_name
from gridmarket.pricing.state import ProviderState, base_profile
from gridmarket.reservation import Reservation
from gridmarket.scheduling import policy_names, resolve_policy
from gridmarket.scheduling.base import LocalScheduler, no_planning_state
from gridmarket.scheduling.machine import MachineSimulation
from gridmarket.scheduling.profile import AvailabilityProfile, Profile  # noqa: F401 - Profile: the doctests use it

__all__ = [
    "BACKFILL_POLICIES",
    "FORWARD_POLICIES",
    "PRICING_POLICIES",
    "check_policy",
    "forecast",
    "greedy_plan",
    "plans_as_itself",
]

BACKFILL_POLICIES = ("conservative", "slots")
"""Policies whose plan is every queued job at its earliest start, in arrival order."""

FORWARD_POLICIES = ("easy", "fcfs")
"""The built-in policies whose plan is predicted by running them forward from the state (any other
local policy that takes jobs without a user is run forward too: :func:`check_policy`)."""

PRICING_POLICIES = BACKFILL_POLICIES + FORWARD_POLICIES
"""The built-in pricing policies (the command-line choices list them; plug-ins are accepted too)."""


def check_policy(policy: str | type[LocalScheduler]) -> str | type[LocalScheduler]:
    """``policy`` if pricing can plan with it; ``InvalidInput`` otherwise.

    Besides :data:`PRICING_POLICIES`, any local policy :func:`gridmarket.scheduling.resolve_policy`
    knows is run forward, provided a scheduler made by its ``for_planning`` takes a job: the
    forward run re-creates the running jobs as stand-ins (with their users) and submits the queue.

    >>> check_policy("gridmarket.scheduling.fcfs:FCFSScheduler"), check_policy("psp")
    ('gridmarket.scheduling.fcfs:FCFSScheduler', 'psp')
    """
    if policy in BACKFILL_POLICIES:
        return policy
    try:
        cls = resolve_policy(policy)
    except InvalidInput as err:
        if is_plugin_name(policy):
            raise InvalidInput(f"pricing {err}") from None  # the plug-in's own import error
        known = ", ".join(BACKFILL_POLICIES + tuple(n for n in policy_names() if n not in BACKFILL_POLICIES))
        raise InvalidInput(f"unknown pricing policy {policy!r}; known: {known}, or a plug-in "
                           "'package.module:Name'") from None
    refusal = _refuses_stand_ins(cls)  # type: ignore[arg-type]  # a class hashes by identity
    if refusal is not None:
        raise InvalidInput(f"pricing policy {policy!r}: its scheduler refuses the stand-ins of running jobs ({refusal})")
    return policy


@functools.cache
def _refuses_stand_ins(cls: type) -> str | None:
    """Why a planning ``cls`` refuses a job of user 0 (the forward run's first step, on one processor); None if it takes it.

    Cached per class: every pricer checks its policy, and the answer cannot change.
    """
    try:
        _planning_scheduler(cls, 1, None, cls.__name__).submit(Job(0, 0, 1, 1, 1, user=0), 0)
    except InvalidInput as err:
        return str(err)
    return None


def _planning_scheduler(cls: type, procs: int, planning_state: Mapping | None, name: str | type[LocalScheduler]):
    """``cls.for_planning(procs, planning_state)``; a duck-typed plug-in without it keeps no planning state."""
    for_planning = getattr(cls, "for_planning", None)
    if for_planning is not None:
        return for_planning(procs, planning_state)
    if planning_state is not None:
        raise no_planning_state(name, planning_state)
    return cls(procs)


def plans_as_itself(scheduler, policy: str | type) -> bool:
    """Whether a plan of ``scheduler`` under ``policy`` runs the scheduler's own class forward.

    Only then can it use the scheduler's planning state: a plan under another policy (pricing a
    PSP machine as if it ran conservative backfilling) cannot use what the scheduler's policy knows.
    """
    return policy not in BACKFILL_POLICIES and resolve_policy(policy) is type(scheduler)


def greedy_plan(base: AvailabilityProfile, queue: Sequence[Job], now: int) -> tuple[dict[int, int], AvailabilityProfile]:
    """Conservative backfilling of ``queue`` (arrival order) onto ``base``: starts and the full profile.

    ``base`` is not modified. O(Q x steps).

    Examples
    --------
    Thesis Fig. 1: A (2 procs x 3 h), B (4 x 1 h), C (1 x 2 h), D (3 x 2 h)
    on 5 free processors start at 0, 3, 0 and 4 h.

    >>> h = 3600
    >>> jobs = [Job(i, 0, n, d * h, d * h) for i, (n, d) in enumerate([(2, 3), (4, 1), (1, 2), (3, 2)])]
    >>> starts, full = greedy_plan(Profile(5), jobs, 0)
    >>> {i: t // h for i, t in starts.items()}
    {0: 0, 1: 3, 2: 0, 3: 4}
    """
    profile = base.copy()
    starts: dict[int, int] = {}
    for job in queue:
        start = profile.earliest_start(job.procs, job.estimate, now)
        profile.reserve(start, job.estimate, job.procs)
        starts[job.id] = start
    return starts, profile


def forecast(
    state: ProviderState, policy: str | type[LocalScheduler], *, extra: Reservation | None = None,
    base: AvailabilityProfile | None = None,
) -> dict[int, int]:
    """Planned start of every queued job of ``state`` under ``policy``, optionally with one more reservation.

    Parameters
    ----------
    state : ProviderState
        Running jobs (to their planned ends), reservations and the queue at ``state.now``.
    policy : str
        One of :data:`PRICING_POLICIES`.
    extra : Reservation, optional
        A slot to plan around as if it were already reserved (Fig. 22, step 2).
    base : Profile, optional
        ``base_profile(state)`` if the caller has it (not modified).

    Returns
    -------
    dict of int to int
        Job id to planned start (seconds), in queue order.

    Raises
    ------
    Infeasible
        ``extra`` conflicts with running jobs or reservations (Fig. 22, step 3).

    Examples
    --------
    Four processors; job 1 (3 procs) runs until 100. Queued: job 2 (4 procs,
    10 s), job 3 (1 proc, 50 s), job 4 (1 proc, 500 s). EASY backfills job 3
    now (it ends before job 2's shadow time, 100); job 4 would delay job 2
    and waits for it. FCFS backfills nothing.

    >>> from gridmarket.pricing.state import RunningJob
    >>> s = ProviderState(1, 4, running=(RunningJob(1, 3, 0, 100),),
    ...                   queue=(Job(2, 1, 4, 10, 10), Job(3, 1, 1, 50, 50), Job(4, 1, 1, 500, 500)))
    >>> forecast(s, "easy"), forecast(s, "fcfs")
    ({2: 100, 3: 1, 4: 110}, {2: 100, 3: 110, 4: 110})

    A slot of 2 processors over [100, 120) pushes job 2, and job 4 behind it, by 20 s:

    >>> forecast(s, "easy", extra=Reservation("x", 100, 2, 20))
    {2: 120, 3: 1, 4: 130}
    """
    check_policy(policy)
    if state.policy_state is not None and policy in BACKFILL_POLICIES:
        raise no_planning_state(policy, state.policy_state)
    now = state.now
    if base is None:
        base = base_profile(state)
    if extra is not None:
        if extra.start < now:
            raise InvalidInput(f"slot starts at {extra.start}, before now ({now})")
        if base.min_free(extra.start, extra.duration) < extra.procs:
            raise Infeasible(
                f"{extra.procs} processors over [{extra.start}, {extra.end}) conflict with running jobs "
                f"or reservations (at most {base.min_free(extra.start, extra.duration)} free)"
            )
    if policy in BACKFILL_POLICIES:
        if extra is not None:
            base = base.copy()
            base.reserve(extra.start, extra.duration, extra.procs)
        return greedy_plan(base, state.queue, now)[0]
    return _run_forward(state, policy, extra)


def _run_forward(state: ProviderState, policy: str | type[LocalScheduler], extra: Reservation | None) -> dict[int, int]:
    """Drive a fresh ``policy`` scheduler from ``state`` through the machine's event step until every queued job has started."""
    now = state.now
    sched = _planning_scheduler(resolve_policy(policy), state.procs, state.policy_state, policy)
    # running jobs: stand-ins arriving now, started in the first pass, each holding its processors to its planned end
    stand_ins = [Job(r.id, now, r.procs, r.end - now, r.end - now, user=r.user) for r in state.running]
    machine = MachineSimulation(sched, stand_ins, now=now, to_estimates=True)
    machine.wake_at(now)  # the first pass runs even with nothing running
    steps = machine.steps()
    next(steps)
    if len(machine.start) != len(stand_ins):  # pragma: no cover - a policy that refuses a running job
        raise RuntimeError(f"{policy}: could not restore {len(stand_ins) - len(machine.start)} running job(s)")
    for res in (*state.reservations, *((extra,) if extra is not None else ())):
        # a reservation under way is held from now on
        machine.add_reservation(res if res.start >= now else Reservation(res.id, now, res.procs, res.end - now))
    for job in state.queue:  # waiting since before now: handed over as they wait, not as arrivals
        sched.submit(job, now)
    machine.wake_at(now)
    for _ in steps:
        if not sched.queue:
            break
    else:  # pragma: no cover - every policy starts a head once the machine drains
        raise RuntimeError(f"{policy}: queue stuck at {machine.now} with {len(sched.queue)} job(s)")
    start = machine.start
    return {job.id: start[job.id] for job in state.queue}
