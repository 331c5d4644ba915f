"""User-behaviour scenarios of Table 2 and the default workload of Rocchetti et al. (Sec. 5)."""

from dataclasses import replace

import numpy as np
import pytest

from gridmarket.errors import InvalidInput
from gridmarket.job import Job
from gridmarket.workloads.behaviour import (
    CF_WEIGHTS,
    CFG_WEIGHTS,
    CLUSTER_FING_GROUPS,
    DAY,
    SCENARIOS,
    Behaviour,
    apply_behaviour,
    improve,
    learning_curve,
    paper_workload,
    user_levels,
    with_accuracies,
)
from gridmarket.workloads.workload import Workload


@pytest.fixture(scope="module")
def workload():
    return paper_workload(rng=np.random.default_rng(2024))


def by_user(w):
    """Each user's jobs in submit order."""
    out = {}
    for job in w.jobs:
        out.setdefault(job.user, []).append(job)
    return out


# ------------------------------------------------------------ learning rule (Sec. 5.2)
@pytest.mark.parametrize(
    "accuracy, expected",
    [(0.0, 0.1), (0.2, 0.28), (0.5, 0.55), (0.6, 0.66), (0.9, 0.99), (0.95, 1.0), (1.0, 1.0)],
)
def test_improve_follows_the_two_branches_and_stops_at_one(accuracy, expected):
    assert improve(accuracy) == pytest.approx(expected)


def test_improve_rejects_accuracy_outside_unit_interval():
    with pytest.raises(InvalidInput, match="accuracy must be in"):
        improve(1.2)


