"""The non-delaying slot scheduler (Singh 2008, ch. 3, Figs. 1-3): hand-checked schedules and properties."""

import copy
import heapq
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gridmarket.errors import Infeasible, InvalidInput
from gridmarket.job import Job
from gridmarket.metrics import load_over_time
from gridmarket.reservation import Reservation
from gridmarket.scheduling.conservative import ConservativeScheduler
from gridmarket.scheduling.profile import Profile
from gridmarket.scheduling.slots import FreeSlot, LayeredSlotScheduler, SlotScheduler, decompose
from gridmarket.simulation import MachineSimulation, simulate

H = 3600
INF = math.inf
FIG1 = [(2, 3), (4, 1), (1, 2), (3, 2)]  # A, B, C, D: (procs, hours)
# The figure itself is not in the extracted text; its slots follow from the text: S1, S4, S5
# reach the end of the plan; S1 and S3 together hold a 2-proc 2 h task at 0, so S1 is
# 1 proc from 0 on and S3 1 proc over [0, 3 h); S2 is 1 proc over [2 h, 3 h) (C ends at 2 h);
# S4 is 1 proc from 4 h and S5 3 procs from 6 h.


def as_tuples(slots, unit=H):
    """(start, procs, duration, divisible, extensible) in ``unit``s, for readable asserts."""
    return [(s.start / unit, s.procs, s.duration / unit, s.divisible, s.extensible) for s in slots]


def starts(result):
    return dict(zip(result.records["job_id"], result.records["start"]))


def fig1(runtimes=None):
    """The four queued tasks of thesis Fig. 1, ids 0-3, with exact or shorter runtimes (hours)."""
    runtimes = runtimes or [d for _, d in FIG1]
    return [Job(i, 0, n, rt * H, d * H) for i, ((n, d), rt) in enumerate(zip(FIG1, runtimes))]


@pytest.fixture
def fig1_scheduler():
    s = SlotScheduler(5)
    for job in fig1():
        s.submit(job, 0)
    return s


# ------------------------------------------------------------ thesis Fig. 1
def test_fig1_tasks_get_the_conservative_backfilling_schedule(fig1_scheduler):
    # A 0-3 h, B 3-4 h, C 0-2 h, D 4-6 h
    assert {k: v / H for k, v in fig1_scheduler.planned.items()} == {0: 0, 1: 3, 2: 0, 3: 4}
    assert [j.id for j in fig1_scheduler.schedule(0)] == [0, 2]


def test_fig1_free_capacity_is_five_slots_three_of_them_extensible(fig1_scheduler):
    # S1 1 proc from 0 to the end; 1 proc 0-3 h and 1 proc 2-3 h bounded by B's start;
    # 1 proc from 4 h and 3 procs from 6 h to the end of the plan
    assert as_tuples(fig1_scheduler.free_slots(0)) == [
        (0, 1, INF, True, True),
        (0, 1, 3, False, False),
        (2, 1, 1, False, False),
        (4, 1, INF, True, True),
        (6, 3, INF, True, True),
    ]


def test_fig1_slots_delineated_at_eight_hours_keep_their_extensibility(fig1_scheduler):
    assert as_tuples(fig1_scheduler.free_slots(0, until=8 * H)) == [
        (0, 1, 8, True, True),
        (0, 1, 3, False, False),
        (2, 1, 1, False, False),
        (4, 1, 4, True, True),
        (6, 3, 2, True, True),
    ]
    assert fig1_scheduler.plan_end == 6 * H


def test_fig1_task_of_two_procs_for_two_hours_is_stacked_on_s1_and_s3(fig1_scheduler):
    # thesis: "an arriving task requiring 2 processors for 2 hours can be backfilled into
    # slots S1 and S3": no single slot has 2 processors, a vertical stack of two does
    fig1_scheduler.submit(Job(4, 0, 2, 2 * H, 2 * H), 0)
    assert fig1_scheduler.planned[4] == 0
    assert as_tuples(fig1_scheduler.free_slots(0)) == [
        (2, 1, INF, True, True),
        (2, 2, 1, False, False),
        (4, 1, INF, True, True),
        (6, 3, INF, True, True),
    ]


