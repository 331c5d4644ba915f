"""The compiled pricing engine (``_creplan.pyx``) against the pure-Python ``ReferenceEngine``.

On every drawn provider state (from scratch, and from live schedulers of both
backfilling policies stopped mid-run with early ends and priced reservations
held) the two give the same profiles, candidate starts, greedy plan, first
collisions, prices, form-18 lists and re-planned starts, and fail the same
way on an inconsistent plan. (``test_externality.py`` checks the prices of
whichever runs against planning twice.)
"""

import re

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from gridmarket.errors import Infeasible, InvalidInput
from gridmarket.job import Job
from gridmarket.pricing import ExternalityPricer, choose, choose_flexible, quote_flexible, state_from_scheduler
from gridmarket.pricing.engine import ReferenceEngine
from gridmarket.pricing.quotes import reference_choice
from gridmarket.reservation import Reservation
from gridmarket.scheduling import make_scheduler
from gridmarket.simulation import MachineSimulation
from gridmarket.tradeoff import choose_by_tradeoff

from .strategies import live_schedulers, provider_states, slot_requests

compiled = pytest.importorskip("gridmarket.pricing._creplan", reason="the compiled kernel is not built here")


def _engines(state, planned):
    now = state.now
    res = state.reservations
    args = (now, state.procs, [r.end for r in state.running], [r.procs for r in state.running],
            [max(r.start, now) for r in res], [r.end for r in res], [r.procs for r in res])
    queue = ([j.procs for j in state.queue], [j.estimate for j in state.queue], [planned[j.id] for j in state.queue])
    out = []
    for cls in (ReferenceEngine, compiled.Engine):
        engine = cls(*args)
        engine.plan(*queue)
        out.append(engine)
    return out


def _compare(data, state, planned, n_slots=8, horizon=400):
    ref, fast = _engines(state, planned)
    assert fast.base_steps() == ref.base_steps()
    assert fast.full_steps() == ref.full_steps()
    assert fast.instants() == ref.instants()
    assert fast.greedy() == ref.greedy()
    starts = ref.instants()
    for _ in range(n_slots):
        start, procs, duration = data.draw(slot_requests(state, horizon))
        assert fast.base_min_free(start, duration) == ref.base_min_free(start, duration)
        assert fast.full_min_free(start, duration) == ref.full_min_free(start, duration)
        assert fast.first_collision(start, procs, duration) == ref.first_collision(start, procs, duration)
        assert fast.prices(procs, duration, [start, *starts]) == ref.prices(procs, duration, [start, *starts])
        assert fast.feasible(procs, duration) == ref.feasible(procs, duration)
        if ref.base_min_free(start, duration) >= procs:
            assert fast.starts_with(start, procs, duration) == ref.starts_with(start, procs, duration)
    return ref


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_compiled_engine_equals_reference_on_drawn_states(data):
    state = data.draw(provider_states())
    # the greedy plan (what a fresh conservative scheduler holds) and a later, uncompressed one
    planned = ExternalityPricer(state, "conservative").planned
    _compare(data, state, planned)
    shifted = dict(planned)
    for job in state.queue:
        if data.draw(st.booleans()):
            shifted[job.id] += 1000  # far past the plan: never overlaps, owed delays stay 0
    _compare(data, state, shifted)


LONG_HORIZON = 1500  # s after now: 40 jobs of up to 100 s on a few processors plan that far


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_compiled_engine_equals_reference_on_long_queues(data):
    """Queues and running sets long enough for the compiled sort's partitioning (17 changes and more), slots
    over the whole plan (so that they collide deep in the queue: below)."""
    state = data.draw(provider_states(max_procs=16, max_queue=40, max_running=14, max_reservations=5))
    _compare(data, state, ExternalityPricer(state, "conservative").planned, n_slots=4, horizon=LONG_HORIZON)


@settings(max_examples=150, deadline=None)
@given(st.data(), st.sampled_from(["conservative", "slots"]))
def test_compiled_engine_equals_reference_on_live_schedulers_with_reservations(data, policy):
    scheduler, now = data.draw(live_schedulers(policy))
    # priced reservations held in the live plan, as in the priced replay
    for i in range(data.draw(st.integers(0, 3))):
        pricer = ExternalityPricer.from_scheduler(scheduler, now)
        procs = data.draw(st.integers(1, scheduler.procs))
        duration = data.draw(st.integers(1, 100))
        starts, _ = pricer.feasible_prices_ps(procs, duration)
        start = data.draw(st.sampled_from(starts))
        scheduler.add_reservation(Reservation(f"x{i}", start, procs, duration), now)
    state = state_from_scheduler(scheduler, now)
    ref = _compare(data, state, scheduler.planned)
    assert any(True for _ in ref.instants())


def test_the_drawn_states_do_collide():
    """The comparison above is not vacuous: most drawn states have slots that re-plan the queue."""
    hits = []

    @settings(max_examples=100, deadline=None)
    @given(st.data())
    def count(data):
        state = data.draw(provider_states())
        ref, _ = _engines(state, ExternalityPricer(state, "conservative").planned)
        for _ in range(4):
            start, procs, duration = data.draw(slot_requests(state))
            if ref.base_min_free(start, duration) >= procs and ref.first_collision(start, procs, duration) is not None:
                hits.append(1)

    count()
    assert len(hits) >= 50


