"""Bilateral negotiation by alternating offers over price and start time, with time-dependent tactics.

P. Faratin, C. Sierra, N. R. Jennings, "Negotiation decision functions for autonomous agents",
Robotics and Autonomous Systems 24 (1998) 159-182, sec. 4.2.1 (time-dependent tactics) and the
alternating-offers protocol of its sec. 3. A broker (buyer) and a provider (seller) negotiate a
slot's price (SU) and start (seconds from now). Each has, per issue, a range ``[min, max]`` and
a scoring weight; its score of an offer is ``sum_j w_j V_j(x_j)`` with ``V_j`` linear over the range
(1 at its preferred end: the buyer prefers a low price and an early start, the provider a high price
and a late start, which leaves its queue room). At round ``t`` of its deadline ``T`` an agent offers,
on every issue, its preferred end conceded by ``alpha(t) = kappa + (1 - kappa) (min(t, T) / T)^(1/beta)``
of the range: ``beta < 1`` is Boulware (holds out, concedes near the deadline), ``beta > 1`` a
conceder, ``beta = 1`` linear.

Protocol: the buyer offers at round 0, then they alternate. The receiver accepts when the offer
scores at least as much for it as the offer it would make next (Faratin's acceptance rule);
otherwise it counter-offers. An agent past its deadline withdraws: no deal. So every negotiation
ends by the earlier deadline plus one round.

:func:`negotiate_slot` is the ``negotiate`` interaction model's use of it: a broker and a
provider bargain over a job's slot in the provider's plan. Prices are SU for the whole slot; starts
are seconds from now, both sides' range ``[earliest, earliest + window]`` (the buyer prefers early,
the provider late, which delays its queue less). The provider asks from a multiple of its reserve
down to its reserve (the slot's externality-priced quote at the earliest start); the broker offers
from the base-rate cost up to the job's worth at the earliest start. A deal is settled at the first
start the plan can give at or after the agreed one, and only if that slot's own reserve is covered
by the price and the job's worth there covers it too (individual rationality for both).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from gridmarket.errors import InvalidInput

__all__ = ["Negotiator", "Outcome", "SlotDeal", "negotiate", "negotiate_slot"]

_ISSUES = ("price", "start")


@dataclass(frozen=True, slots=True)
class Negotiator:
    """One side: ``role`` ``"buyer"`` or ``"seller"``, its ranges, weights, deadline (rounds) and tactic."""

    role: str
    price: tuple[float, float]
    start: tuple[float, float]
    deadline: int
    beta: float = 1.0
    kappa: float = 0.0
    weights: tuple[float, float] = (0.5, 0.5)

    def __post_init__(self) -> None:
        if self.role not in ("buyer", "seller"):
            raise InvalidInput(f"role must be 'buyer' or 'seller', got {self.role!r}")
        for issue in _ISSUES:
            lo, hi = getattr(self, issue)
            if not (math.isfinite(lo) and math.isfinite(hi) and 0 <= lo <= hi):
                raise InvalidInput(f"{self.role}: {issue} range must be finite with 0 <= min <= max, got {(lo, hi)!r}")
        if isinstance(self.deadline, bool) or not isinstance(self.deadline, int) or self.deadline < 1:
            raise InvalidInput(f"{self.role}: deadline must be an int >= 1 rounds, got {self.deadline!r}")
        if not (math.isfinite(self.beta) and self.beta > 0):
            raise InvalidInput(f"{self.role}: beta must be a finite number > 0, got {self.beta!r}")
        if not 0 <= self.kappa <= 1:
            raise InvalidInput(f"{self.role}: kappa must be in [0, 1], got {self.kappa!r}")
        if len(self.weights) != 2 or min(self.weights) < 0 or not math.isclose(sum(self.weights), 1.0):
            raise InvalidInput(f"{self.role}: weights must be two numbers >= 0 adding up to 1, got {self.weights!r}")

    def _alpha(self, t: int) -> float:
        return self.kappa + (1 - self.kappa) * (min(t, self.deadline) / self.deadline) ** (1 / self.beta)

    def offer(self, t: int) -> tuple[float, float]:
        """(price, start) this side offers at round ``t``."""
        a = self._alpha(t)
        out = []
        for issue in _ISSUES:
            lo, hi = getattr(self, issue)
            # the buyer starts from the low end of both issues, the seller from the high end
            out.append(lo + a * (hi - lo) if self.role == "buyer" else lo + (1 - a) * (hi - lo))
        return out[0], out[1]

    def score(self, offer: tuple[float, float]) -> float:
        """This side's score of ``offer`` in [0, 1] inside its ranges (below 0 or above 1 outside)."""
        total = 0.0
        for w, issue, x in zip(self.weights, _ISSUES, offer):
            lo, hi = getattr(self, issue)
            v = 1.0 if hi == lo else (x - lo) / (hi - lo)
            total += w * (1.0 - v if self.role == "buyer" else v)
        return total

    def acceptable(self, offer: tuple[float, float]) -> bool:
        """Whether ``offer`` is no worse than this side's reservation values on both issues (the buyer's
        highest price and latest start, the seller's lowest price and earliest start)."""
        if self.role == "buyer":
            return all(x <= getattr(self, issue)[1] + 1e-9 for issue, x in zip(_ISSUES, offer))
        return all(x >= getattr(self, issue)[0] - 1e-9 for issue, x in zip(_ISSUES, offer))