def test_left_overs_are_recut_so_a_long_job_is_not_blocked_by_a_seam(fig1_scheduler):
    # a 1-proc 1 h job takes the bottom of S1 at 0. Cutting only S1 would leave a seam
    # at 1 h (S2 over [0, 3 h) beside S1's rest from 1 h); a processor is still free at
    # every instant, so a 1-proc 10 h job starts at 0, as under conservative backfilling
    fig1_scheduler.submit(Job(4, 0, 1, H, H), 0)
    fig1_scheduler.submit(Job(5, 0, 1, 10 * H, 10 * H), 0)
    assert (fig1_scheduler.planned[4], fig1_scheduler.planned[5]) == (0, 0)


def test_provisioned_slot_is_cut_from_the_free_slots_and_moves_no_job(fig1_scheduler):
    fig1_scheduler.add_reservation(Reservation("S2", 2 * H, 1, H), 0)
    assert {k: v / H for k, v in fig1_scheduler.planned.items()} == {0: 0, 1: 3, 2: 0, 3: 4}
    assert (2, 1, 1, False, False) not in as_tuples(fig1_scheduler.free_slots(0))
    assert len(fig1_scheduler.free_slots(0)) == 4


def test_free_slots_later_on_clip_the_slots_already_under_way(fig1_scheduler):
    fig1_scheduler.schedule(0)
    assert as_tuples(fig1_scheduler.free_slots(H))[:3] == [
        (1, 1, INF, True, True),
        (1, 1, 2, False, False),
        (2, 1, 1, False, False),
    ]


# ------------------------------------------------------------ early completion
def test_early_completion_leaves_a_new_slot_when_no_queued_job_can_use_it():
    # thesis: a task "completing just after 1 hour instead of the requested 3, would
    # create another slot having 2 processors for 2 hours". A (2 procs) and C (3 procs)
    # fill the machine to 3 h; X needs all 5 processors, so it cannot move before 3 h
    s = SlotScheduler(5)
    a, c, x = Job(0, 0, 2, H, 3 * H), Job(1, 0, 3, 3 * H, 3 * H), Job(2, 0, 5, H, H)
    for job in (a, c, x):
        s.submit(job, 0)
    s.schedule(0)
    assert as_tuples(s.free_slots(0)) == [(4, 5, INF, True, True)]
    s.finish(a, H)
    assert s.planned[2] == 3 * H
    assert as_tuples(s.free_slots(H)) == [(1, 2, 2, False, False), (4, 5, INF, True, True)]


def test_early_completion_moves_queued_jobs_earlier_like_conservative():
    # A ends at 1 h instead of 3 h: B (4 procs) fits beside C from 1 h, then D from 2 h
    r = simulate(fig1(runtimes=[1, 1, 2, 2]), procs=5, policy="slots")
    assert {k: v / H for k, v in starts(r).items()} == {0: 0, 1: 1, 2: 0, 3: 2}
    assert starts(r) == starts(simulate(fig1(runtimes=[1, 1, 2, 2]), procs=5, policy="conservative"))


def test_provisioned_s1_and_s3_make_b_wait_when_a_ends_early():
    # thesis ch. 3: with S1 and S3 provisioned, A ending at 2 h instead of 3 h does not let
    # B start at 2 h (only 3 processors are free then); without them B starts at 2 h
    jobs = fig1(runtimes=[2, 1, 2, 2])
    s1, s3 = Reservation("S1", 0, 1, 8 * H), Reservation("S3", 0, 1, 3 * H)
    held = simulate(jobs, procs=5, policy="slots", reservations=[s1, s3])
    free = simulate(jobs, procs=5, policy="slots")
    assert starts(held)[1] == 3 * H
    assert starts(free)[1] == 2 * H


def test_compression_never_moves_a_job_later():
    s = SlotScheduler(2)
    jobs = [Job(1, 0, 2, 10, 100), Job(2, 0, 1, 50, 50), Job(3, 1, 2, 30, 30), Job(4, 2, 1, 5, 200)]
    s.submit(jobs[0], 0)
    s.submit(jobs[1], 0)
    assert [j.id for j in s.schedule(0)] == [1]
    s.submit(jobs[2], 1)
    s.submit(jobs[3], 2)
    first = dict(s.planned)
    s.finish(jobs[0], 10)
    assert all(s.planned[k] <= first[k] for k in s.planned)
    assert s.planned[2] == 10


