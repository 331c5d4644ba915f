"""Deadline-and-budget-constrained (Nimrod-G) desks: each job as it arrives (``dbc``) or once a cycle (``dbc-cycle``).

The broker asks every provider for what it sells (its ``sells``): a quoting provider's priced starts
(its plan, form 19), an advertising provider's posted slots at the best-effort rate, an auctioning
provider's slot at the machine's earliest start with its quote as the reserve, and buys by Nimrod-G's
cost-time optimisation (:func:`gridmarket.provisioning.dbc.dbc_buy`: budget the job's value, deadline
its valuation's). An auction is a sealed second-price auction (:func:`gridmarket.auctions.single.vickrey`).
Times are integer seconds; prices SU.
"""

from __future__ import annotations

from gridmarket.agents.desks.base import PerJobDesk, TradingDesk
from gridmarket.agents.messages import Bid
from gridmarket.auctions.single import vickrey
from gridmarket.auctions.slot import SlotRequest
from gridmarket.job import Job
from gridmarket.pricing import BASE_RATE
from gridmarket.provisioning.dbc import DBCOffer, auctioned_offers, dbc_buy, dbc_plan, posted_offers, quoted_offers

__all__ = ["CycleDBCDesk", "DBCDesk"]


class DBCDesk(PerJobDesk):
    """A deadline-and-budget-constrained broker buying each job's slot as it arrives (module notes).

    ``n_bids`` and ``n_bids_won`` count its bids at auctioning providers.
    """

    name = "dbc"

    def __init__(self, broker, strategy: str = "cost-time") -> None:
        super().__init__(broker)
        self.strategy = strategy
        self.n_bids = self.n_bids_won = 0

    def offers(self, job: Job, now: int) -> list[tuple[DBCOffer, int]]:
        """The providers' offers for ``job`` by the way they sell: ``(offer, start s)``, in the broker's order of
        providers (one query each).

        For one job DBC buys the cheapest offer, the earliest of equals, the first of those
        (:func:`gridmarket.provisioning.dbc.dbc_buy`), so an offer that another matches in price with a start
        no later, and comes first or starts strictly earlier (cost-time and time optimisation: it ends the
        search before the other has room), is never bought. A quoting provider under externality pricing
        asks at least the processor-hours at the base rate from its machine's earliest start
        (:meth:`~gridmarket.agents.provider.ResourceProvider.earliest_start`): the broker asks providers by
        that start, and not one whose every offer a free quote in hand already beats (nor is its plan
        built); a provider's own list ends at its first free start (``quoted_offers(dominated=False)``).
        """
        b = self.broker
        request = SlotRequest(job.id, job.procs, job.estimate, self.valuations[job.id], job.runtime)
        least = request.hours * BASE_RATE  # a quote's total with f = 0, as quoted_offers sums it
        strictly_earlier_wins = self.strategy != "cost"  # cost optimisation ties on price by order alone
        asks = []  # (earliest start or -1 when no bound applies, position, provider)
        for pos, p in enumerate(b.providers()):
            if p.sells == "quote" and p.pricing == "externality":
                start = p.earliest_start(job.procs, job.estimate, now)
                if start is not None:  # None: too small to offer
                    asks.append((start, pos, p))
            else:
                asks.append((-1, pos, p))
        asks.sort(key=lambda a: a[:2])
        free: list[tuple[int, int]] = []  # (start, position) of the free quotes in hand
        by_pos: dict[int, list[tuple[DBCOffer, int]]] = {}
        for bound, pos, p in asks:
            if bound >= 0 and any(t < bound if strictly_earlier_wins and q > pos else t <= bound and q < pos
                                  for t, q in free):
                continue  # every offer it could make is beaten by a free quote in hand
            if p.sells == "post":
                slots = b.query(p.name, now, "advertise")
                if p.procs >= job.procs:
                    by_pos[pos] = posted_offers(slots, request, provider=p.name, now=now)
                continue
            plan = b.query(p.name, now, "plan")
            if p.sells == "quote":
                offers = quoted_offers(plan, request, provider=p.name, dominated=False)
                free += [(t, pos) for o, t in offers if o.price <= least][:1]
                by_pos[pos] = offers
            else:
                by_pos[pos] = auctioned_offers(plan, request, provider=p.name)
        return [offer for pos in sorted(by_pos) for offer in by_pos[pos]]

    def _auction(self, index: int, offer: DBCOffer, jobs: int, cap: float) -> float | None:
        """The provider's sealed second-price auction of the slot; the broker bids its cap (truthful)."""
        result = vickrey([cap], reserve=offer.price)
        self.n_bids += 1
        self.model.post(Bid(self.broker.name, offer.provider, int(self.model.time), cap), rounds=1)
        if result.winner is None:
            return None
        self.n_bids_won += 1
        return result.price

    def trade(self, jobs: list[Job], now: int) -> None:
        for job in jobs:
            self._buy(job, self.offers(job, now), now)

    def _buy(self, job: Job, found: list, now: int) -> None:
        """Buy ``job``'s slot by DBC among ``found`` (offer, start) pairs; with none in budget and deadline, queue it."""
        v = self.valuations[job.id]
        buy = dbc_buy([o for o, _ in found], 1, job_time=max(1, min(job.runtime, job.estimate)),
                      deadline=max(0, v.deadline - now), budget=v.value, strategy=self.strategy,
                      auction=self._auction)
        if not buy.bought:
            self.fallback(job, now)
            return
        index, _, price = buy.bought[0]
        self.hold(job, found[index][0].provider, found[index][1], price, now)


