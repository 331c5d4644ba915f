"""The picked policy (:func:`gridmarket.scheduling.picking`): one picked job per pass, the base's pass around a blocked pick."""

import pytest

from gridmarket.errors import InvalidInput
from gridmarket.job import Job
from gridmarket.scheduling import ConservativeScheduler, EASYScheduler, FCFSScheduler, MachineSimulation, picking


def _step_with_pick(sim, steps, job_id):
    sim.scheduler.picked = next(j for j in sim.scheduler.queue if j.id == job_id)
    sim.wake_at(sim.now)
    return next(steps)


@pytest.mark.parametrize("base", [FCFSScheduler, EASYScheduler])
def test_a_picked_job_that_fits_starts_alone_though_others_fit_too(base):
    sim = MachineSimulation(picking(base)(8), [Job(1, 0, 1, 10, 10), Job(2, 0, 1, 10, 10), Job(3, 0, 1, 10, 10)])
    steps = sim.steps()
    assert next(steps) == 0 and sim.start == {}  # nothing picked: nothing starts
    assert _step_with_pick(sim, steps, 3) == 0
    assert sim.start == {3: 0} and sim.scheduler.picked is None
    assert [j.id for j in sim.scheduler.queue] == [1, 2]


def test_a_blocked_pick_stays_picked_and_fcfs_starts_nobody_behind_it():
    sim = MachineSimulation(picking(FCFSScheduler)(4), [Job(1, 0, 3, 100, 100), Job(2, 0, 4, 10, 10),
                                                        Job(3, 0, 1, 10, 10)])
    steps = sim.steps()
    next(steps)
    _step_with_pick(sim, steps, 1)
    _step_with_pick(sim, steps, 2)  # needs 4, 1 free
    assert sim.start == {1: 0} and sim.scheduler.picked.id == 2
    assert next(steps) == 100  # job 1 ends: the pick starts without being asked again
    assert sim.start == {1: 0, 2: 100} and sim.scheduler.picked is None


def test_one_class_per_base_and_no_pick_of_a_policy_that_plans_its_whole_queue():
    assert picking(EASYScheduler) is picking(EASYScheduler) and picking(EASYScheduler).name == "easy-picked"
    with pytest.raises(InvalidInput, match="'conservative' plans its whole queue"):
        picking(ConservativeScheduler)
