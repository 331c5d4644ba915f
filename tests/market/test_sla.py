"""Service-level agreements (issue 17): signed only when the plan can honour the window; settled with penalties."""

import dataclasses
import math

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from market.errors import InvalidInput
from market.job import Job
from market.pricing.plan import ProviderPlan
from market.pricing.state import ProviderState, RunningJob, base_profile
from market.reservation import Reservation
from market.sla import SLA, PenaltySchedule, SLARequest, ledger, offer_sla, settle

from .pricing.strategies import provider_states

H = 3600
TERMS = PenaltySchedule(rate_per_hour=2.0, cap=5.0, violation=20.0)


@pytest.fixture
def fig21():
    """Singh 2008 Fig. 21 (hours): 5 processors; A (1 proc) runs to 2 h, B (3) to 3 h; C (2 x 2 h) and
    D (2 x 3 h) wait; reservation R holds 2 processors over [5 h, 8 h)."""
    state = ProviderState(0, 5, running=(RunningJob(1, 1, 0, 2 * H), RunningJob(2, 3, 0, 3 * H)),
                          queue=(Job(3, 0, 2, 2 * H, 2 * H), Job(4, 0, 2, 3 * H, 3 * H)),
                          reservations=(Reservation("R", 5 * H, 2, 3 * H),))
    return ProviderPlan(state, "conservative")


