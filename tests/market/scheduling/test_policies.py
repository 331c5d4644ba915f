"""Hand-checked schedules and hypothesis invariants for every local policy."""

from functools import partial

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gridmarket.errors import Infeasible, InvalidInput
from gridmarket.job import Job
from gridmarket.metrics import load_over_time
from gridmarket.reservation import Reservation
from gridmarket.scheduling import POLICIES, ConservativeScheduler, EASYScheduler
from gridmarket.simulation import simulate

from .strategies import machines_and_jobs, reservations_for

H = 3600
UJob = partial(Job, user=0)  # every policy accepts these (PSP needs a user)
ALL = sorted(POLICIES)


def starts(result):
    return dict(zip(result.records["job_id"], result.records["start"]))


# ------------------------------------------------------------ registry
def test_a_subclass_keeping_its_base_name_cannot_replace_the_base_for_the_process():
    from gridmarket.scheduling import register_policy

    class Cautious(EASYScheduler):  # inherits name = "easy"
        pass

    message = (r"policy 'easy' is already registered to gridmarket\.scheduling\.easy\.EASYScheduler; "
               r".*test_policies\.test_a_subclass_keeping_its_base_name_cannot_replace_the_base_for_the_process"
               r"\.<locals>\.Cautious needs a name of its own")
    try:
        with pytest.raises(InvalidInput, match=message):
            register_policy(Cautious)
    finally:
        POLICIES["easy"] = EASYScheduler  # whatever happened, later tests see the real EASY
    assert register_policy(EASYScheduler) is EASYScheduler  # the same class again: a no-op
    assert POLICIES["easy"] is EASYScheduler


