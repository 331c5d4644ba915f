"""Planners: the planned start of every queued job of a machine, under its own policy, from a state.

Step 1 and step 4 of Singh 2008, ch. 5, Fig. 22: "create a schedule of the tasks in Q using pi",
with running jobs and reservations fixed, and optionally one more reservation (the slot being
priced). Times are integer seconds from simulation start. Jobs run for their estimates (the plan a
scheduler can know); no further job arrives.

Every scheduler class gives its planner (``cls.planner``, ``scheduler.planner``), so pricing,
advertisement and the plan views ask the planner and never test a policy's name; a name is resolved
once, where it is given (:func:`gridmarket.scheduling.planner_of`).

- :class:`GreedyPlanner` (``conservative`` and ``slots``, the thesis's non-delaying slot scheduler,
  which plans like conservative backfilling, ch. 3): each queued job, in arrival order, at its
  earliest start in the availability profile (Mu'alem & Feitelson 2001; thesis Fig. 1, Fig. 20).
  Its plan is the whole queue, so a slot's effect can be re-planned incrementally
  (``plans_whole_queue``).
- :class:`ForwardPlanner` (every other policy, registered or a plug-in): the policy plans only
  the queue head, or a plan a reader cannot see, so the others' starts are predicted by running
  the policy itself forward from the state through the machine's event step
  (:meth:`gridmarket.scheduling.machine.MachineSimulation.steps`): a fresh scheduler
  (:meth:`~gridmarket.scheduling.base.LocalScheduler.for_planning` of the state's
  ``policy_state``) gets the running jobs as stand-ins, the reservations and the queue, and is
  stepped until the queue is empty. The queue is handed over in the state's order (a live
  scheduler's own): exact for policies that order their queue by arrival or by a key of the job
  (FCFS, EASY, SJF, PSP), not for one whose order depends on the order it was handed the jobs.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

from gridmarket.errors import Infeasible, InvalidInput
from gridmarket.job import Job
from gridmarket.reservation import Reservation
from gridmarket.scheduling.machine import MachineSimulation
from gridmarket.scheduling.profile import AvailabilityProfile, Profile  # noqa: F401 - Profile: the doctests use it
from gridmarket.scheduling.state import ProviderState, base_profile, no_planning_state, planning_state_of

__all__ = ["ForwardPlanner", "GreedyPlanner", "Planner", "PlannerOf", "greedy_plan"]


class Planner(Protocol):
    """What pricing, advertisement and the plan views ask of a machine's policy.

    Attributes
    ----------
    plans_whole_queue : bool
        True when the plan is every queued job at its earliest start in arrival order
        (conservative backfilling): a slot beside the plan moves nobody, a slot in its way is
        re-planned job by job from the first one it collides with, and a cancellation compresses
        the plan. False: the plan is only known by planning the queue again.
    policy : type
        The scheduler class whose plan this is.
    """

    plans_whole_queue: ClassVar[bool]

    @property
    def policy(self) -> type:
        """The scheduler class whose plan this is."""
        ...

    @property
    def name(self) -> str:
        """The policy's name, for messages."""
        ...

    def plan(self, state: ProviderState, extra_reservation: Reservation | None = None, *,
             base: AvailabilityProfile | None = None) -> dict[int, int]:
        """Planned start of every queued job of ``state`` (by id, in queue order), with ``extra_reservation`` held."""
        ...

    def planned_by(self, scheduler: Any) -> Mapping[int, int] | None:
        """The planned starts ``scheduler`` keeps when they are this plan (to use as they are), else None."""
        ...

    def planning_state_of(self, scheduler: Any) -> dict | None:
        """What of ``scheduler``'s history a plan by this planner can use (its ``planning_state()``), else None."""
        ...


class PlannerOf:
    """A scheduler class's ``planner`` attribute: the planner of the class it is read from, or of an instance's class.

    ``PlannerOf(GreedyPlanner)`` on :class:`~gridmarket.scheduling.conservative.ConservativeScheduler`
    gives ``GreedyPlanner(SlotScheduler)`` when read from its subclass ``SlotScheduler``: a subclass
    plans as its base until it says otherwise.
    """

    def __init__(self, kind: type) -> None:
        self.kind = kind

    def __get__(self, obj: object, owner: type) -> Planner:
        return _planner(self.kind, owner)


@functools.cache
def _planner(kind: type, owner: type) -> Planner:
    return kind(owner)


def _with_extra(state: ProviderState, extra: Reservation | None, base: AvailabilityProfile | None) -> AvailabilityProfile:
    """``base`` (``base_profile(state)`` if None); ``Infeasible`` if ``extra`` conflicts with it (Fig. 22, step 3)."""
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
    return base


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
    profile.replan(list(queue), starts, now)  # the scheduler's own planning of a displaced queue
    return starts, profile


