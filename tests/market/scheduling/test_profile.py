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