def test_learning_curve_improves_once_every_five_jobs():
    curve = learning_curve(0.3, 16)
    steps = [0.3, improve(0.3), improve(improve(0.3)), improve(improve(improve(0.3)))]
    assert curve.tolist() == pytest.approx([steps[k // 5] for k in range(16)])


def test_learning_curve_of_no_jobs_is_empty():
    assert learning_curve(0.3, 0).size == 0


# ------------------------------------------------------------ estimates from accuracies
def test_with_accuracies_sets_users_and_integer_estimates_never_below_runtime():
    w = Workload(tuple(Job(i, i, 1, r, r) for i, r in enumerate([1, 7, 100, 3600], 1)))
    out = with_accuracies(w, [0.3, 0.05, 0.8, 1.0], users=[1, 2, 1, 3])
    assert [(j.estimate, j.user) for j in out.jobs] == [(3, 1), (140, 2), (125, 1), (3600, 3)]
    assert all(isinstance(j.estimate, int) and j.estimate >= j.runtime for j in out.jobs)
    assert w.jobs[0].estimate == 1  # input untouched


@pytest.mark.parametrize("bad", [0.0, -0.1, 1.0001, float("nan")])
def test_with_accuracies_rejects_accuracy_outside_unit_interval_naming_the_job(bad):
    w = Workload((Job(1, 0, 1, 10, 10), Job(2, 0, 1, 10, 10)))
    with pytest.raises(InvalidInput, match=r"job 2: accuracy must be in \(0, 1\]"):
        with_accuracies(w, [0.5, bad])


def test_with_accuracies_rejects_wrong_lengths():
    w = Workload((Job(1, 0, 1, 10, 10),))
    with pytest.raises(InvalidInput, match="2 accuracies for 1 jobs"):
        with_accuracies(w, [0.5, 0.5])


def test_realised_accuracy_is_within_half_a_second_of_the_requested_one(workload):
    a = np.random.default_rng(0).uniform(0.01, 1.0, len(workload))
    out = with_accuracies(workload, a)
    est = np.array([j.estimate for j in out.jobs])
    rt = np.array([j.runtime for j in out.jobs])
    assert np.all(np.abs(rt / a - est) <= 0.5 + 1e-9)


# ------------------------------------------------------------ user groups (Sec. 5.1, Table 2)
@pytest.mark.parametrize(
    "weights, counts", [(CF_WEIGHTS, [4, 4, 4, 3, 4, 1]), (CFG_WEIGHTS, [2, 2, 2, 2, 2, 10])]
)
def test_twenty_users_are_apportioned_to_groups_by_the_mix(weights, counts):
    mix = Behaviour("x", CLUSTER_FING_GROUPS, weights)
    levels = user_levels(range(1, 21), mix, rng=np.random.default_rng(3))
    got = [sum(lo < a <= hi for a in levels.values()) for lo, hi in CLUSTER_FING_GROUPS]
    assert got == counts


@pytest.mark.parametrize("scenario, low, high", [("BE", 0.0, 0.2), ("GE", 0.8, 1.0)])
def test_single_group_scenarios_keep_every_long_job_in_its_interval(workload, scenario, low, high):
    out = apply_behaviour(workload, scenario, rng=np.random.default_rng(1))
    acc = np.array([j.runtime / j.estimate for j in out.jobs if j.runtime >= 600])
    assert acc.min() > low - 0.001 and acc.max() <= high + 0.001
    assert {j.user for j in out.jobs} == set(range(1, 21))


@pytest.mark.parametrize("scenario", ["BE", "GE", "CF", "CFG"])
def test_static_scenarios_give_each_user_one_accuracy(workload, scenario):
    out = apply_behaviour(workload, scenario, n_users=None, rng=np.random.default_rng(1))
    for jobs in by_user(out).values():
        acc = [j.runtime / j.estimate for j in jobs if j.runtime >= 600]
        assert max(acc) - min(acc) < 0.002


def test_di_follows_the_learning_curve_of_each_user_exactly(workload):
    out = apply_behaviour(workload, "DI", n_users=None, rng=np.random.default_rng(7))
    # with n_users=None the first draws are the users' levels (documented draw order)
    users = sorted({j.user for j in workload.jobs})
    levels = user_levels(users, SCENARIOS["DI"], rng=np.random.default_rng(7))
    for user, jobs in by_user(out).items():
        curve = learning_curve(levels[user], len(jobs))
        expected = [max(j.runtime, round(j.runtime / a)) for j, a in zip(jobs, curve)]
        assert [j.estimate for j in jobs] == expected


def test_hdi_makes_exactly_half_of_the_users_learn(workload):
    out = apply_behaviour(workload, "HDI", n_users=None, rng=np.random.default_rng(7))
    learning = 0
    for jobs in by_user(out).values():
        first, last = jobs[0], jobs[-1]
        learning += (last.runtime / last.estimate) > (first.runtime / first.estimate) + 0.01
    assert learning == 10


def test_apply_behaviour_is_deterministic_for_a_seed(workload):
    a = apply_behaviour(workload, "HDI", rng=np.random.default_rng(5))
    assert a == apply_behaviour(workload, "HDI", rng=np.random.default_rng(5))
    assert a != apply_behaviour(workload, "HDI", rng=np.random.default_rng(6))
    assert a.header["gridmarket.behaviour"] == "HDI"


def test_apply_behaviour_without_n_users_needs_every_user():
    w = Workload((Job(1, 0, 1, 10, 10, user=1), Job(2, 0, 1, 10, 10)))
    with pytest.raises(InvalidInput, match="job 2 has no user"):
        apply_behaviour(w, "CF", n_users=None, rng=np.random.default_rng(0))


def test_apply_behaviour_keeps_runtimes_sizes_and_submits(workload):
    out = apply_behaviour(workload, "CF", rng=np.random.default_rng(0))
    assert [(j.id, j.submit, j.procs, j.runtime) for j in out.jobs] == [
        (j.id, j.submit, j.procs, j.runtime) for j in workload.jobs
    ]


@pytest.mark.parametrize(
    "kwargs, match",
    [({"scenario": "XX"}, "unknown behaviour 'XX'"), ({"n_users": 0}, "n_users"), ({"rng": 3}, "Generator")],
)
def test_apply_behaviour_rejects_bad_arguments(workload, kwargs, match):
    args = {"scenario": "CF", "rng": np.random.default_rng(0)} | kwargs
    with pytest.raises(InvalidInput, match=match):
        apply_behaviour(workload, args.pop("scenario"), **args)


@pytest.mark.parametrize(
    "fields, match",
    [
        ({"weights": (0.5, 0.4)}, "sum to 1"),
        ({"groups": ((0.0, 1.2), (0.2, 0.4))}, "not within"),
        ({"learners": 1.5}, "learners"),
        ({"every": 0}, "every"),
    ],
)
def test_behaviour_validates_its_fields(fields, match):
    base = Behaviour("x", ((0.0, 0.2), (0.2, 0.4)), (0.5, 0.5))
    with pytest.raises(InvalidInput, match=match):
        replace(base, **fields)


# ------------------------------------------------------------ default workload (Sec. 5.1-5.2)
def test_paper_workload_has_the_papers_defaults(workload):
    jobs = workload.jobs
    assert len(jobs) == 1000 and len({j.user for j in jobs}) == 20
    assert {j.procs for j in jobs} <= {1, 2, 4, 8, 16}
    assert all(1 <= j.runtime <= 10 * DAY and j.estimate == j.runtime for j in jobs)
    assert all(0 <= j.submit < 10 * DAY for j in jobs)
    assert [j.id for j in jobs] == list(range(1, 1001))


def test_paper_workload_matches_cluster_fing_shares(workload):
    jobs = workload.jobs
    small = np.mean([j.runtime < 60 for j in jobs])
    sequential = np.mean([j.procs == 1 for j in jobs])
    assert small == pytest.approx(0.493, abs=0.06)
    assert sequential == pytest.approx(0.442 / 0.507, abs=0.05)


def test_paper_workload_is_deterministic_for_a_seed():
    a = paper_workload(50, rng=np.random.default_rng(9))
    assert a == paper_workload(50, rng=np.random.default_rng(9))
    assert a != paper_workload(50, rng=np.random.default_rng(10))


def test_paper_workload_rejects_bad_sizes():
    with pytest.raises(InvalidInput, match="n_jobs"):
        paper_workload(0, rng=np.random.default_rng(0))
