"""Real Parallel Workloads Archive traces through every policy (when $GRIDMARKET_DATA or the cache holds them; else skipped)."""

import pytest

from gridmarket.scheduling import POLICIES
from gridmarket.simulation import simulate
from gridmarket.workloads import read_swf


@pytest.mark.slow
@pytest.mark.parametrize("policy", sorted(POLICIES))
@pytest.mark.data("traces/KTH-SP2-1996-2.1-cln.swf.gz")
def test_kth_trace_runs_end_to_end_with_a_sane_summary(data_dir, policy):
    workload = read_swf(data_dir / "traces" / "KTH-SP2-1996-2.1-cln.swf.gz")
    if policy in ("conservative", "slots"):  # keep CI short: the first 5000 jobs
        workload = type(workload)(workload.jobs[:5000], workload.max_procs, workload.name)
    result = simulate(workload, policy=policy)
    s = result.summary
    assert s["jobs"] + s["dropped"] - workload.n_dropped == len(workload.jobs)
    assert 0 < s["utilization"] <= 1
    assert s["mean_wait"] >= 0 and s["mean_bsld"] >= 1
    rec = result.records
    assert (rec["start"] >= rec["submit"]).all() and rec["job_id"].is_unique


@pytest.mark.slow
@pytest.mark.data("traces/KTH-SP2-1996-2.1-cln.swf.gz")
def test_every_trace_reads_and_its_first_jobs_simulate(data_dir):
    for path in sorted((data_dir / "traces").glob("*.swf*")):
        workload = read_swf(path)
        head = type(workload)(workload.jobs[:2000], workload.max_procs, workload.name)
        procs = workload.max_procs or max(j.procs for j in head.jobs)
        s = simulate(head, procs=procs, policy="easy").summary
        assert 0 < s["utilization"] <= 1, path.name
        assert s["jobs"] + s["dropped"] == 2000, path.name
