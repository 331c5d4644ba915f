"""The profile's step-function primitives against a brute-force reading, instant by instant.

``add_free``, ``window_min``, ``rises``, ``first_short`` and ``short_until`` (``gridmarket.scheduling.profile``)
are the one Python copy of the step-function code; the compiled twins elsewhere are tested against them.
Here each is checked against the list of free processors at every whole second of a short horizon.
"""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gridmarket.errors import InvalidInput
from gridmarket.scheduling.profile import (
    add_free,
    block_steps,
    first_short,
    rises,
    short_until,
    split_at,
    window_min,
)

HORIZON = 120  # seconds read one by one; every breakpoint drawn is below it


@st.composite
def step_functions(draw):
    """Strictly increasing times from an origin, any free levels (equal neighbours allowed)."""
    origin = draw(st.integers(0, 20))
    gaps = draw(st.lists(st.integers(1, 15), max_size=6))
    times = [origin]
    for g in gaps:
        times.append(times[-1] + g)
    free = draw(st.lists(st.integers(-2, 6), min_size=len(times), max_size=len(times)))
    return times, free


def _at(times, free, t):
    """Free processors at ``t`` (``t >= times[0]``), by a linear scan."""
    value = free[0]
    for s, f in zip(times, free):
        if s <= t:
            value = f
    return value


def _reading(times, free):
    return [_at(times, free, t) for t in range(times[0], HORIZON)]


@given(step_functions(), st.data())
def test_add_free_changes_exactly_the_window_and_merges_only_at_its_edges(steps, data):
    times, free = steps
    start = data.draw(st.integers(times[0], HORIZON - 2))
    end = data.draw(st.integers(start + 1, HORIZON - 1))
    delta = data.draw(st.integers(-3, 3))
    before = _reading(times, free)
    new_times, new_free = times.copy(), free.copy()
    add_free(new_times, new_free, start, end, delta)
    after = _reading(new_times, new_free)
    assert after == [f + (delta if start <= times[0] + i < end else 0) for i, f in enumerate(before)]
    assert new_times[0] == times[0] and new_times == sorted(set(new_times))
    # no equal neighbours at the window's edges (the profile's merge rule), none added elsewhere
    for k in range(1, len(new_times)):
        if new_free[k] == new_free[k - 1]:
            assert new_times[k] not in (start, end) and new_times[k] in times


@given(step_functions(), st.data())
def test_window_min_is_the_fewest_free_at_any_instant_of_the_window(steps, data):
    times, free = steps
    start = data.draw(st.integers(times[0], HORIZON - 2))
    end = data.draw(st.integers(start + 1, HORIZON - 1))
    assert window_min(times, free, start, end) == min(_at(times, free, t) for t in range(start, end))
    assert window_min(times, free, start, float("inf")) == min(free[max(i for i, s in enumerate(times)
                                                                       if s <= start):])


@given(step_functions(), st.data())
def test_rises_are_the_instants_where_free_goes_up(steps, data):
    times, free = steps
    after = data.draw(st.integers(times[0] - 5, HORIZON))
    last = data.draw(st.integers(after, HORIZON + 5))

    def level(t):  # nothing free before the origin
        return _at(times, free, t) if t >= times[0] else 0

    assert rises(times, free, after, last) == [t for t in range(after + 1, last + 1) if level(t) > level(t - 1)]


@given(step_functions(), st.integers(-2, 7), st.data())
def test_first_short_is_the_first_instant_with_too_few(steps, procs, data):
    times, free = steps
    start = data.draw(st.integers(times[0], HORIZON - 1))
    short = [t for t in range(start, HORIZON) if _at(times, free, t) < procs]
    if free[-1] < procs and not short:  # the last step runs on past the horizon
        short = [HORIZON]
    got = first_short(times, free, procs, start)
    if short:
        assert got == (short[0], _at(times, free, short[0]))
    else:
        assert got is None


@given(step_functions(), st.integers(-2, 7), st.data())
def test_short_until_ends_the_last_shortfall_before_an_instant(steps, procs, data):
    times, free = steps
    before = data.draw(st.integers(times[0] + 1, HORIZON))
    short = [t for t in range(times[0], before) if _at(times, free, t) < procs]
    got = short_until(times, free, procs, before)
    if not short:
        assert got is None
    elif short[-1] < before - 1:  # the shortfall ends inside the range, at a breakpoint
        assert got == short[-1] + 1
    else:  # short up to before: the step's end, wherever it is (before, for a last step)
        assert got == min([t for t in times if t >= before], default=before)


@given(blocks=st.lists(st.tuples(st.integers(0, 60), st.integers(0, 50), st.integers(-4, 4)), max_size=8),
       base=st.integers(-3, 5), origin=st.one_of(st.none(), st.integers(0, 5)), open_ended=st.data())
def test_block_steps_is_the_sum_of_the_blocks_at_every_instant(blocks, base, origin, open_ended):
    blocks = [(start + (origin or 0), float("inf") if open_ended.draw(st.booleans()) else start + (origin or 0) + length,
               delta) for start, length, delta in blocks]  # the blocks start at or after the origin
    times, values = block_steps(blocks, base=base, origin=origin)
    if not blocks and origin is None:
        assert times == values == []
        return
    assert times == sorted(set(times)) and all(a != b for a, b in zip(values, values[1:]))  # merged
    assert times[0] == (origin if origin is not None else min(b[0] for b in blocks))
    for t in range(times[0], HORIZON):
        want = base + sum(d for s, e, d in blocks if s <= t < e)
        assert _at(times, values, t) == want, t


def test_split_at_refuses_an_instant_before_the_origin():
    with pytest.raises(InvalidInput, match="time 4 is before the profile origin 5"):
        split_at([5, 10], [1, 2], 4)
