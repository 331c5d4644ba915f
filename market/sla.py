"""Service-level agreements: a provider signs a start window it can honour, and lateness or failure is paid for.

After the SLA contracts of CloudSim Plus and the penalty-bearing reservations of
Singh 2008 (ch. 6.4, eq. 23). A user asks for ``procs`` processors for ``duration`` seconds,
starting anywhere in ``[earliest, latest]``; the provider signs only when its plan can give such a
start (running jobs and reservations leave the processors free for the whole duration: queued jobs
may be delayed, and the price carries their externality cost, Singh ch. 5), and then holds the slot
as a reservation in its plan. The price is the plan's quote for that start (``n x d x c + f`` SU,
the plan's pricing rule). At settlement the provider is paid the price less a penalty:

* lateness: a start after ``latest`` costs ``rate_per_hour`` SU per hour late, at most ``cap`` SU;
* violation: a job that never runs costs the provider ``violation`` SU, and the user pays nothing,
  so the payment is ``-violation``.

A start inside the window is on time; the run's end only has to follow its start (a job may end
before ``start + duration``: the runtime was below the estimate). Times are integer seconds from
simulation start; prices and penalties in SU (processor-hours).

Which start the provider signs (the earliest in the window, or the cheapest, ties to the earliest),
the payment of ``-violation`` for a job that never ran, and lateness measured on the start are our
choices; the issue leaves them open.

Overbooking departs on purpose from "sign only what the plan can honour". An overbooking provider
signs on its *book* (:func:`overbooked_state`): its plan with ``factor`` times its processors
(rounded down), in which the contracts it signed but has not yet placed on the machine hold their
processors too. With ``factor`` = 1 and nothing pending the book is the plan itself. A contract the
machine cannot hold at its signed start (:func:`honours` is false) is a bet that running jobs end
before their estimates, as real providers overbook reservations against cancellations and no-shows
(A. Sulistio, K. H. Kim, R. Buyya, "Managing cancellations and no-shows of reservations with
overbooking to increase resource revenue", CCGrid 2008); a lost bet is a late start or a job that
never runs, paid for by the penalty schedule.

Runtime overruns are the other way a provider comes to break contracts. A contract's ``duration``
may be shorter than the job's kill limit (the user's estimate): a broker that contracts for a
*predicted* run time (:func:`predict_runtime`, after D. Tsafrir, Y. Etsion, D. G. Feitelson,
"Backfilling using system-generated predictions rather than user runtime estimates", IEEE TPDS
18(6), 2007) pays for less than the padded estimate. A job still running at the end of its
contracted duration is let run on to its estimate, as batch systems grant jobs past a reservation
(our choice; the issue leaves it open); the provider makes room for the overrun by moving the
contracts that would start in it (:func:`make_room`), which then start late or are broken and are
paid for by their penalty schedules, and charges the overrunning user for the extra
processor-time (:func:`overrun_charge`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import chain

from gridmarket.errors import InvalidInput
from gridmarket.pricing.plan import ProviderPlan
from gridmarket.pricing.slot import SECONDS_PER_HOUR
from gridmarket.pricing.state import ProviderState, base_profile
from gridmarket.reservation import Reservation
from gridmarket.scheduling.profile import block_steps

__all__ = ["SLA", "Ledger", "PenaltySchedule", "SLARequest", "Settlement", "book_capacity", "book_plan", "honours",
           "ledger", "make_room", "offer_sla", "overbooked_state", "overrun_charge", "predict_runtime", "quote_sla",
           "settle"]

SLA_CHOICES = ("earliest", "cheapest")

BLOCK_SECONDS = 10**9
"""How long the book's last blocking reservation lasts (s, about 32 years: past any run's horizon)."""


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_su(owner: str, name: str, value: object, *, allow_inf: bool = False) -> None:
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0 and (
        math.isfinite(value) or (allow_inf and value == math.inf))
    if not ok:
        raise InvalidInput(f"{owner}: {name} must be a {'' if allow_inf else 'finite '}number >= 0 (SU), got {value!r}")


@dataclass(frozen=True, slots=True)
class PenaltySchedule:
    """What a provider pays for breaking an SLA: ``rate_per_hour`` SU per hour of late start, at most ``cap`` SU;
    ``violation`` SU when the job never runs.

    Examples
    --------
    >>> s = PenaltySchedule(rate_per_hour=2.0, cap=5.0, violation=20.0)
    >>> s.lateness_penalty(0), s.lateness_penalty(5400), s.lateness_penalty(36000)
    (0.0, 3.0, 5.0)
    """

    rate_per_hour: float = 0.0
    cap: float = math.inf
    violation: float = 0.0

    def __post_init__(self) -> None:
        _check_su("penalty schedule", "rate_per_hour", self.rate_per_hour)
        _check_su("penalty schedule", "cap", self.cap, allow_inf=True)
        _check_su("penalty schedule", "violation", self.violation)

    def lateness_penalty(self, late: int) -> float:
        """Penalty (SU) for a start ``late`` seconds after the window: ``min(cap, rate x late / 3600)``."""
        if not _is_int(late) or late < 0:
            raise InvalidInput(f"penalty schedule: late must be an int >= 0 s, got {late!r}")
        return float(min(self.cap, self.rate_per_hour * late / SECONDS_PER_HOUR))


@dataclass(frozen=True, slots=True)
class SLARequest:
    """A user's request: ``procs`` processors for ``duration`` s, starting in ``[earliest, latest]`` (s),
    at most ``max_price`` SU."""

    job_id: int | str
    procs: int
    duration: int
    earliest: int
    latest: int
    max_price: float = math.inf

    def __post_init__(self) -> None:
        who = f"SLA request for job {self.job_id!r}"
        for name in ("procs", "duration", "earliest", "latest"):
            value = getattr(self, name)
            if not _is_int(value):
                raise InvalidInput(f"{who}: {name} must be an int, got {value!r}")
        if self.procs < 1:
            raise InvalidInput(f"{who}: procs must be >= 1, got {self.procs}")
        if self.duration < 1:
            raise InvalidInput(f"{who}: duration must be >= 1 s, got {self.duration}")
        if self.earliest < 0:
            raise InvalidInput(f"{who}: earliest must be >= 0 s, got {self.earliest}")
        if self.latest < self.earliest:
            raise InvalidInput(f"{who}: latest ({self.latest}) must be >= earliest ({self.earliest})")
        _check_su(who, "max_price", self.max_price, allow_inf=True)


@dataclass(frozen=True, slots=True)
class SLA:
    """A signed contract: ``provider`` runs job ``job_id`` on ``procs`` processors for ``duration`` s, starting in
    ``[earliest, latest]`` (s), for ``price`` SU, under ``penalty``; the plan holds reservation ``reservation_id``
    from ``start``."""

    provider: str
    job_id: int | str
    earliest: int
    latest: int
    procs: int
    duration: int
    price: float
    penalty: PenaltySchedule
    reservation_id: int | str
    start: int

    def __post_init__(self) -> None:
        who = f"SLA for job {self.job_id!r}"
        if not isinstance(self.provider, str) or not self.provider:
            raise InvalidInput(f"{who}: provider must be a non-empty string, got {self.provider!r}")
        for name in ("earliest", "latest", "procs", "duration", "start"):
            if not _is_int(getattr(self, name)):
                raise InvalidInput(f"{who}: {name} must be an int, got {getattr(self, name)!r}")
        if not 0 <= self.earliest <= self.start <= self.latest:
            raise InvalidInput(f"{who}: start {self.start} must lie in the window [{self.earliest}, {self.latest}]")
        if self.procs < 1 or self.duration < 1:
            raise InvalidInput(f"{who}: procs and duration must be >= 1, got {self.procs}, {self.duration}")
        _check_su(who, "price", self.price)
        if not isinstance(self.penalty, PenaltySchedule):
            raise InvalidInput(f"{who}: penalty must be a PenaltySchedule, got {type(self.penalty).__name__}")

    @property
    def deadline(self) -> int:
        """Latest on-time completion, ``latest + duration`` (s)."""
        return self.latest + self.duration


@dataclass(frozen=True, slots=True)
class Settlement:
    """How an SLA ended: the ``payment`` (SU, user to provider; negative when the provider pays), the ``penalty``
    (SU), seconds ``late``, ``violated`` (late or never run) and ``ran``."""

    contract: SLA
    payment: float
    penalty: float
    late: int
    violated: bool
    ran: bool


def _check_offer(who: str, plan: ProviderPlan, request: SLARequest, provider: str, penalty: PenaltySchedule,
                 choose: str) -> None:
    """One-line ``InvalidInput`` naming ``who`` for a malformed offer's arguments."""
    if not isinstance(plan, ProviderPlan):
        raise InvalidInput(f"{who}: plan must be a ProviderPlan, got {type(plan).__name__}")
    if not isinstance(request, SLARequest):
        raise InvalidInput(f"{who}: request must be an SLARequest, got {type(request).__name__}")
    if not isinstance(penalty, PenaltySchedule):
        raise InvalidInput(f"{who}: penalty must be a PenaltySchedule, got {type(penalty).__name__}")
    if choose not in SLA_CHOICES:
        raise InvalidInput(f"{who}: choose must be one of {', '.join(SLA_CHOICES)}, got {choose!r}")
    if not isinstance(provider, str) or not provider:
        raise InvalidInput(f"{who}: provider must be a non-empty string, got {provider!r}")
    if request.procs > plan.procs:
        raise InvalidInput(f"SLA request for job {request.job_id!r} needs {request.procs} processors; "
                           f"machine has {plan.procs}")


