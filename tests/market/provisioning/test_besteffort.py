"""Best-effort just-in-time execution (Singh 2008, ch. 4.7, eq. 16; multi-site choice of ch. 4.9)."""

import networkx as nx
import numpy as np
import pytest

from gridmarket.errors import InvalidInput
from gridmarket.job import Job
from gridmarket.provisioning.besteffort import best_effort_cost, run_best_effort, submit_job
from gridmarket.scheduling import make_scheduler
from gridmarket.simulation import MachineSimulation
from gridmarket.workflows import Network, add_entry_exit, layered_workflow


def chain(*tasks):
    g = nx.DiGraph()
    for i, (procs, runtime) in enumerate(tasks):
        g.add_node(i, procs=procs, runtime=runtime)
        if i:
            g.add_edge(i - 1, i, data_bytes=0)
    return g


def sim(procs, jobs=(), policy="conservative"):
    return MachineSimulation(make_scheduler(policy, procs), list(jobs))


def test_tasks_queue_behind_background_jobs_submitted_before_them():
    # background: job 1 holds all 4 processors over [0, 100); job 2 (4 procs, 100 s) arrives at 120.
    # a (2 procs, 50 s) is submitted at 0, waits to 100, ends 150; b (4 procs, 50 s) is submitted at 150,
    # behind job 2 (150-250): b runs 250-300. Makespan 300, cost (2*50 + 4*50)/3600 SU.
    site = sim(4, [Job(1, 0, 4, 100, 100), Job(2, 120, 4, 100, 100)])
    run = run_best_effort(chain((2, 50), (4, 50)), {"m": site}, release=0)
    assert [(p.start, p.end) for p in run.placements.values()] == [(100, 150), (250, 300)]
    assert run.submit == {0: 0, 1: 150}
    assert run.makespan == 300 and run.allocation_cost == pytest.approx(300 / 3600)
    assert run.total_wait == 100 + 100
    assert site.end[2] == 250  # the background job ran as it would have


def test_children_are_submitted_in_rank_order_when_they_become_ready():
    g = nx.DiGraph([("a", "long"), ("a", "short")])
    g.add_node("a", procs=1, runtime=10)
    g.add_node("long", procs=2, runtime=100)
    g.add_node("short", procs=2, runtime=5)
    run = run_best_effort(g, {"m": sim(2, policy="fcfs")}, release=0)
    # both ready at 10; "long" has the higher rank so it is queued first and runs first
    assert run.placements["long"].start == 10 and run.placements["short"].start == 110
    assert run.job_ids["long"] < run.job_ids["short"]


def test_makespan_counts_from_the_first_submission():
    g = nx.DiGraph()
    g.add_node("a", procs=1, runtime=30)
    g.add_node("b", procs=1, runtime=40)
    run = run_best_effort(add_entry_exit(g), {"m": sim(1)}, release=500)
    # rank order: b (40 s) before a (30 s) on one processor
    assert run.placements["b"].start == 500 and run.placements["a"].start == 540
    assert run.makespan == 70 and run.placements["__exit__"].start == 570


def test_ready_tasks_go_to_the_least_loaded_site_and_wait_for_their_data():
    g = nx.DiGraph([("a", "b"), ("a", "c")])
    for t in "abc":
        g.add_node(t, procs=1, runtime=100)
    nx.set_edge_attributes(g, 10**6, "data_bytes")
    busy = sim(1, [Job(1, 0, 1, 1000, 1000), Job(2, 0, 1, 1000, 1000)])
    idle = sim(1)
    run = run_best_effort(g, {"busy": busy, "idle": idle}, release=1,
                          network=Network(latency=20, bytes_per_second=10**5))
    a, b, c = (run.placements[t] for t in "abc")
    assert a.resource == "idle" and (a.start, a.end) == (1, 101)
    # b and c are ready at 101; the first goes to idle (load 0 < 2), the second to idle too
    # (idle has 1 queued task, busy 2), so both stay local and pay no transfer
    assert {b.resource, c.resource} == {"idle"}
    assert sorted([b.start, c.start]) == [101, 201]


def test_a_task_sent_to_another_site_is_submitted_when_its_data_arrives():
    g = nx.DiGraph([("a", "b")])
    g.add_node("a", procs=1, runtime={"x": 100})
    g.add_node("b", procs=1, runtime={"y": 50})
    g.edges["a", "b"]["data_bytes"] = 10**6
    run = run_best_effort(g, {"x": sim(1), "y": sim(1)}, release=0,
                          network=Network(latency=20, bytes_per_second=10**5))
    assert run.submit["b"] == 100 + 20 + 10 and run.placements["b"].resource == "y"


def test_allocation_cost_is_eq_16_and_constant():
    g = layered_workflow(30, mean_procs=3, rng=np.random.default_rng(0))
    expected = sum(a["procs"] * a["runtime"] for _, a in g.nodes(data=True)) / 3600
    assert best_effort_cost(g) == pytest.approx(expected)
    jobs = [Job(i, 50 * i, 1 + i % 8, 400, 400) for i in range(1, 60)]
    run = run_best_effort(g, {"m": sim(8, jobs)}, release=100)
    assert run.allocation_cost == pytest.approx(expected)
    for u, v in g.edges:  # no task is submitted before its parents finish
        assert run.submit[v] >= run.placements[u].end


def test_bad_input():
    g = chain((8, 10))
    with pytest.raises(InvalidInput, match=r"task 0 \(8 processors\) can run on no site \(largest machine: 4"):
        run_best_effort(g, {"m": sim(4)}, release=0)
    with pytest.raises(InvalidInput, match="at least one site"):
        run_best_effort(g, {}, release=0)
    s = sim(8, [Job(1, 0, 1, 10, 10)])
    s.run_until(100)
    with pytest.raises(InvalidInput, match="before site 'm'"):
        run_best_effort(g, {"m": s}, release=50)
    with pytest.raises(InvalidInput, match="before"):
        submit_job(s, Job(5, 20, 1, 1, 1))
