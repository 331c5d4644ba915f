"""Valuations: utility of completion time by hand, draws seeded and in range."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from gridmarket.errors import InvalidInput
from gridmarket.valuation import Valuation, draw_valuation, draw_valuations, realised_values


def test_utility_is_flat_to_the_deadline_then_falls_linearly_to_zero():
    v = Valuation(12.0, deadline=1000, grace=400)
    assert [v.utility(t) for t in (0, 1000, 1100, 1300, 1400, 9999)] == [12.0, 12.0, 9.0, 3.0, 0.0, 0.0]


@given(st.floats(0, 1e4), st.integers(0, 10**6), st.integers(1, 10**5), st.floats(0, 2e6), st.floats(0, 2e6))
def test_utility_never_rises_with_later_completion_and_stays_in_range(value, deadline, grace, a, b):
    v = Valuation(value, deadline, grace)
    early, late = sorted((a, b))
    assert 0.0 <= v.utility(late) <= v.utility(early) <= value


def test_draws_are_seeded_and_in_the_stated_ranges():
    reqs = [(k, 10 * k, 2.0, 600) for k in range(200)]
    a = draw_valuations(reqs, rng=np.random.default_rng(5))
    assert a == draw_valuations(reqs, rng=np.random.default_rng(5))
    for k, v in a.items():
        assert 2.0 <= v.value <= 6.0  # value factor in [1, 3] of 2 SU
        assert 900 <= v.deadline - 10 * k <= 3000  # slack in [1.5, 5] of 600 s
        assert v.grace == v.deadline - 10 * k


def test_a_request_that_never_ended_is_worth_nothing():
    assert realised_values({}, {7: Valuation(5.0, 10, 10)}) == {7: 0.0}


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"value_factor": (3.0, 1.0)}, r"value_factor must have low <= high"),
    ({"slack": (0.5, 2.0)}, r"slack\[0\] must be a finite number >= 1"),
])
def test_bad_ranges_are_one_line_errors(kwargs, match):
    with pytest.raises(InvalidInput, match=match):
        draw_valuation(0, 1.0, 60, rng=np.random.default_rng(0), **kwargs)


def test_bad_valuation_fields_name_the_field():
    with pytest.raises(InvalidInput, match="valuation grace must be an int >= 1"):
        Valuation(1.0, 10, 0)
    with pytest.raises(InvalidInput, match=r"valuation value \(SU\) must be a finite number"):
        Valuation(float("nan"), 10, 5)