def offer_sla(plan: ProviderPlan, request: SLARequest, *, provider: str, penalty: PenaltySchedule,
              choose: str = "earliest") -> SLA | None:
    """Sign ``request`` if ``plan`` can honour its window, placing the reservation in ``plan`` (it changes the plan).

    Parameters
    ----------
    plan : ProviderPlan
        The provider's plan; on signing it holds the slot as a reservation (:meth:`ProviderPlan.reserve`).
    request : SLARequest
        The window, size and the most the user pays.
    provider : str
        The provider's name, recorded in the contract.
    penalty : PenaltySchedule
        The penalties the provider accepts.
    choose : str
        ``"earliest"``: the earliest start in the window; ``"cheapest"``: the start of least price,
        ties to the earliest. Either among the starts the plan quotes (form 19 from ``earliest``).

    Returns
    -------
    SLA or None
        The contract; ``None`` (and the plan unchanged) when no start in ``[max(earliest, now), latest]``
        is free of running jobs and reservations for the whole duration, or none costs at most ``max_price``.

    Raises
    ------
    InvalidInput
        A malformed request or choice, or more processors than the machine has.

    Notes
    -----
    The plan's form-19 quotes hold every start from ``earliest`` at which its availability changes, so
    the earliest start that fits in the window is among them (:func:`gridmarket.pricing.quote_earliest`).
    Cost: the form-19 prices up to the start signed (:func:`quote_sla`), then one reservation.

    Examples
    --------
    The Fig. 21 state (hours): 2 processors for 3 h in the window [0, 4 h] first fit at 2 h, for
    12 SU (6 processor-hours plus the 6 SU its queued jobs lose); 4 processors for 1 h in
    [0, 1 h] never fit (running jobs hold 4 of the 5 until 2 h).

    >>> from gridmarket.job import Job
    >>> from gridmarket.pricing.state import ProviderState, RunningJob
    >>> from gridmarket.reservation import Reservation
    >>> h = 3600
    >>> state = ProviderState(0, 5, running=(RunningJob(1, 1, 0, 2*h), RunningJob(2, 3, 0, 3*h)),
    ...                       queue=(Job(3, 0, 2, 2*h, 2*h), Job(4, 0, 2, 3*h, 3*h)),
    ...                       reservations=(Reservation("R", 5*h, 2, 3*h),))
    >>> plan = ProviderPlan(state)
    >>> terms = PenaltySchedule(rate_per_hour=2.0, cap=5.0, violation=20.0)
    >>> sla = offer_sla(plan, SLARequest("X", 2, 3*h, 0, 4*h), provider="fig21", penalty=terms)
    >>> sla.start // h, sla.price, sla.reservation_id in plan.reservations
    (2, 12.0, True)
    >>> offer_sla(plan, SLARequest("Y", 4, h, 0, h), provider="fig21", penalty=terms) is None
    True
    """
    _check_offer("offer_sla", plan, request, provider, penalty, choose)
    contract = quote_sla(plan, request, provider=provider, penalty=penalty, choose=choose)
    if contract is None:
        return None
    plan.reserve(contract.start, request.procs, request.duration, reservation_id=contract.reservation_id)
    return contract


