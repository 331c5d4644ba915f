"""The compiled slot-capacity loops of the plan evaluator (``_cplan.pyx``) against the pure-Python references.

Same earliest starts and covering stacks (the references run on the availability profile's
step-function primitives), the same step functions after taking processors as the profile's own
update, and the same schedules, costs and makespans for whole plans.
"""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gridmarket.errors import InvalidInput
from gridmarket.provisioning import PlanEvaluator
from gridmarket.provisioning import schedule as sched
from gridmarket.scheduling.profile import add_free
from gridmarket.workflows import Network

from .test_schedule import instances

compiled = pytest.importorskip("gridmarket.provisioning._cplan", reason="the compiled kernel is not built here")


@st.composite
def step_functions(draw):
    """A slot's free processors from its start: strictly increasing times, free levels >= 0."""
    start = draw(st.integers(0, 50))
    gaps = draw(st.lists(st.integers(1, 30), max_size=6))
    times = [start]
    for g in gaps:
        times.append(times[-1] + g)
    free = draw(st.lists(st.integers(0, 5), min_size=len(times), max_size=len(times)))
    end = math.inf if draw(st.booleans()) else times[-1] + draw(st.integers(1, 40))
    return times, free, end


@st.composite
def bins(draw):
    return [(k, *draw(step_functions())) for k in range(draw(st.integers(1, 5)))]


@given(bins(), st.integers(0, 120), st.integers(1, 60), st.integers(1, 12))
@settings(max_examples=400, deadline=None)
def test_fit_and_cover_equal_the_reference(bin_slots, ready, d, need):
    assert compiled.fit(bin_slots, ready, d, need) == sched.reference_fit(bin_slots, ready, d, need)
    assert compiled.cover(bin_slots, ready, d, need) == sched.reference_cover(bin_slots, ready, d, need)


@given(st.data())
@settings(max_examples=400, deadline=None)
def test_pick_equals_the_reference(data):
    n = data.draw(st.integers(1, 8))
    divisible = data.draw(st.lists(st.booleans(), min_size=n, max_size=n))
    unit = data.draw(st.lists(st.sampled_from([0.5, 1.0, 2.0]), min_size=n, max_size=n))
    total = data.draw(st.lists(st.sampled_from([1.0, 3.0, 8.0]), min_size=n, max_size=n))
    keys = data.draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=n, unique=True))
    stack = [(k, data.draw(st.integers(1, 6)), data.draw(st.sampled_from([10, 20, math.inf]))) for k in keys]
    need = data.draw(st.integers(1, sum(low for _, low, _ in stack)))
    bought = set(data.draw(st.lists(st.sampled_from(range(n)), max_size=3)))
    before = set(bought)
    want = sched.reference_pick(stack, need, bought, divisible, unit, total)
    assert compiled.pick(stack, need, bought, divisible, unit, total) == want
    assert bought == before
    assert sum(q for _, q in want) == need


@given(step_functions(), st.integers(0, 60), st.integers(1, 60), st.integers(-2, 5))
@settings(max_examples=300, deadline=None)
def test_take_is_the_profiles_update(steps, offset, length, q):
    """Same breakpoints and levels as the one Python update of a step function (``profile.add_free``)."""
    times, free, _ = steps
    a = times[0] + offset
    ref, fast = (times.copy(), free.copy()), (times.copy(), free.copy())
    add_free(*ref, a, a + length, -q)
    compiled.take(*fast, a, a + length, q)
    assert fast == ref


def test_take_refuses_an_instant_before_the_slot_as_the_profile_does():
    with pytest.raises(InvalidInput, match="time 4 is before the profile origin 5"):
        compiled.take([5, 10], [1, 2], 4, 8, 1)


@given(instances())
@settings(max_examples=150, deadline=None)
def test_whole_plans_schedule_the_same_under_both(inst):
    g, slots, bits = inst
    try:
        ev = PlanEvaluator(g, slots, network=Network(latency=3, bytes_per_second=10), release=5)
    except InvalidInput:
        return
    results = []
    for loops in ((compiled.fit, compiled.take, compiled.pick),
                  (sched.reference_fit, sched.reference_take, sched.reference_pick)):
        saved = sched._fit, sched._take, sched._pick
        sched._fit, sched._take, sched._pick = loops
        try:
            results.append((ev.evaluate(bits), ev.schedule(bits)))
        finally:
            sched._fit, sched._take, sched._pick = saved
    assert results[0] == results[1]


def test_the_evaluator_runs_the_compiled_loops_by_default():
    from gridmarket import kernel

    if kernel.KERNEL == "compiled":
        assert (sched._fit, sched._take, sched._pick) == (compiled.fit, compiled.take, compiled.pick)