# ------------------------------------------------------------ hand-checked
def test_conservative_gives_thesis_fig1_schedule():
    # Singh 2008, ch. 3, Fig. 1: A 2x3h, B 4x1h, C 1x2h, D 3x2h on 5 processors
    jobs = [Job(i, 0, n, d * H, d * H) for i, (n, d) in enumerate([(2, 3), (4, 1), (1, 2), (3, 2)])]
    r = simulate(jobs, procs=5, policy="conservative")
    assert {k: v // H for k, v in starts(r).items()} == {0: 0, 1: 3, 2: 0, 3: 4}


def test_fcfs_blocks_behind_a_head_that_does_not_fit():
    jobs = [Job(1, 0, 3, 100, 100), Job(2, 0, 2, 10, 10), Job(3, 0, 1, 10, 10)]
    assert starts(simulate(jobs, procs=4, policy="fcfs")) == {1: 0, 2: 100, 3: 100}


def test_easy_backfills_short_job_before_shadow_and_narrow_job_on_extra_processors():
    # 10 procs. Job 1 runs 6 procs to t=100, job 2 runs 2 procs to t=300: 2 free.
    # Head 3 needs 7: shadow 100, free then 8, so 1 extra processor.
    # Job 4 (1 x 500) takes the extra processor; job 5 (1 x 500) would then
    # delay the head; job 6 (1 x 50) ends before the shadow and backfills.
    jobs = [
        Job(1, 0, 6, 100, 100), Job(2, 0, 2, 300, 300),
        Job(3, 1, 7, 10, 10), Job(4, 1, 1, 500, 500),
        Job(5, 1, 1, 500, 500), Job(6, 1, 1, 50, 50),
    ]
    assert starts(simulate(jobs, procs=10, policy="easy")) == {1: 0, 2: 0, 3: 100, 4: 1, 5: 110, 6: 1}


def test_easy_lets_a_later_job_delay_the_second_in_queue_but_conservative_does_not():
    # 4 procs; R1 2 x 100 and R2 1 x 30 run from 0. Head H needs all 4 (shadow 100).
    # B (2 x 60) fits only from 30; C (1 x 90) fits now and ends before the shadow.
    jobs = [Job(1, 0, 2, 100, 100), Job(2, 0, 1, 30, 30), Job(3, 1, 4, 10, 10),
            Job(4, 2, 2, 60, 60), Job(5, 3, 1, 90, 90)]
    assert starts(simulate(jobs, procs=4, policy="easy")) == {1: 0, 2: 0, 3: 100, 4: 110, 5: 3}
    assert starts(simulate(jobs, procs=4, policy="conservative")) == {1: 0, 2: 0, 3: 100, 4: 30, 5: 110}


def test_completion_frees_processors_for_an_arrival_at_the_same_instant():
    jobs = [UJob(1, 0, 4, 10, 10), UJob(2, 10, 4, 5, 5)]
    for policy in ALL:
        assert starts(simulate(jobs, procs=4, policy=policy))[2] == 10, policy


@pytest.mark.parametrize("policy", ALL)
def test_job_is_killed_at_its_estimate(policy):
    r = simulate([UJob(1, 0, 1, 500, 100)], procs=1, policy=policy)
    row = r.records.iloc[0]
    assert (row["end"], row["outcome"]) == (100, "killed")


@pytest.mark.parametrize("policy", ALL)
def test_exact_estimates_replace_requested_ones(policy):
    r = simulate([UJob(1, 0, 1, 50, 1000)], procs=1, policy=policy, estimates="exact")
    assert r.records.iloc[0]["estimate"] == 50


@pytest.mark.parametrize("policy", ALL)
def test_job_waits_for_a_reservation_it_would_overlap(policy):
    # 4 processors reserved over [10, 20): a 4-processor job of 15 s must wait until 20
    r = simulate([UJob(1, 0, 4, 15, 15), UJob(2, 0, 2, 10, 10)], procs=4, policy=policy,
                 reservations=[Reservation("r", 10, 4, 10)])
    assert starts(r) == ({1: 20, 2: 35} if policy == "fcfs" else {1: 20, 2: 0})  # FCFS: 2 waits behind 1


@pytest.mark.parametrize("policy", ALL)
def test_early_completion_lets_queued_job_start_earlier(policy):
    # job 1 plans 100 s but ends at 10: job 2 starts at 10 under every policy
    r = simulate([UJob(1, 0, 2, 10, 100), UJob(2, 1, 2, 5, 5)], procs=2, policy=policy)
    assert starts(r) == {1: 0, 2: 10}


def test_conservative_compression_never_moves_a_job_later():
    jobs = [Job(1, 0, 2, 10, 100), Job(2, 0, 1, 50, 50), Job(3, 1, 2, 30, 30), Job(4, 2, 1, 5, 200)]
    s = ConservativeScheduler(2)
    s.submit(jobs[0], 0)
    s.submit(jobs[1], 0)
    assert [j.id for j in s.schedule(0)] == [1]
    s.submit(jobs[2], 1)
    first = dict(s.planned)
    s.finish(jobs[0], 10)
    assert all(s.planned[k] <= first[k] for k in s.planned)


def test_reservation_on_running_jobs_is_refused_and_leaves_state_unchanged():
    s = EASYScheduler(4)
    s.submit(Job(1, 0, 4, 100, 100), 0)
    s.schedule(0)
    before = s.profile.steps()
    with pytest.raises(Infeasible):
        s.add_reservation(Reservation("r", 50, 1, 10), 0)
    assert s.profile.steps() == before and not s.reservations


def test_conservative_replans_queued_jobs_around_a_new_reservation():
    s = ConservativeScheduler(4)
    s.submit(Job(1, 0, 4, 100, 100), 0)
    s.schedule(0)
    s.submit(Job(2, 0, 4, 50, 50), 0)
    assert s.planned[2] == 100
    s.add_reservation(Reservation("r", 100, 4, 20), 0)
    assert s.planned[2] == 120


# ------------------------------------------------------------ bad input
def test_unknown_policy_is_named():
    with pytest.raises(InvalidInput, match="unknown policy 'sjf'"):
        simulate([Job(1, 0, 1, 1, 1)], procs=1, policy="sjf")


def test_jobs_larger_than_the_machine_are_dropped_and_reported():
    with pytest.warns(UserWarning, match="dropped 1 job"):
        r = simulate([Job(1, 0, 8, 1, 1), Job(2, 0, 1, 1, 1)], procs=4)
    assert r.summary["jobs"] == 1 and r.dropped == {"needs more than the machine's 4 processors": 1}


def test_empty_and_unsorted_workloads_are_refused():
    with pytest.raises(InvalidInput, match="no jobs"):
        simulate([], procs=4)
    with pytest.raises(InvalidInput, match="job 2 submits at 0, before job 1"):
        simulate([Job(1, 5, 1, 1, 1), Job(2, 0, 1, 1, 1)], procs=4)


def test_bad_estimate_mode_is_refused():
    with pytest.raises(InvalidInput, match="estimates must be one of"):
        simulate([Job(1, 0, 1, 1, 1)], procs=1, estimates="guess")


# ------------------------------------------------------------ invariants
def check_invariants(jobs, procs, records, reservations=()):
    rec = records.set_index("job_id")
    assert sorted(rec.index) == sorted(j.id for j in jobs)  # every job ends exactly once
    for job in jobs:
        row = rec.loc[job.id]
        assert row["start"] >= job.submit
        assert row["end"] == row["start"] + min(job.runtime, job.estimate)
    busy = load_over_time(records, procs)["busy"]
    assert busy.max() <= procs
    # reservations: busy + reserved never exceeds the machine
    for r in reservations:
        during = records[(records["start"] < r.end) & (records["end"] > r.start)]
        edges = sorted({r.start, *[t for t in pd.concat([during["start"], during["end"]]) if r.start <= t < r.end]})
        for t in edges:
            running = during[(during["start"] <= t) & (during["end"] > t)]["procs"].sum()
            other = sum(o.procs for o in reservations if o.start <= t < o.end)
            assert running + other <= procs, (r, t)


@pytest.mark.parametrize("policy", ALL)
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_policy_invariants_hold_on_random_workloads(policy, data):
    procs, jobs = data.draw(machines_and_jobs())
    reservations = data.draw(reservations_for(procs))
    r = simulate(jobs, procs=procs, policy=policy, reservations=reservations)
    check_invariants(jobs, procs, r.records, reservations)


class _ShadowLog(EASYScheduler):
    name = "easy-shadow-log"

    def __init__(self, procs):
        super().__init__(procs)
        self.log = []

    def schedule(self, now):
        started = super().schedule(now)
        if self.queue:
            self.log.append((self.queue[0].id, self.shadow))
        return started


@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_easy_never_delays_the_head_past_its_shadow_time(data):
    procs, jobs = data.draw(machines_and_jobs())
    reservations = data.draw(reservations_for(procs))
    sched = {}

    class Logged(_ShadowLog):
        def __init__(self, p):
            super().__init__(p)
            sched["s"] = self

    r = simulate(jobs, procs=procs, policy=Logged, reservations=reservations)
    s = starts(r)
    for head, shadow in sched["s"].log:
        assert s[head] <= shadow


@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_conservative_never_delays_a_job_past_its_first_planned_start(data):
    procs, jobs = data.draw(machines_and_jobs())
    first = {}

    class Logged(ConservativeScheduler):
        def submit(self, job, now):
            super().submit(job, now)
            first[job.id] = self.planned[job.id]

    s = starts(simulate(jobs, procs=procs, policy=Logged))
    assert all(s[k] <= first[k] for k in first)


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_easy_equals_fcfs_when_every_job_needs_the_whole_machine(data):
    procs, jobs = data.draw(machines_and_jobs())
    jobs = [Job(j.id, j.submit, procs, j.runtime, j.estimate) for j in jobs]
    assert starts(simulate(jobs, procs=procs, policy="easy")) == starts(
        simulate(jobs, procs=procs, policy="fcfs")
    )


class _EASYGeneralPath(EASYScheduler):
    """EASY forced onto its profile path (as if a reservation lay far ahead)."""

    name = "easy-general"

    def __init__(self, procs):
        super().__init__(procs)
        self._reserved_until = 10**12


@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_easy_counting_fast_path_equals_the_profile_path(data):
    procs, jobs = data.draw(machines_and_jobs())
    assert starts(simulate(jobs, procs=procs, policy="easy")) == starts(
        simulate(jobs, procs=procs, policy=_EASYGeneralPath)
    )


@pytest.mark.parametrize("policy", ["conservative", "slots"])
def test_reservation_added_mid_run_wakes_the_policy_for_replanned_jobs(policy):
    from gridmarket.scheduling import make_scheduler
    from gridmarket.simulation import MachineSimulation

    jobs = [UJob(1, 0, 1, 100, 100), UJob(2, 0, 2, 50, 50), UJob(3, 0, 1, 120, 120)]
    sim = MachineSimulation(make_scheduler(policy, 2), jobs)
    sim.run_until(0)
    assert sim.start == {1: 0}
    sim.add_reservation(Reservation("r", 100, 1, 30))  # re-plans job 3 to start now
    sim.run_until(None)
    assert sim.start == {1: 0, 2: 130, 3: 0} and sim.now == 180