def quote_sla(plan: ProviderPlan, request: SLARequest, *, provider: str, penalty: PenaltySchedule,
              choose: str = "earliest") -> SLA | None:
    """The contract :func:`offer_sla` would sign on ``plan``, without holding it (``plan`` is not changed).

    What a broker comparing providers needs: only the provider it picks places the reservation (on
    its machine). The price is the sale's (``n x d x c + f`` SU of the slot, the plan's pricing rule)
    and the reservation id the one :func:`offer_sla` holds. ``"earliest"`` prices only the starts up
    to the one signed (:meth:`gridmarket.pricing.ProviderPlan.first_quote`).

    >>> from gridmarket.pricing.state import ProviderState
    >>> plan = ProviderPlan(ProviderState(0, 4))
    >>> sla = quote_sla(plan, SLARequest(7, 2, 3600, 0, 60), provider="p", penalty=PenaltySchedule())
    >>> sla.start, sla.price, sla.reservation_id, plan.reservations
    (0, 2.0, 'sla-7', {})
    """
    _check_offer("quote_sla", plan, request, provider, penalty, choose)
    first = max(request.earliest, plan.now)
    if first > request.latest:
        return None
    if choose == "earliest":
        pick = plan.first_quote(request.procs, request.duration, earliest=first, latest=request.latest,
                                max_price=request.max_price)
        if pick is None:
            return None
    else:
        quotes = [q for q in plan.quotes(request.procs, request.duration, earliest=first)
                  if q.start <= request.latest and q.total_cost <= request.max_price]
        if not quotes:
            return None
        pick = min(quotes, key=lambda q: (q.total_cost, q.start))
    wanted = f"sla-{request.job_id}"
    rid = plan.new_reservation_id(None if wanted in plan.reservations else wanted)
    price = pick.slot(penalty_factor=plan.penalty_factor).total_cost  # the sale's slot, as reserve() prices it
    return SLA(provider, request.job_id, request.earliest, request.latest, request.procs, request.duration,
               price, penalty, rid, pick.start)


