"""Mesa agents and the market model (DESIGN.md, layer ``agents/``)."""

from gridmarket.agents.broker import BROKER_METHODS, Broker, ReservationRequest, WorkflowRequest
from gridmarket.agents.messages import (
    Advertise,
    Cancel,
    Dispatch,
    Message,
    Query,
    Quote,
    Reserve,
    Submit,
)
from gridmarket.agents.metascheduler import CLEARINGS, Metascheduler, MetaschedulerSpec
from gridmarket.agents.model import BrokerSpec, MarketModel, ProviderSpec, RunResult
from gridmarket.agents.provider import ResourceProvider
from gridmarket.agents.registry import (
    PROVIDER_AGENTS,
    USER_AGENTS,
    register_provider_agent,
    register_user_agent,
    resolve_provider_agent,
    resolve_user_agent,
)
from gridmarket.agents.strategies import (
    BROKER_STRATEGIES,
    BrokerStrategy,
    WorkflowPlan,
    register_strategy,
    resolve_strategy,
)
from gridmarket.agents.trading import PerJobDesk, TradingDesk
from gridmarket.agents.user import ROUTES, User

__all__ = [
    "BROKER_METHODS",
    "BROKER_STRATEGIES",
    "CLEARINGS",
    "PROVIDER_AGENTS",
    "ROUTES",
    "USER_AGENTS",
    "Advertise",
    "Broker",
    "BrokerSpec",
    "BrokerStrategy",
    "Cancel",
    "Dispatch",
    "MarketModel",
    "Message",
    "Metascheduler",
    "MetaschedulerSpec",
    "PerJobDesk",
    "ProviderSpec",
    "Query",
    "Quote",
    "Reserve",
    "ReservationRequest",
    "ResourceProvider",
    "RunResult",
    "Submit",
    "TradingDesk",
    "User",
    "WorkflowPlan",
    "WorkflowRequest",
    "register_provider_agent",
    "register_strategy",
    "register_user_agent",
    "resolve_provider_agent",
    "resolve_strategy",
    "resolve_user_agent",
]
