"""A PSP provider prices and advertises its own plan (any registered local policy can be priced).

PSP (Rocchetti et al., Sec. 4) orders its queue by each user's estimate accuracy over the last ten
ended jobs: a plan of its queue needs that history, which the provider state now carries as
``policy_state`` (``LocalScheduler.planning_state`` / ``for_planning``). Over the plan every user
keeps the class it has at the planning instant (``FrozenAccuracies``): a job that has not ended has
no known accuracy. The oracle below is the live scheduler itself, continued with the remaining jobs
running their estimates and its book frozen at the same instant -- not the forward run.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gridmarket.errors import InvalidInput
from gridmarket.job import Job
from gridmarket.pricing import ProviderPlan, ProviderState, RunningJob, forecast, read_state, state_from_scheduler
from gridmarket.pricing.state import state_from_dict, state_to_dict
from gridmarket.scheduling import PSPScheduler, SlurmPSPScheduler
from gridmarket.scheduling.psp import FrozenAccuracies
from gridmarket.simulation import MachineSimulation


def _queue_fig() -> ProviderState:
    """4 processors, 3 busy until 100 (user 9). Queued: job 2 (user 2, 4 x 10 s, submit 1), job 3 (user 1, 4 x 10 s, submit 2)."""
    return ProviderState(5, 4, running=(RunningJob(1, 3, 0, 100, user=9),),
                         queue=(Job(2, 1, 4, 10, 10, user=2), Job(3, 2, 4, 10, 10, user=1)))


def test_a_penalised_user_waits_behind_an_accurate_one_in_the_plan_and_in_its_price():
    state = _queue_fig()
    assert forecast(state, "easy") == {2: 100, 3: 110}  # arrival order
    assert forecast(state, "psp") == {2: 100, 3: 110}  # no history: every user at the default class 5
    penalised = ProviderState(**{**_as_kwargs(state), "policy_state": {"accuracy": {2: 0.1}}})
    assert forecast(penalised, "psp") == {2: 110, 3: 100}  # user 2 in class 1 (Table 1): job 3 first
    assert forecast(penalised, "psp-slurm") == {2: 110, 3: 100}
    # a 4-processor slot over [100, 150) delays both jobs by 50 s: 4 x 50 x 2 processor-seconds
    plan = ProviderPlan(penalised, "psp")
    assert plan.price(100, 4, 50).fixed_cost == pytest.approx(400 / 3600)
    assert plan.reserve(100, 4, 50) and plan.planned == {2: 160, 3: 150}


def _as_kwargs(state: ProviderState) -> dict:
    return {"now": state.now, "procs": state.procs, "running": state.running, "queue": state.queue,
            "reservations": state.reservations}


@st.composite
def psp_runs(draw, policy):
    """A live PSP machine stopped at ``now``: a history whose jobs all ended by then (runtimes below their
    estimates, so users fall into different classes), then jobs running their estimates."""
    procs = draw(st.integers(1, 6))
    users = st.integers(0, 3)
    history, t = [], 0
    for i in range(draw(st.integers(1, 15))):
        t += draw(st.integers(0, 20))
        estimate = draw(st.integers(2, 100))
        history.append(Job(i, t, draw(st.integers(1, procs)), draw(st.integers(1, estimate)), estimate,
                           user=draw(users)))
    pre = MachineSimulation(_scheduler(policy, procs), list(history))
    pre.run_until(None)
    t = max(pre.end.values())  # every history job has ended: the accuracies are known
    later = []
    for i in range(draw(st.integers(1, 15))):
        t += draw(st.integers(0, 20))
        estimate = draw(st.integers(1, 100))
        later.append(Job(100 + i, t, draw(st.integers(1, procs)), estimate, estimate, user=draw(users)))
    now = draw(st.integers(later[0].submit, t + 10))
    return procs, history + later, now


def _scheduler(policy, procs):
    return PSPScheduler(procs) if policy == "psp" else SlurmPSPScheduler(procs)


@pytest.mark.parametrize("policy", ["psp", "psp-slurm"])
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_a_live_psp_providers_plan_is_what_it_does_next_with_its_classes_held(policy, data):
    procs, jobs, now = data.draw(psp_runs(policy))
    live = MachineSimulation(_scheduler(policy, procs), [j for j in jobs if j.submit <= now])
    live.run_until(now)
    sched = live.scheduler
    plan = ProviderPlan.from_scheduler(sched, now)
    assert plan.policy == policy and plan.state.policy_state == sched.planning_state()
    queued = [job.id for job in sched.queue]
    # the oracle: the same scheduler run on (no more arrivals, the rest run their estimates) with
    # its users' classes held from now on -- what the plan assumes
    book = sched.accuracies
    sched.accuracies = FrozenAccuracies(book.current(), default_accuracy=book.default_accuracy)
    live.run_until(None)
    assert plan.planned == {q: live.start[q] for q in queued}


def test_a_psp_state_survives_state_json_and_prices_the_same(tmp_path):
    live = MachineSimulation(SlurmPSPScheduler(4), [Job(1, 0, 2, 10, 100, user=2), Job(2, 0, 2, 500, 500, user=1),
                                                    Job(3, 20, 4, 60, 60, user=2), Job(4, 30, 4, 60, 60, user=1)])
    live.run_until(40)
    state = state_from_scheduler(live.scheduler, 40)
    assert state.policy_state["accuracy"] == {2: 0.1} and state.running[0].user == 1
    path = tmp_path / "state.json"
    path.write_text(json.dumps(state_to_dict(state)))
    again = read_state(path)
    assert again.policy_state["accuracy"] == {"2": 0.1}  # JSON's keys are strings; read as user ids
    assert forecast(again, "psp-slurm") == forecast(state, "psp-slurm") == {4: 500, 3: 560}
    assert ProviderPlan(again, "psp-slurm").price(500, 4, 60).fixed_cost == ProviderPlan(state, "psp-slurm").price(
        500, 4, 60).fixed_cost == pytest.approx(2 * 4 * 60 / 3600)


@pytest.mark.parametrize(("change", "message"), [
    ({"policy_state": {"acuracy": {}}}, r"policy_state of psp: unknown key 'acuracy' \(known: accuracy, default_accuracy\)"),
    ({"policy_state": {"accuracy": {"2": 1.5}}}, r"policy_state of psp: accuracy\['2'\] must be a number in \[0, 1\], got 1.5"),
    ({"policy_state": {"accuracy": {"x": 0.5}}}, r"policy_state of psp: accuracy: user 'x' is not an integer id"),
    ({"policy_state": [1]}, r"policy_state must be an object, got list"),
    ({"queued": [{"id": 3, "submit": 0, "procs": 1, "estimate": 9}]}, r"missing users for PSP: job 3 has user -1"),
    ({"queued": [{"id": 3, "submit": 0, "procs": 1, "estimate": 9, "user": -4}]}, r"queued\[0\]\.user must be an int >= 0"),
])
def test_a_bad_psp_state_is_one_line_naming_the_file_and_field(tmp_path, capsys, change, message):
    from gridmarket.scenarios.commands.quote import main

    data = {"now": 0, "procs": 4, "running": [{"id": 1, "procs": 1, "start": 0, "end": 50, "user": 7}],
            "queued": [{"id": 3, "submit": 0, "procs": 1, "estimate": 9, "user": 2}], **change}
    path = tmp_path / "state.json"
    path.write_text(json.dumps(data))
    assert main(["quote", "--state", str(path), "--policy", "psp", "--procs", "1", "--duration", "5"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and str(path) in err and __import__("re").search(message, err), err


def test_a_policy_state_under_a_policy_that_keeps_none_is_refused_and_dropped_for_another_policy():
    state = state_from_dict({"now": 0, "procs": 2, "queued": [{"id": 1, "submit": 0, "procs": 1, "estimate": 5}],
                             "policy_state": {"accuracy": {}}})
    for policy in ("conservative", "easy"):
        with pytest.raises(InvalidInput, match=f"policy '{policy}' keeps no planning state"):
            forecast(state, policy)
    # a live PSP machine priced as if it ran EASY: its users' accuracies are not EASY's to use
    live = MachineSimulation(PSPScheduler(2), [Job(1, 0, 2, 10, 10, user=1), Job(2, 1, 1, 10, 10, user=1)])
    live.run_until(5)
    assert ProviderPlan.from_scheduler(live.scheduler, 5, policy="easy").planned == {2: 10}


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_any_psp_state_plans_the_same_after_a_json_round_trip(data):
    """Users' accuracies of any PSP state (ids and values drawn) survive state.json and give the same plan."""
    users = data.draw(st.lists(st.integers(0, 50), min_size=1, max_size=6, unique=True))
    accuracy = {u: data.draw(st.floats(0.0, 1.0, allow_nan=False)) for u in users if data.draw(st.booleans())}
    default = data.draw(st.floats(0.0, 1.0, allow_nan=False))
    queue = tuple(Job(2 + k, k, data.draw(st.integers(1, 4)), 10, data.draw(st.integers(10, 300)),
                      user=data.draw(st.sampled_from(users))) for k in range(data.draw(st.integers(1, 6))))
    state = ProviderState(10, 4, running=(RunningJob(1, 3, 0, 100, user=users[0]),), queue=queue,
                          policy_state={"accuracy": accuracy, "default_accuracy": default})
    again = state_from_dict(json.loads(json.dumps(state_to_dict(state))))
    assert {int(u): a for u, a in again.policy_state["accuracy"].items()} == accuracy
    assert [(j.id, j.user) for j in again.queue] == [(j.id, j.user) for j in queue]
    assert forecast(again, "psp") == forecast(state, "psp")