# ------------------------------------------------------------ reservations
def test_reservation_beside_running_jobs_replans_the_queue_around_it():
    s, c = SlotScheduler(4), ConservativeScheduler(4)
    for sched in (s, c):
        sched.submit(Job(1, 0, 4, 100, 100), 0)
        sched.schedule(0)
        sched.submit(Job(2, 0, 4, 50, 50), 0)
        sched.add_reservation(Reservation("r", 100, 4, 20), 0)
    assert s.planned == c.planned == {2: 120}
    assert as_tuples(s.free_slots(0), unit=1) == [(170, 4, INF, True, True)]


def test_reservation_on_running_jobs_is_refused_and_leaves_state_unchanged():
    s = SlotScheduler(4)
    s.submit(Job(1, 0, 4, 100, 100), 0)
    s.schedule(0)
    before = s.free_slots(0)
    with pytest.raises(Infeasible, match=r"reservation 'r' needs 1 processors over \[50, 60\)"):
        s.add_reservation(Reservation("r", 50, 1, 10), 0)
    assert s.free_slots(0) == before and not s.reservations


def test_duplicate_or_past_reservation_is_invalid():
    s = SlotScheduler(4)
    s.add_reservation(Reservation("r", 10, 1, 10), 0)
    with pytest.raises(InvalidInput, match="reservation 'r' is already held"):
        s.add_reservation(Reservation("r", 30, 1, 10), 0)
    s.schedule(5)
    with pytest.raises(InvalidInput, match="starts at 2, before now"):
        s.add_reservation(Reservation("q", 2, 1, 10), 5)


# ------------------------------------------------------------ bad input
@pytest.mark.parametrize(
    ("fields", "match"),
    [
        ((-1, 1, 1, False, False), "start must be an int >= 0, got -1"),
        ((0, 0, 1, False, False), "procs must be an int >= 1, got 0"),
        ((0, True, 1, False, False), "procs must be an int >= 1, got True"),
        ((0, 1, 0, False, False), "duration must be an int >= 1 or math.inf, got 0"),
        ((0, 1, 2.5, False, False), "duration must be an int >= 1 or math.inf, got 2.5"),
        ((0, 1, INF, True, False), "infinite duration needs extensible=True"),
    ],
)
def test_free_slot_rejects_bad_fields(fields, match):
    with pytest.raises(InvalidInput, match=match):
        FreeSlot(*fields)


def test_free_slots_before_the_clock_or_until_before_a_slot_start_is_invalid(fig1_scheduler):
    fig1_scheduler.schedule(10)
    with pytest.raises(InvalidInput, match=r"now \(5\) is before the scheduler's clock \(10\)"):
        fig1_scheduler.free_slots(5)
    with pytest.raises(InvalidInput, match=r"until must be an int after the last slot start \(21600\)"):
        fig1_scheduler.free_slots(10, until=6 * H)


def test_job_larger_than_the_machine_is_infeasible():
    with pytest.raises(Infeasible, match="job 1 needs 6 processors; machine has 5"):
        SlotScheduler(5).submit(Job(1, 0, 6, 1, 1), 0)


def test_decompose_of_an_idle_machine_is_one_divisible_extensible_slot():
    assert decompose(Profile(8, origin=30)) == [FreeSlot(30, 8, INF, True, True)]


# ------------------------------------------------------------ properties
@st.composite
def workloads(draw, max_jobs=40, max_procs=16, exact=True):
    """(procs, jobs): 1-40 jobs on 1-16 processors, runtimes 1-1000 s, sorted by (submit, id)."""
    procs = draw(st.integers(1, max_procs))
    jobs, t = [], 0
    for i in range(draw(st.integers(1, max_jobs))):
        t += draw(st.integers(0, 300))
        runtime = draw(st.integers(1, 1000))
        estimate = runtime if exact else draw(st.one_of(st.just(runtime), st.integers(1, 2000)))
        jobs.append(Job(i, t, draw(st.integers(1, procs)), runtime, estimate))
    return procs, jobs


