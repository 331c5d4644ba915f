"""Tsafrir 2005 estimate model: histogram, modal values, assignment (estimate >= runtime)."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from gridmarket.errors import InvalidInput
from gridmarket.job import Job
from gridmarket.workloads import Workload, lublin_workload, tsafrir_distribution, tsafrir_estimates
from gridmarket.workloads.tsafrir import _equalize, _head_sizes, _head_times, _n_bins

HOUR = 3600


@pytest.mark.parametrize(
    ("n_jobs", "n_bins"),
    [(1, 1), (20, 10), (200, 20), (600, 28), (1000, 35), (10000, 90), (250000, 565), (10**6, 565)],
)
def test_number_of_estimate_bins_follows_the_linear_model(n_jobs, n_bins):
    assert _n_bins(n_jobs) == n_bins  # 600: 20 + 7.5 rounded half away from zero


def test_head_estimates_for_an_18_hour_maximum():
    minutes = [5, 10, 15, 20, 30, 60, 120, 180, 240, 300, 360, 480, 600, 720]
    hours = [13, 14, 15, 16, 17]
    assert _head_times(18 * HOUR) == [18 * HOUR] + [m * 60 for m in minutes] + [
        h * HOUR for h in hours
    ]


def test_head_estimates_for_a_48_hour_maximum_include_the_joint_round_values():
    head = _head_times(48 * HOUR)
    assert head[0] == 48 * HOUR and len(head) == 20
    assert {5 * 60, 15 * 60, 30 * 60, HOUR, 2 * HOUR, 4 * HOUR, 18 * HOUR} <= set(head)
    assert head[1:] == sorted(head[1:]) and max(head[1:]) < 48 * HOUR


def test_head_sizes_sum_to_89_percent_with_the_maximum_largest():
    sizes = _head_sizes(20)
    assert sizes == sorted(sizes, reverse=True)
    assert sum(sizes) == pytest.approx(89.0)
    assert sizes[0] == pytest.approx(21.73, abs=0.01)
    assert sizes[1] == pytest.approx(14.0491 * np.exp(-0.177531 * 2) + 0.462513)


@pytest.mark.parametrize("max_estimate", [HOUR, 90 * 60, 18 * HOUR, 48 * HOUR, 200 * HOUR])
@pytest.mark.parametrize("n_jobs", [1, 150, 5000, 40000])
def test_distribution_counts_add_up_and_the_maximum_is_the_most_popular(n_jobs, max_estimate):
    dist = tsafrir_distribution(n_jobs, max_estimate=max_estimate, rng=np.random.default_rng(1))
    assert sum(dist.values()) == n_jobs
    assert max(dist) == max_estimate and min(dist) > 0
    assert all(count >= 0 for count in dist.values())
    assert list(dist) == sorted(dist)
    if n_jobs >= 150:
        assert max(dist, key=dist.get) == max_estimate
    assert sum(1 for c in dist.values() if c) <= max(_n_bins(n_jobs), 20)


def test_a_few_modal_values_hold_most_jobs():
    dist = tsafrir_distribution(20000, max_estimate=36 * HOUR, rng=np.random.default_rng(5))
    counts = sorted(dist.values(), reverse=True)
    assert sum(counts[:20]) / 20000 == pytest.approx(0.89, abs=0.01)
    assert counts[0] / 20000 == pytest.approx(0.217, abs=0.01)
    assert len(dist) > 100  # the tail: many rarely used values


def test_distribution_is_reproducible_for_a_seed():
    a = tsafrir_distribution(3000, max_estimate=18 * HOUR, rng=np.random.default_rng(9))
    b = tsafrir_distribution(3000, max_estimate=18 * HOUR, rng=np.random.default_rng(9))
    assert a == b


@settings(max_examples=200, deadline=None)
@given(
    counts=st.lists(st.integers(0, 50), min_size=1, max_size=30).filter(lambda c: sum(c) > 0),
    target=st.integers(1, 2000),
)
def test_equalize_makes_counts_add_up_without_going_negative(counts, target):
    result = _equalize({60 * (i + 1): c for i, c in enumerate(counts)}, target)
    assert sum(result.values()) == target
    assert min(result.values()) >= 0


# ----------------------------------------------------------------------------------------------
# Assignment
# ----------------------------------------------------------------------------------------------


def jobs_with(runtimes: list[int]) -> list[Job]:
    return [Job(i, submit=i, procs=1, runtime=r, estimate=1) for i, r in enumerate(runtimes, 1)]


@settings(max_examples=150, deadline=None)
@given(
    runtimes=st.lists(
        st.one_of(st.integers(1, 1800), st.integers(1, 48 * HOUR)), min_size=1, max_size=400
    ),
    max_estimate=st.integers(HOUR, 100 * HOUR),
    seed=st.integers(0, 2**32 - 1),
)
def test_estimates_are_never_below_runtimes_or_the_model_says_why(runtimes, max_estimate, seed):
    runtimes = [min(r, max_estimate) for r in runtimes]
    jobs = jobs_with(runtimes)
    try:
        w = tsafrir_estimates(jobs, max_estimate=max_estimate, rng=np.random.default_rng(seed))
    except InvalidInput:
        # only when the drawn histogram truly cannot cover the runtimes
        dist = tsafrir_distribution(
            len(jobs), max_estimate=max_estimate, rng=np.random.default_rng(seed)
        )
        estimates = sorted((t for t, c in dist.items() for _ in range(c)), reverse=True)
        assert any(r > e for r, e in zip(sorted(runtimes, reverse=True), estimates))
        event("infeasible")
        return
    event("assigned")
    assert [j.runtime for j in w.jobs] == runtimes
    assert all(j.runtime <= j.estimate <= max_estimate for j in w.jobs)
    assert [j.id for j in w.jobs] == [j.id for j in jobs]


def test_lublin_workload_gets_modal_estimates_covering_its_runtimes():
    w = lublin_workload(5000, rng=np.random.default_rng(4))
    e = tsafrir_estimates(w, max_estimate=48 * HOUR, rng=np.random.default_rng(5))
    assert all(j.runtime <= j.estimate for j in e.jobs)
    assert [(j.id, j.submit, j.procs, j.runtime) for j in e.jobs] == [
        (j.id, j.submit, j.procs, j.runtime) for j in w.jobs
    ]
    counts = Counter(j.estimate for j in e.jobs)
    assert counts.most_common(1)[0][0] == 48 * HOUR
    assert sum(c for _, c in counts.most_common(20)) >= 0.85 * len(e)
    assert e.header["gridmarket.estimate_model"] == "tsafrir05 (max_estimate=172800 s)"
    assert e.max_procs == w.max_procs and e.name == w.name


def test_same_seed_same_estimates_and_different_seeds_differ():
    w = lublin_workload(2000, rng=np.random.default_rng(4))
    a = tsafrir_estimates(w, max_estimate=48 * HOUR, rng=np.random.default_rng(1))
    b = tsafrir_estimates(w, max_estimate=48 * HOUR, rng=np.random.default_rng(1))
    c = tsafrir_estimates(w, max_estimate=48 * HOUR, rng=np.random.default_rng(2))
    assert a == b and a.jobs != c.jobs


def test_bare_jobs_are_sorted_into_a_workload():
    jobs = [
        Job(2, submit=10, procs=1, runtime=5, estimate=5),
        Job(1, submit=0, procs=1, runtime=5, estimate=5),
    ]
    w = tsafrir_estimates(jobs, max_estimate=HOUR, rng=np.random.default_rng(0))
    assert [j.id for j in w.jobs] == [1, 2]


def test_empty_workload_is_returned_empty():
    w = tsafrir_estimates(Workload(()), max_estimate=HOUR, rng=np.random.default_rng(0))
    assert len(w) == 0


def test_runtime_above_max_estimate_raises_naming_the_job():
    jobs = jobs_with([60, 5000])
    with pytest.raises(InvalidInput, match=r"job 2 runs 5000 s, longer than max_estimate 3600 s"):
        tsafrir_estimates(jobs, max_estimate=HOUR, rng=np.random.default_rng(0))


def test_too_many_long_jobs_raise():
    jobs = jobs_with([10 * HOUR] * 300)
    with pytest.raises(InvalidInput, match=r"cannot cover the runtimes"):
        tsafrir_estimates(jobs, max_estimate=18 * HOUR, rng=np.random.default_rng(0))


@pytest.mark.parametrize("max_estimate", [3599, 0, 3600.0, True])
def test_max_estimate_must_be_at_least_an_hour(max_estimate):
    with pytest.raises(InvalidInput, match=r"max_estimate must be an int >= 3600"):
        tsafrir_estimates(jobs_with([1]), max_estimate=max_estimate, rng=np.random.default_rng(0))
