"""Mesa agents and the market model (DESIGN.md, layer ``agents/``)."""

from agents.messages import (
    Advertise,
    Cancel,
    Dispatch,
    Message,
    Query,
    Quote,
    Reserve,
    Submit,
)
from agents.metascheduler import CLEARINGS, Metascheduler, MetaschedulerSpec
from agents.model import MarketModel, ProviderSpec, RunResult
from agents.provider import ResourceProvider
from agents.user import ROUTES, User

__all__ = [
    "CLEARINGS",
    "ROUTES",
    "Advertise",
    "Cancel",
    "Dispatch",
    "MarketModel",
    "Message",
    "Metascheduler",
    "MetaschedulerSpec",
    "ProviderSpec",
    "Query",
    "Quote",
    "Reserve",
    "ResourceProvider",
    "RunResult",
    "Submit",
    "User",
]