# ------------------------------------------------------------------ by hand
def test_sla_by_hand(fig21):
    """2 processors for 3 h in [0, 4 h]: the earliest fit is 2 h (A ends), priced 6 + 6 SU (Fig. 21: C is
    delayed 1 h, D 2 h); the plan then holds the reservation and re-plans C and D after it."""
    sla = offer_sla(fig21, SLARequest("X", 2, 3 * H, 0, 4 * H), provider="fig21", penalty=TERMS)
    assert (sla.start, sla.price, sla.reservation_id) == (2 * H, 12.0, "sla-X")
    assert fig21.reservations["sla-X"] == Reservation("sla-X", 2 * H, 2, 3 * H)
    assert {q: t // H for q, t in fig21.planned.items()} == {3: 3, 4: 5}
    assert sla.deadline == 7 * H
    on_time, late, capped, failed = (settle(sla, 2 * H, 5 * H), settle(sla, 5 * H + H // 2, 8 * H),
                                     settle(sla, 14 * H, 17 * H), settle(sla, None, None))
    assert (on_time.payment, on_time.penalty, on_time.violated) == (12.0, 0.0, False)
    assert (late.payment, late.penalty, late.late, late.violated) == (9.0, 3.0, 5400, True)  # 1.5 h x 2 SU/h
    assert (capped.payment, capped.penalty) == (7.0, 5.0)  # 10 h late: 20 SU, capped at 5
    assert (failed.payment, failed.penalty, failed.violated, failed.ran) == (-20.0, 20.0, True, False)
    total = ledger([on_time, late, capped, failed])
    assert (total.n_contracts, total.n_violated, total.n_late, total.n_failed) == (4, 3, 2, 1)
    assert (total.payments, total.penalties, total.violation_rate) == (8.0, 28.0, 0.75)
    assert ledger([on_time], provider="other").n_contracts == 0


def test_window_the_plan_cannot_honour_is_not_signed_and_the_plan_is_unchanged(fig21):
    before = (dict(fig21.reservations), fig21.planned)
    # 4 processors for 1 h from [0, 1 h]: A and B hold 4 of the 5 until 2 h
    assert offer_sla(fig21, SLARequest("Y", 4, H, 0, H), provider="p", penalty=TERMS) is None
    # R holds 2 of them over [5 h, 8 h): 4 processors for 3 h cannot start in [3 h, 4 h] either
    assert offer_sla(fig21, SLARequest("Z", 4, 3 * H, 3 * H, 4 * H), provider="p", penalty=TERMS) is None
    # too dear: the fit at 2 h costs 12 SU
    assert offer_sla(fig21, SLARequest("X", 2, 3 * H, 0, 2 * H, max_price=11.0), provider="p", penalty=TERMS) is None
    assert (dict(fig21.reservations), fig21.planned) == before


def test_cheapest_start_in_the_window(fig21):
    """Fig. 21's quotes for 2 x 3 h: 6, 6, 8, 10 SU of f at 2, 3, 4, 5 h and 0 from 6 h: in [0, 8 h] the
    cheapest is 6 h (6 SU, the base cost only)."""
    sla = offer_sla(fig21, SLARequest("X", 2, 3 * H, 0, 8 * H), provider="p", penalty=TERMS, choose="cheapest")
    assert (sla.start, sla.price) == (6 * H, 6.0)


@pytest.mark.parametrize("make, field", [
    (lambda: SLARequest("j", 0, 10, 0, 5), "procs"),
    (lambda: SLARequest("j", 1, 0, 0, 5), "duration"),
    (lambda: SLARequest("j", 1, 10, -1, 5), "earliest"),
    (lambda: SLARequest("j", 1, 10, 6, 5), "latest"),
    (lambda: SLARequest("j", 1, 10, 0, 5, max_price=-1.0), "max_price"),
    (lambda: SLARequest("j", 1.5, 10, 0, 5), "procs"),
    (lambda: PenaltySchedule(rate_per_hour=-1.0), "rate_per_hour"),
    (lambda: PenaltySchedule(cap=math.nan), "cap"),
    (lambda: PenaltySchedule(violation=math.inf), "violation"),
    (lambda: SLA("p", "j", 0, 10, 1, 5, 1.0, TERMS, "r", 11), "window"),
    (lambda: SLA("", "j", 0, 10, 1, 5, 1.0, TERMS, "r", 5), "provider"),
])
def test_bad_records_are_refused_naming_the_field(make, field):
    with pytest.raises(InvalidInput, match=field):
        make()


def test_bad_offers_and_settlements_are_refused(fig21):
    req = SLARequest("X", 2, H, 0, H)
    with pytest.raises(InvalidInput, match="choose"):
        offer_sla(fig21, req, provider="p", penalty=TERMS, choose="latest")
    with pytest.raises(InvalidInput, match="machine has 5"):
        offer_sla(fig21, SLARequest("X", 6, H, 0, H), provider="p", penalty=TERMS)
    sla = SLA("p", "X", H, 2 * H, 1, H, 1.0, TERMS, "r", H)
    with pytest.raises(InvalidInput, match="actual_start"):
        settle(sla, 0, H)
    with pytest.raises(InvalidInput, match="actual_end"):
        settle(sla, H, H)
    with pytest.raises(InvalidInput, match="neither"):
        settle(sla, H, None)


# ------------------------------------------------------------------ properties
@st.composite
def sla_requests(draw, state):
    earliest = state.now + draw(st.integers(-20, 200))
    earliest = max(earliest, 0)
    return SLARequest(draw(st.integers(0, 10**6)), draw(st.integers(1, state.procs)), draw(st.integers(1, 150)),
                      earliest, earliest + draw(st.integers(0, 150)))


@settings(max_examples=60, deadline=None)
@given(data=st.data(), policy=st.sampled_from(["conservative", "easy"]), choose=st.sampled_from(["earliest", "cheapest"]))
def test_no_sla_is_signed_that_the_plan_cannot_honour(data, policy, choose):
    """Several requests against one plan: each is signed exactly when the plan's own earliest-start search (the
    base profile of running jobs and reservations, :meth:`Profile.earliest_start`) finds a start in the window;
    a signed one starts in the window on processors that were free, and the plan holds its reservation."""
    state = data.draw(provider_states())
    plan = ProviderPlan(state, policy)
    for _ in range(3):
        request = data.draw(sla_requests(state))
        base = base_profile(plan.state)
        first = max(request.earliest, plan.now)
        can = first <= request.latest and base.earliest_start(request.procs, request.duration, first) <= request.latest
        held = dict(plan.reservations)
        sla = offer_sla(plan, request, provider="p", penalty=TERMS, choose=choose)
        assert (sla is not None) == can
        event("signed" if can else "declined")
        if sla is None:
            assert dict(plan.reservations) == held
            continue
        assert request.earliest <= first <= sla.start <= request.latest
        assert base.min_free(sla.start, request.duration) >= request.procs
        if choose == "earliest":
            assert sla.start == base.earliest_start(request.procs, request.duration, first)
        assert plan.reservations[sla.reservation_id] == Reservation(sla.reservation_id, sla.start, request.procs,
                                                                    request.duration)
        assert sla.price == pytest.approx(plan.bookings[sla.reservation_id].price)


@settings(max_examples=80, deadline=None)
@given(start=st.integers(0, 1000), width=st.integers(0, 1000), rate=st.floats(0, 100), cap=st.floats(0, 1000),
       price=st.floats(0, 500), lates=st.lists(st.integers(0, 10**6), min_size=2, max_size=6),
       on_time=st.integers(0, 1000))
def test_on_time_pays_the_price_and_penalties_are_monotone_and_capped(start, width, rate, cap, price, lates, on_time):
    terms = PenaltySchedule(rate_per_hour=rate, cap=cap, violation=1.0)
    sla = SLA("p", "j", start, start + width, 1, 60, price, terms, "r", start)
    ok = settle(sla, start + on_time % (width + 1), start + width + 61)
    assert (ok.payment, ok.penalty, ok.violated, ok.late) == (price, 0.0, False, 0)
    runs = [settle(sla, sla.latest + late, sla.latest + late + 60) for late in sorted(lates)]
    for a, b in zip(runs, runs[1:]):
        assert a.penalty <= b.penalty <= cap and a.payment >= b.payment
    for r, late in zip(runs, sorted(lates)):
        assert r.violated == (late > 0)
        assert r.penalty == pytest.approx(min(cap, rate * late / 3600))
    assert dataclasses.replace(sla, price=price).price == price
