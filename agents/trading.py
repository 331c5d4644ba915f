"""The broker's trading desks: users' jobs bought in a market instead of queued (issue 17).

A desk belongs to the broker of a job-market interaction model. Users hand it their jobs (not
only workflows and reservation requests); it trades for slots on the providers' plans, the
auctions every ``cycle`` seconds (on the multiples of ``cycle``, as the metascheduler's cycles)
over the jobs gathered since, the bilateral ones as each job arrives:

* :class:`SlotAuctionDesk` (``first-price``, ``vickrey``, ``english``, ``dutch``): providers auction
  slots of their plans that start within the coming cycle, in turns, each with the slot's
  externality-priced quote as its reserve (:func:`market.auctions.slot.auction_round`); the broker
  bids for every job by the format's textbook rule (:mod:`market.auctions.bidding`).
* :class:`DoubleAuctionDesk` (``double``, ``double-gd``): one trading day of a continuous double
  auction a cycle among ZIP (``double``) or Gjerstad-Dickhaut (``double-gd``) traders, for slots
  starting within the cycle; providers ask from their slots' externality-priced reserves, the
  broker bids from the jobs' values, trades become reservations
  (:func:`market.auctions.window.trade_window`). A trade voided at settlement leaves its job unsold.
* :class:`NegotiationDesk` (``negotiate``): no cycle; when a job arrives the broker bargains for
  its slot with one provider after another (home first), by alternating offers over price and start
  (:func:`market.negotiation.negotiate_slot`: a Boulware broker, a conceder provider, ten rounds
  each, starts within the next ``cycle`` seconds); the first deal is bought.
* :class:`DBCDesk` (``dbc``): no cycle; when a job arrives the broker asks every provider for what
  it sells (its ``sells``): a quoting provider's priced starts (its plan, form 19), an advertising
  provider's posted slots at the best-effort rate, an auctioning provider's slot at the machine's
  earliest start with its quote as the reserve. It buys by Nimrod-G's deadline-and-budget-
  constrained cost-time optimisation (:func:`market.provisioning.dbc.dbc_buy`: budget the job's
  value, deadline its valuation's), bidding at an auction at most its remaining budget share in a
  sealed second-price auction (one bidder at a time here: it pays the reserve, or loses when the
  reserve is above its cap and re-plans); no plan within both means the home queue.
* :class:`SLADesk` (``sla``): no cycle; when a job arrives the broker asks every provider for a
  service-level agreement: a start in ``[now, deadline - runtime]`` (the job's valuation, so an
  on-time start ends by the deadline), at most the job's value, penalties that repay the value the
  user loses (:func:`sla_penalty`). Each provider signs only what its plan can honour
  (:func:`market.sla.offer_sla`, earliest start); the broker accepts the cheapest contract (ties to
  the earliest start, then home first) and reserves it. After the run every contract is settled
  against the job's recorded start and end (:func:`market.sla.settle`): the provider is paid the
  price less its penalty, and the records carry that payment.

  A provider with an ``overbooking`` factor above 1 departs from that on purpose: it signs on its
  book (:func:`market.sla.book_plan`: ``factor`` times its processors, its contracts not yet on
  the machine holding theirs), so it may sign a start its machine cannot hold, betting that
  running jobs end before their estimates (Sulistio, Kim & Buyya 2008 overbook reservations
  against cancellations and no-shows). From the signed start on, the provider holds the
  machine's earliest start for such a contract as a reservation (queued jobs plan around it)
  and looks again every ``cycle`` seconds: the job starts as soon as the machine can hold it
  (late once after the window; the penalty schedule charges it). While the machine's earliest
  start would end the job after ``deadline + grace`` (no value left) it holds nothing and only
  looks again; when no look is left before that, it breaks the contract: the job goes to its
  home queue and the provider pays the violation penalty. One ``sla`` message tells the broker of
  a later start or of a breach.

A won slot becomes a reservation on the provider (``Reserve``); the job runs in it and the rest
of the window returns when the job ends early, as for a reserved job of ``agents.broker``. A job
that wins nothing in its cycle falls back to best effort: it is submitted at once to its home
queue and pays the base rate. Every job keeps its own submit time in the records, so the wait of
a job includes the time it waited for its cycle. Workflows run just in time and reservation
requests are submitted at their wanted start (best effort) under these models.

Messages: one ``Query`` / ``Quote`` per provider and cycle (per job under ``negotiate``, ``dbc``
and ``sla``: the provider's plan, i.e. its reserves and quotes), an ``sla`` message per contract a
provider offers, the bids and clock replies as ``bid``
messages (ZIP shouts as ``bid``/``ask``; alternating offers as ``offer``), a ``Reserve`` per sale
and a ``Submit`` per fallback. Negotiation rounds: each query-answer exchange, each auction's
rounds (1 sealed, one per clock step), each shout of a double auction, each round of offers.

Times are integer seconds from simulation start; prices SU.
"""

