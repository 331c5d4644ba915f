"""Deadline-and-budget-constrained (DBC) scheduling of a task farm, after the Nimrod-G broker.

R. Buyya, M. Murshed, D. Abramson, "A deadline and budget constrained cost-time optimisation
algorithm for scheduling task farming applications on global grids", PDPTA 2002; R. Buyya, *Economic-
based distributed resource management and scheduling for grid computing*, PhD thesis, Monash 2002,
ch. 6. ``n`` independent, identical jobs go to resources, each with a price per job (SU), a time per
job (seconds), a number of jobs it runs at once and the time it becomes free (seconds from now, e.g.
its quoted or advertised start); the user gives a deadline and a budget. The three strategies:

* ``cost``: the cheapest plan that meets the deadline and the budget (Nimrod-G's cost optimisation:
  fill the cheapest resources first up to what they finish by the deadline);
* ``time``: the plan that finishes first within the budget (time optimisation);
* ``cost-time``: the cheapest plan, and among the cheapest the one that finishes first (cost-time
  optimisation: resources of equal cost are used time-optimally).

Nimrod-G applies these rules greedily job by job as it learns each resource's rate; with the rates
known (a quote or an advertisement gives them) the plans here are exact: the cheapest plan for a
horizon ``T`` takes the ``n`` cheapest job places that finish by ``T`` (each job's cost does not
depend on the others), and the earliest horizon is found by bisection over the finishing times,
where the cheapest plan's cost only falls as ``T`` grows. None is returned when no plan meets
both constraints; tests check all three against enumeration.

:func:`buy_dbc_slot` is the ``dbc`` interaction model's broker (issue 17): one job at a time, its
budget the job's value and its deadline the valuation's, over quoting providers: every quoted start
of every provider (form 19, Singh ch. 5) is a resource with its price (the quote's total cost) and
ready time, the job's time its real length (known to its owner; the reservation holds the estimate).
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Sequence
from dataclasses import dataclass

from market.errors import InvalidInput
from market.pricing.slot import SECONDS_PER_HOUR

__all__ = ["DBC_STRATEGIES", "DBCPlan", "DBCResource", "buy_dbc_slot", "dbc_plan"]

DBC_STRATEGIES = ("cost", "time", "cost-time")


@dataclass(frozen=True, slots=True)
class DBCResource:
    """A resource a DBC broker can buy: ``price`` SU a job, ``job_time`` seconds a job, ``width`` jobs at
    once, free from ``ready`` seconds from now."""

    name: str
    price: float
    job_time: int
    width: int = 1
    ready: int = 0

    def __post_init__(self) -> None:
        if isinstance(self.price, bool) or not isinstance(self.price, (int, float)) or not (
                math.isfinite(self.price) and self.price >= 0):
            raise InvalidInput(f"resource {self.name!r}: price must be a finite number >= 0 SU, got {self.price!r}")
        for key, low in (("job_time", 1), ("width", 1), ("ready", 0)):
            value = getattr(self, key)
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise InvalidInput(f"resource {self.name!r}: {key} must be an int >= {low}, got {value!r}")

    def finish(self, jobs: int) -> int:
        """When ``jobs`` jobs given to this resource are all done (seconds from now; 0 for none)."""
        return 0 if jobs == 0 else self.ready + math.ceil(jobs / self.width) * self.job_time

    def capacity(self, horizon: int) -> int:
        """Jobs it finishes by ``horizon`` seconds from now."""
        return 0 if horizon < self.ready else self.width * ((horizon - self.ready) // self.job_time)


@dataclass(frozen=True, slots=True)
class DBCPlan:
    """Jobs per resource (in the input's order), total cost (SU) and makespan (seconds from now)."""

    jobs: tuple[int, ...]
    cost: float
    makespan: int


def _cheapest(resources: Sequence[DBCResource], n: int, horizon: int) -> tuple[list[int], float] | None:
    """The cheapest way to place ``n`` jobs that all finish by ``horizon`` (None: not enough room)."""
    order = sorted(range(len(resources)), key=lambda i: (resources[i].price, resources[i].job_time, i))
    counts, cost, left = [0] * len(resources), 0.0, n
    for i in order:
        take = min(left, resources[i].capacity(horizon))
        counts[i] = take
        cost += take * resources[i].price
        left -= take
        if not left:
            return counts, cost
    return None


def _plan(resources: Sequence[DBCResource], counts: list[int], cost: float) -> DBCPlan:
    return DBCPlan(tuple(counts), cost, max((r.finish(k) for r, k in zip(resources, counts)), default=0))


def dbc_plan(resources: Sequence[DBCResource], n: int, *, deadline: int, budget: float,
             strategy: str = "cost-time") -> DBCPlan | None:
    """Place ``n`` jobs on ``resources`` by ``deadline`` (s from now) for at most ``budget`` (SU).

    Examples
    --------
    Ten jobs; a cheap slow resource (1 SU, 100 s a job) and a dear fast one (3 SU, 20 s a job, two at
    once). By 500 s the cheap one finishes 5 jobs: cost optimisation buys 5 there and 5 on the fast
    one (20 SU, done at 500 s); time optimisation with a 30 SU budget finishes at 120 s.

    >>> rs = [DBCResource("cheap", 1.0, 100), DBCResource("fast", 3.0, 20, width=2)]
    >>> dbc_plan(rs, 10, deadline=500, budget=30.0, strategy="cost")
    DBCPlan(jobs=(5, 5), cost=20.0, makespan=500)
    >>> dbc_plan(rs, 10, deadline=500, budget=30.0, strategy="time")
    DBCPlan(jobs=(1, 9), cost=28.0, makespan=100)
    >>> dbc_plan(rs, 10, deadline=500, budget=19.0) is None
    True
    """
    if strategy not in DBC_STRATEGIES:
        raise InvalidInput(f"unknown DBC strategy {strategy!r}; known: {', '.join(DBC_STRATEGIES)}")
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise InvalidInput(f"n must be an int >= 0 jobs, got {n!r}")
    if isinstance(deadline, bool) or not isinstance(deadline, int) or deadline < 0:
        raise InvalidInput(f"deadline must be an int >= 0 seconds, got {deadline!r}")
    if isinstance(budget, bool) or not isinstance(budget, (int, float)) or not budget >= 0:
        raise InvalidInput(f"budget must be a number >= 0 SU, got {budget!r}")
    if len({r.name for r in resources}) != len(resources):
        raise InvalidInput("resource names must be unique")
    best = _cheapest(resources, n, deadline)
    if best is None or best[1] > budget + 1e-9:
        return None  # the cheapest plan that meets the deadline is over budget: no plan meets both
    if strategy == "cost":
        return _plan(resources, *best)
    target = best[1]
    # the finishing times at which a plan can end, up to the deadline
    horizons = sorted({r.finish(k) for r in resources for k in range(1, n + 1) if r.finish(k) <= deadline})

    def fits(h: int) -> bool:
        found = _cheapest(resources, n, h)
        if found is None:
            return False
        return found[1] <= (budget if strategy == "time" else target) + 1e-9

    k = bisect.bisect_left(horizons, True, key=fits)  # fits() is False then True along the horizons
    counts, cost = _cheapest(resources, n, horizons[k]) if horizons else best
    return _plan(resources, counts, cost)


def buy_dbc_slot(plans, request, *, strategy: str = "cost-time", max_starts: int = 16):
    """Buy ``request``'s slot from ``plans`` by DBC (module notes); returns ``(provider, start, price SU)`` or None.

    ``plans`` maps provider names to :class:`market.pricing.ProviderPlan` (all at the same ``now``);
    ``request`` is a :class:`market.auctions.slot.SlotRequest`. Each plan offers its first
    ``max_starts`` feasible candidate starts (the earliest feasible one and the plan's change points
    after it, up to the job's deadline); the chosen start is reserved in its plan (id ``"auction-<id>"``).
    Budget: the job's value; deadline: the valuation's deadline (seconds from now).

    Examples
    --------
    Two idle machines, one dearer (its base rate 2 SU/ph): cost optimisation buys the cheaper.

    >>> from market.auctions.slot import SlotRequest
    >>> from market.pricing import ProviderPlan, ProviderState
    >>> from market.valuation import Valuation
    >>> plans = {"dear": ProviderPlan(ProviderState(0, 4), "easy", unit_cost=2.0),
    ...          "cheap": ProviderPlan(ProviderState(0, 4), "easy")}
    >>> buy_dbc_slot(plans, SlotRequest(1, 4, 3600, Valuation(10.0, 7200, 10)), strategy="cost")
    ('cheap', 0, 4.0)
    >>> buy_dbc_slot(plans, SlotRequest(2, 4, 3600, Valuation(3.0, 7200, 10))) is None  # over budget
    True
    """
    if strategy not in DBC_STRATEGIES:
        raise InvalidInput(f"unknown DBC strategy {strategy!r}; known: {', '.join(DBC_STRATEGIES)}")
    if isinstance(max_starts, bool) or not isinstance(max_starts, int) or max_starts < 1:
        raise InvalidInput(f"max_starts must be an int >= 1, got {max_starts!r}")
    run = request.duration if request.runtime is None else max(1, min(request.runtime, request.duration))
    candidates: list[tuple[str, int, float]] = []
    now = None
    for name, plan in plans.items():
        if request.procs > plan.procs:
            continue
        now = plan.now
        last = request.valuation.deadline - run  # a later start misses the deadline
        first = plan.pricer.base.earliest_start(request.procs, request.duration, after=plan.now)
        if first > last:
            continue
        starts = [first] + [t for t in plan.pricer.instants() if first < t <= last]
        starts = starts[:max_starts]
        prices = plan.pricer.prices_ps(request.procs, request.duration, starts)
        for t, f in zip(starts, prices):
            if f is None:
                continue
            quote = plan.price(t, request.procs, request.duration) if plan.pricing != "externality" else None
            total = quote.total_cost if quote is not None else request.hours * plan.unit_cost + f / SECONDS_PER_HOUR
            candidates.append((name, t, total))
    if not candidates:
        return None
    resources = [DBCResource(f"{k}", price, run, 1, t - now) for k, (_, t, price) in enumerate(candidates)]
    deadline = max(0, request.valuation.deadline - now)
    chosen = dbc_plan(resources, 1, deadline=deadline, budget=request.valuation.value, strategy=strategy)
    if chosen is None:
        return None
    name, start, price = candidates[chosen.jobs.index(1)]
    plans[name].reserve(start, request.procs, request.duration, reservation_id=f"auction-{request.id}")
    return name, start, price
