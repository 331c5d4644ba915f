"""When Step 3 (SJF into the bg tier) runs: every pass, or after an arrival or a bg departure (Liu et al. 2012,
sec. 2.2.2 (1))."""

from dataclasses import replace

import numpy as np
import pytest

from gridmarket.errors import InvalidInput
from gridmarket.twotier import simulation
from gridmarket.twotier.policies import MEASY, REASY


def _workload():
    from gridmarket.scenarios.harnesses.twotier_tables import base_workload, offered_load
    from gridmarket.workloads import scale_interarrival

    seeds = np.random.SeedSequence(5).spawn(3)
    base = base_workload("jann97", 600, 64, seeds)
    return scale_interarrival(base, offered_load(base, 64) / 0.9), seeds[2]


@pytest.mark.parametrize("policy", [MEASY, REASY])
def test_under_the_departure_reading_a_job_enters_the_bg_tier_only_after_an_arrival_or_a_bg_departure(policy):
    w, stream = _workload()
    rec = simulation.simulate_twotier(w, procs=64, policy=replace(policy, bg_step="arrival-or-bg-departure"),
                                      rng=np.random.default_rng(stream)).records
    arrivals = set(rec["submit"])
    bg_ends = set(rec.loc[rec["finished_in"] == "bg", "end"])
    left_bg = set(rec.loc[rec["fg_start"].notna() & (rec["fg_start"] > rec["start"]), "fg_start"])
    into_bg = rec[rec["fg_start"].isna() | (rec["fg_start"] > rec["start"])]  # first started in the bg tier
    assert len(into_bg) > 20
    assert set(into_bg["start"]) <= arrivals | bg_ends | left_bg


def test_the_every_event_reading_fills_the_bg_tier_after_fg_departures_too_and_the_readings_differ():
    w, stream = _workload()
    runs = {step: simulation.simulate_twotier(w, procs=64, policy=replace(MEASY, bg_step=step),
                                              rng=np.random.default_rng(stream)).records
            for step in ("every-event", "arrival-or-bg-departure")}
    rec = runs["every-event"]
    arrivals, bg_ends = set(rec["submit"]), set(rec.loc[rec["finished_in"] == "bg", "end"])
    left_bg = set(rec.loc[rec["fg_start"].notna() & (rec["fg_start"] > rec["start"]), "fg_start"])
    into_bg = rec[rec["fg_start"].isna() | (rec["fg_start"] > rec["start"])]
    assert not set(into_bg["start"]) <= arrivals | bg_ends | left_bg  # the property above can fail
    assert not runs["every-event"]["end"].equals(runs["arrival-or-bg-departure"]["end"])


def test_an_unknown_bg_step_is_refused_naming_it():
    with pytest.raises(InvalidInput, match="bg_step must be one of"):
        replace(MEASY, bg_step="sometimes")
