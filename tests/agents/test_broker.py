"""The broker agent: workflows and reservations bought in a live market (Singh 2008, ch. 3-7)."""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gridmarket.agents import MarketModel, ProviderSpec
from gridmarket.agents.broker import BROKER_METHODS, WorkflowRequest
from gridmarket.agents.model import BrokerSpec
from gridmarket.errors import InvalidInput
from gridmarket.job import Job
from gridmarket.workflows import Network
from gridmarket.workflows.generators import layered_workflow
from gridmarket.workloads.workload import Workload

H = 3600


def chain(*runtimes, procs=2) -> nx.DiGraph:
    g = nx.DiGraph()
    for k, r in enumerate(runtimes):
        g.add_node(k, procs=procs, runtime=r)
        if k:
            g.add_edge(k - 1, k)
    return g


def market(jobs, method, *, workflows=(), reservations=None, procs=(8,), policy="conservative", rng=1,
           network=None, **kw):
    specs = [ProviderSpec(f"p{k}", n, policy) for k, n in enumerate(procs)]
    w = Workload(tuple(jobs), name="t")
    return MarketModel(specs, w, route="site", workflows=workflows, reservations=reservations,
                       broker=BrokerSpec(method, **kw), network=network, rng=rng)


def test_moga_buys_idle_slots_and_the_chain_runs_back_to_back():
    wf = WorkflowRequest(1, 100, 0, "p0", chain(H, 2 * H))
    r = market([Job(1, 0, 1, 60, 60, site="p0")], "moga", workflows=[wf], population=10, generations=3).run()
    tasks = r.records[r.records["kind"] == "task"].sort_values("start")
    assert tasks[["start", "end", "procs"]].values.tolist() == [[100, 100 + H, 2], [100 + H, 100 + 3 * H, 2]]
    assert r.workflows["makespan"].tolist() == [3 * H] and r.workflows["provisioned"].all()
    # advertised slots are at the base rate: 2 procs x 3 h = 6 SU (Singh ch. 3, c = 1, f = 0)
    assert r.workflows["cost"].tolist() == pytest.approx([6.0])
    assert r.messages["query"] == r.messages["advertise"] == 1 and r.messages["reserve"] == 2


def test_a_reserved_task_holds_its_processors_against_the_local_queue():
    # the workflow buys all 8 processors for 1 h from t = 10; a job arriving at 20 must wait for it
    wf = WorkflowRequest(1, 10, 0, "p0", chain(H, procs=8))
    jobs = [Job(1, 0, 1, 5, 5, site="p0"), Job(2, 20, 4, 600, 600, site="p0")]
    r = market(jobs, "greedy", workflows=[wf], policy="easy").run()
    job2 = r.records[r.records["job_id"] == 2].iloc[0]
    assert job2["start"] == 10 + H
    assert r.messages["quote"] >= 1 and r.messages["reserve"] == 1


def test_greedy_reservation_on_an_idle_machine_costs_the_base_rate_and_starts_on_time():
    job = Job(1, 0, 4, H, 2 * H, site="p0")
    r = market([job], "greedy", reservations={1: 3 * H}).run()
    (row,) = r.records.itertuples(index=False)
    assert (row.kind, row.start, row.end, row.cost) == ("reservation", 3 * H, 4 * H, 8.0)  # 4 x 2 h x 1 SU
    assert r.reservations[["success", "normalized_cost", "used"]].values.tolist() == [[True, 0.0, "reservation"]]


def test_var_submits_early_and_pays_the_idle_gap():
    # no history yet: every submission time has probability 0, so Fig. 33 submits at once (T1 = now)
    job = Job(1, 0, 2, H, H, site="p0")
    r = market([job], "var", reservations={1: 2 * H}).run()
    out = r.reservations.iloc[0]
    assert out["used"] == "var" and out["success"]
    assert out["normalized_cost"] == pytest.approx(2.0)  # idle 2 h before S over D = 1 h (ch. 6.3)
    (row,) = r.records.itertuples(index=False)
    assert (row.start, row.kind) == (0, "reservation")


def test_best_effort_reservation_fails_when_the_machine_is_busy_at_the_wanted_start():
    jobs = [Job(1, 0, 8, 3 * H, 3 * H, site="p0"), Job(2, 0, 2, H, H, site="p0")]
    r = market(jobs, "best-effort", reservations={2: H}).run()
    assert r.reservations["success"].tolist() == [False]
    assert r.records.loc[r.records["job_id"] == 2, "start"].item() == 3 * H