def settle(contract: SLA, actual_start: int | None, actual_end: int | None) -> Settlement:
    """The payment for ``contract`` given when its job started and ended (s); ``None`` for both if it never ran.

    On time (a start in the window) the provider is paid the price; late, the price less
    ``min(cap, rate x hours late)``; never run, ``-violation`` (module notes).

    Raises
    ------
    InvalidInput
        A start before the window, an end before the start, or only one of the two given.

    Examples
    --------
    >>> terms = PenaltySchedule(rate_per_hour=2.0, cap=5.0, violation=20.0)
    >>> sla = SLA("p", "X", 0, 4 * 3600, 2, 3 * 3600, 12.0, terms, "sla-X", 7200)
    >>> settle(sla, 7200, 18000).payment
    12.0
    >>> s = settle(sla, 19800, 30600)  # 1.5 h late: 3 SU
    >>> s.payment, s.penalty, s.late, s.violated
    (9.0, 3.0, 5400, True)
    >>> settle(sla, 14 * 3600, 60000).penalty  # 10 h late: the cap
    5.0
    >>> settle(sla, None, None).payment
    -20.0
    """
    if not isinstance(contract, SLA):
        raise InvalidInput(f"settle: contract must be an SLA, got {type(contract).__name__}")
    who = f"settling the SLA for job {contract.job_id!r}"
    if actual_start is None or actual_end is None:
        if actual_start is not None or actual_end is not None:
            raise InvalidInput(f"{who}: give both actual_start and actual_end, or neither (never ran); "
                               f"got {actual_start!r}, {actual_end!r}")
        v = contract.penalty.violation
        return Settlement(contract, -v, v, 0, True, False)
    if not _is_int(actual_start) or actual_start < contract.earliest:
        raise InvalidInput(f"{who}: actual_start must be an int >= earliest ({contract.earliest}), got {actual_start!r}")
    if not _is_int(actual_end) or actual_end <= actual_start:
        raise InvalidInput(f"{who}: actual_end must be an int > actual_start ({actual_start}), got {actual_end!r}")
    late = max(0, actual_start - contract.latest)
    charge = contract.penalty.lateness_penalty(late)
    return Settlement(contract, contract.price - charge, charge, late, late > 0, True)


