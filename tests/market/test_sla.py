"""Service-level agreements: signed only when the plan can honour the window; settled with penalties."""

import dataclasses
import math

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from gridmarket.errors import InvalidInput
from gridmarket.job import Job
from gridmarket.pricing.plan import ProviderPlan
from gridmarket.pricing.state import ProviderState, RunningJob, base_profile
from gridmarket.reservation import Reservation
from gridmarket.sla import (
    SLA,
    PenaltySchedule,
    SLARequest,
    book_capacity,
    book_plan,
    honours,
    ledger,
    offer_sla,
    overbooked_state,
    settle,
)

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


# ------------------------------------------------------------------ overbooking (the book departs from the plan)
def test_an_overbooking_provider_signs_a_start_its_machine_cannot_hold_by_hand(fig21):
    """Fig. 21 overbooked by 1.4: the book has floor(1.4 x 5) = 7 processors, 3 of them free at 0 (A and B
    hold 4). 3 processors for 1 h in [0, 1 h], refused by the plan (1 free until 2 h), fit the book at 0; the
    machine could hold them only from 3 h (B ends; R's 2 of 5 from 5 h leave room)."""
    request = SLARequest("Y", 3, H, 0, H)
    assert offer_sla(fig21, request, provider="p", penalty=TERMS) is None
    book = book_plan(fig21, 1.4)
    assert book.procs == 7 and base_profile(book.state).steps() == [(0, 3), (2 * H, 4), (3 * H, 7), (5 * H, 5),
                                                                   (8 * H, 7)]
    sla = offer_sla(book, request, provider="p", penalty=TERMS)
    assert sla.start == 0 and not honours(fig21, sla)
    assert base_profile(fig21.state).earliest_start(3, H, 0) == 3 * H and honours(fig21, sla, start=3 * H)
    # the pending contract holds its 3 book processors over [0, 1 h): a second one starts when it ends
    book2 = book_plan(fig21, 1.4, [Reservation(sla.reservation_id, 0, 3, H)])
    assert base_profile(book2.state).steps()[:2] == [(0, 0), (H, 3)]
    assert offer_sla(book2, SLARequest("Z", 3, H, 0, 4 * H), provider="p", penalty=TERMS).start == H


def test_a_non_overbooking_book_is_the_plan_itself(fig21):
    assert book_plan(fig21, 1.0) is fig21 and book_plan(fig21, 1.1) is fig21  # 5.5 -> 5: no extra processor
    assert overbooked_state(fig21.state, 1) is fig21.state


def test_bad_overbooking_is_refused(fig21):
    for bad in (0.9, math.nan, math.inf, "2", True):
        with pytest.raises(InvalidInput, match="overbooking factor"):
            book_plan(fig21, bad)
    with pytest.raises(InvalidInput, match="also a reservation"):
        overbooked_state(fig21.state, 2.0, [Reservation("R", 0, 1, 10)])
    with pytest.raises(InvalidInput, match="Reservations"):
        overbooked_state(fig21.state, 2.0, [(0, 1, 10)])
    sla = SLA("p", "X", 0, H, 1, H, 1.0, TERMS, "r", 0)
    with pytest.raises(InvalidInput, match="start must be"):
        honours(fig21, sla, start=-1)


def _committed(state, pending, t):
    """Processors committed at instant ``t`` (brute force): running jobs, reservations and pending contracts."""
    held = sum(r.procs for r in state.running if state.now <= t < r.end)
    return held + sum(r.procs for r in (*state.reservations, *pending) if max(r.start, state.now) <= t < r.end)


@st.composite
def pending_contracts(draw, state, factor):
    """Contracts signed on the book one after another, so together they fit it when signed, or (``stale``) at
    any start: the machine has since started queued jobs in processors the book had promised them."""
    pending = []
    for i in range(draw(st.integers(0, 3))):
        book = overbooked_state(state, factor, pending)
        procs, duration = draw(st.integers(1, state.procs)), draw(st.integers(1, 120))
        after = state.now + draw(st.integers(0, 100))
        stale = draw(st.booleans())
        start = after if stale else base_profile(book).earliest_start(procs, duration, after)
        pending.append(Reservation(f"sla-{i}", start, procs, duration))
    return pending