def test_combined_keeps_the_priced_reservation_and_withdraws_the_late_var_job():
    # job 1 holds 6 of 8 processors until 4 h; job 2 (8 procs) is planned at 4 h. A 2-proc reservation over
    # [3.5 h, 4.5 h) delays job 2 by 0.5 h: f > 0 (Fig. 22). The VAR job cannot start before S (the
    # reservation and job 1 leave it no room), so Fig. 45 keeps the reservation and withdraws the VAR job at S.
    S = 3 * H + H // 2
    jobs = [Job(1, 0, 6, 4 * H, 4 * H, site="p0"), Job(2, 1, 8, H, H, site="p0"), Job(3, 2, 2, H, H, site="p0")]
    r = market(jobs, "combined", reservations={3: S}).run()
    out = r.reservations.iloc[0]
    assert out["used"] == "reservation" and out["success"] and out["normalized_cost"] > 0
    assert sorted(r.records["job_id"]) == [1, 2, 3]  # the cancelled VAR job left no record
    starts = r.records.set_index("job_id")["start"]
    assert starts[3] == S and starts[2] == S + H
    assert r.records.set_index("job_id").loc[3, "kind"] == "reservation"
    assert "cancel" not in r.messages


def test_combined_keeps_the_var_job_when_its_idle_time_plus_penalty_is_below_the_price():
    # job 1 holds 6 of 8 processors until 2 h; job 2 (all 8, 4 h) is planned at 2 h. A 2-proc reservation
    # over [2 h, 3 h) delays job 2 by 1 h: f = 8 procs x 1 h = 8 SU (Fig. 22). The VAR job starts at once
    # (T2 = 2 s): idle 2 x (2 h - 2 s) = 4.0 SU, + p f = 0.8 <= 8, so Fig. 45 keeps VAR and cancels the reservation.
    jobs = [Job(1, 0, 6, 2 * H, 2 * H, site="p0"), Job(2, 1, 8, 4 * H, 4 * H, site="p0"),
            Job(3, 2, 2, H, H, site="p0")]
    r = market(jobs, "combined", reservations={3: 2 * H}).run()
    out = r.reservations.iloc[0]
    idle = 2 * (2 * H - 2) / H
    assert out["used"] == "var" and out["success"]
    assert out["normalized_cost"] == pytest.approx((idle + 0.1 * 8) / 2)
    assert r.messages["cancel"] == 1
    row = r.records.set_index("job_id").loc[3]
    assert row["start"] == 2 and row["cost"] == pytest.approx(idle + 2 + 0.8)
    assert r.records.set_index("job_id").loc[2, "start"] == 3 * H  # the VAR job holds its processors to 3 h


def test_combined_with_a_free_slot_uses_the_reservation_alone():
    r = market([Job(1, 0, 2, H, H, site="p0")], "combined", reservations={1: H}).run()
    assert r.reservations["used"].tolist() == ["reservation"]
    assert r.messages == {"submit": 1, "query": 1, "quote": 1, "reserve": 1}


@pytest.mark.parametrize("policy", ["psp", "psp-slurm"])
def test_a_psp_provider_sells_reservations_from_its_own_plan(policy):
    # PSP plans with its users' accuracies (gridmarket.pricing.forecast, policy_state); its reservations are sold
    jobs = [Job(1, 0, 8, 10, 100, site="p0", user=2), Job(2, 20, 8, H, H, site="p0", user=1),
            Job(3, 30, 2, H, H, site="p0", user=1)]
    r = market(jobs, "combined", policy=policy, reservations={3: 2 * H}).run()
    assert r.reservations["used"].tolist() == ["reservation"]
    assert r.records.set_index("job_id").loc[3, "start"] == 2 * H


def test_bad_broker_input_is_refused():
    with pytest.raises(InvalidInput, match="broker method"):
        BrokerSpec("auction")
    with pytest.raises(InvalidInput, match="reservations name jobs not in the workload"):
        market([Job(1, 0, 1, 5, 5, site="p0")], "var", reservations={7: 100})


