"""The broker's trading desks: users' jobs bought in a market instead of queued.

A desk belongs to the broker of a job-market interaction model. Users hand it their jobs (not
only workflows and reservation requests); it trades for slots on the providers' plans, the
auctions every ``cycle`` seconds (on the multiples of ``cycle``, as the metascheduler's cycles)
over the jobs gathered since, the bilateral ones as each job arrives:

* :class:`SlotAuctionDesk` (``first-price``, ``vickrey``, ``english``, ``dutch``): providers auction
  slots of their plans that start within the coming cycle, in turns, each with the slot's
  externality-priced quote as its reserve (:func:`gridmarket.auctions.slot.auction_round`); the broker
  bids for every job by the format's textbook rule (:mod:`gridmarket.auctions.bidding`).
* :class:`DoubleAuctionDesk` (``double``, ``double-gd``): one trading day of a continuous double
  auction a cycle among ZIP (``double``) or Gjerstad-Dickhaut (``double-gd``) traders, for slots
  starting within the cycle; providers ask from their slots' externality-priced reserves, the
  broker bids from the jobs' values, trades become reservations
  (:func:`gridmarket.auctions.window.trade_window`). A trade voided at settlement leaves its job unsold.
* :class:`NegotiationDesk` (``negotiate``): no cycle; when a job arrives the broker bargains for
  its slot with one provider after another (home first), by alternating offers over price and start
  (:func:`gridmarket.negotiation.negotiate_slot`: a Boulware broker, a conceder provider, ten rounds
  each, starts within the next ``cycle`` seconds); the first deal is bought.
* :class:`DBCDesk` (``dbc``): no cycle; when a job arrives the broker asks every provider for what
  it sells (its ``sells``): a quoting provider's priced starts (its plan, form 19), an advertising
  provider's posted slots at the best-effort rate, an auctioning provider's slot at the machine's
  earliest start with its quote as the reserve. It buys by Nimrod-G's deadline-and-budget-
  constrained cost-time optimisation (:func:`gridmarket.provisioning.dbc.dbc_buy`: budget the job's
  value, deadline its valuation's), bidding at an auction at most its remaining budget share in a
  sealed second-price auction (one bidder at a time here: it pays the reserve, or loses when the
  reserve is above its cap and re-plans); no plan within both means the home queue.
* :class:`CycleDBCDesk` (``dbc-cycle``): the DBC broker once a cycle, as Nimrod-G plans at each
  scheduling event: the jobs gathered since, earliest deadline first, each bought by the same DBC
  on fresh offers; an auctioning provider's slot goes to the highest of the bids of every job of
  the cycle whose DBC plan bids there, at the second price (competition the one-job-at-a-time
  ``dbc`` never meets).
* :class:`SLADesk` (``sla``): no cycle; when a job arrives the broker asks every provider for a
  service-level agreement: a start in ``[now, deadline - runtime]`` (the job's valuation, so an
  on-time start ends by the deadline), at most the job's value, penalties that repay the value the
  user loses (:func:`sla_penalty`). Each provider signs only what its plan can honour
  (:func:`gridmarket.sla.offer_sla`, earliest start); the broker accepts the cheapest contract (ties to
  the earliest start, then home first) and reserves it. After the run every contract is settled
  against the job's recorded start and end (:func:`gridmarket.sla.settle`): the provider is paid the
  price less its penalty, and the records carry that payment.

  A provider with an ``overbooking`` factor above 1 departs from that on purpose: it signs on its
  book (:func:`gridmarket.sla.book_plan`: ``factor`` times its processors, its contracts not yet on
  the machine holding theirs), so it may sign a start its machine cannot hold, betting that
  running jobs end before their estimates (Sulistio, Kim & Buyya 2008 overbook reservations
  against cancellations and no-shows). From the signed start on, the provider holds the
  machine's earliest start for such a contract as a reservation (queued jobs plan around it)
  and looks again every ``cycle`` seconds: the job starts as soon as the machine can hold it
  (late once after the window; the penalty schedule charges it). While the machine's earliest
  start would end the job after ``deadline + grace`` (no value left) the broker re-enters the
  market: it asks the other providers for a contract from now that their plans can honour (no
  overbooked start the second time) and, when one signs, the provider breaks the old contract and
  pays its violation penalty. Failing that the provider holds nothing and only looks again; when
  no look is left it breaks the contract: the job goes to its home queue and the provider pays the
  violation penalty. One ``sla`` message tells the broker of a later start, a moved contract or a
  breach.
* :class:`PredictedSLADesk` (``sla-predict``): the same market, but the broker contracts for each
  job's predicted run time (:func:`gridmarket.sla.predict_runtime`: the mean of its user's last two
  jobs seen to end) and plans the deadline with it. A job still running when its contract ends
  runs on to its estimate: the provider holds the processors for the overrun, moving off the
  machine the contracts not yet started that stand in its way (:func:`gridmarket.sla.make_room`);
  those start late or are broken (and re-offered) as overbooked ones, paid for by their penalty
  schedules, and the overrunning user pays the extra processor-time at the base rate.

A won slot becomes a reservation on the provider (``Reserve``); the job runs in it and the rest
of the window returns when the job ends early, as for a reserved job of ``gridmarket.agents.broker``. A job
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

from gridmarket.agents.messages import Reserve, Submit
from gridmarket.agents.strategies import BrokerStrategy, register_strategy
from gridmarket.auctions.single import vickrey
from gridmarket.auctions.slot import SlotRequest, auction_round
from gridmarket.auctions.window import trade_window
from gridmarket.errors import InvalidInput
from gridmarket.job import Job
from gridmarket.negotiation import negotiate_slot
from gridmarket.pricing import BASE_RATE, SECONDS_PER_HOUR
from gridmarket.pricing.state import base_profile
from gridmarket.provisioning.dbc import DBCOffer, auctioned_offers, dbc_buy, dbc_plan, posted_offers, quoted_offers
from gridmarket.reservation import Reservation
from gridmarket.sla import (
    SLA,
    PenaltySchedule,
    SLARequest,
    book_plan,
    honours,
    make_room,
    offer_sla,
    overrun_charge,
    predict_runtime,
    settle,
)
from gridmarket.valuation import VALUE_FACTOR, Valuation

__all__ = ["AUCTION_METHODS", "CLOCK_STEP", "DUTCH_OPENING", "JOB_MARKETS", "SLA_COLUMNS", "CycleDBCDesk", "DBCDesk",
           "DoubleAuctionDesk", "DutchDesk", "EnglishDesk", "FirstPriceDesk", "GDDoubleAuctionDesk", "NegotiationDesk",
           "PerJobDesk", "PredictedSLADesk", "SLADesk", "SlotAuctionDesk", "TradingDesk", "VickreyDesk", "sla_penalty"]

AUCTION_METHODS = ("first-price", "vickrey", "english", "dutch")
JOB_MARKETS = (*AUCTION_METHODS, "double", "double-gd", "negotiate", "dbc", "dbc-cycle", "sla", "sla-predict")

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
        """Every provider's priced plan (:class:`gridmarket.pricing.ProviderPlan`) at ``now``, by name: one query each."""
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
                       "wait": start - job.submit, "user": job.user, "outcome": _outcome(job), "cost": price,
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
                    self.hold(job, p.name, deal.start, deal.price, now)  # type: ignore[arg-type]  # a deal has a price
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
        entrants = [(cap, 0, offer.price, job, found[index][1])]
        for rank, other in enumerate(self._left, start=1):
            bid = self._bids_at(other, offer.provider, now)
            if bid is not None:
                entrants.append((bid[0], rank, bid[1], other, bid[2]))
        entrants = [e for e in entrants if e[0] >= e[2] - 1e-9]  # a bid below its own reserve does not enter
        self.n_bids += len(entrants)
        self.model.message_counts["bid"] += len(entrants)
        self.model.negotiation_rounds += 1
        if len(entrants) > 1:
            self.n_contested += 1
        if not entrants:
            return None
        winner = max(entrants, key=lambda e: (e[0], -e[1]))
        price = max(winner[2], max((e[0] for e in entrants if e is not winner), default=0.0))
        self.n_bids_won += 1
        if winner[3] is job:
            return min(price, cap)
        self._left.remove(winner[3])  # a rival of the cycle wins the slot and buys it now
        self.hold(winner[3], offer.provider, winner[4], price, now)
        return None


