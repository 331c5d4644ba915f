"""Outside agents acting on a running machine: advance, kill, wake_at (gridmarket.simulation)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gridmarket.errors import InvalidInput
from gridmarket.job import Job
from gridmarket.reservation import Reservation
from gridmarket.scheduling import make_scheduler
from gridmarket.simulation import MachineSimulation


@pytest.mark.parametrize("policy", ["fcfs", "easy", "conservative", "slots"])
def test_killing_a_running_job_frees_its_processors_at_once(policy):
    sim = MachineSimulation(make_scheduler(policy, 4), [Job(1, 0, 4, 100, 100), Job(2, 5, 4, 10, 10)])
    sim.run_until(20)
    assert sim.start == {1: 0}
    sim.kill(1)
    sim.run_until(None)
    assert sim.end == {1: 20, 2: 30} and sim.start[2] == 20 and sim.killed == {1}


def test_kill_refuses_a_job_that_is_not_running():
    sim = MachineSimulation(make_scheduler("easy", 2), [Job(1, 0, 2, 10, 10), Job(2, 0, 2, 10, 10)])
    sim.run_until(0)
    with pytest.raises(InvalidInput, match="job 2 is not running"):
        sim.kill(2)
    sim.run_until(None)
    assert sim.end == {1: 10, 2: 20}


def test_advance_places_a_reservation_at_the_instant_asked_not_before():
    sim = MachineSimulation(make_scheduler("conservative", 4), [Job(1, 0, 2, 50, 50), Job(2, 30, 4, 10, 10)])
    sim.advance(30)  # events before 30 applied; the arrival at 30 still pending
    assert sim.now == 30 and sim.start == {1: 0} and 2 not in sim.start
    sim.add_reservation(Reservation("r", 30, 2, 40))
    sim.run_until(None)
    assert sim.start[2] == 70  # after the reservation, although job 1 ends at 50
    with pytest.raises(InvalidInput, match="before now"):
        sim.wake_at(10)


def test_cancelling_a_queued_conservative_job_moves_the_next_one_earlier():
    jobs = [Job(1, 0, 4, 100, 100), Job(2, 1, 4, 50, 50), Job(3, 2, 4, 10, 10)]
    sim = MachineSimulation(make_scheduler("conservative", 4), jobs)
    sim.run_until(10)
    assert sim.scheduler.planned == {2: 100, 3: 150}
    assert sim.cancel(2).id == 2
    assert sim.scheduler.planned == {3: 100}
    sim.run_until(None)
    assert sim.start == {1: 0, 3: 100} and 2 not in sim.end and sim.cancelled == {2}
    assert [j.id for j in sim.jobs] == [1, 3]


def test_cancel_a_job_not_yet_arrived_and_refuse_a_started_one():
    sim = MachineSimulation(make_scheduler("easy", 2), [Job(1, 0, 2, 10, 10), Job(2, 50, 2, 10, 10)])
    sim.run_until(5)
    sim.cancel(2)
    with pytest.raises(InvalidInput, match="has started"):
        sim.cancel(1)
    with pytest.raises(InvalidInput, match="not waiting"):
        sim.cancel(9)
    sim.run_until(None)
    assert sim.end == {1: 10}


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["fcfs", "easy", "conservative", "slots", "psp"]),
       st.lists(st.tuples(st.integers(0, 200), st.integers(1, 4), st.integers(1, 100), st.integers(0, 50)),
                min_size=2, max_size=25),
       st.integers(0, 300), st.data())
def test_cancelling_any_waiting_job_keeps_every_policy_consistent(policy, specs, at, data):
    jobs = sorted((Job(k + 1, s, n, r, r + e, user=k % 3) for k, (s, n, r, e) in enumerate(specs)),
                  key=lambda j: (j.submit, j.id))
    sim = MachineSimulation(make_scheduler(policy, 4), list(jobs))
    sim.run_until(at)
    waiting = [j.id for j in jobs if j.id not in sim.start]
    victims = data.draw(st.lists(st.sampled_from(waiting), unique=True, max_size=3)) if waiting else []
    for v in victims:
        sim.cancel(v)
    sim.run_until(None)
    kept = [j for j in jobs if j.id not in victims]
    assert set(sim.end) == {j.id for j in kept} and not set(victims) & set(sim.start)
    events = sorted([(sim.start[j.id], j.procs) for j in kept] + [(sim.end[j.id], -j.procs) for j in kept],
                    key=lambda e: (e[0], e[1]))
    level = 0
    for _, d in events:
        level += d
        assert level <= 4
    for j in kept:
        assert sim.start[j.id] >= j.submit