@st.composite
def reservation_sets(draw, procs, max_n=3):
    """Reservations that fit together on an empty machine of ``procs`` processors."""
    plan, out = Profile(procs), []
    for i in range(draw(st.integers(0, max_n))):
        start, duration = draw(st.integers(0, 3000)), draw(st.integers(1, 500))
        n = draw(st.integers(1, procs))
        if plan.min_free(start, duration) >= n:
            plan.reserve(start, duration, n)
            out.append(Reservation(f"r{i}", start, n, duration))
    return out


def check_machine(jobs, procs, records):
    rec = records.set_index("job_id")
    assert (rec.loc[[j.id for j in jobs], "start"].to_numpy() >= [j.submit for j in jobs]).all()
    assert load_over_time(records, procs)["busy"].max() <= procs


@settings(max_examples=150, deadline=None)
@given(workloads())
def test_slot_scheduler_equals_conservative_under_exact_estimates(workload):
    procs, jobs = workload
    slots = simulate(jobs, procs=procs, policy="slots", estimates="exact")
    assert starts(slots) == starts(simulate(jobs, procs=procs, policy="conservative", estimates="exact"))
    check_machine(jobs, procs, slots.records)


@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_slot_scheduler_equals_conservative_with_requested_estimates_and_reservations(data):
    # stronger than the thesis needs: early completions compress both plans the same way
    procs, jobs = data.draw(workloads(exact=False))
    reservations = data.draw(reservation_sets(procs))
    slots = simulate(jobs, procs=procs, policy="slots", reservations=reservations)
    cons = simulate(jobs, procs=procs, policy="conservative", reservations=reservations)
    assert starts(slots) == starts(cons)
    check_machine(jobs, procs, slots.records)


def layered_cut(profile):
    """Independent oracle: level k is free over each maximal interval where free >= k."""
    steps = profile.steps()
    count = {}
    for k in range(1, profile.procs + 1):
        start = None
        for t, free in steps:
            if free >= k and start is None:
                start = t
            elif free < k and start is not None:
                count[(start, t)] = count.get((start, t), 0) + 1
                start = None
        if start is not None:
            count[(start, INF)] = count.get((start, INF), 0) + 1
    return sorted((s, n, e) for (s, e), n in count.items())


def planned_profile(sched, now):
    """Running jobs, reservations and every queued job's planned interval, from ``now`` on."""
    plan = sched.profile.copy()
    if isinstance(sched, LayeredSlotScheduler):  # its profile holds running jobs and reservations only
        for job in sched.queue:
            plan.reserve(sched.planned[job.id], job.estimate, job.procs)  # raises if they overlap
    else:  # SlotScheduler plans conservatively: its profile holds the queued jobs too
        assert sorted(plan.steps()) == sorted(rebuilt_plan(sched).steps())
    plan.advance(now)
    return plan


def rebuilt_plan(sched):
    """The plan rebuilt from its parts: running jobs, reservations, queued jobs at their planned starts."""
    plan = Profile(sched.procs, origin=sched.profile.times[0])
    for job, start in sched.running.values():
        if start + job.estimate > plan.times[0]:
            plan.reserve(max(start, plan.times[0]), start + job.estimate - max(start, plan.times[0]), job.procs)
    for r in sched.reservations.values():
        if r.end > plan.times[0]:
            plan.reserve(max(r.start, plan.times[0]), r.end - max(r.start, plan.times[0]), r.procs)
    for job in sched.queue:
        plan.reserve(sched.planned[job.id], job.estimate, job.procs)
    return plan


@pytest.mark.parametrize("cls", [SlotScheduler, LayeredSlotScheduler])
@settings(max_examples=80, deadline=None)
@given(data=st.data())
def test_free_slots_are_the_layered_cut_of_the_plan_after_every_event(cls, data):
    procs, jobs = data.draw(workloads(max_jobs=25, exact=False))
    sim = MachineSimulation(cls(procs), jobs)
    for r in data.draw(reservation_sets(procs)):
        sim.add_reservation(r)
    while (t := sim.next_time()) is not None:
        sim.run_until(t)
        sched = sim.scheduler
        slots = sched.free_slots(t)
        assert sorted((s.start, s.procs, s.end) for s in slots) == layered_cut(planned_profile(sched, t))
        assert all((s.duration == INF) == s.extensible == s.divisible for s in slots)


