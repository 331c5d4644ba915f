"""PSP inside SLURM's multifactor priority and backfill pass (gridmarket.scheduling.slurm)."""

import pytest
from hypothesis import given, settings

from gridmarket.errors import InvalidInput
from gridmarket.job import Job
from gridmarket.scheduling import SlurmPSPScheduler, make_scheduler
from gridmarket.scheduling.slurm import SlurmWeights
from gridmarket.simulation import simulate

from .strategies import machines_and_jobs


def starts(result):
    return dict(zip(result.records["job_id"], result.records["start"]))


class NoFactors(SlurmPSPScheduler):
    """Every priority equal: the pass ranks by submit time, then id."""

    name = "test-slurm-fifo"

    def __init__(self, procs, bf_max_job_test=10**6):
        super().__init__(procs, weights=SlurmWeights(psp=0.0, age=0.0, size=0.0), bf_max_job_test=bf_max_job_test)


class HeadOnly(NoFactors):
    name = "test-slurm-head"

    def __init__(self, procs):
        super().__init__(procs, bf_max_job_test=1)


@settings(max_examples=60, deadline=None)
@given(machines_and_jobs(exact=True))
def test_equal_priorities_and_exact_estimates_give_conservative_backfilling(case):
    # re-planning every pass in arrival order reproduces the plan conservative backfilling makes once at
    # submission: with exact estimates nothing ends early, so no pass finds an earlier start
    procs, jobs = case
    assert starts(simulate(jobs, procs=procs, policy=NoFactors)) == starts(
        simulate(jobs, procs=procs, policy="conservative"))


@settings(max_examples=60, deadline=None)
@given(machines_and_jobs())
def test_planning_only_the_top_job_is_fcfs(case):
    procs, jobs = case
    assert starts(simulate(jobs, procs=procs, policy=HeadOnly)) == starts(simulate(jobs, procs=procs, policy="fcfs"))


@settings(max_examples=60, deadline=None)
@given(machines_and_jobs())
def test_never_more_processors_busy_than_the_machine_and_every_job_runs(case):
    procs, jobs = case
    rec = simulate(jobs, procs=procs, policy="psp-slurm").records
    assert len(rec) == len(jobs) and (rec["start"] >= rec["submit"]).all()
    events = sorted([(s, p) for s, p in zip(rec["start"], rec["procs"])] +
                    [(e, -p) for e, p in zip(rec["end"], rec["procs"])], key=lambda x: (x[0], x[1]))
    busy = 0
    for _, delta in events:
        busy += delta
        assert busy <= procs


def test_a_week_of_age_is_worth_less_than_one_class_step():
    s = SlurmPSPScheduler(4)
    s.submit(Job(1, 0, 1, 10, 100, user=2), 0)
    s.schedule(0)
    s.finish(Job(1, 0, 1, 10, 100, user=2), 10)  # user 2: accuracy 0.1, class 1
    old = Job(2, 10, 4, 10, 10, user=2)
    assert s.priorities[2] == 1
    week = 7 * 86400
    # class 1 after a week: 0 + 1000 + 1000 (whole machine); class 2 (2500) fresh, one processor (250)
    assert s.priority(old, 10 + week) == pytest.approx(2000.0)
    assert s.priority(old, 10 + 2 * week) == pytest.approx(2000.0)  # the age factor stops at max_age
    s.accuracies.classes[3] = 2
    assert s.priority(Job(3, 10 + week, 1, 10, 10, user=3), 10 + week) == pytest.approx(2750.0)


def test_ranked_by_class_not_arrival_when_the_machine_frees():
    jobs = [Job(1, 0, 1, 10, 100, user=2), Job(2, 0, 1, 50, 50, user=1),
            Job(3, 20, 2, 10, 10, user=2), Job(4, 30, 2, 10, 10, user=1)]
    got = starts(simulate(jobs, procs=2, policy="psp-slurm"))
    assert got == {1: 0, 2: 0, 4: 50, 3: 60}
    assert starts(simulate(jobs, procs=2, policy="easy"))[3] == 50


def test_bad_input_is_refused_naming_it():
    with pytest.raises(InvalidInput, match="max_age must be an int >= 1"):
        SlurmWeights(max_age=0)
    with pytest.raises(InvalidInput, match="age must be a number >= 0"):
        SlurmWeights(age=-1.0)
    with pytest.raises(InvalidInput, match="bf_max_job_test must be an int >= 1"):
        SlurmPSPScheduler(4, bf_max_job_test=0)
    with pytest.raises(InvalidInput, match=r"missing users for PSP: job 7 has user -1"):
        simulate([Job(7, 0, 1, 10, 10)], procs=2, policy="psp-slurm")
    assert make_scheduler("psp-slurm", 8).name == "psp-slurm"