@settings(max_examples=80, deadline=None)
@given(data=st.data(), factor=st.sampled_from([1.0, 1.25, 1.5, 2.0, 3.0]))
def test_the_book_frees_what_the_factor_allows_beyond_every_commitment(data, factor):
    """At every instant the book frees max(0, floor(factor x procs) - committed) processors (brute force over
    running jobs, reservations and pending contracts), and an overbooked contract signed on it never takes the
    commitments above the book: overbooking departs from the plan by at most the factor."""
    state = data.draw(provider_states())
    pending = data.draw(pending_contracts(state, factor))
    book = overbooked_state(state, factor, pending)
    capacity = book_capacity(state.procs, factor)
    profile = base_profile(book)
    ends = {state.now} | {r.end for r in state.running} | {x for r in (*state.reservations, *pending)
                                                              for x in (r.start, r.end)}
    for t in sorted(x for x in ends if x >= state.now):
        assert profile.free_at(t) == max(0, capacity - _committed(state, pending, t)), t
    event("commitments above the book" if book.procs > capacity else "within the book")
    assert book.queue == state.queue and set(book.reservations) >= set(state.reservations) | set(pending)
    request = data.draw(sla_requests(state))
    plan = ProviderPlan(book, "easy")
    sla = offer_sla(plan, request, provider="p", penalty=TERMS)
    first = max(request.earliest, state.now)
    if sla is None:
        event("declined")
        assert all(min(capacity - _committed(state, pending, t) for t in range(s, s + request.duration)) <
                   request.procs for s in range(first, request.latest + 1))
        return
    event("signed")
    mine = Reservation(sla.reservation_id, sla.start, sla.procs, sla.duration)
    assert all(_committed(state, [*pending, mine], t) <= max(capacity, _committed(state, pending, t) + sla.procs)
               for t in range(sla.start, sla.start + sla.duration))
    assert all(capacity - _committed(state, pending, t) >= sla.procs for t in range(sla.start, sla.start + sla.duration))
    if factor == 1.0 and not pending:  # a provider that does not overbook signs only what its plan can honour
        assert honours(ProviderPlan(state, "easy"), sla)


@settings(max_examples=60, deadline=None)
@given(data=st.data(), low=st.sampled_from([1.0, 1.25, 1.5]), extra=st.sampled_from([0.25, 0.5, 1.0]))
def test_more_overbooking_never_signs_a_later_start(data, low, extra):
    """The book at a larger factor frees at least as much everywhere: the earliest start it signs is no later."""
    state = data.draw(provider_states())
    request = data.draw(sla_requests(state))
    signed = [offer_sla(ProviderPlan(overbooked_state(state, f), "easy"), request, provider="p", penalty=TERMS)
              for f in (low, low + extra)]
    if signed[0] is not None:
        assert signed[1] is not None and signed[1].start <= signed[0].start


# ------------------------------------------------------------------ runtime overruns
def test_predicted_runtime_and_overrun_charge_by_hand():
    from gridmarket.sla import overrun_charge, predict_runtime

    assert predict_runtime([], 900) == 900 and predict_runtime([300, 500, 701], 900) == 601
    assert predict_runtime([5000], 900) == 900  # never above the estimate
    sla = SLA("p", "X", 0, 10, 3, 600, 1.0, TERMS, "r", 0)
    assert overrun_charge(sla, 600, 2.0) == 0.0 and overrun_charge(sla, 1800, 2.0) == pytest.approx(3 * 2.0 / 3)
    for bad in ((lambda: predict_runtime([0], 10)), (lambda: predict_runtime([], 0)),
                (lambda: overrun_charge(sla, -1, 1.0)), (lambda: overrun_charge(sla, 1, -1.0))):
        with pytest.raises(InvalidInput):
            bad()