def test_long_queues_collide_deep_in_the_queue():
    """The compiled collision search bisects over the profile kept before every 16th job, then lays the
    jobs after it one by one: on queues of up to 99 jobs, slots at the planned start of a late job,
    compared on both engines, collide with jobs 16 and later."""
    deep = []

    @settings(max_examples=60, deadline=None)
    @given(st.data())
    def count(data):
        state = data.draw(provider_states(max_procs=16, max_queue=99, max_running=14, max_reservations=5))
        assume(len(state.queue) > 40)
        planned = ExternalityPricer(state, "conservative").planned
        ref, fast = _engines(state, planned)
        greedy = ref.greedy()
        for _ in range(4):
            start = greedy[data.draw(st.integers(16, len(greedy) - 1))]
            procs, duration = data.draw(st.integers(1, state.procs)), data.draw(st.integers(1, 150))
            if ref.base_min_free(start, duration) >= procs:
                k = ref.first_collision(start, procs, duration)
                assert fast.first_collision(start, procs, duration) == k
                assert fast.prices(procs, duration, [start]) == ref.prices(procs, duration, [start])
                assert fast.starts_with(start, procs, duration) == ref.starts_with(start, procs, duration)
                if k is not None and k >= 16:
                    deep.append(k)

    count()
    assert len(deep) >= 100


@pytest.mark.parametrize("cls", [ReferenceEngine, getattr(compiled, "Engine", None)], ids=["reference", "compiled"])
def test_both_engines_refuse_overlapping_plans_and_overfull_bases(cls):
    with pytest.raises(InvalidInput, match="hold 5 processors at 10; machine has 4"):
        cls(0, 4, [20], [3], [10], [30], [2])
    engine = cls(0, 4, [], [], [], [], [])
    with pytest.raises(InvalidInput, match="planned starts overlap"):
        engine.plan([3, 3], [10, 10], [0, 5])


def test_pricer_from_scheduler_equals_pricer_from_state():
    """A pricer built straight from a live scheduler prices like one built from its state record."""
    jobs = [Job(i, 7 * i, 1 + i % 3, 40 + 13 * (i % 5), 60 + 20 * (i % 4)) for i in range(30)]
    scheduler = make_scheduler("conservative", 4)
    sim = MachineSimulation(scheduler, jobs)
    sim.run_until(100)
    start = ExternalityPricer.from_scheduler(scheduler, 100).feasible_prices_ps(3, 40)[0][1]
    sim.add_reservation(Reservation("r", start, 3, 40))
    direct = ExternalityPricer.from_scheduler(scheduler, 100)
    record = ExternalityPricer(state_from_scheduler(scheduler, 100), "conservative", planned=scheduler.planned)
    assert direct.state == record.state
    assert direct.planned == record.planned
    assert direct.feasible_prices_ps(2, 50) == record.feasible_prices_ps(2, 50)
    assert direct.base.steps() == record.base.steps() and direct.full.steps() == record.full.steps()


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 10**9), st.integers(0, 10**12)), min_size=1, max_size=40, unique_by=lambda x: x[0]),
       st.one_of(st.sampled_from([0, 1, 0.0, 0.5, 1.0]), st.floats(0, 1)))
def test_compiled_choice_equals_reference_choice(pairs, alpha):
    pairs.sort()
    starts, prices = [s for s, _ in pairs], [f for _, f in pairs]
    assert compiled.choice_index(starts, prices, float(alpha)) == reference_choice(starts, prices, alpha)


@settings(max_examples=100, deadline=None)
@given(st.data(), st.sampled_from(["conservative", "slots", "easy", "fcfs"]))
def test_choose_flexible_is_choose_over_form18(data, policy):
    state = data.draw(provider_states(max_queue=5))
    pricer = ExternalityPricer(state, policy)
    _, procs, duration = data.draw(slot_requests(state))
    alpha = data.draw(st.floats(0, 1))
    quotes = quote_flexible(pricer, procs, duration)
    assert choose_flexible(pricer, procs, duration, alpha) == (choose(quotes, alpha), len(quotes))


_TIED_STARTS = st.sampled_from([0, 3600, 7200])
_TIED_PRICES = st.sampled_from([0, 3600, 7200, 10800])


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(_TIED_STARTS, _TIED_PRICES), min_size=1, max_size=12),
       st.sampled_from([0, 0.25, 0.5, 0.75, 1.0]))
def test_compiled_choice_breaks_ties_as_the_one_rule(pairs, alpha):
    """Repeated starts and prices, and alphas that make equal scores: the compiled eq. (20) picks the
    index ``choose_by_tradeoff`` picks (earlier start, then lower price, then the first)."""
    starts, prices = [s for s, _ in pairs], [f for _, f in pairs]
    want = choose_by_tradeoff(starts, [f / 3600 for f in prices], alpha)
    assert compiled.choice_index(starts, prices, alpha) == want == reference_choice(starts, prices, alpha)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 10**9), st.integers(2**53 - 10, 2**62)), min_size=1, max_size=8),
       st.floats(0, 1))
def test_compiled_choice_reads_prices_beyond_exact_doubles_as_the_rule_does(pairs, alpha):
    starts, prices = [s for s, _ in pairs], [f for _, f in pairs]
    assert compiled.choice_index(starts, prices, alpha) == reference_choice(starts, prices, alpha)


def test_compiled_choice_takes_the_cheaper_of_one_start():
    h = 3600
    assert compiled.choice_index([h, h], [5 * h, 3 * h], 0.0) == 1 == choose_by_tradeoff([h, h], [5.0, 3.0], 0.0)


@pytest.mark.parametrize("starts, prices, alpha, error", [
    ([], [], 0.5, Infeasible),
    ([0, 1], [0], 0.5, InvalidInput),
    ([0], [0], 1.5, InvalidInput),
])
def test_compiled_choice_fails_as_the_one_rule(starts, prices, alpha, error):
    with pytest.raises(error) as want:
        reference_choice(starts, prices, alpha)
    with pytest.raises(error, match=f"^{re.escape(str(want.value))}$"):
        compiled.choice_index(starts, prices, alpha)
