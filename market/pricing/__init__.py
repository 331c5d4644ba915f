"""Provider markets: priced slots, advertisement, adaptive externality pricing, quotes, reservations, cancellation.

Singh 2008, ch. 3 (slots, Table 1, advertisement), ch. 5 (Fig. 22, query
forms 17-19, choice rule 20) and ch. 6.4 (cancellation penalty, eq. 23).
Times are integer seconds from simulation start; prices are SU (processor-hours).
"""

from gridmarket.pricing.advertisement import ADVERTISEMENT_HORIZON, ADVERTISEMENT_MARGIN, advertise, delineation
from gridmarket.pricing.externality import ExternalityPricer, slot_price
from gridmarket.pricing.forecast import check_policy, forecast, greedy_plan, pricing_planner
from gridmarket.pricing.plan import Booking, ProviderPlan
from gridmarket.pricing.quotes import (
    Quote,
    choose,
    choose_flexible,
    quote_at,
    quote_earliest,
    quote_flexible,
    total_cost_at,
)
from gridmarket.pricing.rules import PRICING_RULES, PricingRule, register_pricing, resolve_pricing
from gridmarket.pricing.slot import BASE_RATE, PENALTY_FACTOR, SECONDS_PER_HOUR, Slot, subslot_cost
from gridmarket.pricing.state import (
    ProviderState,
    RunningJob,
    base_profile,
    read_state,
    state_from_dict,
    state_from_scheduler,
    state_to_dict,
)

__all__ = [
    "ADVERTISEMENT_HORIZON",
    "ADVERTISEMENT_MARGIN",
    "BASE_RATE",
    "PENALTY_FACTOR",
    "PRICING_RULES",
    "SECONDS_PER_HOUR",
    "Booking",
    "ExternalityPricer",
    "ProviderPlan",
    "PricingRule",
    "ProviderState",
    "Quote",
    "RunningJob",
    "Slot",
    "advertise",
    "base_profile",
    "check_policy",
    "choose",
    "choose_flexible",
    "delineation",
    "forecast",
    "greedy_plan",
    "pricing_planner",
    "quote_at",
    "quote_earliest",
    "quote_flexible",
    "read_state",
    "register_pricing",
    "resolve_pricing",
    "slot_price",
    "state_from_dict",
    "state_from_scheduler",
    "state_to_dict",
    "subslot_cost",
    "total_cost_at",
]
