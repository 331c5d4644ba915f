"""Batsim jobs.csv export: processor assignment and evalys can read it."""

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gridmarket.batsim import (
    assign_processors,
    companion_path,
    consumed_energy,
    machine_states,
    to_batsim_jobs,
    write_batsim_csv,
)
from gridmarket.errors import InvalidInput
from gridmarket.job import Job
from gridmarket.simulation import simulate

from .scheduling.strategies import machines_and_jobs


def _expand(interval_set: str) -> set[int]:
    ids = set()
    for part in interval_set.split():
        lo, _, hi = part.partition("-")
        ids.update(range(int(lo), int(hi or lo) + 1))
    return ids


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_assigned_processors_are_disjoint_while_jobs_overlap(data):
    procs, jobs = data.draw(machines_and_jobs())
    rec = simulate(jobs, procs=procs, policy="easy").records
    sets = [_expand(s) for s in assign_processors(rec, procs)]
    for i, a in enumerate(sets):
        assert len(a) == rec["procs"].iloc[i] and max(a) < procs
        for j in range(i):
            overlap = rec["start"].iloc[i] < rec["end"].iloc[j] and rec["start"].iloc[j] < rec["end"].iloc[i]
            if overlap:
                assert not a & sets[j]


def test_overfull_records_are_refused():
    df = pd.DataFrame({"start": [0, 0], "end": [5, 5], "procs": [2, 2]})
    with pytest.raises(InvalidInput, match="row 1: 2 processors needed at t=0 but only 1 free"):
        assign_processors(df, 3)


def test_evalys_reads_the_export(tmp_path):
    evalys_jobset = pytest.importorskip("evalys.jobset")
    jobs = [Job(1, 0, 2, 10, 10), Job(2, 0, 2, 5, 3), Job(3, 4, 4, 6, 6)]
    result = simulate(jobs, procs=4, policy="easy")
    frame = to_batsim_jobs(result.records, 4)
    assert frame["final_state"].tolist() == ["COMPLETED_SUCCESSFULLY", "COMPLETED_WALLTIME_REACHED",
                                              "COMPLETED_SUCCESSFULLY"]
    path = tmp_path / "jobs.csv"
    frame.to_csv(path, index=False)
    js = evalys_jobset.JobSet.from_csv(str(path))
    assert len(js.df) == 3
    assert {int(k): v for k, v in js.df.set_index("jobID")["starting_time"].items()} == {1: 0, 2: 0, 3: 10}
    assert js.df["allocated_resources"].astype(str).tolist() == ["0-1", "2-3", "0-3"]
    assert js.MaxProcs == 4


def _sample_run():
    from pathlib import Path

    from gridmarket.workloads import read_trace

    sample = Path(__file__).resolve().parents[2] / "docs" / "examples" / "batsim-workload.json"
    return simulate(read_trace(sample), procs=4, policy="fcfs").records


def test_machine_states_count_the_processors_computing_after_each_instant():
    """The sample under FCFS: 1 (2 procs) 0-10, 2 (4) 10-15, 3, 4, 5 (1+2+1) from 15, 3 and 5 end at 18, 4 at 23."""
    states = machine_states(_sample_run(), 4)
    assert list(states.columns) == ["time", "nb_sleeping", "nb_switching_on", "nb_switching_off", "nb_idle",
                                    "nb_computing"]
    assert states[["time", "nb_computing"]].values.tolist() == [[0, 2], [10, 4], [15, 4], [18, 2], [23, 0]]
    assert (states.drop(columns="time").sum(axis=1) == 4).all()
    assert states[["nb_sleeping", "nb_switching_on", "nb_switching_off"]].eq(0).all().all()


def test_machine_states_of_an_empty_machine_is_one_idle_row_and_overfull_records_are_refused():
    empty = pd.DataFrame({"start": [], "end": [], "procs": []}, dtype="int64")
    assert machine_states(empty, 8).values.tolist() == [[0, 0, 0, 0, 8, 0]]
    with pytest.raises(InvalidInput, match="5 processors busy at t=2 on a machine of 4"):
        machine_states(pd.DataFrame({"start": [0, 2], "end": [5, 5], "procs": [3, 2]}), 4)


def test_consumed_energy_is_the_busy_processor_seconds_times_the_power_at_each_event():
    """By hand at 20 W: 2 procs x 10 s = 400 J at 10; 4 x 5 more = 800 at 15; 4 x 3 more = 1040 at 18;
    2 x 5 more = 1240 at 23, the sum of the jobs' consumed_energy."""
    rec = _sample_run()
    energy = consumed_energy(rec, 20.0)
    assert list(energy.columns) == ["time", "energy", "event_type", "wattmin", "epower"]
    assert energy[["time", "event_type"]].values.tolist() == [
        [0, "s"], [10, "e"], [10, "s"], [15, "e"], [15, "s"], [15, "s"], [15, "s"], [18, "e"], [18, "e"], [23, "e"]]
    assert energy.groupby("time")["energy"].last().to_dict() == {0: 0, 10: 400, 15: 800, 18: 1040, 23: 1240}
    assert energy["energy"].iloc[-1] == to_batsim_jobs(rec, 4, watts_per_proc=20.0)["consumed_energy"].sum()
    epower = energy["epower"].tolist()
    assert epower[1] == 40.0 and epower[3] == 80.0 and epower[-1] == 40.0  # (400-0)/10, (800-400)/5, 200/5
    assert energy["epower"].isna().tolist() == [True, False, True, False, True, True, True, False, True, False]


def test_companion_files_are_named_by_batsims_prefix_rule(tmp_path):
    assert companion_path(tmp_path / "jobs.csv", "machine_states.csv") == tmp_path / "machine_states.csv"
    assert companion_path(tmp_path / "a_jobs.csv", "consumed_energy.csv") == tmp_path / "a_consumed_energy.csv"
    assert companion_path(tmp_path / "s.csv", "machine_states.csv") == tmp_path / "s_machine_states.csv"


def test_evalys_reads_jobs_and_machine_states_and_its_utilisation_is_our_computing_count(tmp_path):
    """evalys's own utilisation of our jobs.csv, step by step, is the nb_computing column we write."""
    evalys_jobset = pytest.importorskip("evalys.jobset")
    evalys_mstates = pytest.importorskip("evalys.mstates")
    rec = _sample_run()
    write_batsim_csv(to_batsim_jobs(rec, 4, watts_per_proc=20.0), tmp_path / "jobs.csv")
    write_batsim_csv(machine_states(rec, 4), tmp_path / "machine_states.csv")
    write_batsim_csv(consumed_energy(rec, 20.0), tmp_path / "consumed_energy.csv")
    js = evalys_jobset.JobSet.from_csv(str(tmp_path / "jobs.csv"))
    states = evalys_mstates.MachineStatesChanges(str(tmp_path / "machine_states.csv")).df
    assert states["total"].unique().tolist() == [4]  # evalys's check: every row counts every host
    ours = states.set_index("time")["nb_computing"]
    load = js.utilisation["load"]
    assert load.to_dict() == ours.to_dict()
    # evalys averages the processors in use over the run (23 s), not a fraction of the machine
    assert js.mean_utilisation() == pytest.approx((rec["procs"] * (rec["end"] - rec["start"])).sum() / 23)
    energy = pd.read_csv(tmp_path / "consumed_energy.csv")
    assert energy["epower"].isna().sum() == 6 and energy["energy"].iloc[-1] == js.df["consumed_energy"].sum()
