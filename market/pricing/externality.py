"""Adaptive externality pricing of slots (Singh 2008, ch. 5.1, Fig. 22). Times in seconds, prices in SU.

The fixed cost ``f`` of a slot ``(s, n, d)`` is the delay it causes to the
provider's queued best-effort jobs: plan the queue with the provider's own
policy without the slot and with it at ``s`` (running jobs and existing
reservations fixed), and charge ``f = sum_q max(0, v'_q - v_q) x n_q``
(Fig. 22, step 5), counted in processor-hours (SU). A slot that conflicts
with running jobs or reservations at ``s`` cannot be sold: its price is
infinite (step 3), which this module reports as :class:`Infeasible` with the
reason. The unit part ``c`` of the price is the provider's base rate and is
not computed here.

The plan "without" is the provider's current plan: for conservative
backfilling the scheduler's own planned starts when it has them (a slot that
fits beside them moves no job, exactly as
:meth:`ConservativeScheduler.add_reservation` keeps them), else the policy's
plan of the queue from the state (its planner, :mod:`gridmarket.scheduling.planner`).
The plan "with" is the policy's plan of the queue around the slot, which is
what ``add_reservation`` does when the slot does not fit beside the plan.

Many prices on one state (the candidate starts of query form 18) share work:
see :class:`ExternalityPricer`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import cast

from gridmarket.errors import Infeasible, InvalidInput
from gridmarket.job import Job
from gridmarket.pricing.engine import ENGINE_FORWARD, Engine
from gridmarket.pricing.forecast import pricing_planner
from gridmarket.pricing.slot import SECONDS_PER_HOUR
from gridmarket.pricing.state import ProviderState, RunningJob
from gridmarket.reservation import Reservation
from gridmarket.scheduling import LocalScheduler, policy_of
from gridmarket.scheduling.planner import Planner
from gridmarket.scheduling.profile import AvailabilityProfile, Profile, first_short

__all__ = ["ExternalityPricer", "slot_price"]

INF = math.inf


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class ExternalityPricer:
    """Prices slots on one provider state under one local policy (Fig. 22), reusing the no-slot plan.

    Parameters
    ----------
    state : ProviderState
        Running jobs, reservations and queue at ``state.now``; not modified.
    policy : str, scheduler class or Planner
        The provider's local policy (``conservative``, ``slots``, ``easy``, ``fcfs``, any policy
        :func:`~gridmarket.pricing.forecast.check_policy` takes), resolved once to its planner.
    planned : mapping of int to int, optional
        The provider's current planned start of each queued job, when its
        scheduler keeps one (conservative, slots). By default the policy's
        plan of the queue from the state.

    Attributes
    ----------
    planner : Planner
        How the queue is planned (:mod:`gridmarket.scheduling.planner`).
    now, procs : int
        Time of the state (seconds) and processors of the machine.
    queue : tuple of Job
        The queued jobs, in arrival order.
    planned : dict of int to int
        The plan without a slot (``v_q`` of Fig. 22).
    state : ProviderState
        The state priced on.
    base : Profile
        Free processors counting running jobs and reservations only.
    full : Profile
        Free processors of the plan: ``base`` minus every queued job at its planned start.

    Notes
    -----
    Fig. 22 costs one planning of the queue per price, O(S) for a planning
    cost S. Pricing the O(n) candidate starts of form 18 that way is
    O(n S), which is what limited the thesis's experiments to 30 days of
    trace (ch. 5.3). Here, under conservative backfilling:

    - a slot that fits in the free capacity of the current plan delays no
      job: f = 0 after one ``min_free`` query (this covers the whole tail of
      the plan, and every advertised slot);
    - otherwise the planning with the slot agrees with the planning without
      it up to the first job, in arrival order, whose interval collides with
      the slot (call it ``k``): jobs before ``k`` keep their starts, so the
      profile after them is reused (one copy per candidate) and only jobs
      ``k..Q`` are re-planned. The profile after jobs ``0..k`` only loses
      processors as ``k`` grows, so ``k`` is the first column short of
      ``procs`` over the slot's window in a table of cumulative free
      processors (jobs x time steps; the compiled engine bisects over the
      stored profiles instead);
    - a re-planned job cannot start before its old start unless a window
      that was blocked became free, which needs an instant a job moved away
      from earlier in the pass (none before the first such instant ``u``):
      the search for its new start begins at its old start, or, if it
      starts after ``u``, at the later of ``u - estimate + 1`` and the end of
      the last instant before ``u`` short of processors; the search and the
      update of the profile are one pass over its steps (``_place``).

    Cost: O(C (Q - k) S) for C candidates that do not fit beside the plan,
    Q queued jobs and S steps scanned per job, against O(C Q S) for Fig. 22
    applied C times. The work is done by a :data:`~gridmarket.pricing.engine.Engine`
    (compiled where built, :mod:`gridmarket.kernel`), which also holds the base
    and plan profiles and the candidate starts. See ``benchmarks/RESULTS.md``
    for the whole-trace figures against the plain replay.

    EASY and FCFS plan only their queue head, so each price runs the policy
    forward over the queue (:class:`~gridmarket.scheduling.planner.ForwardPlanner`),
    except for a slot that fits in the free capacity of the predicted plan:
    with estimates as runtimes and no arrival, each head starts at its
    shadow time and every job the policy starts fits beside the plan at
    every pass, so the slot changes no decision and costs nothing (checked
    against the forward runs by the property tests). Every other forward-run
    policy (registered or a plug-in) gets the same shortcut: it holds for the
    EASY family whatever its queue order (the SJF plug-in of
    ``docs/extending.md`` is checked against forward runs), and a policy of
    one's own should be checked the same way.

    Examples
    --------
    The state of the thesis's Fig. 21 (reconstructed: the extracted text
    keeps the numbers, not the drawing), in hours: 5 processors; A (1 proc)
    runs until 2, B (3 procs) until 3; slot R (2 procs) is reserved over
    [5, 8); queued C (2 procs x 2) and D (2 procs x 3) are planned at 2 and
    3. Slot X, 2 processors for 3 hours at 2, pushes C to 3 and D to 5:
    delays of 1 and 2 hours for 2-processor jobs, so ``f = 1x2 + 2x2 = 6`` SU.

    >>> from gridmarket.job import Job
    >>> from gridmarket.pricing.state import RunningJob
    >>> h = 3600
    >>> state = ProviderState(0, 5, running=(RunningJob(1, 1, 0, 2*h), RunningJob(2, 3, 0, 3*h)),
    ...                       queue=(Job(3, 0, 2, 2*h, 2*h), Job(4, 0, 2, 3*h, 3*h)),
    ...                       reservations=(Reservation("R", 5*h, 2, 3*h),))
    >>> pricer = ExternalityPricer(state, "conservative")
    >>> {q: t // h for q, t in pricer.planned.items()}
    {3: 2, 4: 3}
    >>> {q: t // h for q, t in pricer.delays(2*h, 2, 3*h).items()}
    {3: 1, 4: 2}
    >>> pricer.price(2*h, 2, 3*h)
    6.0
    >>> pricer.price(0, 2, 3*h)
    Traceback (most recent call last):
    ...
    gridmarket.errors.Infeasible: 2 processors over [0, 10800) conflict with running jobs or reservations (only 1 free at 0)
    """

    # made by from_scheduler: the record is built from the snapshot when first asked for
    _state: ProviderState | None
    _snapshot: list[tuple[Job, int]] | None
    _policy_state: Mapping | None

    def __init__(
        self, state: ProviderState, policy: str | type[LocalScheduler] | Planner = "conservative", *,
        planned: Mapping[int, int] | None = None,
    ) -> None:
        self.planner = pricing_planner(policy)
        self._state = state
        self._snapshot = None
        self._policy_state = state.policy_state
        now = state.now
        self.now, self.procs, self.queue = now, state.procs, state.queue
        self._reservations = state.reservations
        res = state.reservations
        self._engine = Engine(
            now, state.procs, [r.end for r in state.running], [r.procs for r in state.running],
            [max(r.start, now) for r in res], [r.end for r in res], [r.procs for r in res],
        )
        self._plan(planned)

    @classmethod
    def from_scheduler(cls, scheduler, now: int, policy: str | type[LocalScheduler] | Planner | None = None) -> ExternalityPricer:
        """The pricer of a live :class:`~gridmarket.scheduling.base.LocalScheduler` at ``now`` (it is not changed).

        The same pricer as ``ExternalityPricer(state_from_scheduler(scheduler, now), policy,
        planned=scheduler.planned)`` (``planned`` when the planner's plan is what the scheduler
        keeps: conservative, slots), built straight from the scheduler's running jobs, reservations
        and queue: the :attr:`state` record is made only if asked for. ``policy`` defaults to the
        scheduler's own planner (a plug-in is run forward as itself). The scheduler is trusted to
        be consistent (its state is not re-validated).

        Examples
        --------
        >>> from gridmarket.job import Job
        >>> from gridmarket.scheduling import ConservativeScheduler
        >>> s = ConservativeScheduler(4)
        >>> s.submit(Job(1, 0, 4, 100, 100), 0); _ = s.schedule(0); s.submit(Job(2, 5, 2, 50, 50), 5)
        >>> p = ExternalityPricer.from_scheduler(s, 5)
        >>> p.planned, p.price(100, 4, 3600)  # job 2 (2 procs) waits one hour more: 2 SU
        ({2: 100}, 2.0)
        """
        self = cls.__new__(cls)
        self.planner = planner = pricing_planner(scheduler if policy is None else policy)
        self._state = None
        self._policy_state = planner.planning_state_of(scheduler)
        self.now, self.procs = now, scheduler.procs
        self._snapshot = running = list(scheduler.running.values())
        self._reservations = tuple(r for r in scheduler.reservations.values() if r.end > now)
        self.queue = tuple(scheduler.queue)
        self._engine = Engine.of_jobs(now, scheduler.procs, running, self._reservations)
        self._plan(planner.planned_by(scheduler))
        return self

    def _plan(self, planned: Mapping[int, int] | None) -> None:
        self._base: AvailabilityProfile | None = None
        self._full: AvailabilityProfile | None = None
        # f of slots priced by a re-plan (the pricer never changes): a market asks again for equal slots
        self._replan_prices: dict[tuple[int, int, int], int] = {}
        self._planned: dict[int, int] | None = None
        # EASY and FCFS (exactly) are run forward by the engine itself, on its arrays
        self._backfill = ENGINE_FORWARD.get(self.planner.policy) if self._policy_state is None else None
        if planned is None and self._backfill is not None:
            queue = self.queue
            P, E = [job.procs for job in queue], [job.estimate for job in queue]
            self._engine.plan_forward(P, E, self._backfill)
            return
        if planned is None:
            planned = self._planned = self.planner.plan(self.state, base=self.base)
        try:
            self._engine.plan_jobs(self.queue, planned)
        except KeyError:
            missing = [job.id for job in self.queue if job.id not in planned]
            raise InvalidInput(f"planned starts miss queued job(s) {missing[:5]}") from None

    @property
    def policy(self) -> str | type[LocalScheduler]:
        """The policy planned with, by the name that resolves to it (:func:`gridmarket.scheduling.policy_of`)."""
        return policy_of(self.planner.policy)

    @property
    def planned(self) -> dict[int, int]:
        """The plan without a slot (``v_q`` of Fig. 22): planned start of each queued job, by id."""
        if self._planned is None:
            self._planned = dict(zip([job.id for job in self.queue], self._engine.planned_starts()))
        return self._planned

    @property
    def state(self) -> ProviderState:
        """The provider state priced on (made on first use for a pricer built from a scheduler)."""
        if self._state is None:
            now = self.now
            running = tuple(RunningJob(job.id, job.procs, start, start + job.estimate, job.user)
                            for job, start in self._snapshot  # type: ignore[union-attr]  # from_scheduler's
                            if start + job.estimate > now)
            self._state = ProviderState(now, self.procs, running, self.queue, self._reservations,
                                        self._policy_state)
        return self._state

    @property
    def base(self) -> AvailabilityProfile:
        """Free processors counting running jobs and reservations only (a profile from ``now``)."""
        if self._base is None:
            self._base = _as_profile(self.procs, *self._engine.base_steps())
        return self._base

    @property
    def full(self) -> AvailabilityProfile:
        """Free processors of the plan: ``base`` minus every queued job at its planned start."""
        if self._full is None:
            self._full = _as_profile(self.procs, *self._engine.full_steps())
        return self._full

    # ---------------------------------------------------------------- queries
    def check(self, start: int, procs: int, duration: int) -> None:
        """Raise ``InvalidInput`` for a malformed slot, ``Infeasible`` for one that conflicts (Fig. 22, step 3)."""
        self.check_size(procs, duration)
        self.check_start(start)
        if self._engine.base_min_free(start, duration) < procs:
            t, free = self._low_point(start, procs)
            raise Infeasible(
                f"{procs} processors over [{start}, {start + duration}) conflict with running jobs or "
                f"reservations (only {free} free at {t})"
            )

    def check_size(self, procs: int, duration: int) -> None:
        """Raise ``InvalidInput`` unless ``procs`` fits the machine and ``duration`` is a positive int."""
        if not _is_int(procs) or procs < 1:
            raise InvalidInput(f"slot: procs must be an int >= 1, got {procs!r}")
        if procs > self.procs:
            raise InvalidInput(f"slot needs {procs} processors; machine has {self.procs}")
        if not _is_int(duration) or duration < 1:
            raise InvalidInput(f"slot: duration must be an int >= 1 s, got {duration!r}")

    def check_start(self, start: int) -> None:
        """Raise ``InvalidInput`` unless ``start`` is an int not before now."""
        if not _is_int(start):
            raise InvalidInput(f"slot: start must be an int, got {start!r}")
        if start < self.now:
            raise InvalidInput(f"slot starts at {start}, before now ({self.now})")

    def _low_point(self, start: int, procs: int) -> tuple[int, int]:
        """First instant from ``start`` with fewer than ``procs`` free in the base profile, and its free count."""
        # check() asks only after the base refused the slot: some instant from start is short
        return cast(tuple[int, int], first_short(self.base.times, self.base.free, procs, start))

    def fits_plan(self, start: int, procs: int, duration: int) -> bool:
        """Whether the slot fits in the free capacity of the current plan (then it delays no job)."""
        return self._engine.full_min_free(start, duration) >= procs

    def starts_with(self, start: int, procs: int, duration: int) -> dict[int, int]:
        """Planned starts of the queued jobs with the slot reserved (Fig. 22, step 4)."""
        self.check(start, procs, duration)
        if self.fits_plan(start, procs, duration):
            return dict(self.planned)
        if self.planner.plans_whole_queue:
            new = self._engine.starts_with(start, procs, duration)
            return {job.id: t for job, t in zip(self.queue, new)}
        if self._backfill is not None:
            queue = self.queue
            new = self._engine.forward([job.procs for job in queue], [job.estimate for job in queue],
                                       self._backfill, start, procs, duration)
            return {job.id: t for job, t in zip(queue, new)}
        return self.planner.plan(self.state, self._slot(start, procs, duration), base=self.base)

    def delays(self, start: int, procs: int, duration: int) -> dict[int, int]:
        """Seconds each queued job is delayed by the slot (jobs not delayed are left out)."""
        after = self.starts_with(start, procs, duration)
        return {q: after[q] - v for q, v in self.planned.items() if after[q] > v}

    def price_ps(self, start: int, procs: int, duration: int) -> int:
        """``f`` in processor-seconds (exact integer); raises as :meth:`check`."""
        self.check(start, procs, duration)
        return self._price_ps(start, procs, duration)

    def price(self, start: int, procs: int, duration: int) -> float:
        """``f`` in SU (processor-hours) for the slot ``(start, procs, duration)`` (Fig. 22).

        Raises ``InvalidInput`` for a malformed slot (non-positive size, more
        processors than the machine, a start before now) and ``Infeasible``
        when running jobs or reservations hold its processors (the thesis's
        infinite price).
        """
        return self.price_ps(start, procs, duration) / SECONDS_PER_HOUR

    def prices_ps(self, procs: int, duration: int, starts: Iterable[int]) -> list[int | None]:
        """``f`` (processor-seconds) at each of ``starts``; None where the slot conflicts.

        The many-candidates entry point of query forms 18 and 19. ``procs``
        and ``duration`` are checked once; each start must be >= now.
        """
        self.check_size(procs, duration)
        starts = list(starts)
        for start in starts:
            self.check_start(start)
        if self.planner.plans_whole_queue:
            return self._engine.prices(procs, duration, starts)
        base_min = self._engine.base_min_free
        return [None if base_min(start, duration) < procs else self._price_ps(start, procs, duration)
                for start in starts]

    def feasible_prices_ps(self, procs: int, duration: int) -> tuple[list[int], list[int]]:
        """Form (18) in raw numbers: the candidate starts (:meth:`instants`) the slot may take, and ``f`` at each.

        Starts in time order (seconds), ``f`` in processor-seconds; the same
        as :meth:`prices_ps` over :meth:`instants` with the refused starts left
        out. ``procs`` and ``duration`` are checked.
        """
        self.check_size(procs, duration)
        if self.planner.plans_whole_queue:
            return self._engine.feasible(procs, duration)
        starts = self._engine.instants()
        prices = self.prices_ps(procs, duration, starts)
        kept = [(s, f) for s, f in zip(starts, prices) if f is not None]
        return [s for s, _ in kept], [f for _, f in kept]

    def instants(self) -> list[int]:
        """Every instant from now on at which the plan's availability changes, and now (form 18's candidates).

        Starts and ends of running jobs, reservations and planned queued
        jobs, with the steps of the plan's free capacity (Singh 2008, ch. 5.2).
        """
        return self._engine.instants()

    @property
    def plan_end(self) -> int:
        """First instant from which the whole machine is free in the plan (seconds)."""
        return self.full.times[-1]

    # ---------------------------------------------------------------- internals
    def _slot(self, start: int, procs: int, duration: int) -> Reservation:
        names = {res.id for res in self._reservations}
        name = "slot"
        while name in names:
            name += "'"
        return Reservation(name, start, procs, duration)

    def _price_ps(self, start: int, procs: int, duration: int) -> int:
        if self.fits_plan(start, procs, duration):
            return 0
        key = (start, procs, duration)
        total = self._replan_prices.get(key)
        if total is None:
            total = self._replan_prices[key] = self._replan_price_ps(start, procs, duration)
        return total

    def _replan_price_ps(self, start: int, procs: int, duration: int) -> int:
        """``f`` of a slot that does not fit the plan: the queue re-planned around it (Fig. 22, steps 4-5)."""
        if self.planner.plans_whole_queue:
            return self._engine.prices(procs, duration, (start,))[0]  # type: ignore[return-value]  # base checked: a price
        if self._backfill is not None:
            return self._engine.forward_price(self._backfill, start, procs, duration)
        after = self.planner.plan(self.state, self._slot(start, procs, duration), base=self.base)
        total = 0
        for job in self.queue:
            delay = after[job.id] - self.planned[job.id]
            if delay > 0:
                total += delay * job.procs
        return total


def _as_profile(procs: int, times: list[int], free: list[int]) -> AvailabilityProfile:
    profile = Profile(procs, times[0])
    profile.times, profile.free = times, free
    return profile


def slot_price(
    state: ProviderState, start: int, procs: int, duration: int, *,
    policy: str | type[LocalScheduler] | Planner = "conservative",
) -> float:
    """The adaptive price ``f`` (SU) of one slot on ``state`` under ``policy`` (Singh 2008, Fig. 22).

    A one-off :class:`ExternalityPricer`; build one pricer to price many slots.

    Raises
    ------
    InvalidInput
        Malformed slot: non-positive size, more processors than the machine, a start before now.
    Infeasible
        Running jobs or reservations hold the processors at ``start`` (the thesis's infinite price).

    Examples
    --------
    An idle machine: no queued job, nothing to delay.

    >>> slot_price(ProviderState(0, 4), 0, 4, 3600)
    0.0
    """
    return ExternalityPricer(state, policy).price(start, procs, duration)
