"""Pricing rules: the seam that sets a slot's fixed cost f; built-ins, plug-ins, checks."""

import dataclasses
import math

import pytest

from gridmarket.errors import InvalidInput
from gridmarket.job import Job
from gridmarket.pricing import PRICING_RULES, ProviderPlan, ProviderState, RunningJob, register_pricing, resolve_pricing
from gridmarket.reservation import Reservation

H = 3600


def _fig21() -> ProviderState:
    """Singh Fig. 21: 5 processors, two running jobs, two queued, a reservation at 5 h."""
    return ProviderState(0, 5, running=(RunningJob(1, 1, 0, 2 * H), RunningJob(2, 3, 0, 3 * H)),
                         queue=(Job(3, 0, 2, 2 * H, 2 * H), Job(4, 0, 2, 3 * H, 3 * H)),
                         reservations=(Reservation("R", 5 * H, 2, 3 * H),))


def test_flat_pricing_charges_the_base_rate_where_externality_charges_the_delay():
    ext, flat = ProviderPlan(_fig21(), "conservative"), ProviderPlan(_fig21(), "conservative", pricing="flat")
    assert ext.price(2 * H, 2, 3 * H).fixed_cost == 6.0  # Fig. 21: the slot delays jobs 3 and 4
    assert flat.price(2 * H, 2, 3 * H).fixed_cost == 0.0 and flat.price(2 * H, 2, 3 * H).total_cost == 6.0
    # the same starts are offered (the plan's); only f differs, and refusals stay refused
    assert [q.start for q in ext.quotes(2, 3 * H)] == [q.start for q in flat.quotes(2, 3 * H)]
    assert all(q.fixed_cost == 0.0 for q in flat.quotes(2, 3 * H, earliest=0))
    assert math.isinf(flat.price(0, 5, H).fixed_cost)  # running jobs hold the processors
    booking = flat.reserve(2 * H, 2, 3 * H)
    assert booking.price == 6.0 and flat.cancel(booking) == 0.0  # p x f with f = 0


def test_a_registered_rule_prices_quotes_and_sales_and_a_bad_answer_is_refused_naming_it():
    @register_pricing("double-test")
    def double(quote, plan):
        return 2 * quote.fixed_cost

    try:
        plan = ProviderPlan(_fig21(), "conservative", pricing="double-test")
        assert plan.price(2 * H, 2, 3 * H).fixed_cost == 12.0
        assert plan.reserve(2 * H, 2, 3 * H).price == 6.0 + 12.0
        with pytest.raises(InvalidInput, match="pricing rule 'double-test' is already registered to .*double; "
                                               ".*triple needs a name of its own"):
            @register_pricing("double-test")
            def triple(quote, plan):
                return 3 * quote.fixed_cost
        register_pricing("double-test", double)  # the same function again: a module imported twice
    finally:
        del PRICING_RULES["double-test"]
    register_pricing("negative-test", lambda quote, plan: -1.0)
    try:
        with pytest.raises(InvalidInput, match=r"pricing rule 'negative-test' priced the slot at 7200 \(2 procs x "
                                                r"10800 s\) at f = -1.0: expected a finite number >= 0 SU"):
            ProviderPlan(_fig21(), "conservative", pricing="negative-test").price(2 * H, 2, 3 * H)
    finally:
        del PRICING_RULES["negative-test"]
    with pytest.raises(InvalidInput, match="unknown pricing rule 'flta'"):
        ProviderPlan(_fig21(), "conservative", pricing="flta")
    with pytest.raises(InvalidInput, match="pricing rule 'gridmarket.pricing.rules:nothing': module"):
        resolve_pricing("gridmarket.pricing.rules:nothing")


def test_providers_of_a_scenario_price_by_their_rule_in_the_agent_market():
    from gridmarket.scenarios.config import with_overrides
    from gridmarket.scenarios.experiment import compare
    from gridmarket.scenarios.registry import get_scenario

    base = with_overrides(get_scenario("quickstart"), {"models": ("greedy",)})
    flat = dataclasses.replace(base, providers=tuple(dataclasses.replace(p, pricing="flat") for p in base.providers))
    ext_run, flat_run = compare(base)[0], compare(flat)[0]
    assert ext_run.summary["reservation_cost"] > 0  # quickstart's greedy buys into queues: f > 0
    assert flat_run.summary["reservation_cost"] == 0.0  # flat: only the base rate, nothing extra
    paid = [price for log in flat_run.price_log.values() for _, price, kind in log if kind == "paid"]
    assert paid and all(p >= 0 for p in paid)
