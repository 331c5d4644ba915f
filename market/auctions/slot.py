"""A provider auctions one slot of its plan, its reserve the slot's cost to its queue (Singh 2008, ch. 5).

The bridge between the seeds' pricing and auctions (issue 17): the seller's reserve is the total cost
of the slot it would quote at that start (form 17, :func:`market.pricing.quote_at`): the base rate
``c * n * D`` plus the externality price ``f``, the processor-hours its queued jobs lose if the slot
is sold (Fig. 22). So no auction sells a slot for less than what it costs the provider's other users,
and a start the plan cannot give (running jobs or reservations hold it) is not auctioned at all.
Prices in SU.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from market.auctions.single import AuctionResult, dutch, english, first_price, vickrey
from market.errors import InvalidInput
from market.pricing import BASE_RATE, ExternalityPricer, quote_at

__all__ = ["SLOT_AUCTIONS", "auction_slot", "reserve_price"]

SLOT_AUCTIONS = ("first-price", "vickrey", "english", "dutch")


def reserve_price(pricer: ExternalityPricer, start: int, procs: int, duration: int, *,
                  unit_cost: float = BASE_RATE) -> float:
    """The provider's reserve for the slot: ``c * n * D + f`` in SU; ``inf`` where the plan refuses the start.

    Thesis Fig. 21: 2 processors for 3 h from hour 2 delay C by 1 h and D by 2 h (f = 6 SU), on top
    of a base cost of 6 processor-hours at c = 1:

    >>> from market.job import Job
    >>> from market.pricing import ProviderState, RunningJob
    >>> from market.reservation import Reservation
    >>> H = 3600
    >>> fig21 = ProviderState(0, 5, running=(RunningJob(1, 1, 0, 2 * H), RunningJob(2, 3, 0, 3 * H)),
    ...                       queue=(Job(3, 0, 2, 2 * H, 2 * H), Job(4, 0, 2, 3 * H, 3 * H)),
    ...                       reservations=(Reservation("R", 5 * H, 2, 3 * H),))
    >>> reserve_price(ExternalityPricer(fig21), 2 * H, 2, 3 * H)
    12.0
    """
    return quote_at(pricer, start, procs, duration, unit_cost=unit_cost).total_cost


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
