"""Typed messages agents exchange, so a run can count and replay its negotiation.

Times are integer seconds from simulation start. Every message goes through
:meth:`gridmarket.agents.model.MarketModel.send`, which counts it by ``kind`` and keeps
it in the model's log when logging is on.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

__all__ = ["Advertise", "Cancel", "Dispatch", "Message", "Query", "Quote", "Reserve", "Submit"]


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
