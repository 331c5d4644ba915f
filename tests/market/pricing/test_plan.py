"""The provider plan: advertisement (ch. 3), sales at adaptive prices (ch. 5), cancellation (ch. 6.4)."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gridmarket.errors import Infeasible, InvalidInput
from gridmarket.job import Job
from gridmarket.pricing.plan import Booking, ProviderPlan
from gridmarket.pricing.slot import Slot
from gridmarket.pricing.state import ProviderState, RunningJob
from gridmarket.reservation import Reservation
from gridmarket.scheduling import ConservativeScheduler, SlotScheduler
from gridmarket.simulation import MachineSimulation

from .strategies import live_schedulers, provider_states, slot_requests

H = 3600
FIG1 = [(2, 3), (4, 1), (1, 2), (3, 2)]  # A, B, C, D of thesis Fig. 1: (procs, hours)


@pytest.fixture
def fig21_plan():
    state = ProviderState(
        0, 5,
        running=(RunningJob(1, 1, 0, 2 * H), RunningJob(2, 3, 0, 3 * H)),
        queue=(Job(3, 0, 2, 2 * H, 2 * H), Job(4, 0, 2, 3 * H, 3 * H)),
        reservations=(Reservation("R", 5 * H, 2, 3 * H),),
    )
    return ProviderPlan(state, "conservative")


def snapshot(plan):
    return (plan.state, plan.planned, plan.free_steps(), plan.base_steps(), dict(plan.bookings))


def as_tuples(slots):
    return [(s.start / H, s.procs, s.duration / H, s.divisible, s.extensible) for s in slots]


# ------------------------------------------------------------ advertisement
def test_fig1_plan_advertises_slots_s1_to_s5_at_best_effort_price():
    queue = tuple(Job(i, 0, n, d * H, d * H) for i, (n, d) in enumerate(FIG1))
    plan = ProviderPlan(ProviderState(0, 5, queue=queue), "conservative")
    slots = plan.advertise(until=8 * H)
    assert as_tuples(slots) == [
        (0, 1, 8, True, True), (0, 1, 3, False, False), (2, 1, 1, False, False),
        (4, 1, 4, True, True), (6, 3, 2, True, True),
    ]
    assert {(s.unit_cost, s.fixed_cost, s.issued) for s in slots} == {(1.0, 0.0, 0)}


def test_default_advertisement_reaches_48_hours_or_the_plan_end_plus_5_minutes():
    queue = (Job(1, 0, 2, 60 * H, 60 * H),)
    plan = ProviderPlan(ProviderState(0, 2, queue=queue))
    assert max(s.end for s in plan.advertise()) == 60 * H + 300
    assert max(s.end for s in ProviderPlan(ProviderState(0, 2)).advertise()) == 48 * H


@settings(max_examples=80, deadline=None)
@given(st.data())
def test_every_advertised_slot_is_priced_at_zero(data):
    state = data.draw(provider_states())
    plan = ProviderPlan(state, data.draw(st.sampled_from(["conservative", "easy", "fcfs"])))
    for slot in plan.advertise():
        assert plan.price(slot.start, slot.procs, slot.duration).fixed_cost == 0.0


@settings(max_examples=80, deadline=None)
@given(st.data())
def test_buying_an_advertised_slot_delays_no_planned_job(data):
    state = data.draw(provider_states())
    plan = ProviderPlan(state, data.draw(st.sampled_from(["conservative", "easy"])))
    for _ in range(data.draw(st.integers(1, 3))):
        slots = plan.advertise()
        slot = data.draw(st.sampled_from(slots))
        if slot.divisible:  # take a random part, as Table 1 allows
            procs = data.draw(st.integers(1, slot.procs))
            start = data.draw(st.integers(slot.start, slot.end - 1))
            longest = slot.end - start if not slot.extensible else slot.end - start + 200
            duration = data.draw(st.integers(1, longest))
        else:
            start, procs, duration = slot.start, slot.procs, slot.duration
        before = plan.planned
        booking = plan.buy(slot, start=start, procs=procs, duration=duration)
        assert plan.planned == before
        assert booking.slot.fixed_cost == 0.0 and booking.reservation in plan.state.reservations


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_buying_an_advertised_slot_in_a_live_scheduler_delays_no_planned_job(data):
    policy = data.draw(st.sampled_from(["conservative", "slots"]))
    scheduler, now = data.draw(live_schedulers(policy))
    plan = ProviderPlan.from_scheduler(scheduler, now)
    slot = data.draw(st.sampled_from(plan.advertise()))
    booking = plan.buy(slot)
    before = dict(scheduler.planned)
    scheduler.add_reservation(booking.reservation, now)
    assert scheduler.planned == before == plan.planned


def test_buying_a_stale_slot_fails_cleanly_after_an_arrival():
    scheduler = ConservativeScheduler(4)
    sim = MachineSimulation(scheduler, [Job(1, 0, 4, 100, 100), Job(2, 10, 3, 50, 50)])
    sim.run_until(5)
    plan = ProviderPlan.from_scheduler(scheduler, 5)
    slot = next(s for s in plan.advertise() if s.start == 100)  # the whole machine from 100 on
    sim.run_until(10)  # job 2 arrives and is planned at 100
    fresh = ProviderPlan.from_scheduler(scheduler, 10)
    state = snapshot(fresh)
    with pytest.raises(Infeasible, match=r"slot at 100 issued at 5 is stale: only 1 of its 4 processors"):
        fresh.buy(slot, procs=4, duration=10)
    assert snapshot(fresh) == state
    assert fresh.buy(slot, procs=1, duration=10).slot.fixed_cost == 0.0  # what is left still sells


def test_advertised_slots_are_re_derived_after_an_early_completion():
    scheduler = SlotScheduler(2)
    sim = MachineSimulation(scheduler, [Job(1, 0, 2, 30, 100), Job(2, 0, 1, 50, 50)])
    sim.run_until(0)
    before = ProviderPlan.from_scheduler(scheduler, 0).advertise(until=1000)
    sim.run_until(30)  # job 1 ends 70 s early: job 2 moves up from 100 to 30 and starts
    after = ProviderPlan.from_scheduler(scheduler, 30).advertise(until=1000)
    assert [(s.start, s.procs, s.end, s.issued) for s in before] == [(100, 1, 1000, 0), (150, 1, 1000, 0)]
    assert [(s.start, s.procs, s.end, s.issued) for s in after] == [(30, 1, 1000, 30), (80, 1, 1000, 30)]


def test_an_indivisible_slot_cannot_be_sold_twice(fig21_plan):
    slot = next(s for s in fig21_plan.advertise() if not s.divisible)
    fig21_plan.buy(slot)
    state = snapshot(fig21_plan)
    with pytest.raises(Infeasible, match="already sold"):
        fig21_plan.buy(slot)
    assert snapshot(fig21_plan) == state


def test_a_slot_advertised_again_with_the_same_fields_is_fresh_capacity():
    # found by hypothesis: after two sales at the same instant the plan advertises an indivisible slot
    # equal, field for field, to one already sold; its processors are genuinely free and it must sell
    specs = [(1, 2), (1, 2), (3, 3), (1, 1), (1, 1), (4, 1), (1, 1), (1, 1)]
    queue = tuple(Job(i, 13, p, 1, e) for i, (p, e) in enumerate(specs))
    plan = ProviderPlan(ProviderState(now=13, procs=8, running=(), queue=queue, reservations=()), "conservative")
    first = next(s for s in plan.advertise() if (s.start, s.procs, s.duration, s.divisible) == (14, 1, 1, False))
    plan.buy(first)
    wide = next(s for s in plan.advertise() if s.divisible and s.start == 14)
    plan.buy(wide, start=15, procs=1, duration=1)  # leaves [14, 15) of the divisible slot free
    again = next(s for s in plan.advertise() if (s.start, s.procs, s.duration, s.divisible) == (14, 1, 1, False))
    assert again == first
    before = plan.planned
    booking = plan.buy(again)
    assert plan.planned == before and (booking.reservation.start, booking.reservation.procs) == (14, 1)
    with pytest.raises(Infeasible, match="already sold"):  # now the capacity is gone
        plan.buy(again)


def test_buying_past_the_end_of_a_non_extensible_slot_is_refused_with_the_reason(fig21_plan):
    slot = next(s for s in fig21_plan.advertise() if not s.extensible)
    with pytest.raises(Infeasible, match="neither divisible nor extensible"):
        fig21_plan.buy(slot, duration=slot.duration + 1)


# ------------------------------------------------------------ reservations at adaptive prices
def test_reserving_at_the_adaptive_price_replans_the_queue_around_the_slot(fig21_plan):
    booking = fig21_plan.reserve(2 * H, 2, 3 * H, reservation_id="X")
    assert isinstance(booking, Booking)
    assert (booking.id, booking.slot.fixed_cost, booking.price, booking.penalty) == ("X", 6.0, 12.0, pytest.approx(0.6))
    assert fig21_plan.planned == {3: 3 * H, 4: 5 * H}
    assert fig21_plan.reservations["X"] == Reservation("X", 2 * H, 2, 3 * H)


def test_reserve_refuses_a_stale_quote_above_the_price_offered(fig21_plan):
    state = snapshot(fig21_plan)
    with pytest.raises(Infeasible, match=r"now costs f = 6 SU, above the 5 SU offered"):
        fig21_plan.reserve(2 * H, 2, 3 * H, max_price=5.0)
    assert snapshot(fig21_plan) == state


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda p: p.reserve(0, 2, 3 * H), Infeasible, "conflict with running jobs or reservations"),
        (lambda p: p.reserve(2 * H, 0, H), InvalidInput, "procs must be an int >= 1, got 0"),
        (lambda p: p.reserve(2 * H, 2, 0), InvalidInput, "duration must be an int >= 1 s, got 0"),
        (lambda p: p.reserve(2 * H, 6, H), InvalidInput, "slot needs 6 processors; machine has 5"),
        (lambda p: p.reserve(2 * H, 2, H, reservation_id="R"), InvalidInput, "'R' is already held"),
        (lambda p: p.price(-1, 2, H), InvalidInput, "before now"),
        (lambda p: p.cancel("nope"), InvalidInput, "unknown reservation id 'nope'"),
        (lambda p: p.cancel("R"), InvalidInput, "unknown reservation id 'R'; sold by this plan: none"),
        (lambda p: p.buy(Slot(0, 1, H)), InvalidInput, r"before now|stale"),
        (lambda p: p.buy(Slot(9 * H, 2, H), procs=3), Infeasible, "all 2 processors must be taken"),
        (lambda p: p.quotes(1, H, start=0, earliest=0), InvalidInput, "not both"),
    ],
)
def test_refused_requests_leave_the_plan_unchanged(fig21_plan, call, error, message):
    if "before now" in message:
        fig21_plan = ProviderPlan(ProviderState(10, 5))
    state = snapshot(fig21_plan)
    with pytest.raises(error, match=message):
        call(fig21_plan)
    assert snapshot(fig21_plan) == state


@settings(max_examples=80, deadline=None)
@given(st.data())
def test_a_refused_reservation_leaves_any_plan_unchanged(data):
    state = data.draw(provider_states())
    plan = ProviderPlan(state, data.draw(st.sampled_from(["conservative", "easy"])))
    start, procs, duration = data.draw(slot_requests(state))
    before = snapshot(plan)
    try:
        plan.reserve(start, procs, duration)
    except Infeasible:
        assert snapshot(plan) == before


# ------------------------------------------------------------ cancellation
def test_cancelling_costs_p_times_f_and_gives_the_capacity_back(fig21_plan):
    base, free, planned = fig21_plan.base_steps(), fig21_plan.free_steps(), fig21_plan.planned
    booking = fig21_plan.reserve(2 * H, 2, 3 * H)
    assert fig21_plan.cancel(booking.id) == pytest.approx(0.1 * 6.0)
    assert (fig21_plan.base_steps(), fig21_plan.free_steps(), fig21_plan.planned) == (base, free, planned)
    with pytest.raises(InvalidInput, match="unknown reservation id"):
        fig21_plan.cancel(booking.id)


def test_penalty_factor_is_a_plan_setting():
    plan = ProviderPlan(ProviderState(0, 5), penalty_factor=0.5)
    booking = plan.reserve(0, 1, H)
    assert (booking.slot.penalty_factor, plan.cancel(booking)) == (0.5, 0.0)  # f = 0: nothing to forfeit


@settings(max_examples=80, deadline=None)
@given(st.data())
def test_cancellation_restores_the_plans_free_capacity(data):
    state = data.draw(provider_states())
    policy = data.draw(st.sampled_from(["conservative", "easy"]))
    plan = ProviderPlan(state, policy)
    base, planned = plan.base_steps(), plan.planned
    start, procs, duration = data.draw(slot_requests(state))
    try:
        booking = plan.reserve(start, procs, duration)
    except Infeasible:
        return
    sold = plan.planned
    penalty = plan.cancel(booking)
    assert penalty == pytest.approx(0.1 * booking.slot.fixed_cost)
    assert plan.base_steps() == base
    assert plan.state.reservations == state.reservations
    if policy == "easy":
        assert plan.planned == planned
    else:  # compression: nobody starts later than after the sale
        assert all(plan.planned[q] <= t for q, t in sold.items())


def test_cancellation_of_an_advertised_slot_restores_the_whole_plan(fig21_plan):
    free, planned = fig21_plan.free_steps(), fig21_plan.planned
    booking = fig21_plan.buy(fig21_plan.advertise()[0])
    assert fig21_plan.cancel(booking) == 0.0
    assert (fig21_plan.free_steps(), fig21_plan.planned) == (free, planned)


# ------------------------------------------------------------ construction
def test_plan_from_state_json_layout():
    plan = ProviderPlan.from_state(
        {"now": 0, "procs": 4, "running": [{"id": 1, "procs": 2, "start": 0, "end": 100}],
         "queued": [{"id": 2, "submit": 0, "procs": 4, "estimate": 50}]},
        "easy",
    )
    assert (plan.policy, plan.planned) == ("easy", {2: 100})


def test_plan_from_scheduler_uses_its_planned_starts_and_leaves_it_alone():
    scheduler = ConservativeScheduler(4)
    sim = MachineSimulation(scheduler, [Job(1, 0, 4, 10, 100), Job(2, 0, 4, 50, 50), Job(3, 0, 1, 5, 5)])
    sim.run_until(10)  # job 1 ended early: 2 moved up to 10 and started, 3 backfilled at 10... or planned
    planned, profile = dict(scheduler.planned), scheduler.profile.steps()
    plan = ProviderPlan.from_scheduler(scheduler, 10)
    plan.reserve(plan.pricer.plan_end, 4, 10)
    assert plan.planned == planned
    assert (scheduler.planned, scheduler.profile.steps()) == (planned, profile)


def test_plan_checks_its_settings():
    with pytest.raises(InvalidInput, match="penalty_factor must be in"):
        ProviderPlan(ProviderState(0, 1), penalty_factor=2)
    with pytest.raises(InvalidInput, match="unknown pricing policy"):
        ProviderPlan(ProviderState(0, 1), "sjf")