# ----------------------------------------------------------------------------- invariants
@st.composite
def scenario(draw):
    n = draw(st.integers(1, 12))
    jobs = []
    for k in range(n):
        runtime = draw(st.integers(1, 3 * H))
        jobs.append(Job(k + 1, draw(st.integers(0, 4 * H)), draw(st.integers(1, 8)), runtime,
                        runtime + draw(st.integers(0, H)), user=k % 2, site=f"p{k % 2}"))
    jobs.sort(key=lambda j: (j.submit, j.id))
    picked = draw(st.lists(st.sampled_from([j.id for j in jobs]), unique=True, max_size=3))
    reservations = {i: next(j.submit for j in jobs if j.id == i) + draw(st.integers(0, 2 * H)) for i in picked}
    seed = draw(st.integers(0, 2**16))
    rng = np.random.default_rng(seed)
    workflows = [WorkflowRequest(k + 1, draw(st.integers(0, 4 * H)), k, f"p{k % 2}",
                                 layered_workflow(draw(st.integers(1, 6)), mean_runtime=1200, mean_procs=2, rng=rng))
                 for k in range(draw(st.integers(0, 2)))]
    for wf in workflows:
        for t in wf.graph:
            wf.graph.nodes[t]["procs"] = min(wf.graph.nodes[t]["procs"], 8)
    return jobs, reservations, workflows, draw(st.sampled_from(BROKER_METHODS)), draw(st.sampled_from(
        ["easy", "conservative"]))


def busy_ok(rows: pd.DataFrame, procs: int) -> bool:
    events = sorted([(s, p) for s, p in zip(rows["start"], rows["procs"])]
                    + [(e, -p) for e, p in zip(rows["end"], rows["procs"])], key=lambda x: (x[0], x[1]))
    level = 0
    for _, d in events:
        level += d
        if level > procs:
            return False
    return True


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenario())
def test_every_method_keeps_capacity_runs_every_job_once_and_finishes_every_workflow(case):
    jobs, reservations, workflows, method, policy = case
    r = market(jobs, method, workflows=workflows, reservations=reservations, procs=(8, 8), policy=policy,
               population=6, generations=2).run()
    rec = r.records
    for site in ("p0", "p1"):
        assert busy_ok(rec[rec["site"] == site], 8), f"{site} over capacity under {method}"
    users = rec[rec["kind"].isin(("job", "reservation"))]
    assert sorted(users["job_id"]) == sorted(j.id for j in jobs)
    assert (rec["start"] >= rec["submit"]).all() and (rec["end"] >= rec["start"]).all()
    for wf in workflows:
        row = r.workflows[r.workflows["workflow"] == wf.id].iloc[0]
        runtime = {t: wf.graph.nodes[t]["runtime"] for t in wf.graph}
        critical = max(sum(runtime[t] for t in path) for s in wf.graph if wf.graph.in_degree(s) == 0
                       for path in nx.all_simple_paths(wf.graph, s, [t for t in wf.graph
                                                                      if wf.graph.out_degree(t) == 0]))\
            if len(wf.graph) > 1 else max(runtime.values())
        assert row["makespan"] >= critical
    assert (r.workflows["cost"] > 0).all()  # bought plans and just-in-time tasks are both paid for
    ar = r.reservations
    assert len(ar) == len(reservations)
    started = rec.set_index("job_id")["start"]
    for job_id, wanted in reservations.items():
        success = bool(ar.loc[ar["job_id"] == job_id, "success"].item())
        if ar.loc[ar["job_id"] == job_id, "used"].item() in ("reservation", "best-effort"):
            assert success == (started[job_id] <= wanted)


def test_same_seed_same_market():
    rng = np.random.default_rng(5)
    wfs = [WorkflowRequest(1, 50, 0, "p0", layered_workflow(8, mean_runtime=900, mean_procs=3, rng=rng))]
    jobs = [Job(k, 10 * k, 1 + k % 4, 1000 + 90 * k, 2000 + 90 * k, site=f"p{k % 2}") for k in range(1, 20)]
    runs = [market(jobs, "moga", workflows=wfs, reservations={3: 4000}, procs=(8, 8), population=8,
                   generations=3, rng=11).run() for _ in range(2)]
    pd.testing.assert_frame_equal(runs[0].records, runs[1].records)
    assert runs[0].messages == runs[1].messages


