"""The machine's event step (gridmarket.scheduling.machine): one event time per step, shared by simulations and plans."""

from __future__ import annotations

import pytest

from gridmarket.errors import PolicyError
from gridmarket.job import Job
from gridmarket.pricing import forecast
from gridmarket.pricing.state import ProviderState, RunningJob
from gridmarket.scheduling import ConservativeScheduler, EASYScheduler, LocalScheduler
from gridmarket.simulation import MachineSimulation


def _jobs() -> list[Job]:
    return [Job(1, 0, 2, 100, 100), Job(2, 5, 1, 30, 50), Job(3, 5, 2, 10, 10), Job(4, 40, 1, 20, 20)]


def test_steps_yield_each_event_time_once_in_order():
    sim = MachineSimulation(EASYScheduler(2), _jobs())
    assert list(sim.steps()) == [0, 5, 40, 100, 120, 130, 140]  # job 2 ends at its runtime, 130


@pytest.mark.parametrize("policy", [EASYScheduler, ConservativeScheduler])
def test_stopping_between_steps_and_running_on_gives_the_uninterrupted_run(policy):
    whole = MachineSimulation(policy(2), _jobs())
    whole.run_until(None)
    parts = MachineSimulation(policy(2), _jobs())
    for t in parts.steps():
        if t >= 40:
            break
    assert parts.now == 40 and 2 not in parts.start  # the end of job 1 at 100 is still pending
    parts.run_until(None)
    assert (parts.start, parts.end) == (whole.start, whole.end)


def test_a_job_submitted_between_steps_is_admitted_at_its_time():
    sim = MachineSimulation(EASYScheduler(2), _jobs()[:1])
    steps = sim.steps()
    assert next(steps) == 0
    sim.submit(Job(9, 7, 2, 5, 5))
    assert list(steps) == [7, 100, 105]
    assert sim.start[9] == 100


def test_a_plan_runs_jobs_for_their_estimates_from_its_now():
    sim = MachineSimulation(EASYScheduler(2), [Job(2, 50, 2, 30, 50)], now=50, to_estimates=True)
    sim.run_until(None)
    assert (sim.start, sim.end) == ({2: 50}, {2: 100})  # 50 s of estimate, not the 30 s it would run


class _StartEverything(LocalScheduler):
    """Starts every queued job at once, fitting or not (the contract says: only if it fits)."""

    name = "start-everything-in-plans"

    def schedule(self, now):
        self.advance_to(now)
        started, self.queue = self.queue, []
        for job in started:
            self.start_job(job, now)
        return started


def test_a_forward_plan_checks_the_machine_as_the_simulator_does():
    # the plan runs through the simulator's step, so a policy that over-commits is stopped there too
    state = ProviderState(10, 4, running=(RunningJob(1, 2, 0, 100),),
                          queue=(Job(2, 5, 3, 50, 50), Job(3, 6, 3, 50, 50)))
    with pytest.raises(PolicyError, match=r"over-committed the machine at t=10: 8 processors busy of 4"):
        forecast(state, _StartEverything)
