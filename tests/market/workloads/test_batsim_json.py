"""Batsim JSON workloads read as a trace: the job mapping, the one-line errors, and a hand-checked FCFS schedule."""

import json
import warnings
from pathlib import Path

import pytest

from gridmarket.errors import InvalidInput
from gridmarket.simulation import simulate
from gridmarket.workloads import DroppedJobsWarning, read_batsim_workload, read_trace

SAMPLE = Path(__file__).resolve().parents[3] / "docs" / "examples" / "batsim-workload.json"


def _write(tmp_path, doc, name="w.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return path


def _doc(**job):
    base = {"id": 1, "subtime": 0, "res": 1, "profile": "d"}
    return {"nb_res": 4, "jobs": [{**base, **job}], "profiles": {"d": {"type": "delay", "delay": 10}}}


def test_sample_maps_res_delay_walltime_and_rounds_times():
    w = read_batsim_workload(SAMPLE)
    assert [(j.id, j.submit, j.procs, j.runtime, j.estimate) for j in w.jobs] == [
        (1, 0, 2, 10, 20), (2, 1, 4, 5, 10), (3, 2, 1, 3, 3), (4, 3, 2, 30, 8), (5, 5, 1, 3, 3)]
    assert w.max_procs == 4 and w.name == "batsim-workload.json"
    assert w.header["gridmarket.estimates_filled"] == "2"  # job 3 has no walltime, job 5 has -1


def test_fcfs_schedule_of_the_sample_is_the_hand_computed_one():
    """4 processors, FCFS: 1 runs 0-10; 2 (all 4) waits for it, 10-15; 3, 4 and 5 (1+2+1 = 4) start at 15;
    4 is killed at its 8 s walltime (23) although its delay is 30; 3 and 5 end at 18."""
    rec = simulate(read_trace(SAMPLE), procs=4, policy="fcfs").records.set_index("job_id")
    assert rec[["start", "end"]].to_dict("index") == {
        1: {"start": 0, "end": 10}, 2: {"start": 10, "end": 15}, 3: {"start": 15, "end": 18},
        4: {"start": 15, "end": 23}, 5: {"start": 15, "end": 18}}
    assert rec.loc[4, "outcome"] == "killed" and (rec.drop(index=4)["outcome"] == "completed").all()


def test_submits_are_rebased_and_ids_that_are_not_numbers_are_renumbered_in_file_order(tmp_path):
    doc = _doc(subtime=1000.4)
    doc["jobs"] = [{**doc["jobs"][0], "id": "w!b", "subtime": 1003}, {**doc["jobs"][0], "id": "w!a"}]
    w = read_trace(_write(tmp_path, doc))
    assert [(j.id, j.submit) for j in w.jobs] == [(2, 0), (1, 3)]
    assert w.header["gridmarket.submit_offset"] == "1000" and w.header["gridmarket.ids_renumbered"] == "2"


def test_a_zero_delay_job_is_dropped_and_counted(tmp_path):
    doc = _doc()
    doc["jobs"].append({"id": 2, "subtime": 5, "res": 1, "profile": "zero"})
    doc["profiles"]["zero"] = {"type": "delay", "delay": 0}
    with pytest.warns(DroppedJobsWarning, match="dropped 1 of 2 jobs"):
        w = read_batsim_workload(_write(tmp_path, doc))
    assert [j.id for j in w.jobs] == [1] and w.dropped == {"runtime unknown or zero": 1}


def test_gzip_workload_is_read_directly(tmp_path):
    import gzip

    path = tmp_path / "w.json.gz"
    path.write_bytes(gzip.compress(SAMPLE.read_bytes()))
    assert read_trace(path).jobs == read_batsim_workload(SAMPLE).jobs


@pytest.mark.parametrize(("change", "message"), [
    (lambda d: d["profiles"].update(d={"type": "parallel_homogeneous", "cpu": 1e9, "com": 0}),
     r"w.json: profiles.d: profile type 'parallel_homogeneous' cannot be read; gridmarket reads delay profiles"),
    (lambda d: d["profiles"].update(d={"type": "delay", "delay": -5}),
     r"w.json: profiles.d.delay must be a number in \[0, 3155760000\] s, got -5$"),
    (lambda d: d["profiles"].update(d={"type": "delay"}), r"w.json: profiles.d: missing field 'delay'$"),
    (lambda d: d["profiles"].update(d={"delay": 3}), r"w.json: profiles.d: missing field 'type'$"),
    (lambda d: d["jobs"][0].pop("res"), r"w.json: jobs\[0\] \(id 1\): missing field 'res'$"),
    (lambda d: d["jobs"][0].pop("id"), r"w.json: jobs\[0\]: missing field 'id'$"),
    (lambda d: d["jobs"][0].update(res=0), r"w.json: jobs\[0\] \(id 1\): res must be an int in \[1, 16777216\]"),
    (lambda d: d["jobs"][0].update(subtime=-1), r"jobs\[0\] \(id 1\): subtime must be a number in \[0, "),
    (lambda d: d["jobs"][0].update(walltime=-2), r"jobs\[0\] \(id 1\): walltime must be a number in \[0, "),
    (lambda d: d["jobs"][0].update(walltime=0), r"jobs\[0\] \(id 1\): walltime must be > 0 s, or -1 for none"),
    (lambda d: d["jobs"][0].update(profile="nope"), r"jobs\[0\] \(id 1\): profile 'nope' is not one of"),
    (lambda d: d["jobs"].append(dict(d["jobs"][0])), r"w.json: jobs\[1\]: id 1 already given to jobs\[0\]$"),
    (lambda d: d["jobs"].append({**d["jobs"][0], "id": "1"}), r"jobs\[1\]: id '1' is job number 1, as jobs\[0\] is"),
    (lambda d: d.pop("profiles"), r"w.json: missing field 'profiles'$"),
    (lambda d: d.update(jobs=[]), r"w.json: no jobs"),
    (lambda d: d.update(nb_res=0), r"w.json: nb_res must be an int in \[1, "),
])
def test_bad_workloads_are_refused_in_one_line_naming_the_field(tmp_path, change, message):
    doc = _doc()
    change(doc)
    with pytest.raises(InvalidInput, match=message) as info, warnings.catch_warnings():
        warnings.simplefilter("error")
        read_batsim_workload(_write(tmp_path, doc))
    assert "\n" not in str(info.value)


def test_a_repeated_key_is_refused_by_the_shared_json_rules(tmp_path):
    path = tmp_path / "w.json"
    path.write_text('{"jobs": [], "jobs": [], "profiles": {}}')
    with pytest.raises(InvalidInput, match=r"w.json:1: key 'jobs' appears twice in one object"):
        read_trace(path)
