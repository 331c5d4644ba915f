"""A provider auctions one slot of its plan, its reserve the slot's cost to its queue (Singh 2008, ch. 5).

The bridge between the seeds' pricing and auctions: the seller's reserve is the total cost
of the slot it would quote at that start (form 17, :func:`gridmarket.pricing.quote_at`): the base rate
``c * n * D`` plus the externality price ``f``, the processor-hours its queued jobs lose if the slot
is sold (Fig. 22). So no auction sells a slot for less than what it costs the provider's other users,
and a start the plan cannot give (running jobs or reservations hold it) is not auctioned at all.
Prices in SU.

:func:`auction_round` is the market the ``first-price``, ``vickrey``, ``english`` and ``dutch``
interaction models run every cycle: providers take turns auctioning, each to the pending requests
that fit it, the slot each would get there (its earliest start in the plan), bids and reserves per
processor-hour (:func:`gridmarket.auctions.bidding.auction_per_unit`); a sale is placed in the plan at
once, so the next auction prices the changed queue.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from gridmarket.auctions.bidding import auction_per_unit
from gridmarket.auctions.single import AuctionResult, dutch, english, first_price, vickrey
from gridmarket.errors import InvalidInput
from gridmarket.pricing import BASE_RATE, SECONDS_PER_HOUR, ExternalityPricer, ProviderPlan, total_cost_at
from gridmarket.valuation import Valuation

__all__ = ["SLOT_AUCTIONS", "RoundResult", "Sale", "SlotRequest", "auction_round", "auction_slot", "reserve_price"]

SLOT_AUCTIONS = ("first-price", "vickrey", "english", "dutch")


def reserve_price(pricer: ExternalityPricer, start: int, procs: int, duration: int, *,
                  unit_cost: float = BASE_RATE) -> float:
    """The provider's reserve for the slot: ``c * n * D + f`` in SU; ``inf`` where the plan refuses the start.

    Thesis Fig. 21: 2 processors for 3 h from hour 2 delay C by 1 h and D by 2 h (f = 6 SU), on top
    of a base cost of 6 processor-hours at c = 1:

    >>> from gridmarket.job import Job
    >>> from gridmarket.pricing import ProviderState, RunningJob
    >>> from gridmarket.reservation import Reservation
    >>> H = 3600
    >>> fig21 = ProviderState(0, 5, running=(RunningJob(1, 1, 0, 2 * H), RunningJob(2, 3, 0, 3 * H)),
    ...                       queue=(Job(3, 0, 2, 2 * H, 2 * H), Job(4, 0, 2, 3 * H, 3 * H)),
    ...                       reservations=(Reservation("R", 5 * H, 2, 3 * H),))
    >>> reserve_price(ExternalityPricer(fig21), 2 * H, 2, 3 * H)
    12.0
    """
    return total_cost_at(pricer, start, procs, duration, unit_cost=unit_cost)


def auction_slot(pricer: ExternalityPricer, start: int, procs: int, duration: int, bids: Sequence[float], *,
                 mechanism: str = "vickrey", unit_cost: float = BASE_RATE, step: float = 1.0) -> AuctionResult:
    """Auction the slot among ``bids`` (each bidder's bid, or its value for the English clock and its stop
    price for the Dutch one) with :func:`reserve_price` as the reserve; ``step`` is the clocks' step (SU).

    A start the plan refuses is not sold (``winner=None``).
    """
    if mechanism not in SLOT_AUCTIONS:
        raise InvalidInput(f"unknown slot auction {mechanism!r}; known: {', '.join(SLOT_AUCTIONS)}")
    reserve = reserve_price(pricer, start, procs, duration, unit_cost=unit_cost)
    if math.isinf(reserve):
        return AuctionResult(None, None, 0, 0)
    if mechanism == "first-price":
        return first_price(bids, reserve)
    if mechanism == "vickrey":
        return vickrey(bids, reserve)
    if mechanism == "english":
        return english(bids, reserve, increment=step)
    return dutch(bids, reserve, decrement=step)


@dataclass(frozen=True, slots=True)
class SlotRequest:
    """A job asking for ``procs`` processors over ``duration`` s (its estimate), valued by ``valuation``.

    ``runtime``: seconds the job runs in the slot, known to its owner (private information, as its
    value is); the slot's worth is the valuation at ``start + runtime``. Default: the whole duration.
    """

    id: int
    procs: int
    duration: int
    valuation: Valuation
    runtime: int | None = None

    def __post_init__(self) -> None:
        for key in ("procs", "duration"):
            v = getattr(self, key)
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise InvalidInput(f"request {self.id!r}: {key} must be an int >= 1, got {v!r}")
        if not isinstance(self.valuation, Valuation):
            raise InvalidInput(f"request {self.id!r}: valuation must be a Valuation, got {self.valuation!r}")
        if self.runtime is not None and (isinstance(self.runtime, bool) or not isinstance(self.runtime, int)
                                         or self.runtime < 0):
            raise InvalidInput(f"request {self.id!r}: runtime must be an int >= 0 s or None, got {self.runtime!r}")

    def worth(self, start: int) -> float:
        """The slot at ``start`` is worth the valuation where the job ends in it (SU)."""
        run = self.duration if self.runtime is None else min(self.runtime, self.duration)
        return self.valuation.utility(start + run)

    @property
    def hours(self) -> float:
        """Processor-hours of the slot (the unit bids are priced in)."""
        return self.procs * self.duration / SECONDS_PER_HOUR


@dataclass(frozen=True, slots=True)
class Sale:
    """Request ``request`` won ``provider``'s slot at ``start`` s for ``price`` SU (``reserve`` SU its floor)."""

    request: int
    provider: str
    start: int
    price: float
    reserve: float


