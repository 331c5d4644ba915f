"""docs/extending.md's broker seams run as written: broker strategies, trading desks, interaction models.

The plug-in files shown are the files shipped; every command of the broker sections runs in a shell
from the repository's root (``--out`` redirected to a temporary folder), ends with status 0 and
shows what the prose says; the registering Python block runs; a name that cannot be used is one
line with status 2. Besides: the strategies do what their docstrings say (against the built-in
greedy broker as an oracle, and on hand-made markets), a strategy's bad plan is refused naming it,
and plug-ins resolve in fresh worker processes (a spawn pool, a Dask cluster).
"""

import doctest
import multiprocessing
import os
import re
import shlex
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pandas as pd
import pytest

import gridmarket.agents.strategies
from gridmarket.agents import (
    BROKER_METHODS,
    BrokerSpec,
    BrokerStrategy,
    MarketModel,
    ProviderSpec,
    WorkflowPlan,
    register_strategy,
    resolve_strategy,
)
from gridmarket.errors import InvalidInput
from gridmarket.job import Job
from gridmarket.provisioning import Placement
from gridmarket.scenarios.config import with_overrides
from gridmarket.scenarios.experiment import run_model
from gridmarket.scenarios.interaction import INTERACTION_MODELS, InteractionModel, register_model, resolve_model
from gridmarket.scenarios.registry import get_scenario
from gridmarket.valuation import Valuation
from gridmarket.workloads.workload import Workload

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "extending.md"
PLUGINS = ROOT / "docs" / "examples" / "plugins"
SCENARIO = PLUGINS / "market-plugins.toml"
BIN = Path(sys.executable).parent
H = 3600


def _fences(info: str) -> list[str]:
    from markdown_it import MarkdownIt

    tokens = MarkdownIt("commonmark").parse(DOC.read_text(encoding="utf-8"))
    return [t.content for t in tokens if t.type == "fence" and t.info.strip() == info]


def _broker_commands() -> list[str]:
    return [line for block in _fences("bash") if "cheapest_broker" in block or "surplus_desk" in block
            for line in block.splitlines() if line.strip()]


def _env(**extra) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    env.update(extra)
    return env


@pytest.fixture
def plugins(monkeypatch):
    """The example plug-ins importable in this process (and in the spawn workers it starts)."""
    monkeypatch.syspath_prepend(str(PLUGINS))


# ----------------------------------------------------------------------------- the document, as written
@pytest.mark.parametrize("name", ["cheapest_broker.py", "surplus_desk.py"])
def test_the_doc_shows_the_shipped_plugin_file(name):
    text = (PLUGINS / name).read_text(encoding="utf-8")
    assert text in _fences("python")


def test_the_doc_has_the_broker_commands():
    commands = _broker_commands()
    assert len(commands) == 3 and sum(" sweep " in c for c in commands) == 1