from __future__ import annotations

from dataclasses import replace

from agents.messages import Reserve, Submit
from agents.strategies import BrokerStrategy, register_strategy
from market.auctions.slot import SlotRequest, auction_round
from market.auctions.window import trade_window
from market.negotiation import negotiate_slot
from market.auctions.single import vickrey
from market.provisioning.dbc import DBCOffer, auctioned_offers, dbc_buy, posted_offers, quoted_offers
from market.errors import InvalidInput
from market.job import Job
from market.pricing import BASE_RATE, SECONDS_PER_HOUR
from market.reservation import Reservation
from market.pricing.state import base_profile
from market.sla import SLA, PenaltySchedule, SLARequest, book_plan, honours, offer_sla, settle
from market.valuation import VALUE_FACTOR, Valuation

__all__ = ["AUCTION_METHODS", "CLOCK_STEP", "DUTCH_OPENING", "JOB_MARKETS", "SLA_COLUMNS", "DBCDesk",
           "DoubleAuctionDesk", "DutchDesk", "EnglishDesk", "FirstPriceDesk", "GDDoubleAuctionDesk", "NegotiationDesk",
           "PerJobDesk", "SLADesk", "SlotAuctionDesk", "TradingDesk", "VickreyDesk", "sla_penalty"]

AUCTION_METHODS = ("first-price", "vickrey", "english", "dutch")
JOB_MARKETS = (*AUCTION_METHODS, "double", "double-gd", "negotiate", "dbc", "sla")

CLOCK_STEP = 0.05
"""Step of the English and Dutch clocks, SU per processor-hour (5 % of the base rate)."""

DUTCH_OPENING = VALUE_FACTOR[1] * BASE_RATE
"""The Dutch clock opens at the highest unit value the valuations give (SU per processor-hour)."""


