"""Outside agents acting on a running machine: advance, kill, wake_at (market.simulation)."""

from __future__ import annotations

import pytest

from market.errors import InvalidInput
from market.job import Job
from market.reservation import Reservation
from market.scheduling import make_scheduler
from market.simulation import MachineSimulation


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