def sla_penalty(valuation: Valuation) -> PenaltySchedule:
    """The penalties a provider accepts for a job: the value its user loses (SU).

    Late by ``x`` s after the window, the job ends ``x`` s after its deadline at the latest and its
    value falls by ``value * x / grace`` (:class:`gridmarket.valuation.Valuation`): that is the rate,
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
               "payment", "late", "violated", "broken", "duration", "overrun", "overrun_charge")
"""Columns of a run's SLA table (:meth:`SLADesk.settle`): times s, money SU. One row per contract signed: a
job whose contract was ``broken`` (never ran there) and re-offered has a row for each; ``duration`` is the
contracted run (s), ``overrun`` the seconds its job ran beyond it and ``overrun_charge`` what the user paid
for them."""


class SLADesk(PerJobDesk):
    """Service-level agreements per job as it arrives: every provider offers, the cheapest is signed (module notes).

    ``contracts``: job id -> its current :class:`gridmarket.sla.SLA`; ``superseded``: the contracts their
    providers broke (the job re-offered to the market or sent home); ``unplaced``: provider -> the
    contracts not on its machine whose signed start has not come (reservations of its book, by id).
    Counters: ``n_overbooked`` contracts signed that the machine could not hold at their signed start,
    ``n_displaced`` held contracts moved off the machine to make room for another job's overrun,
    ``n_rebooked`` contracts of either kind that started later than signed, ``n_broken`` contracts broken,
    ``n_reoffered`` of them re-signed with another provider, ``n_overruns`` jobs let run past their
    contract. ``broken`` holds the jobs with a broken contract, ``waiting`` the jobs of contracts not
    yet started nor broken that their machine could not hold as signed, ``overruns`` job id -> s run past
    the contract.
    """

    name = "sla"
    predicts = False
    """Contract for the job's estimate (``sla``) or for its predicted run time (``sla-predict``)."""

    def __init__(self, broker) -> None:
        super().__init__(broker)
        self.contracts: dict[int, SLA] = {}
        self.superseded: list[SLA] = []
        self.unplaced: dict[str, dict] = {}
        self.broken: set[int] = set()
        self.waiting: set[int] = set()
        self.overruns: dict[int, int] = {}
        self.n_overbooked = self.n_rebooked = self.n_broken = 0
        self.n_displaced = self.n_reoffered = self.n_overruns = 0
        self._jobs: dict[int, Job] = {}
        self._held: dict[int, str] = {}  # job id -> the machine reservation its contract holds
        self._by_rid: dict[str, int] = {}
        self._rows: dict[int, dict] = {}  # job id -> its record row (a contract's run)
        self._n_holds: dict[int, int] = {}

    # ------------------------------------------------------------- signing
    def duration(self, job: Job, now: int) -> int:
        """Seconds to contract for: the job's estimate (its kill limit)."""
        return job.estimate

    def _planned_run(self, job: Job, duration: int) -> int:
        """The run the broker plans the deadline with: the contract's duration when it predicts, else the run
        the job will have (the ``sla`` model's broker knows it, as ``dbc``'s does)."""
        return duration if self.predicts else max(1, min(job.runtime, job.estimate))

    def _request(self, job: Job, now: int) -> SLARequest | None:
        """The job's request at ``now``: a start in ``[now, deadline - run]``, at most its value; None when past."""
        v = self.valuations[job.id]
        duration = self.duration(job, now)
        latest = v.deadline - self._planned_run(job, duration)  # a later start ends after the deadline
        if latest < now:
            return None
        return SLARequest(job.id, job.procs, duration, now, latest, max_price=v.value)

    def _offers(self, job: Job, request: SLARequest, now: int, exclude: str | None = None,
                firm: bool = False) -> tuple[SLA, bool] | None:
        """Every provider's offer (but ``exclude``'s): ``(contract, held)`` of the cheapest, or None. ``firm``:
        each provider signs on its plan, not its book (only starts its machine can hold)."""
        b = self.broker
        v = self.valuations[job.id]
        offers = []
        for rank, p in enumerate(self.home_first(job)):
            if p.procs < job.procs or p.name == exclude:
                continue
            plan = b.query(p.name, now, "plan")
            self.model.negotiation_rounds += 1
            # the provider signs on its book: the plan itself unless it overbooks (gridmarket.sla.book_plan)
            book = plan if firm else book_plan(plan, p.overbooking, self.unplaced.get(p.name, {}).values())
            contract = offer_sla(book, request, provider=p.name, penalty=sla_penalty(v))
            if contract is not None:
                self.model.message_counts["sla"] += 1
                # on its own plan a signed contract is honoured by construction (offer_sla)
                held = book is plan or honours(plan, contract)
                offers.append((contract.price, contract.start, rank, contract, held))
        if not offers:
            return None
        _, _, _, contract, held = min(offers, key=lambda o: o[:3])
        return contract, held

    def trade(self, jobs: list[Job], now: int) -> None:
        for job in jobs:
            self._jobs[job.id] = job
            request = self._request(job, now)
            best = None if request is None else self._offers(job, request, now)
            if best is None:
                self.fallback(job, now)
                continue
            self.n_won += 1
            self._sign(job, *best, now)

    def _sign(self, job: Job, contract: SLA, held: bool, now: int) -> None:
        self.contracts[job.id] = contract
        if held:
            self._hold_contract(job, contract, contract.start, now)
            return
        self.n_overbooked += 1  # the machine cannot hold it at its signed start as planned now
        self._wait(job, contract, now)

    def _wait(self, job: Job, contract: SLA, now: int) -> None:
        """A contract its machine cannot hold as signed: the provider looks at its signed start."""
        self.waiting.add(job.id)
        if contract.start > now:
            self.unplaced.setdefault(contract.provider, {})[contract.reservation_id] = Reservation(
                contract.reservation_id, contract.start, contract.procs, contract.duration)
            self.broker.later(contract.start, lambda: self._honour(job, contract))
        else:
            self._honour(job, contract)

    # ------------------------------------------------------------- running
    def _hold_contract(self, job: Job, contract: SLA, start: int, now: int) -> None:
        """Hold ``[start, start + duration)`` on the contract's provider; the job runs in it (killed at its
        estimate, as every job), the rest returns when it ends early, and an overrun is met at the end."""
        b = self.broker
        provider = self.model.providers[contract.provider]
        k = self._n_holds.get(job.id, 0)
        self._n_holds[job.id] = k + 1
        rid = f"auction-{job.id}" if k == 0 else f"auction-{job.id}-{k}"
        self.model.send(Reserve(b.name, contract.provider, now, Reservation(rid, start, contract.procs,
                                                                            contract.duration)))
        if k == 0:
            provider.price_log.append((now, contract.price, "paid"))
        run = min(job.runtime, job.estimate)
        row = {"job_id": job.id, "site": contract.provider, "submit": job.submit, "start": start, "end": start + run,
               "procs": job.procs, "runtime": job.runtime, "estimate": job.estimate, "wait": start - job.submit,
               "user": job.user, "outcome": _outcome(job), "cost": contract.price, "kind": "job", "workflow": None}
        b.rows.append(row)
        self._rows[job.id], self._held[job.id], self._by_rid[rid] = row, rid, job.id
        if run < contract.duration:  # the rest of the window returns when the job ends
            b.later(max(start + run, now), lambda: self._release(job.id, provider, rid))
        elif run > contract.duration:  # still running when the contract ends
            b.later(start + contract.duration, lambda: self._overrun(job, contract, rid))

    def _release(self, job_id: int, provider, rid: str) -> None:
        if self._held.get(job_id) == rid:  # not moved off the machine since
            provider.end_reservation(rid)

    def _overrun(self, job: Job, contract: SLA, rid: str) -> None:
        """The job runs on past its contract, to its estimate: the provider makes room for it by moving the
        contracts not yet started that stand in the way (:func:`gridmarket.sla.make_room`); they start late or
        are broken like overbooked ones. With no room (reservations it cannot move) the job is killed."""
        if self._held.get(job.id) != rid:
            return
        now = int(self.model.time)
        provider = self.model.providers[contract.provider]
        row = self._rows[job.id]
        extension = Reservation(f"sla-over-{job.id}", now, contract.procs, row["end"] - now)
        state = provider.state(now)
        movable = [r.id for r in state.reservations if r.start >= now and (
            r.id in self._by_rid and self._held.get(self._by_rid[r.id]) == r.id or str(r.id).startswith("sla-wait-"))]
        out = make_room(state, extension, movable)
        if out is None:
            row["end"], row["outcome"] = now, "killed"
            return
        moved = [m for m in (self._displace(provider, rid) for rid in out) if m is not None]
        provider.place(extension)
        self.n_overruns += 1
        self.overruns[job.id] = extension.duration
        for other in moved:  # each looks at its signed start (now or later) with the overrun on the machine
            self._wait(self._jobs[other], self.contracts[other], now)

    def _displace(self, provider, rid: str) -> int | None:
        """Move a held contract (or a waiting contract's held start) off the machine for an overrun; the
        moved contract's job id (None for a held start: its contract looks again at its next look)."""
        provider.end_reservation(rid)
        if rid.startswith("sla-wait-"):
            return None
        job_id = self._by_rid.pop(rid)
        del self._held[job_id]
        self.broker.rows.remove(self._rows.pop(job_id))
        self.n_displaced += 1
        self.model.message_counts["sla"] += 1  # the provider tells the broker its contract moves
        return job_id

    def _honour(self, job: Job, contract: SLA) -> None:
        """Start a contract's job now if the machine can hold it; else hold the machine's earliest start for it
        and look again in a cycle (running jobs may end before their estimates). When the machine has no start
        left with value for the user, the broker re-enters the market (:meth:`_reoffer`); failing that the
        provider looks again while a look is left, then breaks the contract (module notes)."""
        if self.contracts.get(job.id) is not contract or job.id not in self.waiting:
            return  # broken and re-signed since
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
            if now > contract.latest:
                provider.price_log.append((now, contract.penalty.lateness_penalty(now - contract.latest),
                                           "sla-penalty"))
            self.waiting.discard(job.id)
            self._hold_contract(job, contract, now, now)
            return
        start = base_profile(state).earliest_start(contract.procs, contract.duration, now)
        v = self.valuations[job.id]
        last = v.deadline + v.grace - self._planned_run(job, contract.duration) - 1  # a later start is worth nothing
        if start <= last:  # hold the machine's earliest start, and look for an earlier one in a cycle
            provider.place(Reservation(wait_id, start, contract.procs, contract.duration))
            self.broker.later(min(start, now + self.cycle), lambda: self._honour(job, contract))
        elif self._reoffer(job, contract, now):
            return
        elif now + self.cycle <= last:  # only jobs ending before their estimates can save it: look again
            self.broker.later(now + self.cycle, lambda: self._honour(job, contract))
        else:
            self._break(job, contract, now)
            self.contracts.pop(job.id)
            self.fallback(job, now)
            self.n_fallback -= 1  # it was sold: the home queue runs it after the breach

    def _break(self, job: Job, contract: SLA, now: int) -> None:
        """The provider breaks ``contract``: it will pay the violation penalty at settlement."""
        self.n_broken += 1
        self.broken.add(job.id)
        self.waiting.discard(job.id)
        self.superseded.append(contract)
        self.model.message_counts["sla"] += 1  # the provider tells the broker of the breach
        self.model.providers[contract.provider].price_log.append((now, contract.penalty.violation, "sla-penalty"))

    def _reoffer(self, job: Job, contract: SLA, now: int) -> bool:
        """A contract its provider can no longer run while the job has value: the broker asks the other providers
        for a new contract that starts in time (:meth:`_request` from now), one their plans can honour (a broker
        let down once takes no overbooked start). Signing one breaks the old contract (its provider pays the
        violation penalty); True then."""
        request = self._request(job, now)
        best = None if request is None else self._offers(job, request, now, exclude=contract.provider, firm=True)
        if best is None:
            return False
        self._break(job, contract, now)
        self.n_reoffered += 1
        self._sign(job, *best, now)
        return True

    # ------------------------------------------------------------- settling
    def settle(self, records):
        """Settle every contract against its job's row of ``records`` (start, end s); the rows pay the settlement.

        Returns ``(records, table)``: the records with each contract's ``cost`` set to its payment
        (price less penalty, SU) plus what an overrun costs the user (the base rate for each
        processor-hour past the contract, :func:`gridmarket.sla.overrun_charge`), and one row per contract
        (:data:`SLA_COLUMNS`). A contract broken by its provider, or whose job has no row on its
        provider, never ran: the provider pays the violation penalty, which the job's own row (where it
        ran: under a contract re-offered elsewhere, or in its home queue) carries as a negative charge
        beside what it paid there.
        """
        import pandas as pd

        rows = []
        records = records.copy()
        jobs = records["kind"] == "job"
        entries = [(c, False) for _, c in sorted(self.contracts.items())] + [(c, True) for c in self.superseded]
        for contract, broken in entries:  # current contracts set their rows' cost; broken ones then add to it
            job_id = contract.job_id
            mine = jobs & (records["job_id"] == job_id)
            at = records.index[mine & (records["site"] == contract.provider)]
            start: int | None = None
            end: int | None = None
            if len(at) and not broken:
                start, end = int(records.at[at[0], "start"]), int(records.at[at[0], "end"])
            s = settle(contract, start, end)
            over, charge = 0, 0.0
            if start is not None and end is not None:
                over = max(0, end - start - contract.duration)
                charge = overrun_charge(contract, end - start, BASE_RATE)
                records.loc[at[0], "cost"] = s.payment + charge
            elif (elsewhere := records.index[mine]).size:
                records.loc[elsewhere[0], "cost"] += s.payment
            rows.append({"job_id": job_id, "provider": contract.provider, "earliest": contract.earliest,
                         "latest": contract.latest, "signed_start": contract.start, "start": start, "end": end,
                         "price": contract.price, "penalty": s.penalty, "payment": s.payment, "late": s.late,
                         "violated": s.violated, "broken": broken, "duration": contract.duration, "overrun": over, "overrun_charge": charge})
        rows.sort(key=lambda r: (r["job_id"], not r["broken"]))  # by job, a broken contract before its successor
        table = pd.DataFrame(rows, columns=list(SLA_COLUMNS))
        if not rows:  # typed even when no contract was signed, so masks such as table["broken"] select nothing
            table = table.astype({"job_id": "int64", "violated": bool, "broken": bool})
        return records, table


