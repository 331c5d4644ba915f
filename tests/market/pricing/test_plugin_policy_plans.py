"""A provider under a local policy that is not built in prices and advertises its own plan.

Singh's providers advertise the free slots of their plan (2008, ch. 3); a policy that only plans its
queue head is run forward from the provider's state (``gridmarket.pricing.forecast``). Here the policy is
the SJF-over-EASY plug-in of docs/extending.md: its slots must be the free capacity of the plan SJF
follows (checked against a plain simulation of the same jobs from the start, not the forward run),
buying any of them (or any part of a divisible one) must delay no job SJF has planned, and a live
SJF scheduler (an agent market's provider) must be priced as SJF -- its name ``sjf`` is registered
nowhere, and a subclass that keeps its base's name is not its base. A state a policy cannot plan (PSP
ranks users; jobs without one) is a one-line error. PSP's own plans: test_psp_plans.py.
"""

import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gridmarket.errors import InvalidInput
from gridmarket.job import Job
from gridmarket.pricing import ProviderPlan, ProviderState, RunningJob
from gridmarket.reservation import Reservation
from gridmarket.scheduling import EASYScheduler, FCFSScheduler, SlurmPSPScheduler, policy_of, resolve_policy
from gridmarket.simulation import MachineSimulation

from .strategies import provider_states

PLUGINS = Path(__file__).resolve().parents[3] / "docs" / "examples" / "plugins"
SJF = "sjf_policy:SJFScheduler"


@pytest.fixture(scope="module", autouse=True)
def sjf_importable():
    """The documented plug-in importable by its name in this module's tests."""
    sys.path.insert(0, str(PLUGINS))
    try:
        yield resolve_policy(SJF)
    finally:
        sys.path.remove(str(PLUGINS))


def _fig(policy) -> ProviderPlan:
    """4 processors, all busy until 100; queued in arrival order: job 2 (4 x 1000 s), then job 3 (2 x 100 s)."""
    state = ProviderState(0, 4, running=(RunningJob(1, 4, 0, 100),),
                          queue=(Job(2, 0, 4, 1000, 1000), Job(3, 0, 2, 100, 100)))
    return ProviderPlan(state, policy)


def _free(slots, t) -> int:
    return sum(s.procs for s in slots if s.start <= t < s.end)


def test_sjf_advertises_the_holes_of_its_own_plan_not_of_the_conservative_one():
    sjf, conservative = _fig(SJF), _fig("conservative")
    # SJF runs the short job 3 first (100-200), then job 2 (200-1200); conservative and EASY keep arrival order
    assert sjf.planned == {2: 200, 3: 100} and conservative.planned == {2: 100, 3: 1100} == _fig("easy").planned
    shown = [(s.start, s.procs, s.duration, s.divisible, s.extensible) for s in sjf.advertise(until=2000)]
    assert shown == [(100, 2, 100, False, False), (1200, 4, 800, True, True)]
    assert [(s.start, s.procs, s.duration) for s in conservative.advertise(until=2000)] == [(1100, 2, 900),
                                                                                           (1200, 2, 800)]
    assert sjf.price(100, 2, 100).fixed_cost == 0.0  # the hole delays nobody ...
    # ... conservative's hole pushes SJF's job 2 (4 processors) from 200 to 1200: 4,000 processor-seconds
    assert sjf.price(1100, 2, 100).fixed_cost == pytest.approx(4 * 1000 / 3600)


@st.composite
def sjf_runs(draw):
    """A live SJF machine stopped mid-run, jobs running their estimates, and the jobs that arrived by then."""
    procs = draw(st.integers(1, 8))
    jobs, t = [], 0
    for i in range(draw(st.integers(1, 20))):
        t += draw(st.integers(0, 30))
        estimate = draw(st.integers(1, 120))
        jobs.append(Job(i, t, draw(st.integers(1, procs)), estimate, estimate))
    sim = MachineSimulation(resolve_policy(SJF)(procs), list(jobs))
    now = draw(st.integers(0, t + 10))
    sim.run_until(now)
    return sim, now, [j for j in jobs if j.submit <= now]