@dataclass(frozen=True, slots=True)
class Ledger:
    """Totals over settled SLAs: counts, SU paid to providers (``payments``), penalties (SU) and seconds late."""

    n_contracts: int
    n_violated: int
    n_late: int
    n_failed: int
    payments: float
    penalties: float
    late: int

    @property
    def violation_rate(self) -> float:
        """Share of contracts violated (late or never run); NaN with none."""
        return self.n_violated / self.n_contracts if self.n_contracts else math.nan


def ledger(settlements: Iterable[Settlement], *, provider: str | None = None) -> Ledger:
    """Count violations and add up payments and penalties, over every settlement or one ``provider``'s.

    Examples
    --------
    >>> terms = PenaltySchedule(rate_per_hour=2.0, cap=5.0, violation=20.0)
    >>> sla = SLA("p", "X", 0, 4 * 3600, 2, 3 * 3600, 12.0, terms, "sla-X", 7200)
    >>> ledger([settle(sla, 7200, 18000), settle(sla, 19800, 30600), settle(sla, None, None)])
    Ledger(n_contracts=3, n_violated=2, n_late=1, n_failed=1, payments=1.0, penalties=23.0, late=5400)
    """
    rows = list(settlements)
    for s in rows:
        if not isinstance(s, Settlement):
            raise InvalidInput(f"ledger: settlements must be Settlement records, got {type(s).__name__}")
    rows = [s for s in rows if provider is None or s.contract.provider == provider]
    return Ledger(
        n_contracts=len(rows),
        n_violated=sum(s.violated for s in rows),
        n_late=sum(s.ran and s.late > 0 for s in rows),
        n_failed=sum(not s.ran for s in rows),
        payments=float(sum(s.payment for s in rows)),
        penalties=float(sum(s.penalty for s in rows)),
        late=sum(s.late for s in rows),
    )


# ---------------------------------------------------------------------------- overbooking
def _check_factor(factor: object) -> None:
    if isinstance(factor, bool) or not isinstance(factor, (int, float)) or not (math.isfinite(factor) and factor >= 1):
        raise InvalidInput(f"overbooking factor must be a finite number >= 1, got {factor!r}")


def book_capacity(procs: int, factor: float) -> int:
    """Processors an overbooking provider sells: ``floor(factor x procs)`` (a hair of float error forgiven).

    >>> book_capacity(32, 1.25), book_capacity(10, 1.1), book_capacity(7, 1.0)
    (40, 11, 7)
    """
    _check_factor(factor)
    return math.floor(factor * procs + 1e-9)


