"""docs/extending.md's provisioning and `clear` seams run as written.

``gridmarket provision --method`` and ``gridmarket clear --method`` take registered names and
plug-ins ``"package.module:function"``. The plug-in file shown is the file shipped; the documented
commands run from the repository's root and print what the prose says; a name that cannot be used,
and a method's answer that breaks a rule, are one line with exit status 2. Besides: every rule of
``check_provisioning`` refuses a hand-made bad plan, the built-in methods pass it on random slot
sets (with the makespans and costs they compute themselves), the documented exhaustive method
agrees with the enumeration oracle and no MOGA plan beats its front, and ``clear --method stable``
(the metascheduler's method) equals the command's own ``stable-jobs``.
"""

import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import networkx as nx
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gridmarket.errors import Infeasible, InvalidInput
from gridmarket.job import Job
from gridmarket.pricing import Slot
from gridmarket.provisioning import (
    PROVISIONING_METHODS,
    Placement,
    PlanEvaluator,
    ProvisioningProblem,
    ProvisioningResult,
    advertise,
    check_provisioning,
    exact_front,
    moga,
    provision_greedy,
    register_provisioning,
    resolve_provisioning,
)
from gridmarket.provisioning.pareto import dominates
from gridmarket.scenarios.commands.clear import clear_from_json
from gridmarket.scenarios.commands.cli import main
from gridmarket.scheduling import SlotScheduler
from gridmarket.workflows import Network

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "extending.md"
PLUGINS = ROOT / "docs" / "examples" / "plugins"
EXAMPLE = PLUGINS / "exhaustive_provisioning.py"
BIN = Path(sys.executable).parent
H = 3600


def _fences(info: str) -> list[str]:
    from markdown_it import MarkdownIt

    tokens = MarkdownIt("commonmark").parse(DOC.read_text(encoding="utf-8"))
    return [t.content for t in tokens if t.type == "fence" and t.info.strip() == info]


def _env(**extra) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    env.update(extra)
    return env


def _shell(command: str) -> subprocess.CompletedProcess:
    return subprocess.run(command, shell=True, cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=300)


def _run(argv, capsys) -> tuple[int, str, str]:
    try:
        status = main(argv)
    except SystemExit as exc:  # argparse
        status = exc.code
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture
def exhaustive(monkeypatch):
    monkeypatch.syspath_prepend(str(PLUGINS))
    return resolve_provisioning("exhaustive_provisioning:exhaustive")


# ----------------------------------------------------------------------------- the document
def test_the_doc_shows_the_shipped_provisioning_plugin():
    assert EXAMPLE.read_text(encoding="utf-8") in _fences("python")


def test_documented_provision_commands_print_what_the_prose_says():
    commands = [c for block in _fences("bash") for c in block.splitlines() if "provision" in c and c.strip()]
    assert len(commands) == 2 and "exhaustive_provisioning:exhaustive" in commands[0] and "--method moga" in commands[1]
    outputs = []
    for command in commands:
        done = _shell(command)
        assert done.returncode == 0, done.stderr[-2000:]
        outputs.append(done.stdout)
    fronts = [re.findall(r"^ +[\d.]+ +\d+ +slots \[.*?\].*$", out, re.M) for out in outputs]
    assert fronts[0] == fronts[1] and len(fronts[0]) == 3  # "the same three Pareto plans"
    for out in outputs:  # "choose slots 0 and 1 of east (makespan 8100 s, 6.25 SU)"
        assert re.search(r"slots \[0, 1\]  <- chosen", out)
        assert "bought: slot 0 (east): 2.000 SU, slot 1 (east): 4.250 SU" in out
        assert "makespan (s): 8100" in out and "allocation cost (SU): 6.250" in out


def test_documented_clear_command_prints_what_the_prose_says():
    (command,) = [c for block in _fences("bash") for c in block.splitlines() if "gridmarket clear" in c]
    done = _shell(command)
    assert done.returncode == 0, done.stderr[-2000:]
    # "sends j1 and j3 to fast and j2 to cheap, at a total energy of 3"
    assert json.loads(done.stdout) == {"assignment": {"j1": "fast", "j2": "cheap", "j3": "fast"}, "total_cost": 3.0,
                                       "unassigned": []}


