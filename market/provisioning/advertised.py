"""Slots as a provider advertises them, with their prices and Table 1 sub-slot costs.

Singh 2008, ch. 3: a slot ``<s, n, d, c, f, b, e>`` (eqs. 1-2) offers ``n``
processors over ``[s, s + d)`` at unit cost ``c`` and fixed cost ``f``;
``b`` (divisible) lets a buyer take part of it, ``e`` (extensible) lets a
buyer run past its end, and Table 1 gives the cost of each possible
sub-slot. The slots a non-delaying scheduler advertises cost ``c = 1``,
``f = 0`` (ch. 3, end of the Fig. 2-3 discussion). Times are integer seconds;
costs are SU (processor-hours): ``c`` is SU per processor-hour, ``f`` SU.

This record is what provisioning needs from the priced slot of the pricing
mechanisms (``gridmarket.pricing``); anything with the same attributes works.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable
from dataclasses import dataclass

from gridmarket.errors import Infeasible, InvalidInput
from gridmarket.scheduling.slots import FreeSlot

__all__ = ["SECONDS_PER_HOUR", "AdvertisedSlot", "advertise"]

SECONDS_PER_HOUR = 3600
INF = math.inf


@dataclass(frozen=True, slots=True)
class AdvertisedSlot:
    """``procs`` processors of ``resource`` over ``[start, start + duration)`` at a price.

    Parameters
    ----------
    resource : hashable
        The provider (site) offering the slot.
    start : int
        First instant, seconds >= 0.
    procs : int
        Processors, >= 1.
    duration : int or float
        Seconds >= 1, or ``math.inf`` (extensible slots only).
    divisible, extensible : bool
        Table 1's ``b`` and ``e``.
    unit_cost : float
        ``c``, SU per processor-hour, >= 0.
    fixed_cost : float
        ``f``, SU, >= 0.

    Examples
    --------
    Table 1, row by row, for a slot of 4 processors over 2 h at c = 1, f = 0.5:

    >>> h = 3600
    >>> def slot(b, e):
    ...     return AdvertisedSlot("ctc", 0, 4, 2 * h, divisible=b, extensible=e, fixed_cost=0.5)
    >>> slot(False, False).subslot_cost(0, 4, 2 * h)      # n_i d_i c + f
    8.5
    >>> slot(False, True).subslot_cost(0, 4, 3 * h)       # n_i d_k c + f, d_k >= d_i
    12.5
    >>> slot(True, False).subslot_cost(h, 2, h)           # n_k d_k c + f, inside the slot
    2.5
    >>> slot(True, True).subslot_cost(h, 2, 5 * h)        # n_k d_k c + f, may run past the end
    10.5
    >>> slot(False, False).subslot_cost(0, 2, 2 * h)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    gridmarket.errors.Infeasible: slot of ctc at 0 is indivisible: a sub-slot must take all 4 processors, not 2
    """

    resource: Hashable
    start: int
    procs: int
    duration: int | float
    divisible: bool
    extensible: bool
    unit_cost: float = 1.0
    fixed_cost: float = 0.0

    def __post_init__(self) -> None:
        where = f"slot of {self.resource!r} at {self.start!r}"
        if type(self.start) is not int or self.start < 0:
            raise InvalidInput(f"{where}: start must be an int >= 0, got {self.start!r}")
        if type(self.procs) is not int or self.procs < 1:
            raise InvalidInput(f"{where}: procs must be an int >= 1, got {self.procs!r}")
        d = self.duration
        if d == INF:
            if not self.extensible:
                raise InvalidInput(f"{where}: an infinite duration needs extensible=True")
        elif type(d) is not int or d < 1:
            raise InvalidInput(f"{where}: duration must be an int >= 1 or math.inf, got {d!r}")
        for name in ("unit_cost", "fixed_cost"):
            v = getattr(self, name)
            if not isinstance(v, (int, float)) or isinstance(v, bool) or not 0 <= v < INF:
                raise InvalidInput(f"{where}: {name} must be a finite number >= 0, got {v!r}")

    @property
    def end(self) -> int | float:
        """First instant after the slot (seconds; ``inf`` for an endless extensible slot)."""
        return self.start + self.duration

    @property
    def cost(self) -> float:
        """Total cost ``n d c + f`` of the whole slot (SU; eq. 1), ``inf`` if endless and priced."""
        if self.duration == INF:
            return INF if self.unit_cost > 0 else self.fixed_cost
        return self.procs * self.duration * self.unit_cost / SECONDS_PER_HOUR + self.fixed_cost

    def subslot_cost(self, start: int, procs: int, duration: int) -> float:
        """Cost in SU of buying ``procs`` processors over ``[start, start + duration)`` (Table 1).

        Raises
        ------
        Infeasible
            The sub-slot breaks the slot's restrictions (Table 1's second column).
        """
        where = f"slot of {self.resource} at {self.start}"
        if not 1 <= procs <= self.procs:
            raise Infeasible(f"{where} has {self.procs} processors; {procs} requested")
        if start < self.start:
            raise Infeasible(f"{where}: a sub-slot cannot start before the slot, at {start}")
        if not self.extensible and start + duration > self.end:
            raise Infeasible(f"{where} is not extensible: a sub-slot must end by {self.end}, not {start + duration}")
        if not self.divisible:
            if procs != self.procs:
                raise Infeasible(
                    f"{where} is indivisible: a sub-slot must take all {self.procs} processors, not {procs}"
                )
            if start != self.start:
                raise Infeasible(f"{where} is indivisible: a sub-slot must start at {self.start}, not {start}")
            return procs * max(duration, self.duration) * self.unit_cost / SECONDS_PER_HOUR + self.fixed_cost  # rows 1-2: pay at least the whole slot
        return procs * duration * self.unit_cost / SECONDS_PER_HOUR + self.fixed_cost


def advertise(
    resource: Hashable,
    free_slots: Iterable[FreeSlot],
    *,
    unit_cost: float | None = None,
    fixed_cost: float | None = None,
) -> list[AdvertisedSlot]:
    """Tag a provider's slots with its name and their prices (ch. 3: ``c = 1``, ``f = 0`` by default).

    Parameters
    ----------
    resource : hashable
        Name of the provider.
    free_slots : iterable of FreeSlot or priced slots
        From :meth:`gridmarket.scheduling.SlotScheduler.free_slots` or
        :func:`gridmarket.scheduling.slots.decompose`, or priced slots (anything
        with ``start, procs, duration, divisible, extensible`` and optionally
        ``unit_cost, fixed_cost``, such as ``gridmarket.pricing.Slot``).
    unit_cost, fixed_cost : float, optional
        ``c`` (SU per processor-hour) and ``f`` (SU) for every slot; by
        default each slot's own, else the best-effort price ``c = 1``, ``f = 0``.

    Examples
    --------
    >>> from gridmarket.scheduling import SlotScheduler
    >>> [s.cost for s in advertise("m", SlotScheduler(4).free_slots(0, until=7200))]
    [8.0]
    """
    return [
        AdvertisedSlot(
            resource, s.start, s.procs, s.duration, s.divisible, s.extensible,
            getattr(s, "unit_cost", 1.0) if unit_cost is None else unit_cost,
            getattr(s, "fixed_cost", 0.0) if fixed_cost is None else fixed_cost,
        )
        for s in free_slots
    ]