def _commitments(state: ProviderState, held: Iterable[Reservation]) -> list[tuple[int, int]]:
    """``(time, processors committed)`` steps from ``state.now``: running jobs to their planned ends and
    ``held`` reservations; the last step is 0."""
    now = state.now
    times, committed = block_steps(
        chain(((now, r.end, r.procs) for r in state.running),
              ((max(res.start, now), res.end, res.procs) for res in held if res.end > now)),
        origin=now)
    return list(zip(times, committed))


def overbooked_state(state: ProviderState, factor: float, pending: Iterable[Reservation] = ()) -> ProviderState:
    """The book of a provider that overbooks by ``factor``: ``state`` seen with ``factor`` times its processors.

    Parameters
    ----------
    state : ProviderState
        The machine's state (running jobs, queue, reservations placed on the machine).
    factor : float
        Overbooking factor, >= 1: the book has ``floor(factor x procs)`` processors
        (:func:`book_capacity`).
    pending : iterable of Reservation
        Contracts signed but not placed on the machine: they hold processors in the book (those
        ended by ``state.now`` are left out).

    Returns
    -------
    ProviderState
        Free processors at every instant: ``max(0, capacity - committed)``, where ``committed``
        counts running jobs (to their planned ends), reservations and ``pending``. The queue is
        kept, so quotes carry its externality on the book. ``state`` itself when ``factor`` gives
        no extra processor and nothing is pending.

    Raises
    ------
    InvalidInput
        A factor below 1 or not finite, or a pending id equal to a reservation's.

    Notes
    -----
    Commitments can exceed the book after the fact: the machine starts queued jobs in processors
    the book had promised to pending contracts. The state then has as many processors as the peak
    commitment and blocking reservations (ids ``"overbook-<k>"``) hold the excess over the book
    wherever it is free, so no instant shows more than ``capacity - committed`` free. O(k log k)
    for k running jobs and reservations.

    Examples
    --------
    Four processors, all running to 100 s: overbooking by 1.5 sells 2 more, so a 2-processor
    contract fits at 0 on the book (the machine could start it only at 100 s).

    >>> from gridmarket.pricing.state import RunningJob
    >>> s = ProviderState(0, 4, running=(RunningJob(1, 4, 0, 100),))
    >>> book = overbooked_state(s, 1.5)
    >>> book.procs, base_profile(book).steps()
    (6, [(0, 2), (100, 6)])
    >>> overbooked_state(s, 1.5, [Reservation("sla-9", 0, 2, 50)]).procs  # a pending contract fills them
    6
    >>> base_profile(overbooked_state(s, 1.5, [Reservation("sla-9", 0, 2, 50)])).steps()
    [(0, 0), (50, 2), (100, 6)]
    >>> overbooked_state(s, 1.0) is s
    True
    """
    if not isinstance(state, ProviderState):
        raise InvalidInput(f"overbooked_state: state must be a ProviderState, got {type(state).__name__}")
    capacity = book_capacity(state.procs, factor)
    pending = tuple(pending)
    held_ids = {r.id for r in state.reservations}
    for res in pending:
        if not isinstance(res, Reservation):
            raise InvalidInput(f"overbooked_state: pending contracts must be Reservations, got {type(res).__name__}")
        if res.id in held_ids:
            raise InvalidInput(f"overbooked_state: pending contract {res.id!r} is also a reservation on the machine")
    pending = tuple(r for r in pending if r.end > state.now)
    if capacity == state.procs and not pending:
        return state
    steps = _commitments(state, state.reservations + pending)
    size = max(capacity, max(c for _, c in steps))
    blocks: list[Reservation] = []
    if size > capacity:
        # block min(size - committed, size - capacity) at every step: free = max(0, capacity - committed)
        ends = [t for t, _ in steps[1:]] + [steps[-1][0] + BLOCK_SECONDS]
        run_start, run_width = 0, 0  # run_start is read only after a width > 0 has set it
        for (t, committed), _end in zip(steps, ends):
            width = min(size - committed, size - capacity)
            if width != run_width:
                if run_width > 0:
                    blocks.append(Reservation(f"overbook-{len(blocks)}", run_start, run_width, t - run_start))
                run_start, run_width = t, width
        if run_width > 0:
            blocks.append(Reservation(f"overbook-{len(blocks)}", run_start, run_width, ends[-1] - run_start))
    return ProviderState(state.now, size, state.running, state.queue, state.reservations + pending + tuple(blocks))


