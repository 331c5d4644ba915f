"""A provider's advertised slots, named for a broker's global slot set (Singh 2008, ch. 3, ch. 4.2).

Singh 2008, ch. 4.2: "The set of slots advertised by the resource provider, r, is denoted by E_r,
as defined in (2). The global set of available slots in the system is denoted by Â", the union of
the ``E_r`` (eq. 3). A slot of Â is the one slot record, :class:`gridmarket.pricing.Slot`, with its
``resource`` set to ``r``; its Table 1 sub-slots and their costs are :meth:`gridmarket.pricing.Slot.subslot`.
The slots a non-delaying scheduler advertises cost ``c = 1``, ``f = 0`` (ch. 3, end of the Fig. 2-3
discussion). Times are integer seconds; costs are SU (processor-hours): ``c`` is SU per
processor-hour, ``f`` SU.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable

from gridmarket.pricing.slot import BASE_RATE, PENALTY_FACTOR, SECONDS_PER_HOUR, Slot
from gridmarket.scheduling.slots import FreeSlot

__all__ = ["SECONDS_PER_HOUR", "advertise"]


def advertise(
    resource: Hashable,
    free_slots: Iterable[FreeSlot | Slot],
    *,
    unit_cost: float | None = None,
    fixed_cost: float | None = None,
) -> list[Slot]:
    """``resource``'s slots for the global set Â (eq. 3): each named, priced by :meth:`Slot.of`.

    Parameters
    ----------
    resource : hashable
        Name of the provider (``r`` of ``E_r``).
    free_slots : iterable of FreeSlot or Slot
        From :meth:`gridmarket.scheduling.SlotScheduler.free_slots` or
        :func:`gridmarket.scheduling.slots.decompose` (free capacity, no prices), or
        slots a provider advertised (:meth:`gridmarket.pricing.ProviderPlan.advertise`),
        which keep their prices, penalty factor and time of issue.
    unit_cost, fixed_cost : float, optional
        ``c`` (SU per processor-hour) and ``f`` (SU) for every slot; by
        default each slot's own, else the best-effort price ``c = 1``, ``f = 0``.

    Examples
    --------
    >>> from gridmarket.scheduling import SlotScheduler
    >>> [(s.resource, s.total_cost) for s in advertise("m", SlotScheduler(4).free_slots(0, until=7200))]
    [('m', 8.0)]
    """
    return [
        Slot.of(
            s, resource=resource,
            unit_cost=getattr(s, "unit_cost", BASE_RATE) if unit_cost is None else unit_cost,
            fixed_cost=getattr(s, "fixed_cost", 0.0) if fixed_cost is None else fixed_cost,
            penalty_factor=getattr(s, "penalty_factor", PENALTY_FACTOR),
            issued=getattr(s, "issued", None),
        )
        for s in free_slots
    ]
