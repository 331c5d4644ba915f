"""The pricing engines' forward plans of EASY and FCFS against the policies themselves run forward.

``Engine.forward`` (compiled, ``_creplan.pyx``) and ``ReferenceEngine.forward`` plan the queue as
:class:`~gridmarket.scheduling.planner.ForwardPlanner` does by running the scheduler through the
machine's event loop: with running jobs (the scheduler's counting rule), reservations (its profile
rule) and a slot, the same start for every job; the prices the pricer gives are Fig. 22's sums of
delays over those plans.
"""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gridmarket.pricing import ExternalityPricer
from gridmarket.pricing.engine import ENGINE_FORWARD, ReferenceEngine
from gridmarket.reservation import Reservation
from gridmarket.scheduling import EASYScheduler, FCFSScheduler, make_scheduler
from gridmarket.scheduling.state import base_profile

from .strategies import live_schedulers, provider_states, slot_requests

compiled = pytest.importorskip("gridmarket.pricing._creplan", reason="the compiled kernel is not built here")

POLICIES = {"easy": EASYScheduler, "fcfs": FCFSScheduler}


def _engines(state):
    now, res = state.now, state.reservations
    args = (now, state.procs, [r.end for r in state.running], [r.procs for r in state.running],
            [max(r.start, now) for r in res], [r.end for r in res], [r.procs for r in res])
    return ReferenceEngine(*args), compiled.Engine(*args)


def _check(data, state, policy, n_slots=6, horizon=400):
    """Both engines' plans and prices equal the policy's own forward run; how many slots delayed a job."""
    cls = POLICIES[policy]
    backfill = ENGINE_FORWARD[cls]
    P, E = [j.procs for j in state.queue], [j.estimate for j in state.queue]
    ids = [j.id for j in state.queue]
    expected = cls.planner.plan(state)
    want = [expected[i] for i in ids]
    engines = _engines(state)
    for engine in engines:
        assert engine.forward(P, E, backfill) == want
        engine.plan(P, E, want)
    base = base_profile(state)
    delayed = 0
    for _ in range(n_slots):
        start, procs, duration = data.draw(slot_requests(state, horizon))
        if base.min_free(start, duration) < procs:
            continue
        after = cls.planner.plan(state, Reservation("slot", start, procs, duration))
        want_after = [after[i] for i in ids]
        price = sum((a - v) * p for a, v, p in zip(want_after, want, P) if a > v)
        for engine in engines:
            assert engine.forward(P, E, backfill, start, procs, duration) == want_after
            assert engine.forward_price(backfill, start, procs, duration) == price
        delayed += price > 0
    return delayed


@settings(max_examples=200, deadline=None)
@given(st.data(), st.sampled_from(["easy", "fcfs"]))
def test_engines_plan_as_the_policy_on_drawn_states(data, policy):
    _check(data, data.draw(provider_states()), policy)


@settings(max_examples=60, deadline=None)
@given(st.data(), st.sampled_from(["easy", "fcfs"]))
def test_engines_plan_as_the_policy_on_long_queues(data, policy):
    state = data.draw(provider_states(max_procs=16, max_queue=40, max_running=14, max_reservations=5))
    _check(data, state, policy, n_slots=4)


@settings(max_examples=40, deadline=None)
@given(st.data(), st.sampled_from(["easy", "fcfs"]))
def test_engines_price_late_slots_on_long_queues(data, policy):
    """Plans of many passes, slots late in them: a price starts from the recorded run without the slot."""
    state = data.draw(provider_states(max_procs=8, max_queue=95, max_running=5, max_reservations=3))
    _check(data, state, policy, n_slots=10, horizon=3000)


@settings(max_examples=100, deadline=None)
@given(st.data(), st.sampled_from(["easy", "fcfs"]))
def test_pricer_from_a_live_scheduler_prices_as_the_policy_run_forward(data, policy):
    scheduler, now = data.draw(live_schedulers(policy))
    for i in range(data.draw(st.integers(0, 2))):
        procs = data.draw(st.integers(1, scheduler.procs))
        duration = data.draw(st.integers(1, 100))
        start = ExternalityPricer.from_scheduler(scheduler, now).feasible_prices_ps(procs, duration)[0][0]
        scheduler.add_reservation(Reservation(f"x{i}", start, procs, duration), now)
    pricer = ExternalityPricer.from_scheduler(scheduler, now)
    state = pricer.state
    cls = POLICIES[policy]
    assert pricer.planned == cls.planner.plan(state)
    for _ in range(4):
        start, procs, duration = data.draw(slot_requests(state))
        if pricer.base.min_free(start, duration) < procs:
            continue
        after = cls.planner.plan(state, Reservation("slot", start, procs, duration))
        assert pricer.starts_with(start, procs, duration) == after
        assert pricer.price_ps(start, procs, duration) == sum(
            (after[j.id] - pricer.planned[j.id]) * j.procs for j in state.queue if after[j.id] > pricer.planned[j.id])


@pytest.mark.parametrize("policy", ["easy", "fcfs"])
def test_the_drawn_slots_do_delay_jobs(policy):
    """The comparison is not vacuous: under both policies many drawn slots move a queued job."""
    delayed = []

    @settings(max_examples=60, deadline=None, derandomize=True)  # a count over fixed draws: no luck involved
    @given(st.data())
    def count(data):
        delayed.append(_check(data, data.draw(provider_states()), policy, n_slots=4))

    count()
    assert sum(delayed) >= 20


def test_a_subclass_is_run_forward_as_itself():
    """Only the exact classes are planned by the engines: a subclass may change the rule."""

    class Slower(EASYScheduler):
        name = ""

    assert ENGINE_FORWARD.get(Slower) is None
    scheduler = make_scheduler("easy", 4)
    assert ExternalityPricer.from_scheduler(scheduler, 0, Slower).planned == {}


@settings(max_examples=100, deadline=None)
@given(st.data(), st.sampled_from(["easy", "fcfs"]))
def test_a_pricer_given_planned_starts_prices_against_them(data, policy):
    """Planned starts handed in (a plan kept after a sale that moved nobody, or another one): the delays
    of the policy's run with the slot are counted from them, as Fig. 22 counts from the current plan."""
    state = data.draw(provider_states(max_queue=12))
    cls = POLICIES[policy]
    planned = cls.planner.plan(state)
    if data.draw(st.booleans()):  # a later plan than the policy's own: moved jobs far apart, never overlapping
        planned = {q: t + 10**4 * (k + 1) if data.draw(st.booleans()) else t for k, (q, t) in enumerate(planned.items())}
    pricer = ExternalityPricer(state, policy, planned=planned)
    assert pricer.planned == planned
    for _ in range(4):
        start, procs, duration = data.draw(slot_requests(state))
        if pricer.base.min_free(start, duration) < procs:
            continue
        after = cls.planner.plan(state, Reservation("slot", start, procs, duration))
        want = 0 if pricer.fits_plan(start, procs, duration) else sum(
            (after[j.id] - planned[j.id]) * j.procs for j in state.queue if after[j.id] > planned[j.id])
        assert pricer.price_ps(start, procs, duration) == want
