"""Workload transformations: load scaling, trace duplication, exact estimates, truncation."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gridmarket.errors import InvalidInput
from gridmarket.job import Job
from gridmarket.workloads import (
    Workload,
    duplicate_trace,
    exact_estimates,
    lublin_workload,
    scale_interarrival,
    scale_load,
    truncate,
)
from gridmarket.workloads.transforms import ONE_WEEK


def workload_at(*submits: int, first_id: int = 1) -> Workload:
    jobs = tuple(
        Job(i, submit=s, procs=2, runtime=100, estimate=200, user=i % 3, site="a")
        for i, s in enumerate(submits, first_id)
    )
    return Workload(jobs, max_procs=16, name="w", dropped={"runtime unknown or zero": 2})


submit_lists = st.lists(st.integers(0, 10**6), min_size=1, max_size=60).map(sorted)
factors = st.floats(0.01, 100.0, allow_nan=False, allow_infinity=False)


# ----------------------------------------------------------------------------------------------
# Load scaling
# ----------------------------------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(submits=submit_lists, factor=factors)
def test_scaling_keeps_count_jobs_and_order_and_scales_gaps(submits, factor):
    w = workload_at(*submits)
    scaled = scale_interarrival(w, factor)
    assert len(scaled) == len(w)
    new = {j.id: j.submit for j in scaled.jobs}
    old = [j.id for j in w.jobs]
    # the original order is still an order by submit time
    assert [new[i] for i in old] == sorted(new[i] for i in old)
    assert new[old[0]] == submits[0]
    for i, j in zip(old, old[1:]):
        old_gap = submits[j - 1] - submits[i - 1]
        assert abs((new[j] - new[i]) - factor * old_gap) <= 1.0
    assert abs((new[old[-1]] - submits[0]) - factor * (submits[-1] - submits[0])) <= 0.5
    def facts(workload):
        return {(j.id, j.procs, j.runtime, j.estimate, j.user, j.site) for j in workload.jobs}

    assert facts(scaled) == facts(w)


def test_scaling_by_more_than_one_keeps_the_exact_job_order():
    w = workload_at(0, 0, 1, 5, 5, 9)
    assert [j.id for j in scale_interarrival(w, 3.0).jobs] == [j.id for j in w.jobs]


def test_scaling_rounds_offsets_from_the_first_job_half_up():
    w = workload_at(100, 101, 103, 110)
    assert [j.submit for j in scale_interarrival(w, 0.5).jobs] == [100, 101, 102, 105]


def test_jobs_collapsing_onto_one_second_are_ordered_by_id():
    w = Workload(
        (
            Job(5, submit=0, procs=1, runtime=1, estimate=1),
            Job(2, submit=1, procs=1, runtime=1, estimate=1),
        )
    )
    assert [(j.id, j.submit) for j in scale_interarrival(w, 0.1).jobs] == [(2, 0), (5, 0)]


def test_scale_load_is_scale_interarrival_by_the_inverse():
    w = lublin_workload(300, rng=np.random.default_rng(0))
    assert scale_load(w, 1.25).jobs == scale_interarrival(w, 0.8).jobs
    assert scale_load(w, 2).header["gridmarket.interarrival_factor"] == "0.5"


def test_scaling_keeps_the_workload_facts_and_the_input_untouched():
    w = workload_at(0, 10, 20)
    before = w.jobs
    scaled = scale_interarrival(w, 2)
    assert w.jobs == before
    assert (scaled.max_procs, scaled.name, dict(scaled.dropped)) == (16, "w", dict(w.dropped))


def test_repeated_scaling_multiplies_the_recorded_factor():
    w = scale_interarrival(scale_interarrival(workload_at(0, 100), 0.5), 0.5)
    assert float(w.header["gridmarket.interarrival_factor"]) == 0.25


@pytest.mark.parametrize("factor", [0, -1.0, math.nan, math.inf, "2", True])
def test_scaling_by_a_non_positive_or_non_finite_factor_raises(factor):
    with pytest.raises(InvalidInput, match=r"factor must be"):
        scale_interarrival(workload_at(0, 1), factor)
    with pytest.raises(InvalidInput, match=r"load_factor must be"):
        scale_load(workload_at(0, 1), factor)


def test_scaling_an_empty_workload_gives_an_empty_workload():
    assert len(scale_interarrival(Workload(()), 0.5)) == 0


# ----------------------------------------------------------------------------------------------
# Duplication (Singh 2008, ch. 4.7)
# ----------------------------------------------------------------------------------------------


def test_duplication_with_p_zero_returns_the_original():
    w = workload_at(0, 50, 50, 400)
    assert duplicate_trace(w, p=0.0, rng=np.random.default_rng(0)) == w


def test_duplication_with_p_one_doubles_the_trace_one_week_later():
    w = workload_at(0, 50, 50, 400)
    d = duplicate_trace(w, p=1.0, rng=np.random.default_rng(0))
    assert len(d) == 2 * len(w)
    originals = [j for j in d.jobs if j.id <= 4]
    copies = [j for j in d.jobs if j.id > 4]
    assert originals == list(w.jobs)
    assert [j.submit - ONE_WEEK for j in copies] == [j.submit for j in w.jobs]
    assert ONE_WEEK == 604800
    assert [(j.procs, j.runtime, j.estimate, j.user, j.site) for j in copies] == [
        (j.procs, j.runtime, j.estimate, j.user, j.site) for j in w.jobs
    ]
    assert d.header["gridmarket.duplicate"] == "p=1.0 shift=604800 copies=4"


def test_copy_ids_are_unique_even_when_ids_start_at_zero():
    w = workload_at(0, 10, 20, first_id=0)
    d = duplicate_trace(w, p=1.0, rng=np.random.default_rng(0))
    ids = [j.id for j in d.jobs]
    assert len(set(ids)) == len(ids) == 6
    assert sorted(ids) == [0, 1, 2, 3, 4, 5]


def test_merged_trace_is_sorted_by_submit_then_id_when_copies_interleave():
    w = workload_at(*range(0, 3 * ONE_WEEK, 3600))
    d = duplicate_trace(w, p=0.5, rng=np.random.default_rng(1))
    keys = [(j.submit, j.id) for j in d.jobs]
    assert keys == sorted(keys)
    assert any(j.id > len(w) for j in d.jobs[: len(w)])  # copies interleave with originals


def test_duplication_admits_about_p_of_the_copies_reproducibly():
    w = lublin_workload(4000, rng=np.random.default_rng(0))
    a = duplicate_trace(w, p=0.3, rng=np.random.default_rng(8))
    b = duplicate_trace(w, p=0.3, rng=np.random.default_rng(8))
    assert a == b
    copies = len(a) - len(w)
    assert abs(copies - 0.3 * 4000) < 4 * math.sqrt(4000 * 0.3 * 0.7)


def test_custom_shift_is_used():
    d = duplicate_trace(workload_at(0), p=1.0, shift=3600, rng=np.random.default_rng(0))
    assert [j.submit for j in d.jobs] == [0, 3600]


def test_a_copy_ahead_lands_a_week_earlier_and_drops_what_would_precede_the_trace():
    day = 86400
    w = workload_at(1 * day, 8 * day, 9 * day)  # ids 1, 2, 3; copies get ids + 3
    ahead = duplicate_trace(w, p=1.0, ahead=True, rng=np.random.default_rng(0))
    assert [(j.id, j.submit // day) for j in ahead.jobs] == [(1, 1), (5, 1), (6, 2), (2, 8), (3, 9)]
    later = duplicate_trace(w, p=1.0, rng=np.random.default_rng(0))
    assert [(j.id, j.submit // day) for j in later.jobs] == [(1, 1), (2, 8), (4, 8), (3, 9), (5, 15), (6, 16)]
    assert "ahead=True" in ahead.header["gridmarket.duplicate"]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"p": -0.1}, r"p must be a probability"),
        ({"p": 1.5}, r"p must be a probability"),
        ({"p": 0.5, "shift": -1}, r"shift must be an int >= 0"),
        ({"p": 0.5, "shift": 1.5}, r"shift must be an int >= 0"),
        ({"p": 0.5, "ahead": 1}, r"ahead must be a bool"),
        ({"p": 0.5, "rng": None}, r"rng must be a numpy.random.Generator"),
    ],
)
def test_duplication_rejects_bad_arguments(kwargs, message):
    args = {"rng": np.random.default_rng(0)} | kwargs
    with pytest.raises(InvalidInput, match=message):
        duplicate_trace(workload_at(0, 1), **args)


# ----------------------------------------------------------------------------------------------
# Estimates and truncation
# ----------------------------------------------------------------------------------------------


def test_exact_estimates_set_every_estimate_to_the_runtime():
    w = workload_at(0, 5, 9)
    exact = exact_estimates(w)
    assert all(j.estimate == j.runtime for j in exact.jobs)
    assert [(j.id, j.submit, j.site) for j in exact.jobs] == [
        (j.id, j.submit, j.site) for j in w.jobs
    ]
    assert exact.header["gridmarket.estimate_model"] == "exact"


def test_truncate_keeps_the_first_jobs_in_submit_order():
    w = workload_at(0, 5, 9, 12)
    assert [j.id for j in truncate(w, 2).jobs] == [1, 2]
    assert truncate(w, 10) is w
    assert len(truncate(w, 0)) == 0
    with pytest.raises(InvalidInput, match=r"n_jobs must be an int >= 0"):
        truncate(w, -1)
