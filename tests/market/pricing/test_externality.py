"""Adaptive externality pricing (Singh 2008, ch. 5, Fig. 22): worked examples, oracles and invariants."""

import contextlib
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gridmarket.errors import Infeasible, InvalidInput
from gridmarket.job import Job
from gridmarket.pricing.externality import ExternalityPricer, slot_price
from gridmarket.pricing.forecast import forecast
from gridmarket.pricing.state import ProviderState, RunningJob, state_from_scheduler
from gridmarket.reservation import Reservation
from gridmarket.scheduling import make_scheduler
from gridmarket.simulation import MachineSimulation

from .strategies import live_schedulers, provider_states, slot_requests

H = 3600


@pytest.fixture
def fig21():
    """Thesis Fig. 21 (reconstructed; hours): A 1 proc to 2, B 3 procs to 3, R 2 procs over [5, 8), C 2x2, D 2x3."""
    return ProviderState(
        0, 5,
        running=(RunningJob(1, 1, 0, 2 * H), RunningJob(2, 3, 0, 3 * H)),
        queue=(Job(3, 0, 2, 2 * H, 2 * H), Job(4, 0, 2, 3 * H, 3 * H)),
        reservations=(Reservation("R", 5 * H, 2, 3 * H),),
    )


def oracle_price_ps(state, policy, start, procs, duration):
    """Fig. 22 literally: plan the queue without and with the slot, sum positive delays x procs."""
    before = forecast(state, policy)
    after = forecast(state, policy, extra=Reservation("oracle-slot", start, procs, duration))
    return sum(max(0, after[j.id] - before[j.id]) * j.procs for j in state.queue)


# ------------------------------------------------------------ worked example (Fig. 21)
def test_fig21_slot_delays_c_by_1_and_d_by_2_so_price_is_6(fig21):
    pricer = ExternalityPricer(fig21, "conservative")
    assert pricer.planned == {3: 2 * H, 4: 3 * H}
    assert pricer.delays(2 * H, 2, 3 * H) == {3: 1 * H, 4: 2 * H}
    assert pricer.price(2 * H, 2, 3 * H) == 6.0  # 1x2 + 2x2 processor-hours
    assert pricer.price_ps(2 * H, 2, 3 * H) == 6 * H


@pytest.mark.parametrize(
    "hour, price",
    [(2, 6.0), (3, 6.0), (4, 8.0), (5, 10.0), (6, 0.0), (7, 0.0), (8, 0.0), (30, 0.0)],
)
def test_fig21_prices_across_start_times_with_a_zero_tail(fig21, hour, price):
    assert slot_price(fig21, hour * H, 2, 3 * H) == price


@pytest.mark.parametrize("hour", [0, 1])
def test_fig21_slot_is_refused_while_running_jobs_hold_the_processors(fig21, hour):
    with pytest.raises(Infeasible, match=r"2 processors over .* conflict with running jobs or reservations"):
        slot_price(fig21, hour * H, 2, 3 * H)


def test_slot_overlapping_a_reservation_is_refused(fig21):
    with pytest.raises(Infeasible, match=r"only 3 free at 18000"):
        slot_price(fig21, 5 * H, 4, H)


@pytest.mark.parametrize("policy", ["easy", "fcfs"])
def test_fig21_prices_under_forward_policies_follow_fig22_literally(fig21, policy):
    for hour in (2, 3, 4, 5, 6, 8):
        assert slot_price(fig21, hour * H, 2, 3 * H, policy=policy) == oracle_price_ps(
            fig21, policy, hour * H, 2, 3 * H
        ) / H


