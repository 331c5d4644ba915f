"""Slot auctions: providers auction slots of their plans to the jobs of a cycle (first-price, Vickrey, English, Dutch).

Providers auction slots of their plans that start within the coming cycle, in turns, each with the
slot's externality-priced quote as its reserve (:func:`gridmarket.auctions.slot.auction_round`); the
broker bids for every job by the format's textbook rule (:mod:`gridmarket.auctions.bidding`). Times are
integer seconds; prices SU.
"""

from __future__ import annotations

from gridmarket.agents.desks.base import TradingDesk
from gridmarket.agents.messages import Bid
from gridmarket.auctions.slot import SlotRequest, auction_round
from gridmarket.errors import InvalidInput
from gridmarket.job import Job
from gridmarket.pricing import BASE_RATE
from gridmarket.valuation import VALUE_FACTOR

__all__ = ["AUCTION_METHODS", "CLOCK_STEP", "DUTCH_OPENING", "DutchDesk", "EnglishDesk", "FirstPriceDesk",
           "SlotAuctionDesk", "VickreyDesk"]

AUCTION_METHODS = ("first-price", "vickrey", "english", "dutch")

CLOCK_STEP = 0.05
"""Step of the English and Dutch clocks, SU per processor-hour (5 % of the base rate)."""

DUTCH_OPENING = VALUE_FACTOR[1] * BASE_RATE
"""The Dutch clock opens at the highest unit value the valuations give (SU per processor-hour)."""


class SlotAuctionDesk(TradingDesk):
    """Providers auction slots to the cycle's jobs by ``mechanism`` (module notes; default: the desk's name)."""

    def __init__(self, broker, mechanism: str | None = None, step: float = CLOCK_STEP) -> None:
        mechanism = self.name if mechanism is None else mechanism
        if mechanism not in AUCTION_METHODS:
            raise InvalidInput(f"auction must be one of {AUCTION_METHODS}, got {mechanism!r}")
        super().__init__(broker)
        self.mechanism = mechanism
        self.step = step

    def trade(self, jobs: list[Job], now: int) -> None:
        requests = [SlotRequest(j.id, j.procs, j.estimate, self.valuations[j.id], j.runtime) for j in jobs]
        result = auction_round(self.plans(now), requests, mechanism=self.mechanism, step=self.step,
                               opening=DUTCH_OPENING, window=self.cycle)
        self.model.post(Bid(self.broker.name, "providers", now), copies=result.messages, rounds=result.rounds)
        self.conclude(jobs, result.sales, result.unsold, now)


class FirstPriceDesk(SlotAuctionDesk):
    """First-price sealed-bid slot auctions."""

    name = "first-price"


class VickreyDesk(SlotAuctionDesk):
    """Second-price sealed-bid slot auctions."""

    name = "vickrey"


class EnglishDesk(SlotAuctionDesk):
    """Ascending-clock slot auctions."""

    name = "english"


class DutchDesk(SlotAuctionDesk):
    """Descending-clock slot auctions."""

    name = "dutch"
