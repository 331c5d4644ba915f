"""Bidding rules and slot auctions with personal reserves: by hand and by hypothesis."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gridmarket.auctions.bidding import auction_per_unit, bid
from gridmarket.auctions.slot import SlotRequest, auction_round
from gridmarket.errors import InvalidInput
from gridmarket.job import Job
from gridmarket.pricing import ProviderPlan, ProviderState, RunningJob
from gridmarket.valuation import Valuation

FORMATS = ("first-price", "vickrey", "english", "dutch")
unit = st.floats(0.5, 5.0, allow_nan=False).map(lambda x: round(x, 2))


def test_bids_by_hand():
    # 4 bidders, value 3, reserve 1: truthful formats bid 3; first price and Dutch 1 + 3/4 * 2 = 2.5
    assert [bid(m, 3.0, 1.0, 4) for m in FORMATS] == [2.5, 3.0, 3.0, 2.5]
    assert bid("first-price", 3.0, 1.0, 1) == 1.0  # alone: the reserve
    assert bid("vickrey", 0.9, 1.0, 3) is None  # below its reserve: no bid


def test_personal_reserves_by_hand():
    # values 3, 2.5, 1.2 SU/ph, reserves 1, 1, 1.5: bidder 2 does not bid
    v, r = [3.0, 2.5, 1.2], [1.0, 1.0, 1.5]
    assert auction_per_unit(v, r, mechanism="vickrey").price == 2.5
    assert auction_per_unit(v, r, mechanism="first-price").price == 2.0  # 1 + (2 - 1)/2 * (3 - 1)
    e = auction_per_unit(v, r, mechanism="english", step=0.5)  # clock 1, 1.5, 2, 2.5 both in; 3: bidder 1 out
    assert (e.winner, e.price) == (0, 3.0)
    d = auction_per_unit(v, r, mechanism="dutch", step=0.25, opening=3.0)  # 3, 2.75, 2.5, 2.25, 2.0 <= 2.0
    assert (d.winner, d.price, d.rounds) == (0, 2.0, 5)
    # the winner's own reserve binds: second value 1.5 but its slot costs 2 SU/ph
    assert auction_per_unit([3.0, 1.5], [2.0, 1.0], mechanism="vickrey").price == 2.0
    assert not auction_per_unit([1.0], [2.0], mechanism="vickrey").sold


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(unit, unit), min_size=1, max_size=6), st.sampled_from(FORMATS))
def test_winner_pays_between_its_reserve_and_its_value(pairs, mechanism):
    values, reserves = [p[0] for p in pairs], [p[1] for p in pairs]
    res = auction_per_unit(values, reserves, mechanism=mechanism, step=0.05, opening=5.0)
    if not res.sold:
        assert all(v < r for v, r in pairs)
        return
    w = res.winner
    assert reserves[w] - 1e-9 <= res.price <= values[w] + 1e-9


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(unit, unit), min_size=2, max_size=6), unit)
def test_truthful_bidding_is_weakly_dominant_in_vickrey_with_personal_reserves(pairs, lie):
    # bidder 0's utility from bidding its value is at least that from any other bid, others fixed
    values, reserves = [p[0] for p in pairs], [p[1] for p in pairs]

    def utility(report: float) -> float:
        res = auction_per_unit([report, *values[1:]], reserves, mechanism="vickrey")
        return values[0] - res.price if res.winner == 0 else 0.0

    assert utility(values[0]) >= utility(lie) - 1e-9


def test_bad_input_names_the_field():
    with pytest.raises(InvalidInput, match=r"reserves\[1\] must be a finite number"):
        auction_per_unit([1.0, 2.0], [1.0, -1.0], mechanism="vickrey")
    with pytest.raises(InvalidInput, match="unknown auction 'sealed'"):
        auction_per_unit([1.0], [1.0], mechanism="sealed")
    with pytest.raises(InvalidInput, match="differ in length"):
        auction_per_unit([1.0], [], mechanism="vickrey")


# ------------------------------------------------------------------ a provider's round
def _plan():
    """8 processors: 6 busy for an hour, one queued job of 8 processors for an hour (planned at 1 h)."""
    h = 3600
    state = ProviderState(0, 8, running=(RunningJob(1, 6, 0, h),), queue=(Job(2, 0, 8, h, h),))
    return ProviderPlan(state, "conservative")


def test_a_slot_that_delays_the_queue_carries_the_externality_in_its_reserve():
    # a 2-processor, 2-hour job fits beside the running job now, but holds 2 of the 8 processors the
    # queued job needs at 1 h: the queued job moves to 2 h, f = 8 procs x 1 h = 8 SU; base 2 x 2 = 4 SU
    req = SlotRequest(9, 2, 7200, Valuation(100.0, 10**6, 10))
    r = auction_round({"a": _plan()}, [req], mechanism="vickrey")
    (sale,) = r.sales
    assert (sale.start, sale.reserve, sale.price) == (0, 12.0, 12.0)
    cheap = SlotRequest(9, 2, 7200, Valuation(11.0, 10**6, 10))  # worth less than the reserve: unsold
    assert auction_round({"a": _plan()}, [cheap], mechanism="vickrey").unsold == (9,)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 8), st.integers(1, 6), st.floats(0.5, 4.0)), min_size=1, max_size=6),
       st.sampled_from(FORMATS))
def test_a_round_sells_each_request_once_within_its_reserve_and_value(jobs, mechanism):
    reqs = [SlotRequest(k, n, hours * 900, Valuation(f * n * hours / 4, 10**7, 10))
            for k, (n, hours, f) in enumerate(jobs)]
    r = auction_round({"a": _plan(), "b": ProviderPlan(ProviderState(0, 4), "easy")}, reqs, mechanism=mechanism)
    sold = [s.request for s in r.sales]
    assert len(sold) == len(set(sold)) and set(sold) | set(r.unsold) == {q.id for q in reqs}
    for s in r.sales:
        q = reqs[s.request]
        assert s.reserve - 1e-6 <= s.price <= q.valuation.value + 1e-6
        assert math.isfinite(s.price)
