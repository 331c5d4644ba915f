"""The slot ``<s, n, d, c, f, b, e, p>``, the one slot record, and its sub-slot allocation (Singh 2008, eqs. 1-2, Table 1, eq. 23).

Times and durations are integer seconds from simulation start. Prices are in
SU (service units, 1 SU = 1 processor-hour): the unit cost ``c`` is SU per
processor-hour, the fixed cost ``f`` is SU. The total cost of a slot is
``n x d x c + f`` with ``d`` counted in hours (eq. 1).

A provider advertises slots at the best-effort price (``c`` = the base rate,
``f`` = 0; ch. 3) or quotes them with an externality price ``f`` (ch. 5); a
buyer takes the whole slot or, as its divisible (``b``) and extensible
(``e``) attributes allow, a sub-slot of it (Table 1). Cancelling a slot bought
at price ``f`` costs ``p x f`` (ch. 6.4, eq. 23; ``p`` = 0.1 there).

:class:`Slot` is the record pricing sells and provisioning plans over (ch. 4.2: "the set of slots
advertised by the resource provider, r, is denoted by E_r, as defined in (2)"; ``resource`` is that
``r``); :meth:`Slot.subslot` is Table 1, the one rule for what part of a slot a buyer may take and what
it costs. The scheduler's :class:`gridmarket.scheduling.FreeSlot` (its free capacity, without prices)
becomes a slot through :meth:`Slot.of`.
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any, TypeGuard

from gridmarket.errors import Infeasible, InvalidInput

__all__ = ["BASE_RATE", "PENALTY_FACTOR", "SECONDS_PER_HOUR", "Slot", "subslot_cost"]

SECONDS_PER_HOUR = 3600
"""Durations are seconds; SU are processor-hours."""

BASE_RATE = 1.0
"""Best-effort unit cost ``c``: 1 SU per processor-hour (Singh 2008, ch. 5.1)."""

PENALTY_FACTOR = 0.1
"""Cancellation penalty factor ``p`` of the thesis's experiments (ch. 6.4: "a penalty factor of 0.1")."""


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_real(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


@dataclass(frozen=True, slots=True)
class Slot:
    """``procs`` processors over ``[start, start + duration)`` at unit cost ``c`` plus fixed cost ``f``.

    The slot of Singh 2008, eq. 1 (``<s, n, d, c, f>``), with the divisible
    and extensible attributes of eq. 2 and the penalty factor of eq. 23.

    Parameters
    ----------
    start : int
        First instant of the slot (seconds, >= 0).
    procs : int
        Processors, >= 1.
    duration : int or float
        Seconds, >= 1. An extensible slot may be taken past its end
        (the end is the advertisement's delineation time, ch. 3.1). ``math.inf``
        for an edge slot that reaches the end of the plan (ch. 3.1: S1, S4, S5 of
        Fig. 1): divisible and extensible only, since an indivisible slot is
        bought whole (Table 1).
    unit_cost : float
        ``c``, SU per processor-hour, >= 0 (default the best-effort base rate).
    fixed_cost : float
        ``f``, SU, >= 0: 0 for an advertised slot, the externality price for
        a quoted one (ch. 5, Fig. 22).
    divisible : bool
        ``b``: a buyer may take fewer processors or a shorter window (Table 1).
    extensible : bool
        ``e``: a buyer may take it past its end (Table 1).
    penalty_factor : float
        ``p`` in [0, 1]: a cancellation costs ``p x f`` (eq. 23).
    issued : int or None
        Time the slot was advertised or quoted (seconds); advertised slots
        are advisory and go stale when the plan changes (ch. 3).
    resource : hashable or None
        The provider (site) offering it: ``r`` of ch. 4.2's ``E_r``; a provider's
        own plan leaves it ``None``, a broker pooling several providers' slots
        (the global set of eq. 3) names it.

    Examples
    --------
    Two processors for three hours at 1 SU per processor-hour plus the fixed
    cost of the thesis's Fig. 21 example (f = 6 SU):

    >>> s = Slot(7200, procs=2, duration=3 * 3600, fixed_cost=6.0)
    >>> s.end, s.total_cost, s.cancellation_penalty
    (18000, 12.0, 0.6000000000000001)
    """

    start: int
    procs: int
    duration: int  # or math.inf for an endless edge slot; every sub-slot, quote and sale is finite
    unit_cost: float = BASE_RATE
    fixed_cost: float = 0.0
    divisible: bool = False
    extensible: bool = False
    penalty_factor: float = PENALTY_FACTOR
    issued: int | None = None
    resource: Hashable | None = None

    def __post_init__(self) -> None:
        where = f"slot at {self.start!r}"
        if not _is_int(self.start) or self.start < 0:
            raise InvalidInput(f"{where}: start must be an int >= 0, got {self.start!r}")
        if not _is_int(self.procs) or self.procs < 1:
            raise InvalidInput(f"{where}: procs must be an int >= 1, got {self.procs!r}")
        if self.duration == math.inf:
            if not (self.divisible is True and self.extensible is True):
                raise InvalidInput(f"{where}: an infinite duration needs divisible=True and extensible=True "
                                   f"(an indivisible slot is bought whole, Table 1)")
        elif not _is_int(self.duration) or self.duration < 1:
            raise InvalidInput(f"{where}: duration must be an int >= 1 s or math.inf, got {self.duration!r}")
        if not _is_real(self.unit_cost) or not self.unit_cost >= 0 or self.unit_cost == float("inf"):
            raise InvalidInput(f"{where}: unit_cost must be a finite number >= 0, got {self.unit_cost!r}")
        if not _is_real(self.fixed_cost) or not self.fixed_cost >= 0 or self.fixed_cost == float("inf"):
            raise InvalidInput(f"{where}: fixed_cost must be a finite number >= 0, got {self.fixed_cost!r}")
        if not _is_real(self.penalty_factor) or not 0 <= self.penalty_factor <= 1:
            raise InvalidInput(f"{where}: penalty_factor must be in [0, 1], got {self.penalty_factor!r}")
        for name in ("divisible", "extensible"):
            if not isinstance(getattr(self, name), bool):
                raise InvalidInput(f"{where}: {name} must be a bool, got {getattr(self, name)!r}")
        if self.issued is not None and not _is_int(self.issued):
            raise InvalidInput(f"{where}: issued must be an int or None, got {self.issued!r}")
        try:
            hash(self.resource)
        except TypeError:
            raise InvalidInput(f"{where}: resource must be hashable (a name), got {self.resource!r}") from None

    @classmethod
    def of(cls, free: Any, *, resource: Hashable | None = None, until: int | None = None,
           unit_cost: float = BASE_RATE, fixed_cost: float = 0.0, penalty_factor: float = PENALTY_FACTOR,
           issued: int | None = None) -> Slot:
        """The slot a provider offers for the free capacity ``free``: the one conversion into this record.

        Parameters
        ----------
        free : FreeSlot or Slot
            Anything with ``start, procs, duration, divisible, extensible``:
            :class:`gridmarket.scheduling.FreeSlot` (the scheduler's free
            capacity, ch. 3, Fig. 1), or a slot to re-price or re-name.
        resource : hashable, optional
            The provider offering it.
        until : int, optional
            Delineation time (ch. 3.1): an endless slot (``math.inf``) ends here
            and stays extensible. Without it an endless slot stays endless.
        unit_cost, fixed_cost, penalty_factor, issued
            ``c`` (SU per processor-hour), ``f`` (SU), ``p`` and the time of
            issue; by default the best-effort price of ch. 3 (``c`` = the base
            rate, ``f`` = 0).

        Examples
        --------
        >>> from gridmarket.scheduling import FreeSlot
        >>> edge = FreeSlot(3600, 2, math.inf, True, True)
        >>> Slot.of(edge, resource="ctc").duration, Slot.of(edge, until=7 * 3600).duration
        (inf, 21600)
        >>> Slot.of(edge, resource="ctc", until=7 * 3600).total_cost  # 2 processors x 6 h x 1 SU
        12.0
        """
        duration = free.duration
        if until is not None and duration == math.inf:
            duration = until - free.start
        return cls(free.start, free.procs, duration, unit_cost, fixed_cost, free.divisible, free.extensible,
                   penalty_factor, issued, resource)

    @property
    def end(self) -> int:
        """First instant after the slot (seconds)."""
        return self.start + self.duration

    @property
    def hours(self) -> float:
        """Duration in hours (``inf`` for an endless slot)."""
        return self.duration / SECONDS_PER_HOUR

    @property
    def total_cost(self) -> float:
        """``n x d x c + f`` in SU, ``d`` in hours (eq. 1); an endless slot costs ``inf`` unless ``c`` = 0."""
        if self.duration == math.inf and self.unit_cost == 0:
            return float(self.fixed_cost)
        return self.procs * self.hours * self.unit_cost + self.fixed_cost

    @property
    def cancellation_penalty(self) -> float:
        """``p x f`` in SU: what cancelling this slot costs (Singh 2008, ch. 6.4, eq. 23)."""
        return self.penalty_factor * self.fixed_cost

    def subslot(
        self, start: int | None = None, procs: int | None = None, duration: int | None = None
    ) -> Slot:
        """The part of this slot a buyer takes, within Table 1's restrictions.

        Parameters
        ----------
        start, procs, duration : int, optional
            The requested ``s_k``, ``n_k``, ``d_k``; each defaults to the slot's own.

        Returns
        -------
        Slot
            The allocation ``<s_k, n_k, d_k, c, f>``: indivisible and
            non-extensible, same ``c``, ``f``, ``p``, ``issued`` and
            ``resource``; its ``total_cost`` is the cost of Table 1 (see
            :func:`subslot_cost`).

        Raises
        ------
        InvalidInput
            A requested value is not a positive int (start: not >= 0).
        Infeasible
            The request breaks the restrictions of the slot's ``(b, e)``
            row; the message says which.

        Notes
        -----
        Singh 2008, ch. 3, Table 1 ("Cost of possible subslot allocation"):
        "b_i = false implies that the slot has to be provisioned in its
        entirety", so an indivisible slot has one allocation, the whole slot
        (``n_k = n_i, s_k = s_i, d_k = d_i``, or ``d_k >= d_i`` when it is
        extensible). A request for less of it -- fewer processors, a later
        start, a shorter window -- is not an allocation Table 1 lists and is
        refused; a buyer whose task needs less asks for the whole slot and pays
        ``n_i d_i c_i + f_i`` for it (eq. 4 sums the slots of the plan, not the
        tasks' use of them; :class:`gridmarket.provisioning.PlanEvaluator`
        charges a touched indivisible slot so).

        Examples
        --------
        >>> s = Slot(0, procs=4, duration=7200, divisible=True, extensible=False)
        >>> s.subslot(start=3600, procs=2, duration=3600).total_cost
        2.0
        >>> s.subslot(start=3600, procs=2, duration=7200)
        Traceback (most recent call last):
        ...
        gridmarket.errors.Infeasible: slot at 0 is not extensible (e=false): the request must end by 7200, asks [3600, 10800)
        """
        s_k = self.start if start is None else start
        n_k = self.procs if procs is None else procs
        d_k = self.duration if duration is None else duration
        _check_request(s_k, n_k, d_k)
        where = f"slot at {self.start}"
        if not self.divisible:
            if n_k != self.procs:
                raise Infeasible(
                    f"{where} is not divisible (b=false): all {self.procs} processors must be taken, asks {n_k}"
                )
            if s_k != self.start:
                raise Infeasible(f"{where} is not divisible (b=false): the request must start at {self.start}, asks {s_k}")
            if not self.extensible and d_k != self.duration:
                raise Infeasible(
                    f"{where} is neither divisible nor extensible: the request must last {self.duration} s, asks {d_k}"
                )
            if self.extensible and d_k < self.duration:
                raise Infeasible(
                    f"{where} is not divisible (b=false): the request must last at least {self.duration} s, asks {d_k}"
                )
        else:
            if n_k > self.procs:
                raise Infeasible(f"{where} has {self.procs} processors, the request asks {n_k}")
            if s_k < self.start:
                raise Infeasible(f"{where}: the request must start at or after {self.start}, asks {s_k}")
            if not self.extensible and s_k + d_k > self.end:
                raise Infeasible(
                    f"{where} is not extensible (e=false): the request must end by {self.end}, "
                    f"asks [{s_k}, {s_k + d_k})"
                )
        return Slot(
            s_k, n_k, d_k, self.unit_cost, self.fixed_cost, False, False, self.penalty_factor, self.issued,
            self.resource,
        )


def _check_request(start: object, procs: object, duration: object) -> None:
    if not _is_int(start) or start < 0:
        raise InvalidInput(f"request: start must be an int >= 0, got {start!r}")
    if not _is_int(procs) or procs < 1:
        raise InvalidInput(f"request: procs must be an int >= 1, got {procs!r}")
    if not _is_int(duration) or duration < 1:
        raise InvalidInput(f"request: duration must be an int >= 1 s, got {duration!r}")


def subslot_cost(slot: Slot, start: int, procs: int, duration: int) -> float:
    """Cost in SU of taking ``procs`` x ``duration`` from ``start`` out of ``slot`` (Table 1).

    ===== ===== ================================================== =====================
    ``b`` ``e`` restrictions                                       cost
    ===== ===== ================================================== =====================
    false false ``n_k = n_i, s_k = s_i, d_k = d_i``                ``n_i d_i c_i + f_i``
    false true  ``n_k = n_i, s_k = s_i, d_k >= d_i``               ``n_i d_k c_i + f_i``
    true  false ``n_k <= n_i, s_i <= s_k, s_k + d_k <= s_i + d_i`` ``n_k d_k c_i + f_i``
    true  true  ``n_k <= n_i, s_i <= s_k``                         ``n_k d_k c_i + f_i``
    ===== ===== ================================================== =====================

    Raises ``Infeasible`` with the broken restriction (see :meth:`Slot.subslot`).

    Notes
    -----
    Singh 2008, ch. 3, Table 1 ("Cost of possible subslot allocation"),
    ``d`` in hours. Under its restrictions every row is ``n_k d_k c_i + f_i``:
    the fixed cost is paid whole whatever part is taken.

    Examples
    --------
    >>> edge = Slot(3600, procs=8, duration=7200, divisible=True, extensible=True)
    >>> subslot_cost(edge, 7200, 2, 4 * 3600)  # past its end: it is extensible
    8.0
    >>> whole = Slot(0, procs=2, duration=3600, unit_cost=2.0, fixed_cost=1.5)
    >>> subslot_cost(whole, 0, 2, 3600)
    5.5

    Table 1 row by row for a slot of 4 processors over 2 h at ``c`` = 1, ``f`` = 0.5:

    >>> h = 3600
    >>> def slot(b, e):
    ...     return Slot(0, 4, 2 * h, fixed_cost=0.5, divisible=b, extensible=e)
    >>> subslot_cost(slot(False, False), 0, 4, 2 * h)      # n_i d_i c + f
    8.5
    >>> subslot_cost(slot(False, True), 0, 4, 3 * h)       # n_i d_k c + f, d_k >= d_i
    12.5
    >>> subslot_cost(slot(True, False), h, 2, h)           # n_k d_k c + f, inside the slot
    2.5
    >>> subslot_cost(slot(True, True), h, 2, 5 * h)        # n_k d_k c + f, may run past the end
    10.5
    >>> subslot_cost(slot(False, False), 0, 4, h)          # less of an indivisible slot: no allocation
    Traceback (most recent call last):
    ...
    gridmarket.errors.Infeasible: slot at 0 is neither divisible nor extensible: the request must last 7200 s, asks 3600
    """
    return slot.subslot(start, procs, duration).total_cost