def test_easy_price_can_exceed_conservative_because_it_backfills_past_the_head():
    # 2 processors (hours): job 1 (1 proc) runs until 1; queued 2 (2x3), 3 (2x1), 4 (1x3); both
    # policies plan 2 at 1, 3 at 4, 4 at 5. A 1-proc slot over [3, 4) pushes job 2 to 4.
    # Conservative then starts 3 at 1 (earlier) and 4 at 7: f = 3x2 + 2x1 = 8.
    # EASY backfills 4 at 0 (it ends by the head's shadow time), so 3 waits for 2: f = 3x2 + 3x2 = 12.
    state = ProviderState(
        0, 2, running=(RunningJob(1, 1, 0, H),),
        queue=(Job(2, 0, 2, 3 * H, 3 * H), Job(3, 0, 2, H, H), Job(4, 0, 1, 3 * H, 3 * H)),
    )
    conservative, easy = ExternalityPricer(state, "conservative"), ExternalityPricer(state, "easy")
    assert conservative.planned == easy.planned == {2: H, 3: 4 * H, 4: 5 * H}
    assert conservative.delays(3 * H, 1, H) == {2: 3 * H, 4: 2 * H}
    assert easy.delays(3 * H, 1, H) == {2: 3 * H, 3: 3 * H}
    assert (conservative.price(3 * H, 1, H), easy.price(3 * H, 1, H)) == (8.0, 12.0)


def test_idle_machine_prices_everything_at_zero():
    assert slot_price(ProviderState(10, 8), 10, 8, 10**6) == 0.0


@pytest.mark.parametrize(
    "start, procs, duration, message",
    [
        (0, 2, 3600, r"slot starts at 0, before now \(100\)"),
        (100, 0, 3600, "procs must be an int >= 1, got 0"),
        (100, 9, 3600, "slot needs 9 processors; machine has 8"),
        (100, 2, 0, "duration must be an int >= 1 s, got 0"),
        (100, 2, -5, "duration must be an int >= 1 s"),
        (100.0, 2, 60, "start must be an int"),
    ],
)
def test_malformed_slots_are_invalid_input(start, procs, duration, message):
    with pytest.raises(InvalidInput, match=message):
        slot_price(ProviderState(100, 8), start, procs, duration)


# ------------------------------------------------------------ oracles
@settings(max_examples=150, deadline=None)
@given(st.data())
def test_conservative_incremental_pricing_equals_planning_twice(data):
    state = data.draw(provider_states())
    pricer = ExternalityPricer(state, "conservative")
    for _ in range(4):
        start, procs, duration = data.draw(slot_requests(state))
        try:
            want = oracle_price_ps(state, "conservative", start, procs, duration)
        except Infeasible:
            with pytest.raises(Infeasible):
                pricer.price_ps(start, procs, duration)
            continue
        assert pricer.price_ps(start, procs, duration) == want


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_many_candidates_at_once_equal_one_at_a_time(data):
    state = data.draw(provider_states())
    procs = data.draw(st.integers(1, state.procs))
    duration = data.draw(st.integers(1, 150))
    pricer = ExternalityPricer(state, data.draw(st.sampled_from(["conservative", "easy"])))
    starts = pricer.instants()
    fresh = ExternalityPricer(state, pricer.policy)
    for start, f in zip(starts, pricer.prices_ps(procs, duration, starts)):
        if f is None:
            with pytest.raises(Infeasible):
                fresh.price_ps(start, procs, duration)
        else:
            assert f == fresh.price_ps(start, procs, duration)