class CycleDBCDesk(DBCDesk):
    """A DBC broker that gathers the jobs arriving within a scheduling cycle and plans them together (module notes).

    Nimrod-G's broker schedules once per scheduling event over the jobs then waiting (Buyya,
    Abramson & Giddy, HPC Asia 2000; Buyya 2002, ch. 6). Every ``cycle`` seconds this desk takes the
    jobs gathered since in order of deadline, earliest first (ties by id), and buys each by the
    same cost-time DBC as ``dbc`` on fresh offers (the cycle's earlier purchases already held). An
    auctioning provider auctions its slot to every job of the cycle still unplaced whose own DBC
    plan (auctions at their reserves) bids there, not only to the job whose turn it is: a sealed
    second-price auction in which each bids its value (its budget share: one job) and may enter
    only at or above its own slot's reserve; the highest bid wins (ties to the earlier deadline)
    and pays the larger of its reserve and the next bid. A rival that wins buys its slot at once;
    the job whose turn it was re-plans without that auction. ``n_contested`` counts the auctions
    with more than one bidder.
    """

    name = "dbc-cycle"
    take = TradingDesk.take

    def __init__(self, broker, strategy: str = "cost-time") -> None:
        super().__init__(broker, strategy)
        self.n_contested = 0
        self._left: list[Job] = []
        self._turn: tuple[Job, list[tuple[DBCOffer, int]], int] | None = None  # (job, its offers, now) while it buys

    def trade(self, jobs: list[Job], now: int) -> None:
        self._left = sorted(jobs, key=lambda j: (self.valuations[j.id].deadline, j.id))
        while self._left:
            job = self._left.pop(0)
            found = self.offers(job, now)
            self._turn = (job, found, now)
            self._buy(job, found, now)
        self._turn = None

    def _bids_at(self, job: Job, provider: str, now: int) -> tuple[float, float, int] | None:
        """``(value, reserve, start)`` when ``job``'s own DBC plan (auctions at their reserves) bids at ``provider``'s
        auction; None otherwise."""
        v = self.valuations[job.id]
        found = self.offers(job, now)
        run = max(1, min(job.runtime, job.estimate))
        resources = [o.resource(str(i), run) for i, (o, _) in enumerate(found)]
        plan = dbc_plan(resources, 1, deadline=max(0, v.deadline - now), budget=v.value, strategy=self.strategy)
        if plan is None:
            return None
        i = next(i for i, k in enumerate(plan.jobs) if k)
        offer, start = found[i]
        if offer.provider != provider or offer.sells != "auction":
            return None
        return v.value, offer.price, start

    def _auction(self, index: int, offer: DBCOffer, jobs: int, cap: float) -> float | None:
        job, found, now = self._turn  # type: ignore[misc]  # auctions run while a job buys
        bidders = [(job, found[index][1])]  # (job, the start its slot would have), the job whose turn it is first
        bids, reserves = [cap], [offer.price]
        for other in self._left:  # the rest of the cycle, earliest deadline first: ties go to the earlier
            bid = self._bids_at(other, offer.provider, now)
            if bid is not None:
                bidders.append((other, bid[2]))
                bids.append(bid[0])
                reserves.append(bid[1])
        result = vickrey(bids, reserves=reserves)  # each bidder's own slot reserve (its start differs)
        self.n_bids += result.messages
        self.model.post(Bid(self.broker.name, offer.provider, now), copies=result.messages, rounds=1)
        if result.messages > 1:
            self.n_contested += 1
        if result.winner is None:
            return None
        self.n_bids_won += 1
        winner, start = bidders[result.winner]
        if winner is job:
            return min(result.price, cap)  # type: ignore[type-var]  # a sale has a price
        self._left.remove(winner)  # a rival of the cycle wins the slot and buys it now
        self.hold(winner, offer.provider, start, result.price, now)  # type: ignore[arg-type]  # a sale has a price
        return None
