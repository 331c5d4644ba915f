"""Bargaining for a slot of a provider's plan: by hand and by hypothesis."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gridmarket.auctions.slot import SlotRequest
from gridmarket.errors import InvalidInput
from gridmarket.job import Job
from gridmarket.negotiation import negotiate_slot
from gridmarket.pricing import ProviderPlan, ProviderState, RunningJob
from gridmarket.valuation import Valuation

H = 3600


def _busy():
    return ProviderPlan(ProviderState(0, 8, running=(RunningJob(1, 6, 0, H),), queue=(Job(2, 0, 8, H, H),)),
                        "conservative")


def test_no_offer_is_made_when_the_job_is_worth_less_than_its_slot_costs():
    # 2 processors for 2 h now: base 4 SU + f 8 SU (the queued job waits an hour) = 12 SU > 8 SU
    d = negotiate_slot(_busy(), SlotRequest(1, 2, 2 * H, Valuation(8.0, 10**6, 10)), window=600)
    assert (d.start, d.price, d.reserve, d.messages) == (None, None, 12.0, 0)


def test_a_deal_lies_between_the_reserve_and_the_worth_and_is_held_in_the_plan():
    plan = _busy()
    d = negotiate_slot(plan, SlotRequest(1, 2, 2 * H, Valuation(30.0, 10**6, 10)), window=600)
    assert 12.0 <= d.price <= 30.0 and 0 <= d.start <= 600 and 1 <= d.rounds <= 11
    assert plan.reservations["auction-1"].start == d.start


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 8), st.integers(1, 8), st.floats(0.5, 5.0), st.integers(0, 3600), st.integers(1, 20),
       st.floats(0.2, 5.0), st.floats(0.2, 5.0))
def test_every_negotiation_ends_in_time_and_every_deal_is_individually_rational(procs, quarters, factor, window,
                                                                                 deadline, b_beta, s_beta):
    req = SlotRequest(1, procs, quarters * 900, Valuation(factor * procs * quarters / 4, 10**6, 10))
    plan = _busy()
    d = negotiate_slot(plan, req, window=window, deadline=deadline, buyer_beta=b_beta, seller_beta=s_beta)
    assert d.rounds <= deadline + 1
    if d.start is not None:
        assert d.reserve - 1e-9 <= d.price <= req.worth(d.start) + 1e-9 and d.start <= window


def test_bad_input_names_the_field():
    with pytest.raises(InvalidInput, match="window must be an int >= 0 s"):
        negotiate_slot(_busy(), SlotRequest(1, 1, 60, Valuation(1.0, 10, 10)), window=-1)
