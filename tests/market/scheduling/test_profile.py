"""Availability profile queries against a brute-force reading of the step function."""

from bisect import bisect_left

from hypothesis import given
from hypothesis import strategies as st

from gridmarket.scheduling.profile import Profile

PROCS = 8
slots = st.lists(st.tuples(st.integers(0, 200), st.integers(1, 60), st.integers(1, PROCS)), max_size=25)


def _build(requests) -> Profile:
    profile = Profile(PROCS)
    for start, duration, procs in requests:
        if profile.min_free(start, duration) >= procs:
            profile.reserve(start, duration, procs)
    return profile


@given(slots, st.integers(0, 260), st.lists(st.integers(1, 120), min_size=1, max_size=8))
def test_running_min_answers_min_free_for_every_window_from_one_start(requests, start, durations):
    profile = _build(requests)
    first, lows = profile.running_min(start)
    for d in durations:
        brute = min(profile.free_at(t) for t in range(start, start + d))
        assert profile.min_free(start, d) == brute
        assert lows[bisect_left(profile.times, start + d, first + 1) - first - 1] == brute
    assert len(lows) == len(profile.times) - first and all(a >= b for a, b in zip(lows, lows[1:]))


blocks = st.lists(st.tuples(st.integers(10, 200), st.integers(1, 60), st.integers(1, PROCS)), max_size=25)


@given(blocks)
def test_held_profile_is_the_free_count_at_every_instant_in_both_kernels(requests):
    from gridmarket.errors import InvalidInput
    from gridmarket.scheduling.profile import ReferenceProfile, held_profile

    held = [(start, start + duration, procs) for start, duration, procs in requests]
    ends = sorted({10, *(t for a, b, _ in held for t in (a, b))})
    free = {t: PROCS - sum(n for a, b, n in held if a <= t < b) for t in ends}
    expected = [(t, f) for i, (t, f) in enumerate(free.items()) if i == 0 or f != free[ends[i - 1]]]
    for cls in (ReferenceProfile, Profile):
        if min(free.values()) < 0:
            try:
                held_profile(PROCS, 10, held, cls=cls)
            except InvalidInput as err:
                assert f"processors at {min(t for t in ends if free[t] < 0)};" in str(err)
            else:
                raise AssertionError("an over-held machine was accepted")
            assert held_profile(PROCS, 10, held, check=False, cls=cls).steps() == expected
        else:
            profile = held_profile(PROCS, 10, held, cls=cls)
            assert type(profile) is cls and profile.steps() == expected