def test_provisioned_workflows_finish_sooner_than_best_effort_on_a_loaded_grid():
    """Singh ch. 4.7 (Fig. 13) and ch. 7 (Fig. 52): provisioning beats just-in-time best effort under load."""
    from gridmarket.scenarios.config import with_overrides
    from gridmarket.scenarios.experiment import compare
    from gridmarket.scenarios.registry import get_scenario

    runs = {r.model: r.summary for r in compare(with_overrides(get_scenario("quickstart"),
                                                               {"models": ("best-effort", "moga", "greedy")}))}
    for model in ("moga", "greedy"):
        assert runs[model]["workflow_makespan"] < runs["best-effort"]["workflow_makespan"]
    assert not math.isnan(runs["moga"]["reservation_success"])


def test_metascheduler_logs_dispatches_per_site_and_cycle():
    from gridmarket.agents.metascheduler import MetaschedulerSpec
    from gridmarket.energy.prices import fixed_prices

    jobs = [Job(k, 10 * k, 2, 600, 600, site="p0") for k in range(1, 9)]
    specs = [ProviderSpec(f"p{k}", 8, prices=fixed_prices(40.0 + k, 48, zone=f"p{k}"), watts_per_proc=10.0)
             for k in range(2)]
    m = MarketModel(specs, Workload(tuple(jobs), name="t"),
                    route="site", metascheduler=MetaschedulerSpec("mcmf", 25.0, None, 600), rng=1)
    r = m.run()
    log = m.metascheduler.dispatch_log
    assert sum(n for _, _, n in log) == r.messages["dispatch"] == 8
    assert all(t % 600 == 0 for t, _, _ in log)


# ----------------------------------------------------------------------------- data transfers (ch. 4.9)
NET = Network(latency=150, bytes_per_second=10e9 / 8)  # the thesis's 10 Gb/s with 150 s latency


def two_site_chain(first_runtime, second_runtime, *, second_procs=2, data=125e9):
    g = nx.DiGraph()
    g.add_node("a", procs=2, runtime=first_runtime)
    g.add_node("b", procs=second_procs, runtime=second_runtime)
    g.add_edge("a", "b", data_bytes=data)  # 1000 Gb: 100 s at 10 Gb/s + 150 s latency
    return g


@pytest.mark.parametrize("network, gap", [(None, 0), (NET, 250)])
def test_just_in_time_child_on_another_provider_waits_for_its_data(network, gap):
    # home p0 has 4 processors; b needs 8, so it runs on p1 and its input crosses the network
    wf = WorkflowRequest(1, 0, 0, "p0", two_site_chain(H, H, second_procs=8))
    r = market([], "best-effort", workflows=[wf], procs=(4, 8), network=network).run()
    tasks = r.records[r.records["kind"] == "task"].set_index("site")
    assert tasks.loc["p0", "end"] == H and tasks.loc["p1", "start"] == H + gap
    assert r.workflows["makespan"].tolist() == [2 * H + gap]


@pytest.mark.parametrize("method", ["greedy", "moga"])
@pytest.mark.parametrize("network, gap", [(None, 0), (NET, 250)])
def test_provisioned_plan_leaves_room_for_the_transfer(method, network, gap):
    # a runs only on p0 and b only on p1: the plan must put b's start after a's end plus the transfer
    wf = WorkflowRequest(1, 0, 0, "p0", two_site_chain({"p0": H}, {"p1": H}))
    r = market([], method, workflows=[wf], procs=(8, 8), network=network, population=10, generations=3).run()
    assert r.workflows["provisioned"].all()
    tasks = r.records[r.records["kind"] == "task"].set_index("site")
    assert tasks.loc["p1", "start"] >= tasks.loc["p0", "end"] + gap
    if method == "greedy":  # task by task at the earliest quote: exactly the transfer apart
        assert tasks.loc["p1", "start"] == tasks.loc["p0", "end"] + gap


def test_virtual_entry_and_exit_tasks_move_no_data():
    # entry and exit have no runtime and no processors (ch. 4.1); only a -> b crosses providers
    g = two_site_chain(H, H, second_procs=8)
    g.add_node("entry", runtime=0)
    g.add_node("exit", runtime={"p0": 0, "p1": 0})
    g.add_edge("entry", "a", data_bytes=1e12)
    g.add_edge("b", "exit", data_bytes=1e12)
    wf = WorkflowRequest(1, 0, 0, "p0", g)
    r = market([], "best-effort", workflows=[wf], procs=(4, 8), network=NET).run()
    assert sorted(r.records.loc[r.records["kind"] == "task", "start"]) == [0, H + 250]
    assert r.workflows["makespan"].tolist() == [2 * H + 250]