class PredictedSLADesk(SLADesk):
    """SLAs for the predicted run time (:func:`gridmarket.sla.predict_runtime`) instead of the estimate.

    The broker predicts each job's run time from its user's last two jobs that it has seen end, under
    a contract or in a home queue (Tsafrir, Etsion & Feitelson 2007), the estimate when there are
    none, and asks for a contract of that duration ending by the deadline (by its prediction: it
    does not know the run time, unlike ``sla``'s broker): cheaper than the padded estimate, but a
    job that runs longer overruns its contract, and the provider moves the contracts in its way
    (module notes of :mod:`gridmarket.sla`).
    """

    name = "sla-predict"
    predicts = True

    def __init__(self, broker) -> None:
        super().__init__(broker)
        self._ended: list[tuple[int, int, int, int]] = []  # (end s, job id, user, run s) of home-queue jobs seen end

    def duration(self, job: Job, now: int) -> int:
        ended = [(r["end"], r["job_id"], r["end"] - r["start"]) for r in self._rows.values()
                 if r["user"] == job.user and r["end"] <= now]
        ended += [(end, jid, run) for end, jid, user, run in self._ended if user == job.user and end <= now]
        return predict_runtime([run for _, _, run in sorted(ended)], job.estimate)

    def fallback(self, job: Job, now: int) -> None:
        """The home queue runs the job; the broker learns its run time when it ends."""
        super().fallback(job, now)
        run = min(job.runtime, job.estimate)
        self.broker.home(job.site, job.procs).watch(
            job.id, on_end=lambda job_id, t: self._ended.append((int(t), job_id, job.user, run)))


for _desk in (FirstPriceDesk, VickreyDesk, EnglishDesk, DutchDesk, DoubleAuctionDesk, GDDoubleAuctionDesk,
              NegotiationDesk, DBCDesk, CycleDBCDesk, SLADesk, PredictedSLADesk):
    register_strategy(_desk)


def _outcome(job: Job) -> str:
    """A job that runs past its estimate is killed there (as on every machine here); else it completes."""
    return "killed" if job.runtime > job.estimate else "completed"
