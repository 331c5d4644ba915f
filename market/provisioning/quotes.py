"""What greedy provisioning needs from a provider that answers slot queries with quotes.

Singh 2008, ch. 5.2: a user asks a provider for ``n`` processors for ``d``
seconds starting no earlier than ``s`` (query form 19) and gets back a list of
possible start times with their prices, ``{<s_1, c_1, f_1>, ..., <s_k, c_k, f_k>}``;
it may then reserve one of them. Greedy provisioning (ch. 7, Fig. 51) only
needs that exchange, so it is written against :class:`QuoteProvider`; the
adaptive externality pricing of ch. 5 (Fig. 22) is one implementation, and
:class:`FreeCapacityProvider` here is the simplest one: it quotes only the
starts that delay no queued job (``f = 0``), which is the slot advertisement
model of ch. 3 seen through the query interface (ch. 5: "The slot advertisement
model of the chapter 3 is a special case of this pricing model where we allow
only slots that don't delay any tasks and thus have f = 0").

Times are integer seconds from simulation start; prices are SU.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from gridmarket.errors import Infeasible, InvalidInput
from gridmarket.provisioning.advertised import SECONDS_PER_HOUR
from gridmarket.scheduling.profile import Profile, block_steps
from gridmarket.scheduling.slots import FreeSlot

__all__ = ["FreeCapacityProvider", "PlanQuoteProvider", "PriceQuote", "QuoteLike", "QuoteProvider"]


@runtime_checkable
class QuoteLike(Protocol):
    """A quote: a start time (seconds) and the total price of the slot there (SU, ``n d c + f``)."""

    @property
    def start(self) -> int: ...

    @property
    def price(self) -> float: ...


@runtime_checkable
class QuoteProvider(Protocol):
    """A provider that answers query form (19) and takes reservations.

    ``name`` identifies the resource (task runtimes and transfers are looked
    up by it); ``procs`` is its machine size.
    """

    name: Hashable
    procs: int

    def quotes(self, procs: int, duration: int, earliest: int) -> Sequence[QuoteLike]:
        """Possible starts ``>= earliest`` of ``procs`` x ``duration`` with their prices (form 19)."""
        ...

    def reserve(self, start: int, procs: int, duration: int) -> object:
        """Reserve ``procs`` x ``duration`` at ``start`` (a start it quoted); raise ``Infeasible`` if gone."""
        ...


@dataclass(frozen=True, slots=True)
class PriceQuote:
    """``<start, price>``: one entry of a form-(19) answer.

    Examples
    --------
    >>> PriceQuote(3600, 4.0)
    PriceQuote(start=3600, price=4.0)
    """

    start: int
    price: float

    def __post_init__(self) -> None:
        if type(self.start) is not int or self.start < 0:
            raise InvalidInput(f"quote: start must be an int >= 0, got {self.start!r}")
        if not isinstance(self.price, (int, float)) or isinstance(self.price, bool) or not self.price >= 0:
            raise InvalidInput(f"quote: price must be >= 0 SU, got {self.price!r}")


class FreeCapacityProvider:
    """A provider that quotes only the starts where a slot delays nobody (``f = 0``).

    Parameters
    ----------
    name : hashable
        Resource name.
    procs : int
        Machine size.
    free_slots : iterable of FreeSlot
        The free capacity of its current plan
        (:meth:`gridmarket.scheduling.SlotScheduler.free_slots`), running and
        queued jobs already planned.
    unit_cost : float
        ``c``, SU per processor-hour (1: the best-effort rate).
    now : int
        Current time: no quote starts earlier.

    Notes
    -----
    Candidate starts, as the adaptive pricing scheduler lists them (ch. 5.2):
    the requested earliest start and every later instant where the free
    capacity changes; a candidate is quoted when ``procs`` processors are free
    over the whole window. The list always contains the earliest feasible
    start and ends at the first start from which the machine is idle. Each
    reservation is taken out of the free capacity (the provider's plan is
    not otherwise changed). O(B) per query for B breakpoints.

    Examples
    --------
    Thesis Fig. 1 (5 processors; S1-S5): 2 processors for 2 h can start at 0
    (S1 + S2), not at 2 h or 3 h (one processor is free from 3 h to 4 h), at
    4 h (S1 + S4) or at 6 h, when the machine is idle.

    >>> from gridmarket.job import Job
    >>> from gridmarket.scheduling import SlotScheduler
    >>> h = 3600
    >>> s = SlotScheduler(5)
    >>> for i, (n, d) in enumerate([(2, 3*h), (4, h), (1, 2*h), (3, 2*h)]):
    ...     s.submit(Job(i, 0, n, d, d), 0)
    >>> p = FreeCapacityProvider("fig1", 5, s.free_slots(0))
    >>> [(q.start // h, q.price) for q in p.quotes(2, 2 * h, 0)]
    [(0, 4.0), (4, 4.0), (6, 4.0)]
    >>> p.reserve(0, 2, 2 * h)
    >>> [q.start // h for q in p.quotes(2, 2 * h, 0)]
    [4, 6]
    """

    def __init__(
        self,
        name: Hashable,
        procs: int,
        free_slots: Iterable[FreeSlot],
        *,
        unit_cost: float = 1.0,
        now: int = 0,
    ) -> None:
        if not isinstance(procs, int) or isinstance(procs, bool) or procs < 1:
            raise InvalidInput(f"provider {name!r}: procs must be an int >= 1, got {procs!r}")
        if not isinstance(unit_cost, (int, float)) or isinstance(unit_cost, bool) or not 0 <= unit_cost < math.inf:
            raise InvalidInput(f"provider {name!r}: unit_cost must be a finite number >= 0, got {unit_cost!r}")
        self.name = name
        self.procs = procs
        self.unit_cost = unit_cost
        self.now = now
        times, frees = block_steps((s.start, s.start + s.duration, s.procs) for s in free_slots)
        self.profile = Profile(procs, origin=now)
        steps = list(zip(times, frees))
        free = frees[-1] if frees else 0
        if free != procs:
            raise InvalidInput(
                f"provider {name!r}: after its last planned job the slots leave {free} of the machine's {procs} "
                f"processors free; the slots reaching the end of the plan (with no duration, i.e. extensible) "
                f"must add up to all {procs}"
            )
        # hold what is not free: before the first slot and wherever free < procs
        first = steps[0][0] if steps else now
        if first > now:
            self.profile.reserve(now, first - now, procs)
        for (t, f), nxt in zip(steps, steps[1:]):
            if f < procs and t >= now:
                self.profile.reserve(t, nxt[0] - t, procs - f)

    def quotes(self, procs: int, duration: int, earliest: int) -> list[PriceQuote]:
        """Starts ``>= earliest`` where ``procs`` x ``duration`` delays nobody, at ``n d c``."""
        if not isinstance(procs, int) or not procs >= 1:
            raise InvalidInput(f"query: procs must be an int >= 1, got {procs!r}")
        if not isinstance(duration, int) or duration < 1:
            raise InvalidInput(f"query: duration must be an int >= 1 s, got {duration!r}")
        if procs > self.procs:
            return []
        earliest = max(earliest, self.now)
        price = procs * duration * self.unit_cost / SECONDS_PER_HOUR
        times = self.profile.times
        candidates = [earliest] + [t for t in times if t > earliest]
        out = []
        for t in candidates:
            if self.profile.min_free(t, duration) >= procs:
                out.append(PriceQuote(t, price))
        return out

    def reserve(self, start: int, procs: int, duration: int) -> None:
        """Take ``procs`` x ``duration`` at ``start`` out of the free capacity.

        Raises
        ------
        Infeasible
            The processors are not free over the whole window.
        """
        if start < self.now:
            raise Infeasible(f"provider {self.name!r}: cannot reserve at {start}, before now ({self.now})")
        self.profile.reserve(start, duration, procs)


class PlanQuoteProvider:
    """A :class:`QuoteProvider` over a provider plan that prices by externality (ch. 5).

    Adapts any plan object with ``procs``, ``now``, ``quotes(procs, duration,
    earliest=...)`` returning quotes with ``start`` and ``total_cost`` (form
    19), and ``reserve(start, procs, duration)`` -- such as
    ``gridmarket.pricing.ProviderPlan`` -- to the interface greedy provisioning
    uses. A quote's price is its total ``n d c + f``.

    Parameters
    ----------
    name : hashable
        Resource name.
    plan : object
        The provider's plan; reservations are made in it.
    """

    def __init__(self, name: Hashable, plan) -> None:
        for attr in ("procs", "now", "quotes", "reserve"):
            if not hasattr(plan, attr):
                raise InvalidInput(f"provider {name!r}: the plan has no {attr!r}")
        self.name = name
        self.plan = plan

    @property
    def procs(self) -> int:
        """Machine size."""
        return self.plan.procs

    def quotes(self, procs: int, duration: int, earliest: int) -> list[PriceQuote]:
        """Form (19) on the plan, from ``max(earliest, now)``."""
        answers = self.plan.quotes(procs, duration, earliest=max(earliest, self.plan.now))
        return [PriceQuote(q.start, q.total_cost) for q in answers if q.total_cost < math.inf]

    def reserve(self, start: int, procs: int, duration: int) -> object:
        """Buy the slot at its adaptive price (the plan re-plans its queue around it)."""
        return self.plan.reserve(start, procs, duration)
