"""Service-level agreements: a provider signs a start window it can honour, and lateness or failure is paid for.

Issue 17, after the SLA contracts of CloudSim Plus and the penalty-bearing reservations of
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
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from market.errors import InvalidInput
from market.pricing.plan import ProviderPlan
from market.pricing.slot import SECONDS_PER_HOUR

__all__ = ["SLA", "Ledger", "PenaltySchedule", "SLARequest", "Settlement", "ledger", "offer_sla", "settle"]

SLA_CHOICES = ("earliest", "cheapest")


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
    the earliest start that fits in the window is among them (:func:`market.pricing.quote_earliest`).
    Cost: one form-19 query, then one reservation.

    Examples
    --------
    The Fig. 21 state (hours): 2 processors for 3 h in the window [0, 4 h] first fit at 2 h, for
    12 SU (6 processor-hours plus the 6 SU its queued jobs lose); 4 processors for 1 h in
    [0, 1 h] never fit (running jobs hold 4 of the 5 until 2 h).

    >>> from market.job import Job
    >>> from market.pricing.state import ProviderState, RunningJob
    >>> from market.reservation import Reservation
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
    if not isinstance(plan, ProviderPlan):
        raise InvalidInput(f"offer_sla: plan must be a ProviderPlan, got {type(plan).__name__}")
    if not isinstance(request, SLARequest):
        raise InvalidInput(f"offer_sla: request must be an SLARequest, got {type(request).__name__}")
    if not isinstance(penalty, PenaltySchedule):
        raise InvalidInput(f"offer_sla: penalty must be a PenaltySchedule, got {type(penalty).__name__}")
    if choose not in SLA_CHOICES:
        raise InvalidInput(f"offer_sla: choose must be one of {', '.join(SLA_CHOICES)}, got {choose!r}")
    if not isinstance(provider, str) or not provider:
        raise InvalidInput(f"offer_sla: provider must be a non-empty string, got {provider!r}")
    if request.procs > plan.procs:
        raise InvalidInput(f"SLA request for job {request.job_id!r} needs {request.procs} processors; "
                           f"machine has {plan.procs}")
    first = max(request.earliest, plan.now)
    if first > request.latest:
        return None
    quotes = [q for q in plan.quotes(request.procs, request.duration, earliest=first)
              if q.start <= request.latest and q.total_cost <= request.max_price]
    if not quotes:
        return None
    pick = quotes[0] if choose == "earliest" else min(quotes, key=lambda q: (q.total_cost, q.start))
    rid = f"sla-{request.job_id}"
    booking = plan.reserve(pick.start, request.procs, request.duration,
                           reservation_id=None if rid in plan.reservations else rid)
    return SLA(provider, request.job_id, request.earliest, request.latest, request.procs, request.duration,
               booking.price, penalty, booking.id, pick.start)


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
