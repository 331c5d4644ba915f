"""The continuous double auction desk: one trading day a cycle among ZIP or Gjerstad-Dickhaut traders.

For slots starting within the cycle, providers ask from their slots' externality-priced reserves, the
broker bids from the jobs' values, and trades become reservations
(:func:`gridmarket.auctions.window.trade_window`). A trade voided at settlement leaves its job unsold.
Times are integer seconds; prices SU.
"""

from __future__ import annotations

from gridmarket.agents.desks.base import TradingDesk
from gridmarket.agents.messages import Ask, Bid
from gridmarket.auctions.slot import SlotRequest
from gridmarket.auctions.window import trade_window
from gridmarket.job import Job

__all__ = ["DoubleAuctionDesk", "GDDoubleAuctionDesk"]


class DoubleAuctionDesk(TradingDesk):
    """A continuous double auction among ZIP (or GD) traders every cycle (module notes); seeded by the model's rng."""

    name = "double"
    traders = "zip"

    def __init__(self, broker, steps: int = 500, strategy: str | None = None) -> None:
        super().__init__(broker)
        self.steps = steps
        self.strategy = self.traders if strategy is None else strategy
        self.n_void = 0

    def trade(self, jobs: list[Job], now: int) -> None:
        requests = [SlotRequest(j.id, j.procs, j.estimate, self.valuations[j.id], j.runtime) for j in jobs]
        result = trade_window(self.plans(now), requests, window=self.cycle, rng=self.model.rng, steps=self.steps,
                              strategy=self.strategy)
        shout = {"bid": Bid(self.broker.name, "providers", now), "ask": Ask("providers", self.broker.name, now)}
        for side, n in result.shouts.items():
            self.model.post(shout[side], copies=n, rounds=n)  # each shout of a double auction is a round
        self.n_void += result.void
        self.conclude(jobs, result.sales, result.unsold, now)


class GDDoubleAuctionDesk(DoubleAuctionDesk):
    """The double auction among Gjerstad-Dickhaut traders."""

    name = "double-gd"
    traders = "gd"
