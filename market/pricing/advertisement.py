"""Slot advertisement: the non-delaying free slots of a provider's plan at best-effort price (Singh 2008, ch. 3).

Times are integer seconds from simulation start; prices in SU. The provider
publishes the holes of its plan, "where backfilling would normally happen",
as slots (ch. 3): buying one is no different to the scheduler from
backfilling a job there, so it delays no planned job and costs the
best-effort price (``c`` = the base rate, ``f`` = 0; the ``f = 0`` special
case of adaptive pricing, ch. 5). Slots bounded by a job start are
indivisible and non-extensible; slots reaching the end of the plan are
divisible and extensible (Table 1). The set is advisory: it is derived from
the plan of the instant it is issued and goes stale when the plan changes
(an arrival, an early completion, a sale).
"""

from __future__ import annotations

from gridmarket.errors import InvalidInput
from gridmarket.pricing.slot import BASE_RATE, PENALTY_FACTOR, Slot
from gridmarket.scheduling.profile import AvailabilityProfile, Profile  # noqa: F401 - Profile: the doctests use it
from gridmarket.scheduling.slots import decompose

__all__ = ["ADVERTISEMENT_HORIZON", "ADVERTISEMENT_MARGIN", "advertise", "delineation"]

ADVERTISEMENT_HORIZON = 48 * 3600
"""The thesis's providers advertise 48 hours ahead (ch. 3.1, Fig. 6) ..."""

ADVERTISEMENT_MARGIN = 5 * 60
"""... or to the plan's last finish time plus 5 minutes, whichever is later."""


def delineation(full: AvailabilityProfile, now: int) -> int:
    """End of the advertised period: ``max(now + 48 h, end of the plan + 5 min)`` (ch. 3.1)."""
    plan_end = full.times[-1] if len(full.times) > 1 else now
    return max(now + ADVERTISEMENT_HORIZON, plan_end + ADVERTISEMENT_MARGIN)


def advertise(
    full: AvailabilityProfile,
    now: int,
    *,
    until: int | None = None,
    unit_cost: float = BASE_RATE,
    penalty_factor: float = PENALTY_FACTOR,
) -> list[Slot]:
    """The free slots of the plan ``full`` from ``now`` on, priced at the best-effort rate.

    Parameters
    ----------
    full : Profile
        Free processors of the provider's plan: running jobs, reservations
        and every queued job at its planned start. Not modified.
    now : int
        Time of issue (seconds); slots start at ``now`` or later.
    until : int, optional
        Delineation time: the slots that reach the end of the plan end here
        (and stay extensible). Default :func:`delineation`.
    unit_cost : float
        ``c`` of every slot, SU per processor-hour.
    penalty_factor : float
        ``p`` of every slot (eq. 23).

    Returns
    -------
    list of Slot
        Sorted by start, bottom level first, each with ``fixed_cost`` 0 and
        ``issued = now``. Summing the slots active at an instant gives the
        plan's free processors then (the layered cut of
        :func:`gridmarket.scheduling.slots.decompose`).

    Raises
    ------
    InvalidInput
        ``until`` is not after every slot's start.

    Examples
    --------
    Thesis Fig. 1 (5 processors; A, B, C, D planned by conservative
    backfilling), advertised up to 8 h as in the figure: slots S1 to S5.

    >>> h = 3600
    >>> p = Profile(5)
    >>> for start, n, d in [(0, 2, 3*h), (3*h, 4, h), (0, 1, 2*h), (4*h, 3, 2*h)]:
    ...     _ = p.reserve(start, d, n)
    >>> for s in advertise(p, 0, until=8 * h):
    ...     print(s.start // h, s.procs, s.duration // h, s.divisible, s.extensible, s.fixed_cost)
    0 1 8 True True 0.0
    0 1 3 False False 0.0
    2 1 1 False False 0.0
    4 1 4 True True 0.0
    6 3 2 True True 0.0
    """
    view = full.copy()
    view.advance(now)
    free = decompose(view)
    if until is None:
        until = delineation(full, now)
    last = max(s.start for s in free)
    if not isinstance(until, int) or isinstance(until, bool) or until <= last:
        raise InvalidInput(f"advertise: until must be an int after the last slot start ({last}), got {until!r}")
    return [Slot.of(s, until=until, unit_cost=unit_cost, penalty_factor=penalty_factor, issued=now) for s in free]