def test_a_task_goes_to_a_site_where_it_has_a_runtime_and_one_with_none_is_refused():
    # ch. 4.9 chooses among the resources that can run the task: a runs on p1 although p0 is home
    wf = WorkflowRequest(1, 0, 0, "p0", two_site_chain({"p1": H}, H))
    r = market([], "best-effort", workflows=[wf], procs=(8, 8)).run()
    tasks = r.records[r.records["kind"] == "task"].sort_values("start")
    assert tasks["site"].tolist()[0] == "p1"
    wf = WorkflowRequest(1, 0, 0, "p0", two_site_chain({"elsewhere": H}, H))
    with pytest.raises(InvalidInput, match=r"workflow 1: task 'a' cannot run on any of the resources \['p0', 'p1'\]"):
        market([], "best-effort", workflows=[wf], procs=(8, 8)).run()


@pytest.mark.parametrize("method", ["greedy", "combined"])
def test_a_reservation_ends_with_its_job_and_the_queue_moves_up(method):
    # job 1 reserves 8 processors over [H, 3 H) but runs 10 minutes; job 2 (all 8, queued at H + 60) starts
    # when job 1 ends instead of waiting out the unused reservation (n·D is still what job 1 paid)
    jobs = [Job(1, 0, 8, 600, 2 * H, site="p0"), Job(2, H + 60, 8, 600, 600, site="p0")]
    r = market(jobs, method, reservations={1: H}).run()
    starts = r.records.set_index("job_id")["start"]
    assert starts[1] == H and starts[2] == H + 600
    assert r.reservations["used"].tolist() == ["reservation"] and r.reservations["success"].all()
    assert r.records.set_index("job_id").loc[1, "cost"] == pytest.approx(16.0)  # 8 procs x 2 h, f = 0


def _fan_out():
    g = nx.DiGraph([("a", "b"), ("a", "c"), ("a", "d")])
    g.add_node("a", procs=1, runtime=H)
    for t, runtime in (("b", 2 * H), ("c", 2 * H), ("d", H)):
        g.add_node(t, procs=3, runtime=runtime)
    return g


def _one_task():
    g = nx.DiGraph()
    g.add_node("a", procs=2, runtime=H)
    return g


@pytest.mark.parametrize("graph, background, submit, expected", [
    # a (1 proc) then b, c, d (3 procs each) on two idle 4-processor providers (Singh 2008, ch. 4.9): a goes
    # to p0 (a tie: the first site, the user's home); at a's end b goes to p0, c to p1 (p0 holds b), d to p0
    # (one task each, a tie) where it waits for b. Both paths once put all four on p0: run_best_effort did not
    # count a task submitted an instant before, so b, c and d all saw p0 empty.
    (_fan_out, [], 0, [("p0", 0, H), ("p0", H, 3 * H), ("p0", 3 * H, 4 * H), ("p1", H, 3 * H)]),
    # home p0 runs a background job over [0, 2 h): the task goes to idle p1 at once. The broker once sent
    # it home (start at 2 h) while run_best_effort sent it to p1: two best efforts on one input.
    (_one_task, [Job(1, 0, 4, 2 * H, 2 * H, site="p0")], 10, [("p1", 10, 10 + H)]),
])
def test_the_broker_and_run_best_effort_run_one_just_in_time_rule(graph, background, submit, expected):
    from gridmarket.provisioning import run_best_effort
    from gridmarket.scheduling import make_scheduler
    from gridmarket.simulation import MachineSimulation

    g = graph()
    r = market(background, "best-effort", workflows=[WorkflowRequest(1, submit, 0, "p0", g)], procs=(4, 4)).run()
    tasks = r.records[r.records["kind"] == "task"]
    by_broker = sorted(zip(tasks["site"], tasks["start"], tasks["end"]))
    sims = {name: MachineSimulation(make_scheduler("conservative", 4), [j for j in background if j.site == name])
            for name in ("p0", "p1")}
    run = run_best_effort(g, sims, release=submit)
    by_function = sorted((p.resource, p.start, p.end) for p in run.placements.values())
    assert by_broker == by_function == expected