@pytest.mark.parametrize("command", _broker_commands())
def test_documented_broker_command_runs_as_written(command, tmp_path):
    out = tmp_path / "out"
    command = re.sub(r"--out \S+", f"--out {shlex.quote(str(out))}", command)
    done = subprocess.run(command, shell=True, cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip()
    if " sweep " in command:  # two plug-in models x two seeds, each run in a worker that imported its plug-in
        table = pd.read_csv(out / "sweep.csv")
        assert sorted(zip(table["model"], table["grid.seed"])) == [
            ("cheapest_broker:CHEAPEST_GRID", 1), ("cheapest_broker:CHEAPEST_GRID", 2),
            ("cheapest_broker:CheapestFirst", 1), ("cheapest_broker:CheapestFirst", 2)]
        return
    summary = pd.read_csv(out / "summary.csv").set_index("model")
    if "surplus_desk" in command:  # "its users keep more surplus than under dbc", at the same prices
        ours, dbc = summary.loc["surplus_desk:BestSurplusDesk"], summary.loc["dbc"]
        assert ours["provider_revenue"] == pytest.approx(dbc["provider_revenue"])
        assert ours["users_surplus"] > dbc["users_surplus"]
    else:  # "pays more for its reservations than greedy"; the grid model runs a metascheduler and buys slots
        assert summary.loc["cheapest_broker:CheapestFirst", "reservation_cost"] > summary.loc["greedy",
                                                                                            "reservation_cost"]
        grid, mcmf = summary.loc["cheapest_broker:CHEAPEST_GRID"], summary.loc["mcmf"]
        assert grid["msg_dispatch"] > 0 and grid["allocation_cost"] > mcmf["allocation_cost"]


def test_registering_python_block_runs():
    (block,) = [b for b in _fences("python") if "register_model" in b]
    done = subprocess.run([sys.executable, "-c", block], cwd=ROOT, capture_output=True, text=True, timeout=300,
                          env=_env(PYTHONPATH=str(PLUGINS)))
    assert done.returncode == 0, done.stderr[-2000:]
    lines = [line.split() for line in done.stdout.strip().splitlines()]
    assert [name for name, _ in lines] == ["stable", "cheapest-stable"]
    assert float(lines[1][1]) != float(lines[0][1])  # the broker buys reservations; best effort does not


def test_without_pythonpath_a_broker_plugin_is_the_documented_one_line_error():
    done = subprocess.run([str(BIN / "gridmarket"), "compare", "--models", "cheapest_broker:CheapestFirst"],
                          cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    message = ("models: interaction model 'cheapest_broker:CheapestFirst': cannot import 'cheapest_broker' "
               "(ModuleNotFoundError: No module named 'cheapest_broker')")
    assert message in done.stderr
    assert message in " ".join(DOC.read_text(encoding="utf-8").split())


# ----------------------------------------------------------------------------- the strategies do what they say
def _market(jobs, method, *, policy="conservative", **kw):
    providers = [ProviderSpec("a", 4, policy), ProviderSpec("b", 4, policy)]
    return MarketModel(providers, Workload(tuple(jobs)), route="site", broker=BrokerSpec(method), rng=1, **kw)


def test_cheapest_first_plans_workflows_as_greedy_does_at_alpha_one(plugins):
    config = with_overrides(get_scenario(str(SCENARIO)), {"alpha": 1.0, "reservation_fraction": 0.0,
                                                         "workload.n_jobs": 60})
    greedy = run_model(config, "greedy")
    cheapest = run_model(config, "cheapest_broker:CheapestFirst")
    pd.testing.assert_frame_equal(greedy.workflows, cheapest.workflows)
    pd.testing.assert_frame_equal(greedy.records.drop(columns="model"), cheapest.records.drop(columns="model"))
    assert greedy.messages == cheapest.messages and greedy.messages["quote"] > 2  # queries after the plan counted


@pytest.mark.parametrize("busy_home, site, cost", [(True, "b", 2.0), (False, "a", 2.0)])
def test_cheapest_first_buys_a_reservation_where_it_is_cheapest_home_first(plugins, busy_home, site, cost):
    jobs = [Job(3, 60, 2, H, H, site="a")]
    if busy_home:  # job 2 queues behind job 1 on a: a reservation at 3 h there delays it (f > 0)
        jobs = [Job(1, 0, 4, 3 * H, 3 * H, site="a"), Job(2, 0, 4, 2 * H, 2 * H, site="a"), *jobs]
    r = _market(jobs, "cheapest_broker:CheapestFirst", reservations={3: 3 * H}).run()
    row = r.records.set_index("job_id").loc[3]
    assert (row["site"], row["start"], row["kind"], row["cost"]) == (site, 3 * H, "reservation", cost)
    if busy_home:  # the built-in greedy broker buys at home, at the externality price
        home = _market(jobs, "greedy", reservations={3: 3 * H}).run().records.set_index("job_id").loc[3]
        assert home["site"] == "a" and home["cost"] > cost


def test_best_surplus_desk_buys_the_most_surplus_or_sends_the_job_home(plugins):
    jobs = [Job(1, 0, 4, 2 * H, 2 * H, site="a", user=1), Job(2, 0, 4, H, H, site="a", user=1),
            Job(3, 0, 1, H, H, site="a", user=1)]
    values = {1: Valuation(20.0, 4 * H, H), 2: Valuation(20.0, 4 * H, H),
              3: Valuation(0.5, 4 * H, H)}  # job 3's value is below its base price (1 SU)
    m = _market(jobs, "surplus_desk:BestSurplusDesk", valuations=values)
    r = m.run()
    rows = r.records.set_index("job_id")
    assert (rows.loc[1, "site"], rows.loc[1, "start"]) == ("a", 0)  # a tie: home first
    assert (rows.loc[2, "site"], rows.loc[2, "start"]) == ("b", 0)  # a is held until 2 h: b ends sooner
    assert m.broker.desk.n_won == 2 and m.broker.desk.n_fallback == 1
    assert r.messages["submit"] == 3 + 1  # the users' three jobs to the broker, job 3 to its home queue


class _Offsite(BrokerStrategy):
    """Places every task on a provider that does not exist."""

    def plan_workflow(self, wf):
        return WorkflowPlan([Placement(t, "nowhere", wf.submit, wf.submit + 10, 1) for t in wf.graph],
                            {t: 1.0 for t in wf.graph})


class _Tuple(BrokerStrategy):
    """Answers with a tuple, as the broker did inside before strategies were objects."""

    def plan_workflow(self, wf):
        return [], {}


@pytest.mark.parametrize("strategy, message", [
    (_Offsite, r"broker strategy '_Offsite', workflow 1: task 't' placed on unknown provider 'nowhere'"),
    (_Tuple, r"workflow 1: plan_workflow returned tuple, not a WorkflowPlan or None"),
])
def test_a_strategy_plan_that_cannot_be_reserved_is_refused_naming_it(strategy, message):
    import networkx as nx

    from gridmarket.agents import WorkflowRequest

    g = nx.DiGraph()
    g.add_node("t", procs=1, runtime=100)
    with pytest.raises(InvalidInput, match=message):
        _market([Job(9, 0, 1, 5, 5, site="a")], strategy, workflows=[WorkflowRequest(1, 0, 1, "a", g)]).run()


# ----------------------------------------------------------------------------- registries
def test_the_built_in_broker_strategies_keep_their_names_and_order():
    assert BROKER_METHODS == ("best-effort", "moga", "greedy", "var", "combined", "first-price", "vickrey",
                              "english", "dutch", "double", "double-gd", "negotiate", "dbc", "dbc-cycle", "sla",
                              "sla-predict")
    assert all(resolve_strategy(name).name == name for name in BROKER_METHODS)
    assert [n for n, m in INTERACTION_MODELS.items() if m.broker == n] == list(BROKER_METHODS)


def test_strategy_doctests_pass():
    assert doctest.testmod(gridmarket.agents.strategies).failed == 0


@pytest.mark.parametrize("call, message", [
    (lambda: resolve_strategy("gredy"), r"unknown broker strategy 'gredy' \(did you mean 'greedy'\?\); known: "),
    (lambda: resolve_strategy("gridmarket.job:Job"), "is not a subclass of gridmarket.agents.strategies.BrokerStrategy"),
    (lambda: BrokerSpec("nomodule_xyz:Broker"), r"broker method: broker strategy 'nomodule_xyz:Broker': cannot "
                                                r"import 'nomodule_xyz' \(ModuleNotFoundError"),
    (lambda: register_strategy(Job), "is not a subclass of gridmarket.agents.strategies.BrokerStrategy"),
    (lambda: register_strategy(type("Anonymous", (BrokerStrategy,), {})), "name must be a non-empty str"),
    (lambda: register_strategy(type("Colon", (BrokerStrategy,), {"name": "a:b"})), "without ':'"),
    (lambda: register_strategy(type("Again", (BrokerStrategy,), {"name": "greedy"})), "'greedy' is already"),
    (lambda: register_model("grand", InteractionModel("x")), "'grand' is already registered"),
    (lambda: register_model("x", InteractionModel("x", broker="nobody")), "interaction model 'x': unknown broker"),
    (lambda: register_model("x", InteractionModel("x", clearing="mcfm")), "interaction model 'x': unknown clearing"),
    (lambda: resolve_model("gridmarket.pricing:BASE_RATE"), "1.0 is not an InteractionModel, a BrokerStrategy "
                                                        "subclass or a clearing function"),
])
def test_bad_names_and_registrations_are_one_line_errors(call, message):
    with pytest.raises(InvalidInput, match=message) as err:
        call()
    assert "\n" not in str(err.value)


def test_a_plugin_name_reads_what_it_points_at(plugins):
    grid = resolve_model("cheapest_broker:CHEAPEST_GRID")
    assert (grid.broker, grid.clearing) == ("cheapest_broker:CheapestFirst", "mcmf")
    broker = resolve_model("cheapest_broker:CheapestFirst")
    assert (broker.broker, broker.clearing) == ("cheapest_broker:CheapestFirst", None)
    assert broker.description.startswith("Buy every workflow task")
    clearing = resolve_model("cheapest_clearing:cheapest_energy")
    assert (clearing.broker, clearing.clearing) == ("best-effort", "cheapest_clearing:cheapest_energy")
    assert "CheapestFirst" not in str(list(INTERACTION_MODELS.values()))  # naming a plug-in registers nothing


def test_a_registered_model_runs_like_its_parts(plugins, monkeypatch):
    monkeypatch.setitem(INTERACTION_MODELS, "my-grand", INTERACTION_MODELS["grand"])
    config = with_overrides(get_scenario(str(SCENARIO)), {"workload.n_jobs": 40})
    mine, grand = run_model(config, "my-grand"), run_model(config, "grand")
    pd.testing.assert_frame_equal(mine.records.drop(columns="model"), grand.records.drop(columns="model"))


# ----------------------------------------------------------------------------- in every worker
def test_plugin_models_run_alike_in_spawned_workers(plugins):
    config = with_overrides(get_scenario(str(SCENARIO)), {"workload.n_jobs": 40})
    models = ["cheapest_broker:CHEAPEST_GRID", "surplus_desk:BestSurplusDesk"]
    here = [run_model(config, m).summary for m in models]
    with ProcessPoolExecutor(max_workers=2, mp_context=multiprocessing.get_context("spawn")) as pool:
        there = [f.result().summary for f in [pool.submit(run_model, config, m) for m in models]]
    for a, b in zip(here, there, strict=True):
        a.pop("seconds"), b.pop("seconds")
        pd.testing.assert_series_equal(pd.Series(a), pd.Series(b))


@pytest.mark.slow
def test_a_dask_sweep_imports_the_plugin_in_its_workers(tmp_path):
    pytest.importorskip("distributed")
    done = subprocess.run(
        [str(BIN / "gridmarket"), "sweep", str(SCENARIO), "--grid", "model=surplus_desk:BestSurplusDesk",
         "--grid", "workload.n_jobs=40", "--executor", "dask", "--workers", "1", "--out", str(tmp_path / "sw")],
        cwd=tmp_path, env=_env(PYTHONPATH=str(PLUGINS)), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    table = pd.read_csv(tmp_path / "sw" / "sweep.csv")
    assert table["model"].tolist() == ["surplus_desk:BestSurplusDesk"] and table["negotiation_rounds"][0] > 0


# ----------------------------------------------------------------------------- the viz takes plug-ins too
def test_viz_takes_a_plugin_model(plugins):
    from gridmarket.viz.app import model_params
    from gridmarket.viz.model import parse_controls

    controls, _ = parse_controls("quickstart", "cheapest_broker:CheapestFirst")
    assert controls.interaction_model == "cheapest_broker:CheapestFirst"
    values = model_params(str(SCENARIO))["interaction_model"]["values"]
    assert values[:len(INTERACTION_MODELS)] == list(INTERACTION_MODELS)
    assert "surplus_desk:BestSurplusDesk" in values  # the scenario's plug-ins are in the list
    assert "x_mod:Y" in model_params("quickstart", "x_mod:Y")["interaction_model"]["values"]
    with pytest.raises(InvalidInput, match=r"interaction model: interaction model 'cheapest_broker:Nobody': "
                                           r"module 'cheapest_broker' has no 'Nobody'"):
        parse_controls("quickstart", "cheapest_broker:Nobody")


def test_viz_command_refuses_a_plugin_it_cannot_import(capsys, monkeypatch):
    from gridmarket.scenarios.commands.cli import main
    from gridmarket.viz import server

    monkeypatch.setattr(server.subprocess, "Popen", lambda *a, **k: pytest.fail("a server was started"))
    monkeypatch.delitem(sys.modules, "cheapest_broker", raising=False)  # imported by an earlier test
    assert main(["viz", "--model", "cheapest_broker:CheapestFirst"]) == 2
    err = capsys.readouterr().err
    assert "--model: interaction model 'cheapest_broker:CheapestFirst': cannot import 'cheapest_broker'" in err
