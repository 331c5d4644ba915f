"""Batsim jobs.csv export: processor assignment and evalys can read it."""

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gridmarket.batsim import assign_processors, to_batsim_jobs
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