@settings(max_examples=80, deadline=None)
@given(st.data())
def test_price_predicts_what_a_live_conservative_scheduler_does_with_the_reservation(data):
    policy = data.draw(st.sampled_from(["conservative", "slots"]))
    scheduler, now = data.draw(live_schedulers(policy))
    state = state_from_scheduler(scheduler, now)
    planned = {job.id: scheduler.planned[job.id] for job in state.queue}
    pricer = ExternalityPricer(state, policy, planned=planned)
    start, procs, duration = data.draw(slot_requests(state, horizon=200))
    try:
        predicted = pricer.starts_with(start, procs, duration)
    except Infeasible:
        with pytest.raises(Infeasible):
            scheduler.add_reservation(Reservation("x", start, procs, duration), now)
        return
    scheduler.add_reservation(Reservation("x", start, procs, duration), now)
    assert {q: scheduler.planned[q] for q in predicted} == predicted
    delays = sum(max(0, predicted[j.id] - planned[j.id]) * j.procs for j in state.queue)
    assert pricer.price_ps(start, procs, duration) == delays


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_easy_forecast_is_what_easy_does_when_estimates_are_exact_and_nobody_arrives(data):
    state = data.draw(provider_states(max_queue=10))
    extra = None
    if data.draw(st.booleans()):
        start, procs, duration = data.draw(slot_requests(state))
        extra = Reservation("x", start, procs, duration)
        if ExternalityPricer(state).base.min_free(start, duration) < procs:
            return
    policy = data.draw(st.sampled_from(["easy", "fcfs", "conservative"]))
    predicted = forecast(state, policy, extra=extra)
    # the real simulator from the same state: running jobs (as jobs submitted and started now) then the queue
    scheduler = make_scheduler(policy, state.procs)
    now = state.now
    stand_ins = [Job(10_000 + i, now, r.procs, r.end - now, r.end - now) for i, r in enumerate(state.running)]
    sim = MachineSimulation(scheduler, stand_ins)
    sim.run_until(now)
    for res in (*state.reservations, *([extra] if extra else [])):
        sim.add_reservation(res if res.start >= now else Reservation(res.id, now, res.procs, res.end - now))
    sim.jobs = stand_ins + [Job(j.id, now, j.procs, j.estimate, j.estimate) for j in state.queue]
    sim.run_until(None)
    assert {q: sim.start[q] for q in predicted} == predicted


# ------------------------------------------------------------ invariants
@settings(max_examples=120, deadline=None)
@given(st.data())
def test_price_is_never_negative_and_zero_at_the_end_of_the_plan(data):
    state = data.draw(provider_states())
    policy = data.draw(st.sampled_from(["conservative", "easy", "fcfs", "slots"]))
    pricer = ExternalityPricer(state, policy)
    start, procs, duration = data.draw(slot_requests(state))
    with contextlib.suppress(Infeasible):
        assert pricer.price_ps(start, procs, duration) >= 0
    end = pricer.plan_end
    assert pricer.price(end + data.draw(st.integers(0, 100)), procs, duration) == 0.0


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_slot_in_a_hole_of_the_plan_costs_nothing(data):
    state = data.draw(provider_states())
    policy = data.draw(st.sampled_from(["conservative", "easy", "fcfs"]))
    pricer = ExternalityPricer(state, policy)
    start, procs, duration = data.draw(slot_requests(state))
    if pricer.fits_plan(start, procs, duration):
        # the planning with the slot moves nobody (for EASY and FCFS: the forward run is unchanged)
        assert forecast(state, policy, extra=Reservation("x", start, procs, duration)) == pricer.planned
        assert pricer.price_ps(start, procs, duration) == 0


def test_pricing_does_not_modify_its_state(fig21):
    pricer = ExternalityPricer(fig21, "conservative")
    base, full, planned = pricer.base.steps(), pricer.full.steps(), dict(pricer.planned)
    for hour in range(10):
        with contextlib.suppress(Infeasible):
            pricer.price(hour * H, 2, 3 * H)
    pricer.prices_ps(3, H, pricer.instants())
    assert (pricer.base.steps(), pricer.full.steps(), pricer.planned) == (base, full, planned)


def test_unknown_policy_is_refused(fig21):
    with pytest.raises(InvalidInput, match="unknown pricing policy 'sjf'; known: conservative, slots, easy, fcfs"):
        ExternalityPricer(fig21, "sjf")
    with pytest.raises(InvalidInput, match="missing users for PSP: job 1 has user -1"):  # PSP ranks users; fig21 has none
        ExternalityPricer(fig21, "psp")


def test_candidate_instants_are_now_and_every_change_of_the_plan(fig21):
    assert [t / H for t in ExternalityPricer(fig21).instants()] == [0, 2, 3, 4, 5, 6, 8]
    assert math.isclose(ExternalityPricer(fig21).plan_end / H, 8)