def book_plan(plan: ProviderPlan, factor: float, pending: Iterable[Reservation] = ()) -> ProviderPlan:
    """``plan``'s book when overbooking by ``factor`` with ``pending`` contracts (:func:`overbooked_state`).

    A new :class:`ProviderPlan` with the same policy, base rate, penalty factor and pricing rule
    (the queue is re-planned on the book); ``plan`` itself when the book is its state.
    """
    if not isinstance(plan, ProviderPlan):
        raise InvalidInput(f"book_plan: plan must be a ProviderPlan, got {type(plan).__name__}")
    state = overbooked_state(plan.state, factor, pending)
    if state is plan.state:
        return plan
    return ProviderPlan(state, plan.policy, unit_cost=plan.unit_cost, penalty_factor=plan.penalty_factor,
                        pricing=plan.pricing)


def honours(plan: ProviderPlan | ProviderState, contract: SLA, *, start: int | None = None) -> bool:
    """Whether the machine of ``plan`` (or of a bare state) can hold ``contract`` from ``start`` (default its
    signed start).

    True when running jobs and reservations leave ``contract.procs`` processors free over
    ``[start, start + duration)``; a contract held in ``plan`` already counts against itself.

    >>> from gridmarket.pricing.state import RunningJob
    >>> plan = ProviderPlan(ProviderState(0, 4, running=(RunningJob(1, 4, 0, 100),)))
    >>> sla = SLA("p", 9, 0, 60, 2, 50, 1.0, PenaltySchedule(), "sla-9", 0)
    >>> honours(plan, sla), honours(plan, sla, start=100), honours(plan.state, sla, start=100)
    (False, True, True)
    """
    if isinstance(plan, ProviderPlan):
        plan = plan.state
    if not isinstance(plan, ProviderState):
        raise InvalidInput(f"honours: plan must be a ProviderPlan or a ProviderState, got {type(plan).__name__}")
    if not isinstance(contract, SLA):
        raise InvalidInput(f"honours: contract must be an SLA, got {type(contract).__name__}")
    at = contract.start if start is None else start
    if not _is_int(at) or at < plan.now:
        raise InvalidInput(f"honours: start must be an int >= the plan's now ({plan.now}), got {at!r}")
    if contract.procs > plan.procs:
        return False
    return base_profile(plan).min_free(at, contract.duration) >= contract.procs


