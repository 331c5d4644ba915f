"""The DBC broker over quoting providers: never over budget, by the deadline, the cheapest (enumeration)."""

from hypothesis import given, settings
from hypothesis import strategies as st

from gridmarket.auctions.slot import SlotRequest
from gridmarket.job import Job
from gridmarket.pricing import ProviderPlan, ProviderState, RunningJob
from gridmarket.provisioning.dbc import buy_dbc_slot
from gridmarket.valuation import Valuation

H = 3600


def _plans():
    busy = ProviderState(0, 8, running=(RunningJob(1, 6, 0, H),), queue=(Job(2, 0, 8, H, H), Job(3, 0, 4, 2 * H, H)))
    return {"busy": ProviderPlan(busy, "conservative"),
            "small": ProviderPlan(ProviderState(0, 4, running=(RunningJob(4, 4, 0, 3 * H),)), "easy")}


def test_a_tight_deadline_buys_the_dear_start_now_and_a_loose_one_the_free_start_later():
    # 2 processors for 2 h on "busy": now costs 4 SU + f (the 8-processor job waits an hour), later only 4 SU
    tight = buy_dbc_slot(_plans(), SlotRequest(1, 2, 2 * H, Valuation(50.0, 2 * H, 10)), strategy="cost")
    loose = buy_dbc_slot(_plans(), SlotRequest(1, 2, 2 * H, Valuation(50.0, 10 * H, 10)), strategy="cost")
    assert tight[:2] == ("busy", 0) and tight[2] >= 4.0 + 8.0
    assert loose[2] == 4.0 and loose[1] >= H


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 8), st.integers(1, 8), st.floats(0.5, 40.0), st.integers(1, 12),
       st.sampled_from(["cost", "time", "cost-time"]))
def test_within_budget_and_deadline_and_the_cheapest_when_cost_optimising(procs, quarters, value, hours, strategy):
    req = SlotRequest(1, procs, quarters * 900, Valuation(value, hours * H, 10))
    plans = _plans()
    # enumeration: every quoted start of every provider (form 18) that ends by the deadline within the budget
    feasible = [(name, q.start, q.total_cost) for name, p in plans.items() if procs <= p.procs
                for q in p.quotes(procs, req.duration)
                if q.start + req.duration <= req.valuation.deadline and q.total_cost <= value + 1e-9]
    got = buy_dbc_slot(plans, req, strategy=strategy)
    if not feasible:
        assert got is None
        return
    name, start, price = got
    assert price <= value + 1e-9 and start + req.duration <= req.valuation.deadline
    if strategy != "time":
        assert abs(price - min(c for _, _, c in feasible)) < 1e-9
    else:
        assert start == min(s for _, s, _ in feasible)
    assert plans[name].reservations["auction-1"].start == start
