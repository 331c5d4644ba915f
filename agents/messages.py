"""Typed messages agents exchange, so a run can count and replay its negotiation.

Times are integer seconds from simulation start. Every message is counted by ``kind`` in one
place, :meth:`gridmarket.agents.model.MarketModel.send` (delivered to its receiver) or
:meth:`gridmarket.agents.model.MarketModel.post` (exchanged inside a mechanism of ``gridmarket``: an
auction's bids, a double auction's shouts, a bargaining's offers), so no agent counts by hand.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

__all__ = ["Advertise", "Agreement", "Ask", "Bid", "Cancel", "Dispatch", "Message", "Offer", "Query", "Quote", "Reserve",
           "Submit"]


@dataclass(frozen=True, slots=True)
class Message:
    """Base record: who sent it to whom, when, and what it carries."""

    kind: ClassVar[str] = "message"
    sender: str
    receiver: str
    time: int
    payload: Any = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class Submit(Message):
    """A best-effort job handed to a provider's queue (payload: the Job)."""

    kind: ClassVar[str] = "submit"


@dataclass(frozen=True, slots=True)
class Advertise(Message):
    """A provider publishing its free slots (payload: the slots)."""

    kind: ClassVar[str] = "advertise"


@dataclass(frozen=True, slots=True)
class Query(Message):
    """A broker asking a provider for prices (payload: the request)."""

    kind: ClassVar[str] = "query"


@dataclass(frozen=True, slots=True)
class Quote(Message):
    """A provider's answer to a query (payload: the quotes)."""

    kind: ClassVar[str] = "quote"


@dataclass(frozen=True, slots=True)
class Reserve(Message):
    """A broker buying a slot (payload: the reservation)."""

    kind: ClassVar[str] = "reserve"


@dataclass(frozen=True, slots=True)
class Cancel(Message):
    """A broker cancelling a reservation (payload: its id)."""

    kind: ClassVar[str] = "cancel"


@dataclass(frozen=True, slots=True)
class Dispatch(Message):
    """The metascheduler sending a job to a site (payload: the Job)."""

    kind: ClassVar[str] = "dispatch"


@dataclass(frozen=True, slots=True)
class Bid(Message):
    """A buyer's bid in an auction, a clock reply or a buyer's shout in a double auction (payload: SU, if known)."""

    kind: ClassVar[str] = "bid"


@dataclass(frozen=True, slots=True)
class Ask(Message):
    """A seller's shout in a double auction (payload: SU, if known)."""

    kind: ClassVar[str] = "ask"


@dataclass(frozen=True, slots=True)
class Offer(Message):
    """One offer of alternating-offers bargaining over a slot's price and start (payload: the offer, if known)."""

    kind: ClassVar[str] = "offer"


@dataclass(frozen=True, slots=True)
class Agreement(Message):
    """A service-level agreement message: a provider's offered contract, or its news of a contract moved, started
    late or broken (payload: the :class:`gridmarket.sla.SLA`)."""

    kind: ClassVar[str] = "sla"