@dataclass(frozen=True, slots=True)
class RoundResult:
    """Sales, the requests left unsold, and the auctions' count, clock rounds and bid messages."""

    sales: tuple[Sale, ...]
    unsold: tuple[int, ...]
    auctions: int
    rounds: int
    messages: int


def _reserve(plan: ProviderPlan, start: int, procs: int, duration: int) -> float:
    if plan.pricing == "externality":
        return reserve_price(plan.pricer, start, procs, duration, unit_cost=plan.unit_cost)
    return plan.price(start, procs, duration).total_cost  # another pricing rule's quote (form 17)


def auction_round(plans: dict[str, ProviderPlan], requests: list[SlotRequest], *, mechanism: str,
                  step: float = 0.05, opening: float | None = None, window: int | None = None) -> RoundResult:
    """Sell slots of ``plans`` to ``requests`` by repeated single-item auctions; the plans take the sales.

    Providers take turns in the order of ``plans``; each auctions, to the unsold requests that fit
    its machine, the slot each would get at its earliest start in the plan (after running jobs and
    reservations: it may jump the queue, and then its reserve carries the externality price). A
    bidder's value is its valuation where its job ends in the slot (:meth:`SlotRequest.worth`);
    value and reserve are divided by the
    slot's processor-hours (:func:`~gridmarket.auctions.bidding.auction_per_unit`). With ``window`` (s),
    only slots starting before ``now + window`` are auctioned: a provider sells its near capacity,
    and a request whose earliest start there is later does not bid there. The winner's slot is
    reserved in the plan (:meth:`~gridmarket.pricing.ProviderPlan.reserve`, id ``"auction-<id>"``) and it
    pays its unit price times its processor-hours. Turns go on until a whole turn sells nothing.

    Each request wins at most once; a winner's price is at least its slot's reserve and at most its
    value (individual rationality, checked by the tests). O(turns x providers x requests) quotes.

    Examples
    --------
    One idle 4-processor machine and two jobs of 4 processors for an hour, worth 6 and 5 SU by
    their deadlines (1.5 and 1.25 SU/ph; the reserve is the base rate, 1 SU/ph, nothing queued to
    delay): the first wins the slot now and pays the second's value per processor-hour times 4 =
    5 SU in a Vickrey auction; the second, alone, then wins the next hour at the reserve, 4 SU.

    >>> from gridmarket.pricing import ProviderState
    >>> plan = ProviderPlan(ProviderState(0, 4), "conservative")
    >>> reqs = [SlotRequest(1, 4, 3600, Valuation(6.0, 9000, 9000)), SlotRequest(2, 4, 3600, Valuation(5.0, 9000, 9000))]
    >>> r = auction_round({"a": plan}, reqs, mechanism="vickrey")
    >>> [(s.request, s.start, s.price) for s in r.sales], r.unsold
    ([(1, 0, 5.0), (2, 3600, 4.0)], ())

    Selling only the next half hour, the second job (its earliest start an hour away) is left unsold:

    >>> plan = ProviderPlan(ProviderState(0, 4), "conservative")
    >>> auction_round({"a": plan}, reqs, mechanism="vickrey", window=1800).unsold
    (2,)
    """
    if mechanism not in SLOT_AUCTIONS:
        raise InvalidInput(f"mechanism: unknown slot auction {mechanism!r}; known: {', '.join(SLOT_AUCTIONS)}")
    if window is not None and (isinstance(window, bool) or not isinstance(window, int) or window < 1):
        raise InvalidInput(f"window must be an int >= 1 s or None, got {window!r}")
    ids = [r.id for r in requests]
    if len(set(ids)) != len(ids):
        raise InvalidInput("requests: ids must be unique")
    pending = list(requests)
    sales: list[Sale] = []
    auctions = rounds = messages = 0
    sold = True
    while pending and sold:
        sold = False
        for name, plan in plans.items():
            bidders = [r for r in pending if r.procs <= plan.procs]
            if not bidders:
                continue
            starts, values, reserves, floors = [], [], [], []
            for r in bidders:
                start = plan.pricer.base.earliest_start(r.procs, r.duration, after=plan.now)
                if window is not None and start >= plan.now + window:
                    cost = math.inf  # not in the window this provider sells
                else:
                    cost = _reserve(plan, start, r.procs, r.duration)
                starts.append(start)
                floors.append(cost)
                values.append(r.worth(start) / r.hours)
                reserves.append(cost / r.hours if math.isfinite(cost) else math.inf)
            live = [i for i in range(len(bidders)) if math.isfinite(reserves[i])]
            res = auction_per_unit([values[i] for i in live], [reserves[i] for i in live], mechanism=mechanism,
                                   step=step, opening=opening)
            auctions += 1
            rounds += res.rounds
            messages += res.messages
            if res.winner is None or res.price is None:  # not sold
                continue
            k = live[res.winner]
            r = bidders[k]
            plan.reserve(starts[k], r.procs, r.duration, reservation_id=f"auction-{r.id}")
            sales.append(Sale(r.id, name, starts[k], res.price * r.hours, floors[k]))
            pending.remove(r)
            sold = True
    return RoundResult(tuple(sales), tuple(r.id for r in pending), auctions, rounds, messages)