class TradingDesk(BrokerStrategy):
    """A job market's broker strategy: gathers users' jobs and runs :meth:`trade` every ``cycle`` s; records sales.

    Subclass it (or :class:`PerJobDesk`) for a market of your own and override :meth:`trade`; it may
    use :meth:`plans` (every provider's priced plan), :meth:`hold` (buy a slot for a job) and
    :meth:`fallback` (send a job to its home queue). ``valuations`` (job id -> :class:`Valuation`)
    and ``cycle`` (s) are the broker's; ``n_won`` and ``n_fallback`` count the jobs sold and not.
    """

    buys_jobs = True

    def __init__(self, broker) -> None:
        super().__init__(broker)
        cycle = broker.cycle
        if isinstance(cycle, bool) or not isinstance(cycle, int) or cycle < 1:
            raise InvalidInput(f"broker cycle must be an int >= 1 s, got {cycle!r}")
        self.valuations: dict[int, Valuation] = broker.valuations
        self.cycle = cycle
        self.pending: list[Job] = []
        self._due: int | None = None
        self.n_won = 0
        self.n_fallback = 0

    def take(self, job: Job) -> None:
        """A user's job: it waits for the next cycle's market."""
        if job.id not in self.valuations:
            raise InvalidInput(f"broker: job {job.id} has no valuation")
        self.pending.append(job)
        now = int(self.model.time)
        due = -(-now // self.cycle) * self.cycle
        if self._due is None or self._due < now:
            self._due = due
            self.broker.later(due, self._run)

    def _run(self) -> None:
        self._due = None
        jobs, self.pending = self.pending, []
        if jobs:
            self.trade(jobs, int(self.model.time))

    def plans(self, now: int) -> dict:
        """Every provider's priced plan (:class:`market.pricing.ProviderPlan`) at ``now``, by name: one query each."""
        b = self.broker
        return {p.name: b.query(p.name, now, "plan") for p in b.providers()}

    def hold(self, job: Job, site: str, start: int, price: float, now: int) -> None:
        """Reserve ``[start, start + estimate)`` on ``site`` for ``job`` at ``price`` SU; the job runs in it."""
        b = self.broker
        provider = self.model.providers[site]
        rid = f"auction-{job.id}"
        self.model.send(Reserve(b.name, site, now, Reservation(rid, start, job.procs, job.estimate)))
        provider.price_log.append((now, price, "paid"))
        run = min(job.runtime, job.estimate)
        b.rows.append({"job_id": job.id, "site": site, "submit": job.submit, "start": start, "end": start + run,
                       "procs": job.procs, "runtime": job.runtime, "estimate": job.estimate,
                       "wait": start - job.submit, "user": job.user, "outcome": "completed", "cost": price,
                       "kind": "job", "workflow": None})
        if run < job.estimate:  # the rest of the window returns when the job ends
            b.later(max(start + run, now), lambda: provider.end_reservation(rid))
        self.n_won += 1

    def fallback(self, job: Job, now: int) -> None:
        """No slot won: the job goes to its home queue now (best effort)."""
        b = self.broker
        home = b.home(job.site, job.procs)
        self.model.send(Submit(b.name, home.name, now, replace(job, submit=now, site=home.name)))
        self.n_fallback += 1

    def trade(self, jobs: list[Job], now: int) -> None:
        """Trade ``jobs`` at ``now``: :meth:`hold` a slot for each job sold, :meth:`fallback` the others."""
        raise NotImplementedError(f"{type(self).__name__} must define trade(jobs, now)")


class PerJobDesk(TradingDesk):
    """A desk that trades each job as it arrives, not once a cycle."""

    def take(self, job: Job) -> None:
        if job.id not in self.valuations:
            raise InvalidInput(f"broker: job {job.id} has no valuation")
        self.trade([job], int(self.model.time))

    def home_first(self, job: Job) -> list:
        """The providers to try for ``job``: its home site first, then the others in the broker's order."""
        home = self.model.providers.get(job.site)
        return ([home] if home is not None else []) + [p for p in self.broker.providers() if p is not home]


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
        by_id = {j.id: j for j in jobs}
        requests = [SlotRequest(j.id, j.procs, j.estimate, self.valuations[j.id], j.runtime) for j in jobs]
        result = auction_round(self.plans(now), requests, mechanism=self.mechanism, step=self.step,
                               opening=DUTCH_OPENING, window=self.cycle)
        self.model.message_counts["bid"] += result.messages
        self.model.negotiation_rounds += result.rounds
        for sale in result.sales:
            self.hold(by_id[sale.request], sale.provider, sale.start, sale.price, now)
        for job_id in result.unsold:
            self.fallback(by_id[job_id], now)


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
        by_id = {j.id: j for j in jobs}
        requests = [SlotRequest(j.id, j.procs, j.estimate, self.valuations[j.id], j.runtime) for j in jobs]
        result = trade_window(self.plans(now), requests, window=self.cycle, rng=self.model.rng, steps=self.steps,
                              strategy=self.strategy)
        for side, n in result.shouts.items():
            self.model.message_counts[side] += n
        self.model.negotiation_rounds += sum(result.shouts.values())
        self.n_void += result.void
        for sale in result.sales:
            self.hold(by_id[sale.request], sale.provider, sale.start, sale.price, now)
        for job_id in result.unsold:
            self.fallback(by_id[job_id], now)


class GDDoubleAuctionDesk(DoubleAuctionDesk):
    """The double auction among Gjerstad-Dickhaut traders."""

    name = "double-gd"
    traders = "gd"


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
                self.model.message_counts["offer"] += deal.messages
                self.model.negotiation_rounds += deal.rounds
                if deal.start is not None:
                    self.hold(job, p.name, deal.start, deal.price, now)
                    break
            else:
                self.fallback(job, now)


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
        """Every provider's offers for ``job`` by the way it sells: ``(offer, start s)`` (one query each)."""
        b = self.broker
        request = SlotRequest(job.id, job.procs, job.estimate, self.valuations[job.id], job.runtime)
        found = []
        for p in b.providers():
            if p.sells == "post":
                slots = b.query(p.name, now, "advertise")
                if p.procs >= job.procs:
                    found += posted_offers(slots, request, provider=p.name, now=now)
                continue
            plan = b.query(p.name, now, "plan")
            sell = quoted_offers if p.sells == "quote" else auctioned_offers
            found += sell(plan, request, provider=p.name)
        return found

    def _auction(self, index: int, offer: DBCOffer, jobs: int, cap: float) -> float | None:
        """The provider's sealed second-price auction of the slot; the broker bids its cap (truthful)."""
        result = vickrey([cap], reserve=offer.price)
        self.n_bids += 1
        self.model.message_counts["bid"] += 1
        self.model.negotiation_rounds += 1
        if result.winner is None:
            return None
        self.n_bids_won += 1
        return result.price

    def trade(self, jobs: list[Job], now: int) -> None:
        for job in jobs:
            v = self.valuations[job.id]
            found = self.offers(job, now)
            buy = dbc_buy([o for o, _ in found], 1, job_time=max(1, min(job.runtime, job.estimate)),
                          deadline=max(0, v.deadline - now), budget=v.value, strategy=self.strategy,
                          auction=self._auction)
            if not buy.bought:
                self.fallback(job, now)
                continue
            index, _, price = buy.bought[0]
            self.hold(job, found[index][0].provider, found[index][1], price, now)


def sla_penalty(valuation: Valuation) -> PenaltySchedule:
    """The penalties a provider accepts for a job: the value its user loses (SU).

    Late by ``x`` s after the window, the job ends ``x`` s after its deadline at the latest and its
    value falls by ``value * x / grace`` (:class:`market.valuation.Valuation`): that is the rate,
    ``value * 3600 / grace`` SU per hour, capped at the whole value; a job that never runs costs the
    provider its value. Value-based penalties as in D. Irwin, L. Grit, J. Chase, "Balancing risk
    and reward in a market-based task service" (HPDC 2004), where a task's value function
    continues below zero into a penalty; here it is bounded by the value.

    >>> sla_penalty(Valuation(10.0, 7200, 3600))
    PenaltySchedule(rate_per_hour=10.0, cap=10.0, violation=10.0)
    """
    return PenaltySchedule(rate_per_hour=valuation.value * SECONDS_PER_HOUR / valuation.grace, cap=valuation.value,
                           violation=valuation.value)


SLA_COLUMNS = ("job_id", "provider", "earliest", "latest", "signed_start", "start", "end", "price", "penalty",
               "payment", "late", "violated")
"""Columns of a run's SLA table (:meth:`SLADesk.settle`): times s, money SU."""


class SLADesk(PerJobDesk):
    """Service-level agreements per job as it arrives: every provider offers, the cheapest is signed (module notes).

    ``contracts``: job id -> the signed :class:`market.sla.SLA`; ``unplaced``: provider -> the
    overbooked contracts whose signed start has not come (reservations of its book, by id);
    ``n_overbooked`` counts the contracts signed that the machine could not hold at their signed
    start, ``n_rebooked`` those of them that started later, ``n_broken`` those the provider broke;
    ``waiting`` holds the jobs of overbooked contracts not yet started nor broken.
    """

    name = "sla"

    def __init__(self, broker) -> None:
        super().__init__(broker)
        self.contracts: dict[int, SLA] = {}
        self.unplaced: dict[str, dict] = {}
        self.broken: set[int] = set()
        self.waiting: set[int] = set()  # overbooked contracts' jobs not yet started nor broken
        self.n_overbooked = self.n_rebooked = self.n_broken = 0

    def trade(self, jobs: list[Job], now: int) -> None:
        b = self.broker
        for job in jobs:
            v = self.valuations[job.id]
            latest = v.deadline - max(1, min(job.runtime, job.estimate))  # a later start ends after the deadline
            if latest < now:
                self.fallback(job, now)
                continue
            request = SLARequest(job.id, job.procs, job.estimate, now, latest, max_price=v.value)
            order = self.home_first(job)
            offers = []
            for rank, p in enumerate(order):
                if p.procs < job.procs:
                    continue
                plan = b.query(p.name, now, "plan")
                self.model.negotiation_rounds += 1
                # the provider signs on its book: the plan itself unless it overbooks (market.sla.book_plan)
                book = book_plan(plan, p.overbooking, self.unplaced.get(p.name, {}).values())
                contract = offer_sla(book, request, provider=p.name, penalty=sla_penalty(v))
                if contract is not None:
                    self.model.message_counts["sla"] += 1
                    # on its own plan a signed contract is honoured by construction (offer_sla)
                    held = book is plan or honours(plan, contract)
                    offers.append((contract.price, contract.start, rank, contract, held))
            if not offers:
                self.fallback(job, now)
                continue
            contract, held = min(offers, key=lambda o: o[:3])[3:]
            self.contracts[job.id] = contract
            if held:
                self.hold(job, contract.provider, contract.start, contract.price, now)
                continue
            # overbooked: the machine cannot hold it at its signed start as planned now
            self.n_overbooked += 1
            self.n_won += 1
            self.waiting.add(job.id)
            if contract.start > now:
                self.unplaced.setdefault(contract.provider, {})[contract.reservation_id] = Reservation(
                    contract.reservation_id, contract.start, contract.procs, contract.duration)
                b.later(contract.start, lambda job=job, contract=contract: self._honour(job, contract))
            else:
                self._honour(job, contract)

    def _honour(self, job: Job, contract: SLA) -> None:
        """Start an overbooked contract's job now if the machine can hold it; else hold the machine's earliest
        start for it and look again in a cycle (running jobs may end before their estimates), or break the
        contract when that start would leave the user no value (module notes)."""
        now = int(self.model.time)
        self.unplaced.get(contract.provider, {}).pop(contract.reservation_id, None)
        provider = self.model.providers[contract.provider]
        wait_id = f"sla-wait-{job.id}"
        if wait_id in provider.machine.scheduler.reservations:  # the start held last time: free it to look again
            provider.end_reservation(wait_id)
        state = provider.state(now)
        if honours(state, contract, start=now):
            if now > contract.start:
                self.n_rebooked += 1
                self.model.message_counts["sla"] += 1  # the provider tells the broker of the later start
            self.hold(job, contract.provider, now, contract.price, now)
            self.n_won -= 1  # counted once, when signed
            self.waiting.discard(job.id)
            return
        start = base_profile(state).earliest_start(contract.procs, contract.duration, now)
        v = self.valuations[job.id]
        last = v.deadline + v.grace - max(1, min(job.runtime, job.estimate)) - 1  # a later start is worth nothing
        if start <= last:  # hold the machine's earliest start, and look for an earlier one in a cycle
            provider.place(Reservation(wait_id, start, contract.procs, contract.duration))
            self.broker.later(min(start, now + self.cycle), lambda: self._honour(job, contract))
        elif now + self.cycle <= last:  # only jobs ending before their estimates can save it: look again
            self.broker.later(now + self.cycle, lambda: self._honour(job, contract))
        else:
            self.n_broken += 1
            self.broken.add(job.id)
            self.waiting.discard(job.id)
            self.model.message_counts["sla"] += 1  # the provider tells the broker of the breach
            self.fallback(job, now)
            self.n_fallback -= 1  # it was sold: the home queue runs it after the breach

    def settle(self, records):
        """Settle every contract against its job's row of ``records`` (start, end s); the rows pay the settlement.

        Returns ``(records, table)``: the records with each contract's ``cost`` set to its payment
        (price less penalty, SU) and one row per contract (:data:`SLA_COLUMNS`). A contract whose job
        has no row on its provider, or that the provider broke, never ran: the provider pays the
        violation penalty, which the job's own row (if it ran elsewhere, in its home queue) carries
        as a negative charge beside what it paid there.
        """
        import pandas as pd

        rows = []
        records = records.copy()
        jobs = records["kind"] == "job"
        for job_id, contract in sorted(self.contracts.items()):
            mine = jobs & (records["job_id"] == job_id)
            at = records.index[mine & (records["site"] == contract.provider)]
            start = end = None
            if len(at) and job_id not in self.broken:
                start, end = int(records.at[at[0], "start"]), int(records.at[at[0], "end"])
            s = settle(contract, start, end)
            if start is not None:
                records.loc[at[0], "cost"] = s.payment
            elif (elsewhere := records.index[mine]).size:
                records.loc[elsewhere[0], "cost"] += s.payment
            rows.append({"job_id": job_id, "provider": contract.provider, "earliest": contract.earliest,
                         "latest": contract.latest, "signed_start": contract.start, "start": start, "end": end,
                         "price": contract.price, "penalty": s.penalty, "payment": s.payment, "late": s.late,
                         "violated": s.violated})
        return records, pd.DataFrame(rows, columns=list(SLA_COLUMNS))


for _desk in (FirstPriceDesk, VickreyDesk, EnglishDesk, DutchDesk, DoubleAuctionDesk, GDDoubleAuctionDesk,
              NegotiationDesk, DBCDesk, SLADesk):
    register_strategy(_desk)
