"""The steppable two-tier machine (a provider's machine in the agent market) against the whole-run engine.

Fed the same jobs with the same traits, :class:`TwoTierMachineSimulation` gives every job the start
and end of :func:`reference_run_events` (the pure-Python engine the compiled one is checked
against), whether the jobs are all submitted first or each at its arrival with the clock run in
arbitrary steps between, as a provider agent does.
"""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gridmarket.errors import InvalidInput
from gridmarket.job import Job
from gridmarket.twotier.progress import JobTraits, draw_traits
from gridmarket.twotier.simulation import TWO_TIER_POLICIES, reference_run_events
from gridmarket.twotier.stepper import TwoTierMachineSimulation
from gridmarket.workloads import lublin_workload


@st.composite
def cases(draw, max_jobs=30, max_procs=10):
    procs = draw(st.integers(1, max_procs))
    n = draw(st.integers(1, max_jobs))
    jobs, t = [], 0
    for i in range(n):
        t += draw(st.integers(0, 30))  # same-time arrivals and ends: the tie rules are exercised
        runtime = draw(st.integers(1, 120))
        estimate = draw(st.one_of(st.just(runtime), st.integers(1, 240)))
        jobs.append(Job(i + 1, t, draw(st.integers(1, procs)), runtime, estimate))
    return procs, jobs


def _reference(jobs, traits, policy, procs, cost, model="product", threshold=0.96):
    cols = reference_run_events(jobs, [traits[j.id] for j in jobs], TWO_TIER_POLICIES[policy], procs, cost, model,
                                threshold)
    return ({j.id: int(s) for j, s in zip(jobs, cols["start"])}, {j.id: int(e) for j, e in zip(jobs, cols["end"])})


def _stepped(jobs, traits, policy, procs, cost, steps, model="product", threshold=0.96):
    """Each job submitted just before its arrival; the clock run to the given offsets in between."""
    sim = TwoTierMachineSimulation(procs, policy, rng=np.random.default_rng(0), traits=traits,
                                   migration_cost=cost, bg_model=model, threshold=threshold)
    steps = iter(steps)
    for job in jobs:
        while True:  # run in arbitrary steps up to just before the arrival
            t = sim.now + next(steps, 10**9)
            if t >= job.submit:
                break
            sim.run_until(t)
        sim.advance(job.submit)
        sim.submit(job)
    sim.run_until(None)
    return sim


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=cases(), policy=st.sampled_from(sorted(TWO_TIER_POLICIES)), seed=st.integers(0, 2**16),
       cost=st.integers(0, 50), model=st.sampled_from(["product", "ratio"]),
       steps=st.lists(st.integers(1, 60), max_size=40))
def test_jobs_submitted_as_they_arrive_start_and_end_as_in_the_whole_run_engine(case, policy, seed, cost, model,
                                                                                steps):
    procs, jobs = case
    traits = draw_traits(jobs, rng=np.random.default_rng(seed))
    want_start, want_end = _reference(jobs, traits, policy, procs, cost, model)
    sim = _stepped(jobs, traits, policy, procs, cost, steps, model)
    assert sim.start == want_start
    assert sim.end == want_end
    assert sim.next_time() is None and sim.scheduler.queue == [] and sim.scheduler.n_free == procs


@pytest.mark.parametrize("policy", sorted(TWO_TIER_POLICIES))
def test_a_loaded_lublin_day_gives_the_engine_s_starts_and_ends(policy):
    """400 jobs at ten times the offered load: a queue of hundreds of jobs, migrations, bg runs, swaps."""
    from gridmarket.workloads import scale_load

    jobs = list(scale_load(lublin_workload(400, procs=64, rng=np.random.default_rng(5)), 10.0).jobs)
    traits = draw_traits(jobs, rng=np.random.default_rng(6))
    want_start, want_end = _reference(jobs, traits, policy, 64, 20)
    sim = _stepped(jobs, traits, policy, 64, 20, [600] * 10**4)
    assert sim.start == want_start and sim.end == want_end
    assert sum(want_start[j.id] > j.submit for j in jobs) > 100  # a real queue


def test_the_scheduler_view_shows_the_queue_and_the_running_jobs_mid_run():
    traits = {i: JobTraits((1.0,) * p, (1.0,) * p, 0.9, 0.0) for i, p in ((1, 4), (2, 4), (3, 2))}
    sim = TwoTierMachineSimulation(4, "keasy", rng=np.random.default_rng(1), traits=traits)
    for job in (Job(1, 0, 4, 100, 100), Job(2, 0, 4, 50, 50), Job(3, 5, 2, 10, 10)):
        sim.submit(job)
    sim.run_until(20)
    view = sim.scheduler
    assert list(view.running) == [1] and view.running[1][1] == 0 and view.n_free == 0
    # full usage: no bg VM takes a process (fg at or above the threshold), so 2 and 3 wait
    assert [j.id for j in view.queue] == [2, 3] and sim.upcoming == []
    assert sim.next_time() == 100


def test_what_a_two_tier_machine_refuses():
    sim = TwoTierMachineSimulation(4, "measy", rng=np.random.default_rng(1))
    sim.submit(Job(1, 10, 2, 10, 10))
    with pytest.raises(InvalidInput, match="job id 1 was submitted twice"):
        sim.submit(Job(1, 20, 2, 10, 10))
    with pytest.raises(InvalidInput, match="job 2 needs 8 processors; machine has 4"):
        sim.submit(Job(2, 20, 8, 10, 10))
    sim.run_until(30)
    with pytest.raises(InvalidInput, match="job 3 submits at 5, before now \\(30\\)"):
        sim.submit(Job(3, 5, 1, 10, 10))
    with pytest.raises(InvalidInput, match="a two-tier machine \\(measy\\) does not take reservations"):
        sim.add_reservation(None)
    with pytest.raises(InvalidInput, match="unknown two-tier policy 'easy'"):
        TwoTierMachineSimulation(4, "easy", rng=np.random.default_rng(1))
