"""Intervals over seeds stay inside a metric's range: bootstrap percentile when bounded, Student t when not."""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gridmarket.scenarios.intervals import BOOTSTRAP, STUDENT_T, bootstrap95, ci95, interval_of


def test_a_wait_of_three_zero_seeds_and_one_long_one_stays_at_or_above_zero():
    # the resampled mean is 25 k, k ~ Binomial(4, 1/4): P(k = 0) = 0.32 > 2.5 %, P(k <= 2) = 0.949 < 97.5 %
    # <= P(k <= 3) = 0.996, so the exact percentile interval is [0, 75]; Student t reaches -54.6
    mean, low, high = bootstrap95([0.0, 0.0, 0.0, 100.0])
    assert (mean, low, high) == (25.0, 0.0, 75.0)
    assert ci95([0.0, 0.0, 0.0, 100.0])[1] == pytest.approx(-54.561, abs=1e-3)
    wait = interval_of("mean_wait", [0, 0, 0, 100])
    assert wait.low >= 0 and wait.method == BOOTSTRAP and wait.n == 4


def test_an_unbounded_metric_keeps_the_student_t_interval():
    surplus = interval_of("users_surplus", [1.0, 2.0, 3.0])
    assert surplus.method == STUDENT_T and (surplus.mean, surplus.low, surplus.high) == ci95([1.0, 2.0, 3.0])
    assert interval_of("not_in_the_vocabulary", [1.0, 2.0]).method == STUDENT_T


def test_one_seed_has_no_interval_and_equal_seeds_have_a_point():
    m, lo, hi = bootstrap95([4.0, float("nan")])
    assert m == 4.0 and math.isnan(lo) and math.isnan(hi)
    assert bootstrap95([2.0, 2.0, 2.0]) == (2.0, 2.0, 2.0)


@given(st.lists(st.floats(min_value=0, max_value=1e9, allow_nan=False), min_size=2, max_size=12))
def test_the_bootstrap_interval_lies_between_the_smallest_and_largest_seed_and_holds_the_mean(values):
    mean, low, high = bootstrap95(values)
    slack = 1e-9 * max(values)
    assert min(values) - slack <= low <= mean + slack and mean - slack <= high <= max(values) + slack
    assert bootstrap95(values) == (mean, low, high)  # a fixed seed: the same values, the same interval