@settings(max_examples=80, deadline=None)
@given(data=st.data())
def test_provisioning_any_advertised_slot_delays_no_planned_job(data):
    procs, jobs = data.draw(workloads(max_jobs=20, exact=False))
    sim = MachineSimulation(SlotScheduler(procs), jobs)
    sim.run_until(data.draw(st.integers(0, jobs[-1].submit)))
    sched, now = sim.scheduler, sim.now
    for i, slot in enumerate(sched.free_slots(now)):
        trial = copy.deepcopy(sched)
        duration = slot.duration if slot.duration != INF else 10_000
        trial.add_reservation(Reservation(f"buy{i}", slot.start, slot.procs, duration), now)
        assert trial.planned == sched.planned


def lockstep(scheds, jobs, on_pass):
    """Drive ``scheds`` through the same events and check they start the same jobs.

    Its own event loop, not ``MachineSimulation``: after a reservation
    re-plans the queue, a planned start may fall at an instant with no event
    (even at ``now``, after the pass), and this loop wakes at every policy's
    ``wakeup``, running a second pass at ``now`` if it must.
    """
    ends, i, t = [], 0, None
    while True:
        wakes = {s.wakeup(t) for s in scheds}
        assert len(wakes) == 1
        times = [w for w in wakes if w is not None] + [e[0] for e in ends[:1]]
        times += [jobs[i].submit] if i < len(jobs) else []
        if not times:
            return
        t = min(times)
        while ends and ends[0][0] == t:
            job = heapq.heappop(ends)[2]
            for s in scheds:
                s.finish(job, t)
        while i < len(jobs) and jobs[i].submit == t:
            for s in scheds:
                s.submit(jobs[i], t)
            i += 1
        started = [s.schedule(t) for s in scheds]
        assert all(x == started[0] for x in started)
        for job in started[0]:
            heapq.heappush(ends, (t + min(job.runtime, job.estimate), job.id, job))
        on_pass(t)


@settings(max_examples=80, deadline=None)
@given(data=st.data())
def test_reservations_added_mid_run_replan_the_queue_as_conservative_does(data):
    procs, jobs = data.draw(workloads(max_jobs=25, exact=False))
    scheds = [SlotScheduler(procs), ConservativeScheduler(procs)]
    added = []

    def maybe_reserve(t):
        if not data.draw(st.booleans()):
            return
        start, n, duration = t + data.draw(st.integers(0, 500)), data.draw(st.integers(1, procs)), \
            data.draw(st.integers(1, 500))
        r = Reservation(len(added), start, n, duration)
        outcomes = []
        for s in scheds:
            try:
                s.add_reservation(r, t)
                outcomes.append("held")
            except Infeasible:
                outcomes.append("refused")
        assert outcomes[0] == outcomes[1]
        assert scheds[0].planned == scheds[1].planned
        added.append(outcomes[0])

    lockstep(scheds, jobs, maybe_reserve)
    assert not scheds[0].queue and not scheds[0].running


@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_slot_scheduler_equals_the_thesis_layered_scheduler_event_by_event(data):
    """Conservative plan + cut on demand (SlotScheduler) vs the incremental Figs. 2-3 scheduler."""
    procs, jobs = data.draw(workloads(max_jobs=25, exact=False))
    sims = [MachineSimulation(cls(procs), jobs) for cls in (SlotScheduler, LayeredSlotScheduler)]
    for r in data.draw(reservation_sets(procs)):
        for sim in sims:
            sim.add_reservation(r)
    while (t := sims[0].next_time()) is not None:
        assert sims[1].next_time() == t
        for sim in sims:
            sim.run_until(t)
        fast, layered = (sim.scheduler for sim in sims)
        assert fast.planned == layered.planned and fast.plan_end == layered.plan_end
        assert fast.free_slots(t) == layered.free_slots(t)
    assert sims[0].start == sims[1].start
