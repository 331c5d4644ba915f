"""Advance reservations: capacity fixed in a machine's plan.

Times are integer seconds from simulation start. Every local policy honours a
reservation: no job is started that would need its processors during it.
"""

from __future__ import annotations

from dataclasses import dataclass

from gridmarket.errors import InvalidInput
from gridmarket.validation import check_number

__all__ = ["Reservation"]


@dataclass(frozen=True, slots=True)
class Reservation:
    """``procs`` processors held over ``[start, start + duration)``.

    ``start`` is below 2**53, ``duration`` at most a century and processors at most 2**24
    (:data:`gridmarket.limits.LIMITS`): a request may start up to a century after a late submit.

    Examples
    --------
    >>> Reservation("r1", start=3600, procs=8, duration=1800).end
    5400
    """

    id: str | int
    start: int
    procs: int
    duration: int

    def __post_init__(self) -> None:
        for name in ("start", "procs", "duration"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool):
                raise InvalidInput(f"reservation {self.id!r}: {name} must be an int, got {value!r}")
        if self.start < 0:
            raise InvalidInput(f"reservation {self.id!r}: start must be >= 0, got {self.start}")
        if self.procs < 1:
            raise InvalidInput(f"reservation {self.id!r}: procs must be >= 1, got {self.procs}")
        if self.duration < 1:
            raise InvalidInput(f"reservation {self.id!r}: duration must be >= 1 s, got {self.duration}")
        for name, quantity in (("start", "instant"), ("procs", "processors"), ("duration", "seconds")):
            check_number(f"reservation {self.id!r}: {name}", getattr(self, name), quantity)

    @property
    def end(self) -> int:
        """First instant after the reservation (seconds)."""
        return self.start + self.duration
