"""Invariants of the two-tier simulation on random workloads (hypothesis), an EASY oracle, determinism."""

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gridmarket.job import Job
from gridmarket.simulation import simulate
from gridmarket.twotier import draw_traits, simulate_twotier


@st.composite
def workloads(draw, max_jobs=25, max_procs=8):
    procs = draw(st.integers(1, max_procs))
    n = draw(st.integers(1, max_jobs))
    jobs, t = [], 0
    for i in range(n):
        t += draw(st.integers(0, 40))
        runtime = draw(st.integers(1, 150))
        estimate = draw(st.one_of(st.just(runtime), st.integers(1, 300)))
        jobs.append(Job(i, t, draw(st.integers(1, procs)), runtime, estimate))
    return procs, jobs


POLICIES = ["keasy", "reasy", "measy"]
FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FAST
@given(case=workloads(), policy=st.sampled_from(POLICIES), seed=st.integers(0, 2**16),
       usage=st.sampled_from(["paper", "full"]), known=st.booleans(), cost=st.integers(0, 60),
       model=st.sampled_from(["product", "ratio"]))
def test_every_job_completes_once_never_faster_than_dedicated_and_fg_never_overcommitted(
    case, policy, seed, usage, known, cost, model
):
    procs, jobs = case
    # validate=True checks after every pass that no VM holds two processes (fg never over-committed)
    res = simulate_twotier(jobs, procs=procs, policy=policy, rng=np.random.default_rng(seed), usage=usage,
                           usage_known=known, migration_cost=cost, bg_model=model, validate=True)
    r = res.records
    assert sorted(r["job_id"]) == sorted(j.id for j in jobs)  # each job exactly once
    assert (r["start"] >= r["submit"]).all() and (r["last_start"] >= r["start"]).all()
    # the completing run did all the work, at a rate of at most 1 (fg: 1 - loss < 1; bg: <= 1)
    assert (r["end"] - r["last_start"] >= r["work"]).all()
    assert (r["work"] == np.minimum(r["runtime"], r["estimate"])).all()
    if policy != "keasy":
        assert (r["kills"] == 0).all() and (r["wasted"] == 0).all()
    if policy != "measy":
        assert (r["migrations"] == 0).all()
    else:  # a migrated job is frozen for the cost on top of its work
        moved = r[r["migrations"] > 0]
        assert (moved["end"] - moved["last_start"] >= moved["work"] + cost).all()


@FAST
@given(case=workloads(), policy=st.sampled_from(POLICIES), seed=st.integers(0, 2**16))
def test_a_job_that_only_ran_in_the_fg_tier_takes_exactly_its_work_over_one_minus_loss(case, policy, seed):
    """The work is done exactly once: neither lost nor counted twice."""
    procs, jobs = case
    r = simulate_twotier(jobs, procs=procs, policy=policy, rng=np.random.default_rng(seed)).records
    fg_only = r[(r["fg_start"] == r["start"]) & (r["swaps"] == 0) & (r["migrations"] == 0) & (r["kills"] == 0)]
    for row in fg_only.itertuples():
        assert row.end - row.start == max(1, math.ceil(row.work / (1 - row.loss) - 1e-9))


@settings(max_examples=60, deadline=None)
@given(case=workloads(max_jobs=30, max_procs=16))
def test_one_tier_pass_reproduces_the_projects_easy_exactly(case):
    """Oracle: Algorithm 1 without Step 3 on a one-tier machine is EASY backfilling."""
    procs, jobs = case
    easy = simulate(jobs, procs=procs, policy="easy").records.set_index("job_id")
    mine = simulate_twotier(jobs, procs=procs, policy="easy1", rng=np.random.default_rng(0)).records.set_index("job_id")
    assert (easy["start"] == mine["start"]).all() and (easy["end"] == mine["end"]).all()


@pytest.fixture(scope="module")
def lublin():
    from gridmarket.workloads import lublin_workload

    return lublin_workload(400, procs=64, rng=np.random.default_rng(11), estimates="tsafrir")


@pytest.mark.parametrize("policy", POLICIES)
def test_same_seed_gives_identical_records_and_another_seed_differs(lublin, policy):
    a = simulate_twotier(lublin, procs=64, policy=policy, rng=np.random.default_rng(4))
    b = simulate_twotier(lublin, procs=64, policy=policy, rng=np.random.default_rng(4))
    c = simulate_twotier(lublin, procs=64, policy=policy, rng=np.random.default_rng(5))
    assert a.records.equals(b.records) and a.summary == b.summary
    assert not a.records[["beta", "loss"]].equals(c.records[["beta", "loss"]])


def test_job_traits_do_not_depend_on_the_policy_that_runs_them(lublin):
    runs = [simulate_twotier(lublin, procs=64, policy=p, rng=np.random.default_rng(4)).records for p in POLICIES]
    for r in runs[1:]:
        assert r[["beta", "loss", "usage_mean"]].equals(runs[0][["beta", "loss", "usage_mean"]])


def test_draw_traits_follows_the_papers_ranges():
    jobs = [Job(i, 0, 1 + i % 4, 10, 10) for i in range(400)]
    t = draw_traits(jobs, rng=np.random.default_rng(0))
    single = [t[j.id] for j in jobs if j.procs == 1]
    multi = [t[j.id] for j in jobs if j.procs > 1]
    assert all(x.usage == (1.0,) and 0.80 <= x.beta <= 0.92 for x in single)
    assert all(0.4 <= u <= 1.0 for x in multi for u in x.usage)
    assert all(0.198 <= x.beta <= 0.766 for x in multi)
    assert all(0.005 <= x.loss <= 0.04 for x in t.values())
    full = draw_traits(jobs, rng=np.random.default_rng(0), usage="full", usage_known=False)
    assert all(set(x.usage) == {1.0} and set(x.seen) == {None} for x in full.values())
