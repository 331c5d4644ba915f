"""Slot queries and quotes: forms (17), (18), (19) and the user's choice rule (20) (Singh 2008, ch. 5.2-5.3).

Times are integer seconds from simulation start; prices are SU
(processor-hours). A quote is a possible start of the requested slot with its
price ``<s, c, f>``:

- (17) ``E(s, n, d) = <c, f>``: the price at a fixed start (infinite, with
  the reason, when running jobs or reservations hold the processors);
- (18) ``E(n, d) = {..., <s_i, c, f_i>, ...}``: every candidate start with its
  price. Candidates are now and every instant at which the plan's
  availability changes (a job or slot starts or ends); infeasible ones are
  left out. The list always holds the earliest feasible start and a start
  with ``f = 0`` (the end of the plan, when the whole machine is free);
- (19) ``E(s, n, d) = {<s_1, c, f_1>, ..., <s_k, c, f_k>}``: the candidates at
  or after the user's earliest start ``s``, plus ``s`` itself if feasible.

A user picks from a list by eq. (20): minimise ``alpha x f_norm + (1 - alpha) x
s_norm`` with min/max normalisation over the list; the rule, its ties and its errors are
:func:`gridmarket.tradeoff.choose_by_tradeoff`, shared with eq. 15 and Fig. 51.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from gridmarket.errors import Infeasible
from gridmarket.kernel import compiled_module
from gridmarket.pricing.externality import ExternalityPricer
from gridmarket.pricing.slot import BASE_RATE, PENALTY_FACTOR, SECONDS_PER_HOUR, Slot
from gridmarket.tradeoff import check_alpha, choose_by_tradeoff

__all__ = ["Quote", "choose", "choose_flexible", "quote_at", "quote_earliest", "quote_flexible", "total_cost_at"]


@dataclass(frozen=True, slots=True)
class Quote:
    """A priced start for a requested slot ``procs`` x ``duration``.

    Parameters
    ----------
    start : int
        Start of the slot (seconds).
    procs, duration : int
        The requested size (processors, seconds).
    fixed_cost : float
        ``f`` in SU; ``math.inf`` for a refused start (then ``reason`` says why).
    unit_cost : float
        ``c``, SU per processor-hour (the provider's base rate).
    reason : str or None
        Why the start is refused, for an infinite price.
    issued : int or None
        Time of the quote (seconds): it holds for the plan of that instant.

    Examples
    --------
    >>> q = Quote(7200, 2, 3 * 3600, fixed_cost=6.0)
    >>> q.feasible, q.total_cost
    (True, 12.0)
    >>> Quote(0, 2, 3600, math.inf, reason="held by running jobs").feasible
    False
    """

    start: int
    procs: int
    duration: int
    fixed_cost: float
    unit_cost: float = BASE_RATE
    reason: str | None = None
    issued: int | None = None

    @property
    def feasible(self) -> bool:
        """Whether the slot can be sold at ``start`` (finite price)."""
        return self.fixed_cost != math.inf

    @property
    def total_cost(self) -> float:
        """``n x d x c + f`` in SU (``d`` in hours); ``inf`` if refused."""
        return _total_cost(self.procs, self.duration, self.unit_cost, self.fixed_cost)

    def slot(self, *, penalty_factor: float = PENALTY_FACTOR) -> Slot:
        """The slot this quote offers (indivisible, non-extensible); ``Infeasible`` if refused."""
        if not self.feasible:
            raise Infeasible(f"no slot at {self.start}: {self.reason}")
        return Slot(
            self.start, self.procs, self.duration, self.unit_cost, self.fixed_cost,
            penalty_factor=penalty_factor, issued=self.issued,
        )


def _total_cost(procs: int, duration: int, unit_cost: float, fixed_cost: float) -> float:
    return procs * duration / SECONDS_PER_HOUR * unit_cost + fixed_cost


def _quote(pricer: ExternalityPricer, start: int, procs: int, duration: int, f_ps: int, unit_cost: float) -> Quote:
    return Quote(start, procs, duration, f_ps / SECONDS_PER_HOUR, unit_cost, None, pricer.now)


def quote_at(
    pricer: ExternalityPricer, start: int, procs: int, duration: int, *, unit_cost: float = BASE_RATE
) -> Quote:
    """Form (17): the price of the slot at a fixed ``start``.

    Returns a quote with ``fixed_cost = inf`` and the reason when running
    jobs or reservations hold the processors. Raises ``InvalidInput`` for a
    malformed request (non-positive size, more processors than the machine,
    a start before now).

    Examples
    --------
    >>> from gridmarket.pricing.state import ProviderState, RunningJob
    >>> p = ExternalityPricer(ProviderState(0, 4, running=(RunningJob(1, 3, 0, 100),)))
    >>> quote_at(p, 0, 2, 50).reason
    '2 processors over [0, 50) conflict with running jobs or reservations (only 1 free at 0)'
    >>> quote_at(p, 100, 2, 50).fixed_cost
    0.0
    """
    try:
        f_ps = pricer.price_ps(start, procs, duration)
    except Infeasible as err:
        return Quote(start, procs, duration, math.inf, unit_cost, str(err), pricer.now)
    return _quote(pricer, start, procs, duration, f_ps, unit_cost)


def total_cost_at(
    pricer: ExternalityPricer, start: int, procs: int, duration: int, *, unit_cost: float = BASE_RATE
) -> float:
    """``quote_at(...).total_cost`` without the quote record: ``n x d x c + f`` in SU, ``inf`` where refused.

    What a seller's reserve needs when it prices many slots (the double auction's offers).

    >>> from gridmarket.pricing.state import ProviderState, RunningJob
    >>> p = ExternalityPricer(ProviderState(0, 4, running=(RunningJob(1, 3, 0, 100),)))
    >>> total_cost_at(p, 0, 2, 50), total_cost_at(p, 100, 2, 3600) == quote_at(p, 100, 2, 3600).total_cost
    (inf, True)
    """
    try:
        f_ps = pricer.price_ps(start, procs, duration)
    except Infeasible:
        return math.inf
    return _total_cost(procs, duration, unit_cost, f_ps / SECONDS_PER_HOUR)


def quote_flexible(
    pricer: ExternalityPricer, procs: int, duration: int, *, unit_cost: float = BASE_RATE
) -> list[Quote]:
    """Form (18): every feasible candidate start with its price, in time order.

    Candidates are :meth:`ExternalityPricer.instants`: now and every start
    or end of a running job, reservation or planned queued job (ch. 5.2:
    "whenever there is a discontinuity in the resource availability").
    Raises ``InvalidInput`` for a malformed size.

    Notes
    -----
    The last candidate is the end of the plan, where every processor is free
    and nothing is delayed, so the list is never empty and holds an ``f = 0``
    start. The earliest feasible start is a candidate too: it is now or the
    end of a running job or reservation. O(n) prices for n candidates; see
    :class:`ExternalityPricer` for how they share work.

    Examples
    --------
    The Fig. 21 state of :class:`ExternalityPricer` (hours): slot X (2 procs
    x 3 h) is refused at 0, costs 6, 6, 8, 10 SU at 2, 3, 4, 5 and nothing
    from 6 on (the thesis's Table 3 has the same shape: an earlier start is
    not always dearer, and the tail is free).

    >>> from gridmarket.job import Job
    >>> from gridmarket.reservation import Reservation
    >>> from gridmarket.pricing.state import ProviderState, RunningJob
    >>> h = 3600
    >>> state = ProviderState(0, 5, running=(RunningJob(1, 1, 0, 2*h), RunningJob(2, 3, 0, 3*h)),
    ...                       queue=(Job(3, 0, 2, 2*h, 2*h), Job(4, 0, 2, 3*h, 3*h)),
    ...                       reservations=(Reservation("R", 5*h, 2, 3*h),))
    >>> [(q.start // h, q.fixed_cost) for q in quote_flexible(ExternalityPricer(state), 2, 3*h)]
    [(2, 6.0), (3, 6.0), (4, 8.0), (5, 10.0), (6, 0.0), (8, 0.0)]
    """
    starts, prices = pricer.feasible_prices_ps(procs, duration)
    return [_quote(pricer, s, procs, duration, f, unit_cost) for s, f in zip(starts, prices)]


def quote_earliest(
    pricer: ExternalityPricer, earliest: int, procs: int, duration: int, *, unit_cost: float = BASE_RATE
) -> list[Quote]:
    """Form (19): the candidates at or after ``earliest``, plus ``earliest`` itself if feasible.

    Raises ``InvalidInput`` for a malformed size or an ``earliest`` before now.

    Examples
    --------
    >>> from gridmarket.pricing.state import ProviderState, RunningJob
    >>> p = ExternalityPricer(ProviderState(0, 4, running=(RunningJob(1, 3, 0, 100),)))
    >>> [(q.start, q.fixed_cost) for q in quote_earliest(p, 30, 1, 50)]
    [(30, 0.0), (100, 0.0)]
    >>> [q.start for q in quote_earliest(p, 30, 2, 50)]
    [100]
    """
    pricer.check_start(earliest)
    starts = [t for t in pricer.instants() if t > earliest]
    starts.insert(0, earliest)
    prices = pricer.prices_ps(procs, duration, starts)
    return [_quote(pricer, s, procs, duration, f, unit_cost) for s, f in zip(starts, prices) if f is not None]


def choose(quotes: Sequence[Quote], alpha: float) -> Quote:
    """The quote a user with trade-off ``alpha`` picks: eq. (20) (Singh 2008, ch. 5.3).

    Minimises ``alpha x (f - f_min) / (f_max - f_min) + (1 - alpha) x (s - s_min) / (s_max - s_min)``
    over the feasible quotes with :func:`gridmarket.tradeoff.choose_by_tradeoff` (a term whose max
    equals its min counts 0; ties to the earlier start, then the lower price, then the first).
    ``alpha = 0`` takes the earliest start whatever its price, ``alpha = 1`` the earliest of the
    cheapest.

    Raises
    ------
    InvalidInput
        ``alpha`` outside [0, 1].
    Infeasible
        No feasible quote in ``quotes``.

    Examples
    --------
    >>> qs = [Quote(2, 2, 3, 6.0), Quote(3, 2, 3, 6.0), Quote(4, 2, 3, 8.0), Quote(6, 2, 3, 0.0)]
    >>> [choose(qs, a).start for a in (0.0, 0.5, 0.7, 1.0)]
    [2, 2, 6, 6]
    """
    check_alpha(alpha)
    usable = [q for q in quotes if q.feasible]
    return usable[choose_by_tradeoff([q.start for q in usable], [q.fixed_cost for q in usable], alpha, what="quote")]


def choose_flexible(
    pricer: ExternalityPricer, procs: int, duration: int, alpha: float, *, unit_cost: float = BASE_RATE
) -> tuple[Quote, int]:
    """The quote of form (18) a user with trade-off ``alpha`` picks, and how many quotes the list held.

    ``choose(quote_flexible(pricer, procs, duration), alpha)`` and the length
    of that list, without making a :class:`Quote` of every candidate (the
    priced replay asks this once per request).

    Examples
    --------
    The Fig. 21 state of :class:`ExternalityPricer` (hours): the list of
    :func:`quote_flexible` holds 6 starts; alpha 0.5 takes the first, alpha 0.7 the free one at 6.

    >>> from gridmarket.job import Job
    >>> from gridmarket.reservation import Reservation
    >>> from gridmarket.pricing.state import ProviderState, RunningJob
    >>> h = 3600
    >>> state = ProviderState(0, 5, running=(RunningJob(1, 1, 0, 2*h), RunningJob(2, 3, 0, 3*h)),
    ...                       queue=(Job(3, 0, 2, 2*h, 2*h), Job(4, 0, 2, 3*h, 3*h)),
    ...                       reservations=(Reservation("R", 5*h, 2, 3*h),))
    >>> [(q.start // h, q.fixed_cost, n) for q, n in (choose_flexible(ExternalityPricer(state), 2, 3*h, a)
    ...                                                for a in (0.5, 0.7))]
    [(2, 6.0, 6), (6, 0.0, 6)]
    """
    alpha = check_alpha(alpha)
    starts, prices = pricer.feasible_prices_ps(procs, duration)
    if not starts:  # pragma: no cover - form 18 always holds the end of the plan
        choose_by_tradeoff(starts, [], alpha, what="quote")  # raises the one rule's Infeasible
    i = choice_index(starts, prices, alpha)
    return _quote(pricer, starts[i], procs, duration, prices[i], unit_cost), len(starts)


def reference_choice(starts: list[int], prices_ps: list[int], alpha: float) -> int:
    """Index of the start eq. (20) picks among ``starts`` (seconds) priced ``prices_ps`` (processor-seconds).

    :func:`gridmarket.tradeoff.choose_by_tradeoff` on the quotes of those prices (``f`` in SU is
    ``prices_ps / 3600``); ``market/pricing/_creplan.pyx`` has the compiled twin, with the same scores,
    tie rule (the earlier start, then the lower price, then the first) and errors.
    """
    return choose_by_tradeoff(starts, [f / SECONDS_PER_HOUR for f in prices_ps], alpha)


_compiled = compiled_module("gridmarket.pricing._creplan")
#: eq. (20) on raw lists: compiled where built (see :mod:`gridmarket.kernel`)
choice_index = reference_choice if _compiled is None else _compiled.choice_index