@dataclass(frozen=True, slots=True)
class Outcome:
    """``deal`` (price, start) or None, the round it ended in, and the offers exchanged."""

    deal: tuple[float, float] | None
    rounds: int
    messages: int


def negotiate(buyer: Negotiator, seller: Negotiator) -> Outcome:
    """Alternating offers between ``buyer`` and ``seller`` (module notes).

    Examples
    --------
    Linear tactics, price ranges 0-10 (buyer) and 4-12 (seller), start ranges equal: they meet
    where the buyer's rising offer reaches what the seller's next offer asks.

    >>> b = Negotiator("buyer", price=(0, 10), start=(0, 3600), deadline=10)
    >>> s = Negotiator("seller", price=(4, 12), start=(0, 3600), deadline=10)
    >>> out = negotiate(b, s)
    >>> out.deal is not None and 4 <= out.deal[0] <= 10, out.rounds <= 11
    (True, True)
    >>> negotiate(b, Negotiator("seller", price=(11, 12), start=(0, 3600), deadline=10)).deal is None
    True
    """
    if buyer.role != "buyer" or seller.role != "seller":
        raise InvalidInput("negotiate(buyer, seller): give a buyer then a seller")
    sides = (buyer, seller)
    offer = buyer.offer(0)
    messages = 1
    last = min(buyer.deadline, seller.deadline)
    for t in range(1, last + 2):
        receiver = sides[t % 2]
        if t > receiver.deadline:
            return Outcome(None, t, messages)  # past its deadline: it withdraws
        counter = receiver.offer(t)
        if receiver.acceptable(offer) and receiver.score(offer) >= receiver.score(counter) - 1e-12:
            return Outcome(offer, t, messages + 1)
        offer = counter
        messages += 1
    return Outcome(None, last + 1, messages)


@dataclass(frozen=True, slots=True)
class SlotDeal:
    """A negotiation for a slot: the settled ``start`` (s) and ``price`` (SU) or None, and its cost."""

    start: int | None
    price: float | None
    reserve: float | None
    rounds: int
    messages: int


def negotiate_slot(plan, request, *, window: int, deadline: int = 10, buyer_beta: float = 0.5,
                   seller_beta: float = 2.0, markup: float = 2.0, weights: tuple[float, float] = (0.8, 0.2)) -> SlotDeal:
    """Bargain with ``plan``'s provider for ``request``'s slot (module notes); the plan takes a settled deal.

    ``plan`` is a :class:`gridmarket.pricing.ProviderPlan`, ``request`` a
    :class:`gridmarket.auctions.slot.SlotRequest`. Both sides have ``deadline`` rounds; the broker is
    Boulware (``buyer_beta`` < 1), the provider a conceder (``seller_beta`` > 1) by default; the
    provider opens at ``markup`` times its reserve. ``weights`` weigh price and start in both scores.
    No deal when the job does not fit, its earliest start is past the window, or its worth there is
    below the reserve (then no offer is exchanged).

    Examples
    --------
    An idle 4-processor machine, a 4-processor one-hour job worth 10 SU: the reserve is the base rate,
    4 SU; they settle between 4 and 10 SU on a start within the window.

    >>> from gridmarket.auctions.slot import SlotRequest
    >>> from gridmarket.pricing import ProviderPlan, ProviderState
    >>> from gridmarket.valuation import Valuation
    >>> plan = ProviderPlan(ProviderState(0, 4), "easy")
    >>> d = negotiate_slot(plan, SlotRequest(1, 4, 3600, Valuation(10.0, 10**6, 10)), window=600)
    >>> 4.0 <= d.price <= 10.0, 0 <= d.start <= 600, d.rounds <= 11
    (True, True, True)
    """
    from gridmarket.auctions.slot import _reserve

    if isinstance(window, bool) or not isinstance(window, int) or window < 0:
        raise InvalidInput(f"window must be an int >= 0 s, got {window!r}")
    if not (math.isfinite(markup) and markup >= 1):
        raise InvalidInput(f"markup must be a finite number >= 1, got {markup!r}")
    if request.procs > plan.procs:
        return SlotDeal(None, None, None, 0, 0)
    now = plan.now
    first = plan.pricer.base.earliest_start(request.procs, request.duration, after=now)
    if first > now + window:
        return SlotDeal(None, None, None, 0, 0)
    reserve = _reserve(plan, first, request.procs, request.duration)
    worth = request.worth(first)
    if not math.isfinite(reserve) or worth < reserve:
        return SlotDeal(None, None, reserve, 0, 0)
    base = request.hours * plan.unit_cost
    span = (0.0, float(now + window - first))
    buyer = Negotiator("buyer", price=(min(base, worth), worth), start=span, deadline=deadline, beta=buyer_beta,
                       weights=weights)
    seller = Negotiator("seller", price=(reserve, max(reserve, markup * reserve)), start=span, deadline=deadline,
                        beta=seller_beta, weights=weights)
    out = negotiate(buyer, seller)
    if out.deal is None:
        return SlotDeal(None, None, reserve, out.rounds, out.messages)
    price, offset = out.deal
    start = plan.pricer.base.earliest_start(request.procs, request.duration, after=first + int(round(offset)))
    cost = _reserve(plan, start, request.procs, request.duration)
    if start > now + window or not cost <= price + 1e-9 or request.worth(start) < price - 1e-9:
        return SlotDeal(None, None, cost, out.rounds, out.messages)
    plan.reserve(start, request.procs, request.duration, reservation_id=f"auction-{request.id}")
    return SlotDeal(start, float(price), cost, out.rounds, out.messages)