def _fits(state, extension, out):
    kept = tuple(r for r in state.reservations if r.id not in set(out))
    trial = ProviderState(state.now, state.procs, state.running, (), kept)
    return base_profile(trial).min_free(extension.start, extension.duration) >= extension.procs


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_make_room_moves_only_overlapping_movable_contracts_and_none_it_could_keep(data):
    """Brute force on random machines: the answer makes the overrun fit, moves only movable reservations that
    overlap it, in order of start, and none of them could stay; None only when moving every movable overlapping
    one still leaves no room; [] exactly when it fits as it is."""
    from gridmarket.sla import make_room

    state = data.draw(provider_states())
    extra = []
    for i in range(data.draw(st.integers(0, 4))):  # contracts held after now, wherever they fit
        procs, duration = data.draw(st.integers(1, state.procs)), data.draw(st.integers(1, 200))
        after = state.now + data.draw(st.integers(0, 200))
        trial = ProviderState(state.now, state.procs, state.running, (), state.reservations + tuple(extra))
        start = base_profile(trial).earliest_start(procs, duration, after)
        extra.append(Reservation(f"c{i}", start, procs, duration))
    state = ProviderState(state.now, state.procs, state.running, state.queue, state.reservations + tuple(extra))
    ids = [r.id for r in state.reservations]
    movable = data.draw(st.lists(st.sampled_from(ids), unique=True)) if ids else []
    ext = Reservation("over", state.now + data.draw(st.integers(0, 50)), data.draw(st.integers(1, state.procs)),
                      data.draw(st.integers(1, 300)))
    out = make_room(state, ext, movable)
    overlapping = [r.id for r in state.reservations if r.id in movable and r.start < ext.end and r.end > ext.start]
    if out is None:
        event("no room")
        assert not _fits(state, ext, overlapping)
        return
    event(f"moved {min(len(out), 2)}{'+' if len(out) > 2 else ''}")
    assert _fits(state, ext, out) and set(out) <= set(overlapping)
    assert (out == []) == _fits(state, ext, [])
    starts = {r.id: (r.start, str(r.id)) for r in state.reservations}
    assert [starts[i] for i in out] == sorted(starts[i] for i in out)
    for rid in out:  # nothing moved that could have stayed
        assert not _fits(state, ext, [x for x in out if x != rid])


def test_make_room_by_hand():
    # 4 processors from 50 s: contract a holds 2 over [100, 200), b 4 over [200, 300), c 1 over [400, 500). A
    # 2-processor overrun over [50, 250) fits beside a but not b: b alone moves (a, taken first by start, stays);
    # 4 processors need both; c never stands in the way; without b movable there is no room.
    from gridmarket.sla import make_room

    s = ProviderState(50, 4, reservations=(Reservation("a", 100, 2, 100), Reservation("b", 200, 4, 100),
                                           Reservation("c", 400, 1, 100)))
    assert make_room(s, Reservation("x", 50, 2, 200), ["a", "b", "c"]) == ["b"]
    assert make_room(s, Reservation("x", 50, 4, 200), ["c", "b", "a"]) == ["a", "b"]
    assert make_room(s, Reservation("x", 50, 4, 200), ["a", "c"]) is None
    assert make_room(s, Reservation("x", 50, 4, 50), []) == []


def test_make_room_refuses_unknown_ids_and_a_past_extension():
    from gridmarket.sla import make_room

    s = ProviderState(50, 4, reservations=(Reservation("a", 100, 2, 100),))
    with pytest.raises(InvalidInput, match="not reservations"):
        make_room(s, Reservation("x", 50, 2, 10), ["zz"])
    with pytest.raises(InvalidInput, match="before now"):
        make_room(s, Reservation("x", 10, 2, 10), ["a"])
