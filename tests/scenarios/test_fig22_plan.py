"""The provisioning harness prices slots as Singh's Fig. 22 is written: both plans of the queue made afresh."""

import contextlib

import numpy as np
import pytest

from gridmarket.errors import MarketError
from gridmarket.pricing import ProviderPlan, state_from_scheduler
from gridmarket.pricing.forecast import forecast
from gridmarket.reservation import Reservation
from gridmarket.scenarios.harnesses.provisioning import fig22_plan
from gridmarket.scheduling import make_scheduler
from gridmarket.simulation import MachineSimulation
from gridmarket.workloads import lublin_workload, scale_load


def _fig22_price(state, start, procs, duration):
    """Fig. 22 by two forward plannings of the queue, without and with the slot: delays x processors, SU."""
    before = forecast(state, "conservative")
    after = forecast(state, "conservative", extra=Reservation("slot", start, procs, duration))
    return sum(max(0, after[j.id] - before[j.id]) * j.procs for j in state.queue) / 3600


@pytest.fixture(scope="module")
def replaying():
    """(state, live plan, harness plan) of a conservative machine replaying busy Lublin jobs with Tsafrir
    estimates (most jobs end early, so its plan is compressed) and holding reservations, at 20 instants."""
    jobs = list(scale_load(lublin_workload(400, procs=64, rng=np.random.default_rng(11), estimates="tsafrir"),
                           4.0).jobs)
    sim = MachineSimulation(make_scheduler("conservative", 64), jobs)
    out = []
    for k, t in enumerate(np.linspace(jobs[50].submit, jobs[350].submit, 40).astype(int)):
        sim.run_until(int(t))
        with contextlib.suppress(MarketError):  # reservations sold along the way, as a priced replay holds them
            sim.scheduler.add_reservation(Reservation(f"r{k}", int(t) + 3600, 16, 2 * 3600), int(t))
        if sim.scheduler.queue and k % 2:
            out.append((state_from_scheduler(sim.scheduler, int(t)), ProviderPlan.from_scheduler(sim.scheduler, int(t)),
                        fig22_plan(sim.scheduler, int(t))))
    return out


def test_harness_prices_equal_two_fresh_plannings_and_the_live_plan_does_not(replaying):
    fresh_off = live_off = checked = 0
    compressed = sum(live.planned != fresh.planned for _, live, fresh in replaying)
    for state, live, fresh in replaying:
        for start in range(state.now, state.now + 12 * 3600, 1800):
            for procs, duration in ((16, 3600), (48, 2 * 3600), (64, 1800)):
                try:
                    oracle = _fig22_price(state, start, procs, duration)
                except MarketError:  # running jobs or reservations hold the processors: no price either way
                    continue
                checked += 1
                fresh_off += fresh.price(start, procs, duration).fixed_cost != pytest.approx(oracle, abs=1e-9)
                live_off += live.price(start, procs, duration).fixed_cost != pytest.approx(oracle, abs=1e-9)
    assert compressed > 0 and checked >= 100, (compressed, checked)
    assert fresh_off == 0
    assert live_off > 0  # the plan kept since arrival is not the fresh one once jobs end early