# ---------------------------------------------------------------------------- runtime overruns
def predict_runtime(history: Iterable[int], estimate: int) -> int:
    """A job's predicted run time (s): the mean of its user's last two run times, at most its ``estimate``.

    ``history`` holds the user's earlier jobs' run times (s), oldest first, known when the job is
    submitted. Tsafrir, Etsion & Feitelson (IEEE TPDS 2007, sec. 3) predict with the mean of the
    user's last two jobs and never above the user's estimate; with no history the estimate itself.
    Rounded up to whole seconds, at least 1.

    >>> predict_runtime([], 7200), predict_runtime([600], 7200), predict_runtime([100, 600, 1001], 7200)
    (7200, 600, 801)
    >>> predict_runtime([9000, 9000], 7200)
    7200
    """
    if not _is_int(estimate) or estimate < 1:
        raise InvalidInput(f"predict_runtime: estimate must be an int >= 1 s, got {estimate!r}")
    last = list(history)[-2:]
    for r in last:
        if not _is_int(r) or r < 1:
            raise InvalidInput(f"predict_runtime: run times must be ints >= 1 s, got {r!r}")
    if not last:
        return estimate
    return max(1, min(estimate, -(-sum(last) // len(last))))


def overrun_charge(contract: SLA, run: int, rate: float) -> float:
    """What the user pays for running ``run`` s under ``contract``: ``rate`` SU per processor-hour beyond its
    duration (0 within it).

    >>> sla = SLA("p", "X", 0, 100, 4, 3600, 4.0, PenaltySchedule(), "sla-X", 0)
    >>> overrun_charge(sla, 1800, 1.0), overrun_charge(sla, 5400, 1.0)
    (0.0, 2.0)
    """
    if not isinstance(contract, SLA):
        raise InvalidInput(f"overrun_charge: contract must be an SLA, got {type(contract).__name__}")
    if not _is_int(run) or run < 0:
        raise InvalidInput(f"overrun_charge: run must be an int >= 0 s, got {run!r}")
    _check_su("overrun_charge", "rate", rate)
    return float(max(0, run - contract.duration) * contract.procs * rate / SECONDS_PER_HOUR)


def make_room(state: ProviderState, extension: Reservation, movable: Iterable[int | str]) -> list | None:
    """Which of the reservations ``movable`` (ids) to withdraw so that ``extension`` fits on ``state``'s machine.

    Parameters
    ----------
    state : ProviderState
        The machine at ``extension.start`` (running jobs to their estimates and reservations).
    extension : Reservation
        The processors an overrunning job needs beyond its contract, from now.
    movable : iterable of ids
        Reservations of ``state`` the provider may move: its contracts not yet started.

    Returns
    -------
    list or None
        Ids to withdraw, in order of start (then id): the overlapping movable reservations taken
        in that order up to the first after whose withdrawal the extension fits, then each put
        back again (latest first) when the extension still fits without withdrawing it, so no
        id in the answer can be kept. ``[]`` when it fits as it is; ``None`` when it does not fit
        even with every movable overlapping one withdrawn (then nothing should move).

    Examples
    --------
    Four processors, a 2-processor contract from 100 s and a 4-processor one from 200 s; an
    overrun of 2 processors over [50, 250) needs the machine free of both.

    >>> s = ProviderState(50, 4, reservations=(Reservation("a", 100, 2, 100), Reservation("b", 200, 4, 100)))
    >>> make_room(s, Reservation("x", 50, 2, 200), ["a", "b"])
    ['b']
    >>> make_room(s, Reservation("x", 50, 4, 200), ["a", "b"]), make_room(s, Reservation("x", 50, 4, 200), ["b"])
    (['a', 'b'], None)
    """
    if not isinstance(state, ProviderState):
        raise InvalidInput(f"make_room: state must be a ProviderState, got {type(state).__name__}")
    if not isinstance(extension, Reservation):
        raise InvalidInput(f"make_room: extension must be a Reservation, got {type(extension).__name__}")
    if extension.start < state.now:
        raise InvalidInput(f"make_room: extension starts at {extension.start}, before now ({state.now})")
    ids = set(movable)
    held = {r.id for r in state.reservations}
    if unknown := ids - held:
        raise InvalidInput(f"make_room: movable ids {sorted(map(str, unknown))} are not reservations of the state")
    lo, hi = extension.start, extension.end
    order = sorted((r for r in state.reservations if r.id in ids and r.start < hi and r.end > lo),
                   key=lambda r: (r.start, str(r.id)))

    def fits(out: set) -> bool:
        if extension.procs > state.procs:
            return False
        kept = tuple(r for r in state.reservations if r.id not in out)
        trial = ProviderState(state.now, state.procs, state.running, (), kept)
        return base_profile(trial).min_free(lo, extension.duration) >= extension.procs

    out: list = []
    if fits(set()):
        return out
    for r in order:
        out.append(r.id)
        if fits(set(out)):
            break
    else:
        return None
    for rid in reversed(out[:-1]):  # keep what need not move
        if fits(set(out) - {rid}):
            out.remove(rid)
    return out
