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
and ``sla``: the provider's plan, i.e. its reserves and quotes; ``dbc`` and ``sla`` ask only the
providers that can still win: none whose earliest start and least price, the processor-hours at the
base rate, an offer in hand already beats), an ``sla`` message per contract a provider asked offers,
the bids and clock replies as ``bid``
messages (ZIP shouts as ``bid``/``ask``; alternating offers as ``offer``), a ``Reserve`` per sale
and a ``Submit`` per fallback. Negotiation rounds: each query-answer exchange, each auction's
rounds (1 sealed, one per clock step), each shout of a double auction, each round of offers.

The desks live in :mod:`gridmarket.agents.desks`, one module per market; this module is where they are
described and named together. Times are integer seconds from simulation start; prices SU.
"""

from gridmarket.agents.desks import (
    AUCTION_METHODS,
    CLOCK_STEP,
    DUTCH_OPENING,
    JOB_MARKETS,
    SLA_COLUMNS,
    CycleDBCDesk,
    DBCDesk,
    DoubleAuctionDesk,
    DutchDesk,
    EnglishDesk,
    FirstPriceDesk,
    GDDoubleAuctionDesk,
    NegotiationDesk,
    PerJobDesk,
    PredictedSLADesk,
    SLADesk,
    SlotAuctionDesk,
    TradingDesk,
    VickreyDesk,
    sla_penalty,
)

__all__ = ["AUCTION_METHODS", "CLOCK_STEP", "DUTCH_OPENING", "JOB_MARKETS", "SLA_COLUMNS", "CycleDBCDesk", "DBCDesk",
           "DoubleAuctionDesk", "DutchDesk", "EnglishDesk", "FirstPriceDesk", "GDDoubleAuctionDesk", "NegotiationDesk",
           "PerJobDesk", "PredictedSLADesk", "SLADesk", "SlotAuctionDesk", "TradingDesk", "VickreyDesk", "sla_penalty"]
