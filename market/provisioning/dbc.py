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

:func:`buy_dbc_slot` is the ``dbc`` interaction model's broker: one job at a time, its
budget the job's value and its deadline the valuation's, over quoting providers: every quoted start
of every provider (form 19, Singh ch. 5) is a resource with its price (the quote's total cost) and
ready time, the job's time its real length (known to its owner; the reservation holds the estimate).
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

from gridmarket.errors import InvalidInput
from gridmarket.pricing.slot import SECONDS_PER_HOUR

__all__ = ["DBC_SELLERS", "DBC_STRATEGIES", "DBCOffer", "DBCPlan", "DBCPurchase", "DBCResource", "auctioned_offers",
           "buy_dbc_slot", "dbc_buy", "dbc_plan", "posted_offers", "quoted_offers"]

DBC_STRATEGIES = ("cost", "time", "cost-time")
DBC_SELLERS = ("quote", "post", "auction")
"""How a provider sells: a quoted price for a start (Singh ch. 5), a posted (advertised) slot price (ch. 3),
or an auction whose price the buyer learns only by bidding."""


@dataclass(frozen=True, slots=True)
class DBCResource:
    """A resource a DBC broker can buy: ``price`` SU a job, ``job_time`` seconds a job, ``width`` jobs at
    once, free from ``ready`` seconds from now."""

    name: str
    price: float
    job_time: int
    width: int = 1
    ready: int = 0
    until: int | None = None

    def __post_init__(self) -> None:
        if isinstance(self.price, bool) or not isinstance(self.price, (int, float)) or not (
                math.isfinite(self.price) and self.price >= 0):
            raise InvalidInput(f"resource {self.name!r}: price must be a finite number >= 0 SU, got {self.price!r}")
        for key, low in (("job_time", 1), ("width", 1), ("ready", 0)):
            value = getattr(self, key)
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise InvalidInput(f"resource {self.name!r}: {key} must be an int >= {low}, got {value!r}")
        if self.until is not None and (isinstance(self.until, bool) or not isinstance(self.until, int)
                                       or self.until < self.ready):
            raise InvalidInput(f"resource {self.name!r}: until must be None or an int >= ready ({self.ready}), "
                               f"got {self.until!r}")

    def finish(self, jobs: int) -> int:
        """When ``jobs`` jobs given to this resource are all done (seconds from now; 0 for none)."""
        return 0 if jobs == 0 else self.ready + math.ceil(jobs / self.width) * self.job_time

    def capacity(self, horizon: int) -> int:
        """Jobs it finishes by ``horizon`` seconds from now (and by ``until``, the end of a slot, if set)."""
        if self.until is not None:
            horizon = min(horizon, self.until)
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
        if not left:
            break
        take = min(left, resources[i].capacity(horizon))
        counts[i] = take
        cost += take * resources[i].price
        left -= take
    return (counts, cost) if not left else None


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
    >>> dbc_plan([], 0, deadline=0, budget=0.0)  # no jobs: the empty plan, whatever the resources
    DBCPlan(jobs=(), cost=0.0, makespan=0)
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
    counts, cost = _cheapest(resources, n, horizons[k]) if horizons else best  # type: ignore[misc]  # fits(): a plan
    return _plan(resources, counts, cost)


@dataclass(frozen=True, slots=True)
class DBCOffer:
    """A place a DBC broker can buy jobs from ``provider``, sold by ``sells`` (:data:`DBC_SELLERS`).

    ``price``: SU per job, known for a quote or a posted slot, the reserve (the least it can cost) for
    an auction; ``ready``: seconds from now when it is free; ``width``: jobs at once; ``until``:
    seconds from now when it ends (a posted slot's end; None: open-ended).
    """

    provider: str
    sells: str
    price: float
    ready: int = 0
    width: int = 1
    until: int | None = None

    def __post_init__(self) -> None:
        if self.sells not in DBC_SELLERS:
            raise InvalidInput(f"offer of {self.provider!r}: sells must be one of {', '.join(DBC_SELLERS)}, "
                               f"got {self.sells!r}")
        DBCResource(self.provider, self.price, 1, self.width, self.ready, self.until)  # the same checks

    def resource(self, name: str, job_time: int) -> DBCResource:
        """This offer as a :class:`DBCResource` for jobs of ``job_time`` s, priced at ``price``."""
        return DBCResource(name, self.price, job_time, self.width, self.ready, self.until)


@dataclass(frozen=True, slots=True)
class DBCPurchase:
    """What :func:`dbc_buy` bought.

    ``bought``: ``(offer index, jobs, SU per job)`` in buying order; ``spent`` SU; ``bids``:
    ``(offer index, jobs, cap SU per job, price SU per job or None when lost)`` for every auction
    bid on; ``makespan``: when the last bought job ends (s from now; 0 for none).
    """

    bought: tuple[tuple[int, int, float], ...]
    spent: float
    bids: tuple[tuple[int, int, float, float | None], ...]
    makespan: int

    @property
    def n_jobs(self) -> int:
        """Jobs bought."""
        return sum(k for _, k, _ in self.bought)


def _cheapest_cost(resources: Sequence[DBCResource], n: int, deadline: int) -> float | None:
    if n == 0:
        return 0.0
    found = _cheapest(resources, n, deadline)
    return None if found is None else found[1]


def dbc_buy(offers: Sequence[DBCOffer], n: int, *, job_time: int, deadline: int, budget: float,
            strategy: str = "cost-time", auction) -> DBCPurchase:
    """Buy ``n`` jobs of ``job_time`` s from a mix of quoting, posting and auctioning offers by DBC.

    Parameters
    ----------
    offers : sequence of DBCOffer
        What the providers sell (:data:`DBC_SELLERS`).
    n : int
        Jobs to place (a task farm of identical jobs; the ``dbc`` model buys one at a time).
    job_time : int
        Seconds a job runs (> 0).
    deadline : int
        Every job must end by it (seconds from now).
    budget : float
        The most the broker spends on all of them (SU).
    strategy : str
        ``cost``, ``time`` or ``cost-time`` (:func:`dbc_plan`).
    auction : callable
        ``auction(index, offer, jobs, cap)``: the provider of ``offers[index]`` auctions ``jobs``
        jobs' room; the broker bids at most ``cap`` SU a job. Returns the price (SU a job, at least
        the reserve and at most ``cap``) when the broker wins, None when it loses.

    Returns
    -------
    DBCPurchase
        The jobs bought, by offer, and the bids made; fewer than ``n`` jobs when the offers left
        cannot meet the deadline within the budget.

    Raises
    ------
    InvalidInput
        A malformed argument, or an auction that charges more than the cap or less than its reserve.

    Notes
    -----
    Nimrod-G's broker re-plans as it learns (Buyya 2002, ch. 6): here it plans by :func:`dbc_plan`
    with every auction at its reserve (the most optimistic price), then, while the plan uses an
    auction, bids there for the plan's jobs at most its *remaining budget share*: the budget left
    after securing the other jobs of the plan, ``cap = (budget left - S) / jobs``, where ``S`` is
    the cheapest plan for the other jobs over the quoted and posted offers left that meets the
    deadline (or, when there is none, the cost of the plan's other jobs). Won or lost, that offer
    is done and the broker re-plans; a plan without auctions is bought outright. So:

    * it never spends more than ``budget``, and every job it buys ends by ``deadline``;
    * when quoted and posted offers alone can place all ``n`` jobs by the deadline within the
      budget, it places all ``n``: a win leaves at least ``S`` for the rest, a loss spends nothing;
    * for one job it buys whenever any offer can take it in time within the budget at the price
      its auction clears at (the broker bids its whole budget, so it wins every such auction).

    At most one auction per offer, so at most ``len(offers) + 1`` plans.

    Examples
    --------
    One job of 100 s by 300 s on 10 SU: a quote at 6 SU ready now, a posted slot at 5 SU ready at
    100 s, an auction with reserve 2 SU ready now. The cheapest plan uses the auction; the broker
    bids its budget less nothing (one job: no other job to secure), 10 SU, and a second-price
    auction with a rival at 7 SU sells at 7. Against a rival at 12 SU it loses and buys the posted slot.

    >>> offers = [DBCOffer("q", "quote", 6.0), DBCOffer("p", "post", 5.0, ready=100),
    ...           DBCOffer("a", "auction", 2.0)]
    >>> def vickrey_against(rival):
    ...     return lambda i, offer, jobs, cap: max(rival, offer.price) if cap >= max(rival, offer.price) else None
    >>> won = dbc_buy(offers, 1, job_time=100, deadline=300, budget=10.0, strategy="cost", auction=vickrey_against(7.0))
    >>> won.bought, won.bids
    (((2, 1, 7.0),), ((2, 1, 10.0, 7.0),))
    >>> lost = dbc_buy(offers, 1, job_time=100, deadline=300, budget=10.0, strategy="cost",
    ...                auction=vickrey_against(12.0))
    >>> lost.bought, lost.spent, lost.makespan
    (((1, 1, 5.0),), 5.0, 200)
    """
    if strategy not in DBC_STRATEGIES:
        raise InvalidInput(f"unknown DBC strategy {strategy!r}; known: {', '.join(DBC_STRATEGIES)}")
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise InvalidInput(f"n must be an int >= 0 jobs, got {n!r}")
    if isinstance(job_time, bool) or not isinstance(job_time, int) or job_time < 1:
        raise InvalidInput(f"job_time must be an int >= 1 s, got {job_time!r}")
    if isinstance(deadline, bool) or not isinstance(deadline, int) or deadline < 0:
        raise InvalidInput(f"deadline must be an int >= 0 seconds, got {deadline!r}")
    if isinstance(budget, bool) or not isinstance(budget, (int, float)) or not budget >= 0:
        raise InvalidInput(f"budget must be a number >= 0 SU, got {budget!r}")
    offers = list(offers)
    for o in offers:
        if not isinstance(o, DBCOffer):
            raise InvalidInput(f"offers must be DBCOffer records, got {type(o).__name__}")
    if not callable(auction):
        raise InvalidInput(f"auction must be a callable, got {type(auction).__name__}")
    open_ = list(range(len(offers)))
    left, money = n, float(budget)
    bought: list[tuple[int, int, float]] = []
    bids: list[tuple[int, int, float, float | None]] = []
    while left:
        resources = [offers[i].resource(str(i), job_time) for i in open_]
        plan = dbc_plan(resources, left, deadline=deadline, budget=money, strategy=strategy)
        if plan is None:
            break
        chosen = [(i, k) for i, k in zip(open_, plan.jobs) if k]
        sold = [(i, k) for i, k in chosen if offers[i].sells == "auction"]
        if not sold:
            for i, k in chosen:
                bought.append((i, k, float(offers[i].price)))
                money -= k * offers[i].price
            break
        i, k = sold[0]
        # ---- the remaining budget share: what is left after securing the plan's other jobs
        certain = [offers[j].resource(str(j), job_time) for j in open_ if j != i and offers[j].sells != "auction"]
        secure = _cheapest_cost(certain, left - k, deadline)
        if secure is None:
            secure = sum(kk * offers[j].price for j, kk in chosen if j != i)
        cap = (money - secure) / k
        open_.remove(i)
        if cap < offers[i].price:  # even the reserve would leave too little for the rest
            continue
        price = auction(i, offers[i], k, cap)
        if price is not None:
            if isinstance(price, bool) or not isinstance(price, (int, float)) or not (
                    offers[i].price - 1e-9 <= price <= cap + 1e-9):
                raise InvalidInput(f"auction of offer {i} ({offers[i].provider!r}) charged {price!r} SU a job; "
                                   f"it must lie in [reserve {offers[i].price}, cap {cap}]")
            bought.append((i, k, float(price)))
            money -= k * price
            left -= k
        bids.append((i, k, cap, None if price is None else float(price)))
    makespan = max((offers[i].resource(str(i), job_time).finish(k) for i, k, _ in bought), default=0)
    return DBCPurchase(tuple(bought), float(budget) - money, tuple(bids), makespan)


def _last_start(request) -> tuple[int, int]:
    """The job's real length (s) and its latest start that ends by its valuation's deadline."""
    run = request.duration if request.runtime is None else max(1, min(request.runtime, request.duration))
    return run, request.valuation.deadline - run


def quoted_offers(plan, request, *, provider: str, max_starts: int = 16,
                  dominated: bool = True) -> list[tuple[DBCOffer, int]]:
    """A quoting provider's offers for ``request``: ``(offer, start s)`` per quoted start (module notes).

    The plan's first ``max_starts`` feasible starts (the earliest and the plan's change points after it)
    up to the latest start that meets the deadline, each at the plan's total price (SU); none when the
    machine is too small. ``dominated=False`` (externality pricing) ends the list at the first start that
    delays nobody (``f`` = 0): every later start of the plan costs no less and is ready later, so a DBC
    broker buying one job never takes it (:func:`dbc_buy` orders offers by price, then index), and those
    starts are not priced (under EASY each price is a forward run of the queue).

    Examples
    --------
    An idle machine: every start is free, so one offer is not dominated by the next.

    >>> from gridmarket.auctions.slot import SlotRequest
    >>> from gridmarket.pricing import ProviderPlan, ProviderState
    >>> from gridmarket.pricing.state import RunningJob
    >>> from gridmarket.valuation import Valuation
    >>> plan = ProviderPlan(ProviderState(0, 4, running=(RunningJob(1, 2, 0, 600),)), "easy")
    >>> request = SlotRequest(7, 2, 3600, Valuation(10.0, 7200, 10))
    >>> [(o.price, t) for o, t in quoted_offers(plan, request, provider="p")]
    [(2.0, 0), (2.0, 600)]
    >>> [(o.price, t) for o, t in quoted_offers(plan, request, provider="p", dominated=False)]
    [(2.0, 0)]
    """
    if isinstance(max_starts, bool) or not isinstance(max_starts, int) or max_starts < 1:
        raise InvalidInput(f"max_starts must be an int >= 1, got {max_starts!r}")
    if request.procs > plan.procs:
        return []
    run, last = _last_start(request)
    first = plan.pricer.base.earliest_start(request.procs, request.duration, after=plan.now)
    if first > last:
        return []
    starts = ([first] + [t for t in plan.pricer.instants() if first < t <= last])[:max_starts]
    lazy = not dominated and plan.pricing == "externality"
    out = []
    i, chunk = 0, (1 if lazy else len(starts))
    while i < len(starts):
        batch = starts[i:i + chunk]
        for t, f in zip(batch, plan.pricer.prices_ps(request.procs, request.duration, batch)):
            if f is None:
                continue
            quote = plan.price(t, request.procs, request.duration) if plan.pricing != "externality" else None
            total = quote.total_cost if quote is not None else request.hours * plan.unit_cost + f / SECONDS_PER_HOUR
            out.append((DBCOffer(provider, "quote", total, t - plan.now), t))
            if lazy and f == 0:
                return out
        i += chunk
        chunk *= 2
    return out


def posted_offers(slots, request, *, provider: str, now: int) -> list[tuple[DBCOffer, int]]:
    """An advertising provider's offers for ``request``: ``(offer, start s)`` per posted slot it fits in.

    A slot fits when it has the processors and holds the estimate before its end (or is extensible),
    and starts by the latest start that meets the deadline; the job is offered the slot's start at its
    posted price, ``procs x estimate`` processor-hours at the slot's unit cost plus its fixed cost (SU;
    Singh 2008 ch. 3: advertised slots are free capacity at the best-effort rate, ``f`` = 0).
    """
    run, last = _last_start(request)
    out = []
    for slot in slots:
        if slot.procs < request.procs or slot.start < now or slot.start > last:
            continue
        if not slot.extensible and slot.duration < request.duration:
            continue
        price = slot.unit_cost * request.procs * request.duration / SECONDS_PER_HOUR + slot.fixed_cost
        until = None if slot.extensible else slot.start + slot.duration - now
        out.append((DBCOffer(provider, "post", price, slot.start - now, 1, until), slot.start))
    return out


def auctioned_offers(plan, request, *, provider: str) -> list[tuple[DBCOffer, int]]:
    """An auctioning provider's offer for ``request``: the slot at its earliest start, the reserve its quote.

    The provider auctions the job's slot at the machine's earliest start with the slot's externality
    price as the reserve (:func:`gridmarket.auctions.slot.reserve_price`, Singh ch. 5): the buyer sees the
    reserve, not the price. None when the start misses the deadline or the machine is too small.
    """
    found = quoted_offers(plan, request, provider=provider, max_starts=1)
    return [(replace(offer, sells="auction"), t) for offer, t in found]


def buy_dbc_slot(plans, request, *, strategy: str = "cost-time", max_starts: int = 16):
    """Buy ``request``'s slot from ``plans`` by DBC (module notes); returns ``(provider, start, price SU)`` or None.

    ``plans`` maps provider names to :class:`gridmarket.pricing.ProviderPlan` (all at the same ``now``);
    ``request`` is a :class:`gridmarket.auctions.slot.SlotRequest`. Each plan offers its first
    ``max_starts`` feasible candidate starts (the earliest feasible one and the plan's change points
    after it, up to the job's deadline); the chosen start is reserved in its plan (id ``"auction-<id>"``).
    Budget: the job's value; deadline: the valuation's deadline (seconds from now).

    Examples
    --------
    Two idle machines, one dearer (its base rate 2 SU/ph): cost optimisation buys the cheaper.

    >>> from gridmarket.auctions.slot import SlotRequest
    >>> from gridmarket.pricing import ProviderPlan, ProviderState
    >>> from gridmarket.valuation import Valuation
    >>> plans = {"dear": ProviderPlan(ProviderState(0, 4), "easy", unit_cost=2.0),
    ...          "cheap": ProviderPlan(ProviderState(0, 4), "easy")}
    >>> buy_dbc_slot(plans, SlotRequest(1, 4, 3600, Valuation(10.0, 7200, 10)), strategy="cost")
    ('cheap', 0, 4.0)
    >>> buy_dbc_slot(plans, SlotRequest(2, 4, 3600, Valuation(3.0, 7200, 10))) is None  # over budget
    True
    """
    if strategy not in DBC_STRATEGIES:
        raise InvalidInput(f"unknown DBC strategy {strategy!r}; known: {', '.join(DBC_STRATEGIES)}")
    found = [(name, offer, t) for name, plan in plans.items()
             for offer, t in quoted_offers(plan, request, provider=name, max_starts=max_starts)]
    if not found:
        return None
    now = plans[found[0][0]].now
    run, _ = _last_start(request)
    buy = dbc_buy([o for _, o, _ in found], 1, job_time=run, deadline=max(0, request.valuation.deadline - now),
                  budget=request.valuation.value, strategy=strategy, auction=_no_auction)
    if not buy.bought:
        return None
    name, _, start = found[buy.bought[0][0]]
    price = buy.bought[0][2]
    plans[name].reserve(start, request.procs, request.duration, reservation_id=f"auction-{request.id}")
    return name, start, price


def _no_auction(index, offer, jobs, cap):  # pragma: no cover - quotes only
    raise InvalidInput(f"offer {index} of {offer.provider!r} is not auctioned")
