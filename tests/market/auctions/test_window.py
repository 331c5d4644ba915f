"""The double auction for slots in a window: by hand, and IR / budget balance by hypothesis."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gridmarket.auctions.slot import SlotRequest
from gridmarket.auctions.window import trade_window
from gridmarket.errors import InvalidInput
from gridmarket.job import Job
from gridmarket.pricing import ProviderPlan, ProviderState, RunningJob
from gridmarket.valuation import Valuation

H = 3600


def _busy():
    """8 processors: 6 busy for an hour, an 8-processor job queued for the hour after."""
    return ProviderPlan(ProviderState(0, 8, running=(RunningJob(1, 6, 0, H),), queue=(Job(2, 0, 8, H, H),)),
                        "conservative")


def test_a_job_worth_less_than_every_slot_costs_trades_nothing():
    # 2 processors for 2 h now delay the queued job by an hour: reserve 4 + 8 = 12 SU = 3 SU/ph;
    # the job is worth 2 SU/ph: no trade can cross, the day ends at once
    r = trade_window({"a": _busy()}, [SlotRequest(9, 2, 2 * H, Valuation(8.0, 10**6, 10))], window=600,
                     rng=np.random.default_rng(1))
    assert (r.sales, r.unsold, r.shouts) == ((), (9,), {"bid": 0, "ask": 0})


def test_only_slots_starting_in_the_window_are_offered():
    # the 7th and 8th processors are free now; a 4-processor job's earliest start is after the queued job
    req = SlotRequest(9, 4, H, Valuation(100.0, 10**6, 10))
    assert trade_window({"a": _busy()}, [req], window=600, rng=np.random.default_rng(1)).unsold == (9,)


def test_the_same_seed_gives_the_same_day():
    reqs = [SlotRequest(k, 1 + k % 3, 1800, Valuation(3.0 * (1 + k % 3), 10**6, 10)) for k in range(6)]

    def day(seed):
        r = trade_window({"a": ProviderPlan(ProviderState(0, 8), "easy")}, reqs, window=600,
                         rng=np.random.default_rng(seed))
        return [(s.request, s.price) for s in r.sales], r.shouts

    assert day(4) == day(4)


def test_gd_traders_sell_both_slots_of_an_idle_machine_between_the_reserve_and_the_value():
    # the doctest's market with Gjerstad-Dickhaut traders: two 4-processor one-hour jobs worth 3 SU/ph, an idle
    # 8-processor machine whose reserve is the base rate (1 SU/ph); the rng orders the shouts only
    reqs = [SlotRequest(k, 4, H, Valuation(12.0, 10**6, 10)) for k in (1, 2)]

    def day(seed):
        return trade_window({"a": ProviderPlan(ProviderState(0, 8), "easy")}, reqs, window=600,
                            rng=np.random.default_rng(seed), strategy="gd")

    r = day(0)
    assert sorted(s.request for s in r.sales) == [1, 2] and r.void == 0
    assert all(4.0 <= s.price <= 12.0 and s.start == 0 for s in r.sales)
    assert [(s.request, s.price) for s in day(0).sales] == [(s.request, s.price) for s in r.sales]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 8), st.integers(1, 4), st.floats(0.5, 4.0)), min_size=1, max_size=6),
       st.integers(0, 2**32 - 1), st.sampled_from(["zip", "gd"]))
def test_every_sale_is_individually_rational_budget_balanced_and_once_per_job(jobs, seed, strategy):
    reqs = [SlotRequest(k, n, q * 900, Valuation(f * n * q / 4, 10**7, 10)) for k, (n, q, f) in enumerate(jobs)]
    plans = {"a": _busy(), "b": ProviderPlan(ProviderState(0, 4), "easy")}
    r = trade_window(plans, reqs, window=600, rng=np.random.default_rng(seed), strategy=strategy)
    sold = [s.request for s in r.sales]
    assert len(sold) == len(set(sold)) and set(sold) | set(r.unsold) == {q.id for q in reqs}
    for s in r.sales:
        q = reqs[s.request]
        # the buyer pays the price, the provider receives it (one number); it covers the slot's cost to
        # the provider's queue and is no more than the job's value at that start
        assert s.reserve - 1e-6 <= s.price <= q.worth(s.start) + 1e-6
        assert s.start < 600 and plans[s.provider].reservations[f"auction-{q.id}"].start == s.start


def test_bad_input_names_the_field():
    with pytest.raises(InvalidInput, match="window must be an int >= 1 s"):
        trade_window({}, [], window=0, rng=np.random.default_rng(0))
    with pytest.raises(InvalidInput, match="strategy must be one of zip, gd, got 'zi'"):
        trade_window({}, [], window=60, rng=np.random.default_rng(0), strategy="zi")