def test_without_pythonpath_the_provisioning_plugin_is_the_documented_one_line_error():
    done = subprocess.run(
        [str(BIN / "gridmarket"), "provision", "--workflow", "docs/examples/workflow.json", "--slots",
         "docs/examples/slots.json", "--method", "exhaustive_provisioning:exhaustive"],
        cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    documented = re.sub(r"\s+", " ", DOC.read_text(encoding="utf-8").split("argument --method: provisioning method")[1]
                        .split("`")[0])
    assert re.sub(r"\s+", " ", done.stderr.splitlines()[-1]).endswith(documented.strip())


# ----------------------------------------------------------------------------- the registry
def test_registered_methods_resolve_and_bad_registrations_are_one_line_errors(monkeypatch):
    monkeypatch.setitem(PROVISIONING_METHODS, "mine", lambda problem, *, rng: None)
    assert resolve_provisioning("mine") is PROVISIONING_METHODS["mine"]
    for bad, message in [(lambda: register_provisioning("moga", lambda p, *, rng: None), "'moga' is already registered"),
                         (lambda: register_provisioning("a:b", lambda p, *, rng: None), "without ':'"),
                         (lambda: register_provisioning("other", 3), "3 is not a function of (problem, rng=...)"),
                         (lambda: resolve_provisioning("gridmarket.provisioning:nothing"), "has no 'nothing'"),
                         (lambda: resolve_provisioning("gridmarket.provisioning:SECONDS_PER_HOUR"),
                          "3600 is not a function of (problem, rng=...)"),
                         (lambda: register_provisioning("two", lambda problem: None),
                          "<lambda>(problem) cannot be called with (problem, rng=...)"),
                         (lambda: resolve_provisioning("os:system"),
                          "provisioning method 'os:system': system(command) cannot be called with (problem, rng=...)")]:
        with pytest.raises(InvalidInput, match=re.escape(message)):
            bad()


# ----------------------------------------------------------------------------- the checks
def _chain_problem(**kw) -> ProvisioningProblem:
    """a (2 procs, 1 h) -> b (1 proc, 30 min), 1 GB between them; an entry task v of runtime 0 before a; c alone."""
    g = nx.DiGraph()
    g.add_node("v", procs=1, runtime=0)
    g.add_node("a", procs=2, runtime={"x": H, "y": H})
    g.add_node("b", procs=1, runtime={"x": H // 2})
    g.add_node("c", procs=1, runtime=H // 2)
    g.add_edge("v", "a")
    g.add_edge("a", "b", data_bytes=1e9)
    slots = (Slot(0, 2, 2 * H, divisible=False, extensible=False, resource="x"), Slot(2 * H, 2, math.inf, divisible=True, extensible=True, resource="x"),
             Slot(0, 4, 4 * H, divisible=True, extensible=False, resource="y"))
    defaults = dict(capacity={"x": 2}, release=0, network=Network(latency=60, bytes_per_second=1e9 / 100))
    return ProvisioningProblem(g, slots, **{**defaults, **kw})


GOOD = {"v": Placement("v", None, 0, 0, 0), "a": Placement("a", "x", 0, H, 2), "b": Placement("b", "x", H, H + H // 2, 1),
        "c": Placement("c", "y", 0, H // 2, 1)}


@pytest.mark.parametrize("change, message", [
    (lambda r: "not a result", "returned str, not a ProvisioningResult"),
    (lambda r: ProvisioningResult({k: v for k, v in r.placements.items() if k != "b"}, {}), "gave task 'b' no placement"),
    (lambda r: ProvisioningResult({**r.placements, "d": Placement("d", "x", 0, 1, 1)}, {}), "placed 'd', which is not"),
    (lambda r: ProvisioningResult({**r.placements, "b": Placement("a", "x", H, 5400, 1)}, {}),
     "the placement of task 'b' is not a Placement of it"),
    (lambda r: ProvisioningResult({**r.placements, "v": Placement("v", "x", 0, 10, 1)}, {}),
     "virtual task 'v' (runtime 0) takes no resource and no time"),
    (lambda r: ProvisioningResult({**r.placements, "b": Placement("b", "z", H, 5400, 1)}, {}),
     "placed task 'b' on 'z', which has no slot"),
    (lambda r: ProvisioningResult({**r.placements, "b": Placement("b", "y", 2 * H, 2 * H + H // 2, 1)}, {}),
     "placed task 'b' on 'y', where it cannot run"),
    (lambda r: ProvisioningResult({**r.placements, "b": Placement("b", "x", H, 2 * H, 1)}, {}),
     "gave task 'b' [3600, 7200) on 'x'; it runs 1800 s there"),
    (lambda r: ProvisioningResult({**r.placements, "a": Placement("a", "x", 0, H, 1)}, {}),
     "gave task 'a' 1 processors; it needs 2"),
    (lambda r: ProvisioningResult({**r.placements, "b": Placement("b", "x", H - 1, 5399, 1)}, {}),
     "starts task 'b' at 3599, before its input from 'a' is there at 3600"),
    (lambda r: ProvisioningResult({**r.placements, "a": Placement("a", "y", 0, H, 2)}, {}),  # 1 GB to x: 60 + 100 s
     "starts task 'b' at 3600, before its input from 'a' is there at 3760"),
    (lambda r: ProvisioningResult({**r.placements, "b": Placement("b", "x", H // 2, H, 1)}, {}),
     "starts task 'b' at 1800, before its input"),
    (lambda r: ProvisioningResult({**r.placements, "c": Placement("c", "x", H // 2, H, 1)}, {}),
     "3 processors of 'x' in use at 1800, over the 2 its slots have free then"),
    (lambda r: ProvisioningResult(r.placements, {"slot 0": -1.0}), "charged -1.0 SU for 'slot 0'"),
    (lambda r: ProvisioningResult(r.placements, {"slot 0": math.nan}), "charged nan SU for 'slot 0'"),
])
def test_a_plan_that_breaks_a_rule_is_refused_naming_the_method(change, message):
    problem = _chain_problem()
    good = ProvisioningResult(dict(GOOD), {"slot 0 (x)": 2.0})
    assert check_provisioning(good, problem, "mine") is good
    with pytest.raises(InvalidInput, match=r"^provisioning method 'mine'.*" + re.escape(message)):
        check_provisioning(change(good), problem, "mine")


def test_before_the_release_and_over_the_machine_are_refused():
    with pytest.raises(InvalidInput, match=re.escape("starts task 'v' at 0, before the release at 100")):
        check_provisioning(ProvisioningResult(dict(GOOD), {}), _chain_problem(release=100), "mine")
    problem = _chain_problem(capacity={"x": 2, "y": 1})  # y's slot offers 4 processors of a 1-processor machine
    placements = {**GOOD, "a": Placement("a", "y", 0, H, 2), "b": Placement("b", "x", H + 160, H + 160 + H // 2, 1)}
    with pytest.raises(InvalidInput, match=re.escape("3 processors of 'y' in use at 0, over its machine's 1")):
        check_provisioning(ProvisioningResult(placements, {}), problem, "mine")


def test_an_extensible_slots_capacity_runs_on_past_its_end():
    g = nx.DiGraph()
    g.add_node("t", procs=2, runtime=3 * H)
    slots = (Slot(0, 2, H, divisible=True, extensible=True, resource="m"),)  # advertised to 1 h, extensible
    placed = ProvisioningResult({"t": Placement("t", "m", 0, 3 * H, 2)}, {"slot 0 (m)": 6.0})
    assert check_provisioning(placed, ProvisioningProblem(g, slots), "m") is placed
    fixed = (Slot(0, 2, H, divisible=True, extensible=False, resource="m"),)
    with pytest.raises(InvalidInput, match=re.escape("2 processors of 'm' in use at 3600, over the 0")):
        check_provisioning(placed, ProvisioningProblem(g, fixed), "m")


# ----------------------------------------------------------------------------- built-ins and the example
@st.composite
def problems(draw):
    """A random DAG of 1-5 tasks over the advertised slots of 1-2 providers with random queues."""
    n = draw(st.integers(1, 5))
    g = nx.DiGraph()
    for t in range(n):
        g.add_node(t, procs=draw(st.integers(1, 3)), runtime=draw(st.integers(1, 4)) * 900)
    for v in range(1, n):
        for u in draw(st.sets(st.integers(0, v - 1), max_size=2)):
            g.add_edge(u, v, data_bytes=draw(st.sampled_from([0, 1e9])))
    slots, capacity = [], {}
    for site in ("p", "q")[: draw(st.integers(1, 2))]:
        procs = draw(st.integers(3, 5))
        sched = SlotScheduler(procs)
        for j in range(draw(st.integers(0, 3))):
            d = draw(st.integers(1, 4)) * 900
            sched.submit(Job(j, 0, draw(st.integers(1, procs)), d, d), 0)
        sched.schedule(0)
        slots += advertise(site, sched.free_slots(0, until=8 * H))
        capacity[site] = procs
    alpha = draw(st.sampled_from([0.0, 0.5, 1.0]))
    network = draw(st.sampled_from([None, Network(latency=30, bytes_per_second=1e9 / 60)]))
    return ProvisioningProblem(g, tuple(slots[:10]), capacity, 0, network, alpha, 8, 4)


@settings(max_examples=30, deadline=None)
@given(problem=problems(), seed=st.integers(0, 2**16))
def test_the_built_in_methods_pass_the_checks_with_the_costs_they_compute(problem, seed):
    """The CLI prints the checked answer: its makespan and cost must be the methods' own."""
    evaluator = PlanEvaluator(problem.workflow, problem.slots, network=problem.network, capacity=problem.capacity)
    try:
        result = resolve_provisioning("moga")(problem, rng=np.random.default_rng(seed))
    except Infeasible:
        result = None
    if result is not None:
        check_provisioning(result, problem, "moga")
        own = moga(evaluator, population=8, generations=4, rng=np.random.default_rng(seed))
        chosen = own.front.select(problem.alpha)
        assert (result.finish() - problem.release, result.allocation_cost) == pytest.approx(
            (chosen.makespan, chosen.allocation_cost))
    try:
        greedy = resolve_provisioning("greedy")(problem, rng=np.random.default_rng(seed))
    except (Infeasible, InvalidInput):  # greedy refuses a task no single quote can hold
        return
    check_provisioning(greedy, problem, "greedy")
    from gridmarket.provisioning.methods import _free_capacity

    own = provision_greedy(problem.workflow, _free_capacity(problem), alpha=problem.alpha, release=0,
                           network=problem.network)
    assert (greedy.finish() - problem.release, greedy.allocation_cost) == pytest.approx(
        (own.makespan, own.allocation_cost))


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(problem=problems(), seed=st.integers(0, 2**16))
def test_the_exhaustive_method_is_the_exact_front_and_no_moga_plan_beats_it(exhaustive, problem, seed):
    evaluator = PlanEvaluator(problem.workflow, problem.slots, network=problem.network, capacity=problem.capacity)
    exact = exact_front(evaluator)
    try:
        result = exhaustive(problem, rng=np.random.default_rng(seed))
    except Infeasible:
        assert not len(exact)
        return
    check_provisioning(result, problem, "exhaustive")
    assert result.front == exact
    chosen = exact.select(problem.alpha)
    assert (result.finish(), result.allocation_cost) == pytest.approx((chosen.makespan, chosen.allocation_cost))
    found = moga(evaluator, population=8, generations=4, rng=np.random.default_rng(seed)).front
    for point in found.points:
        assert not any(dominates(point, e) for e in exact.points)
        assert any(e == pytest.approx(point) or dominates(e, point) for e in exact.points)


# ----------------------------------------------------------------------------- the commands
BAD_METHOD = '''
from gridmarket.provisioning import Placement, ProvisioningResult


def all_at_once(problem, *, rng):
    """Every task at the release on the first resource: ignores the slots' capacity and the edges."""
    site = problem.slots[0].resource
    return ProvisioningResult({t: Placement(t, site, problem.release, problem.release + a["runtime"], a["procs"])
                               for t, a in problem.workflow.nodes(data=True)}, {})


def never(problem, *, rng):
    from gridmarket.errors import Infeasible
    raise Infeasible("no slot is long enough")
'''


def test_a_plugin_method_runs_and_its_bad_plan_or_infeasibility_is_one_line(tmp_path, monkeypatch, capsys):
    (tmp_path / "bad_provisioning.py").write_text(BAD_METHOD)
    monkeypatch.syspath_prepend(str(tmp_path))
    files = ["--workflow", str(ROOT / "docs/examples/workflow.json"), "--slots", str(ROOT / "docs/examples/slots.json")]
    status, out, err = _run(["provision", *files, "--method", "bad_provisioning:all_at_once"], capsys)
    assert status == 2 and out == "" and len(err.splitlines()) == 1
    assert err.startswith("gridmarket: error: provisioning method 'bad_provisioning:all_at_once' starts task 'simulate' at 0, "
                          "before its input from 'prepare' is there at 1800")
    status, out, err = _run(["provision", *files, "--method", "bad_provisioning:never"], capsys)
    assert (status, out, err) == (1, "infeasible: no slot is long enough\n", "")
    status, out, err = _run(["provision", *files, "--method", "mgoa"], capsys)
    assert status == 2 and "argument --method: unknown provisioning method 'mgoa' (did you mean 'moga'?); known: greedy, moga," in err


COSTS = ROOT / "docs" / "examples" / "costs.json"


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_clear_by_the_metaschedulers_stable_equals_the_commands_stable_jobs(data):
    n_jobs, n_sys = data.draw(st.integers(1, 6)), data.draw(st.integers(1, 3))
    entry = st.one_of(st.none(), st.integers(0, 9))
    cost = [[data.draw(entry) for _ in range(n_sys)] for _ in range(n_jobs)]
    system_cost = [[None if c is None else data.draw(st.integers(0, 9)) for c in row] for row in cost]
    doc = {"jobs": [f"j{i}" for i in range(n_jobs)], "systems": [f"s{k}" for k in range(n_sys)], "cost": cost,
           "capacity": [data.draw(st.one_of(st.none(), st.integers(0, 3))) for _ in range(n_sys)],
           "system_cost": system_cost}
    assert clear_from_json(doc, method="stable") == clear_from_json(doc, method="stable-jobs")


def test_clear_refuses_a_plugins_bad_assignment_and_options_it_would_ignore(tmp_path, monkeypatch, capsys):
    (tmp_path / "greedy_clearing.py").write_text(
        "from gridmarket.clearing import ClearingResult\n\n\n"
        "def everyone_to_the_first(costs):\n"
        "    return ClearingResult({j: costs.systems[0] for j in costs.jobs}, 0.0, {}, 'first')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    status, out, err = _run(["clear", "--costs", str(COSTS), "--method", "greedy_clearing:everyone_to_the_first"], capsys)
    assert status == 2 and out == "" and len(err.splitlines()) == 1
    assert "clearing 'greedy_clearing:everyone_to_the_first' assigned job 'j3' to 'cheap', which cannot run it" in err
    status, out, err = _run(["clear", "--costs", str(COSTS), "--method", "stable-jobs", "--wt", "50"], capsys)
    assert status == 2 and "--wt weighs cost against system_cost for a registry or plug-in --method" in err
    status, out, err = _run(["clear", "--costs", str(COSTS), "--method", "stabel"], capsys)
    assert status == 2 and "unknown clearing method 'stabel' (did you mean 'stable'?)" in err
    status, out, err = _run(["clear", "--costs", str(COSTS)], capsys)  # the command's own mcmf, unchanged
    assert status == 0 and json.loads(out)["assignment"] == {"j1": "cheap", "j2": "fast", "j3": "fast"}
