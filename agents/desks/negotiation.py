"""The negotiation desk: bilateral bargaining for each job's slot with one provider after another.

No cycle: when a job arrives the broker bargains with its home provider first, then the others, by
alternating offers over price and start (:func:`gridmarket.negotiation.negotiate_slot`: a Boulware broker,
a conceder provider, ten rounds each, starts within the next ``cycle`` seconds); the first deal is bought.
Times are integer seconds; prices SU.
"""

from __future__ import annotations

from gridmarket.agents.desks.base import PerJobDesk
from gridmarket.agents.messages import Offer
from gridmarket.auctions.slot import SlotRequest
from gridmarket.job import Job
from gridmarket.negotiation import negotiate_slot

__all__ = ["NegotiationDesk"]


class NegotiationDesk(PerJobDesk):
    """Bilateral negotiation with each provider in turn as each job arrives (module notes)."""

    name = "negotiate"

    def trade(self, jobs: list[Job], now: int) -> None:
        b = self.broker
        for job in jobs:
            request = SlotRequest(job.id, job.procs, job.estimate, self.valuations[job.id], job.runtime)
            order = self.home_first(job)
            for p in order:
                if p.procs < job.procs:
                    continue
                plan = b.query(p.name, now, "plan")
                deal = negotiate_slot(plan, request, window=self.cycle)
                self.model.post(Offer(b.name, p.name, now), copies=deal.messages, rounds=deal.rounds)
                if deal.start is not None:
                    self.hold(job, p.name, deal.start, deal.price, now)  # type: ignore[arg-type]  # a deal has a price
                    break
            else:
                self.fallback(job, now)