@settings(max_examples=60, deadline=None)
@given(run=sjf_runs())
def test_a_live_sjf_providers_slots_are_the_free_capacity_of_the_plan_sjf_follows(run):
    sim, now, arrived = run
    plan = ProviderPlan.from_scheduler(sim.scheduler, now)
    assert plan.policy == SJF
    # the oracle: the same arrivals simulated from the start to the end, nothing else arriving
    oracle = MachineSimulation(resolve_policy(SJF)(sim.scheduler.procs), arrived)
    oracle.run_until(None)
    assert plan.planned == {j.id: oracle.start[j.id] for j in sim.scheduler.queue}
    until = max([oracle.end[j.id] for j in arrived] + [now]) + 100
    slots = plan.advertise(until=until)
    for t in sorted({now, until - 1} | {oracle.start[j.id] for j in arrived} | {oracle.end[j.id] for j in arrived}):
        if now <= t < until:
            busy = sum(j.procs for j in arrived if oracle.start[j.id] <= t < oracle.end[j.id])
            assert _free(slots, t) == sim.scheduler.procs - busy, t


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_buying_an_advertised_slot_or_part_of_one_delays_no_job_sjf_planned(data):
    state = data.draw(provider_states())
    plan = ProviderPlan(state, SJF)
    for _ in range(data.draw(st.integers(1, 3))):
        slot = data.draw(st.sampled_from(plan.advertise()))
        if slot.divisible:  # a part, as Table 1 allows
            procs = data.draw(st.integers(1, slot.procs))
            start = data.draw(st.integers(slot.start, slot.end - 1))
            duration = data.draw(st.integers(1, slot.end - start + (200 if slot.extensible else 0)))
        else:
            start, procs, duration = slot.start, slot.procs, slot.duration
        before = plan.planned
        booking = plan.buy(slot, start=start, procs=procs, duration=duration)
        assert plan.planned == before  # the plan after the sale is SJF run forward again, around the reservation
        assert booking.slot.fixed_cost == 0.0


def test_a_class_under_a_registered_name_it_is_not_registered_as_is_priced_as_itself():
    class Strict(FCFSScheduler):
        """First come, first served, no backfilling, but calling itself 'easy'."""

        name = "easy"

    sched = Strict(4)
    sim = MachineSimulation(sched, [Job(1, 0, 2, 100, 100), Job(2, 1, 4, 10, 10), Job(3, 2, 2, 50, 50)])
    sim.run_until(5)
    assert policy_of(sched) is Strict and policy_of(EASYScheduler(2)) == "easy"
    assert ProviderPlan.from_scheduler(sched, 5).planned == {2: 100, 3: 110}  # no backfilling: as it runs
    assert ProviderPlan.from_scheduler(sched, 5, policy="easy").planned == {2: 100, 3: 5}  # EASY would backfill 3


def test_a_reservation_withdrawn_from_a_plugin_scheduler_returns_its_processors():
    sched = resolve_policy(SJF)(2)
    sched.add_reservation(Reservation("r", 0, 2, 100), 0)
    sched.submit(Job(1, 0, 2, 10, 10), 0)
    assert sched.schedule(0) == []
    sched.withdraw_reservation("r", 5)
    assert [j.id for j in sched.schedule(5)] == [1]
    slurm = SlurmPSPScheduler(2)  # re-plans from its profile at every pass: the freed processors are used at once
    slurm.add_reservation(Reservation("r", 0, 2, 100), 0)
    slurm.submit(Job(1, 0, 2, 10, 10, user=3), 0)
    assert slurm.schedule(0) == []
    slurm.withdraw_reservation("r", 5)
    assert [j.id for j in slurm.schedule(5)] == [1]


def test_a_state_a_policy_cannot_plan_is_one_line_saying_why():
    with pytest.raises(InvalidInput, match=r"^missing users for PSP: job 1 has user -1; [^\n]*$"):  # PSP ranks users
        _fig("psp-slurm")