@dataclass(frozen=True, slots=True)
class GreedyPlanner:
    """Conservative backfilling's plan: each queued job, in arrival order, at its earliest start.

    Examples
    --------
    >>> from gridmarket.scheduling import ConservativeScheduler
    >>> from gridmarket.scheduling.state import RunningJob
    >>> s = ProviderState(0, 4, running=(RunningJob(1, 3, 0, 100),), queue=(Job(2, 0, 2, 50, 50), Job(3, 0, 1, 80, 80)))
    >>> ConservativeScheduler.planner.plan(s), ConservativeScheduler.planner.plan(s, Reservation("x", 0, 1, 200))
    ({2: 100, 3: 0}, {2: 100, 3: 100})
    """

    policy: type
    plans_whole_queue: ClassVar[bool] = True

    @property
    def name(self) -> str:
        return str(getattr(self.policy, "name", "") or self.policy.__name__)

    def plan(self, state: ProviderState, extra_reservation: Reservation | None = None, *,
             base: AvailabilityProfile | None = None) -> dict[int, int]:
        if state.policy_state is not None:
            raise no_planning_state(self.name, state.policy_state)
        base = _with_extra(state, extra_reservation, base)
        if extra_reservation is not None:
            base = base.copy()
            base.reserve(extra_reservation.start, extra_reservation.duration, extra_reservation.procs)
        return greedy_plan(base, state.queue, state.now)[0]

    def planned_by(self, scheduler: Any) -> Mapping[int, int] | None:
        return getattr(scheduler, "planned", None)

    def planning_state_of(self, scheduler: Any) -> dict | None:
        return None  # every queued job at its earliest start: no history changes that


@dataclass(frozen=True, slots=True)
class ForwardPlanner:
    """The policy run forward from the state through the machine's event step (module notes).

    Examples
    --------
    Four processors; job 1 (3 procs) runs until 100. Queued: job 2 (4 procs, 10 s), job 3 (1 proc,
    50 s), job 4 (1 proc, 500 s). EASY backfills job 3 now (it ends before job 2's shadow time,
    100); job 4 would delay job 2 and waits for it. FCFS backfills nothing.

    >>> from gridmarket.scheduling import EASYScheduler, FCFSScheduler
    >>> from gridmarket.scheduling.state import RunningJob
    >>> s = ProviderState(1, 4, running=(RunningJob(1, 3, 0, 100),),
    ...                   queue=(Job(2, 1, 4, 10, 10), Job(3, 1, 1, 50, 50), Job(4, 1, 1, 500, 500)))
    >>> EASYScheduler.planner.plan(s), FCFSScheduler.planner.plan(s)
    ({2: 100, 3: 1, 4: 110}, {2: 100, 3: 110, 4: 110})
    """

    policy: type
    plans_whole_queue: ClassVar[bool] = False

    @property
    def name(self) -> str:
        return str(getattr(self.policy, "name", "") or self.policy.__name__)

    def plan(self, state: ProviderState, extra_reservation: Reservation | None = None, *,
             base: AvailabilityProfile | None = None) -> dict[int, int]:
        _with_extra(state, extra_reservation, base)
        now = state.now
        sched = self.scheduler(state.procs, state.policy_state)
        # running jobs: stand-ins arriving now, started in the first pass, each holding its processors to its planned end
        stand_ins = [Job(r.id, now, r.procs, r.end - now, r.end - now, user=r.user) for r in state.running]
        machine = MachineSimulation(sched, stand_ins, now=now, to_estimates=True)
        machine.wake_at(now)  # the first pass runs even with nothing running
        steps = machine.steps()
        next(steps)
        if len(machine.start) != len(stand_ins):  # pragma: no cover - a policy that refuses a running job
            raise RuntimeError(f"{self.name}: could not restore {len(stand_ins) - len(machine.start)} running job(s)")
        held = state.reservations if extra_reservation is None else (*state.reservations, extra_reservation)
        for res in held:
            # a reservation under way is held from now on
            machine.add_reservation(res if res.start >= now else Reservation(res.id, now, res.procs, res.end - now))
        for job in state.queue:  # waiting since before now: handed over as they wait, not as arrivals
            sched.submit(job, now)
        machine.wake_at(now)
        for _ in steps:
            if not sched.queue:
                break
        else:  # pragma: no cover - every policy starts a head once the machine drains
            raise RuntimeError(f"{self.name}: queue stuck at {machine.now} with {len(sched.queue)} job(s)")
        start = machine.start
        return {job.id: start[job.id] for job in state.queue}

    def scheduler(self, procs: int, planning_state: Mapping | None) -> Any:
        """The fresh scheduler a plan drives: ``policy.for_planning(procs, planning_state)``."""
        for_planning = getattr(self.policy, "for_planning", None)
        if for_planning is not None:
            return for_planning(procs, planning_state)
        if planning_state is not None:  # a duck-typed plug-in without it keeps no planning state
            raise no_planning_state(self.name, planning_state)
        return self.policy(procs)

    def planned_by(self, scheduler: Any) -> Mapping[int, int] | None:
        return None  # the policy keeps no plan of the whole queue (or none a reader can use)

    def planning_state_of(self, scheduler: Any) -> dict | None:
        # only a plan run as the scheduler's own class can use what its policy knows
        return planning_state_of(scheduler) if type(scheduler) is self.policy else None
