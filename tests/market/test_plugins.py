"""One registry for every seam, and plug-ins checked for what they claim before they are used.

Every registry (policies, pricing rules, clearing and provisioning methods, broker strategies,
agent classes, interaction models, scenarios, reproductions) is a ``gridmarket.plugins.Registry``:
a taken name is refused everywhere, and an object of the wrong kind or with the wrong call is
refused in one line naming it, whether it is registered or imported as ``"package.module:Name"``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from gridmarket.agents import PROVIDER_AGENTS, USER_AGENTS, BrokerStrategy, ResourceProvider, User
from gridmarket.agents.strategies import BROKER_STRATEGIES
from gridmarket.clearing import CLEARING_METHODS, resolve_clearing
from gridmarket.errors import InvalidInput
from gridmarket.plugins import Registry, load_plugin
from gridmarket.pricing.rules import PRICING_RULES, resolve_pricing
from gridmarket.provisioning import PROVISIONING_METHODS
from gridmarket.scenarios.interaction import INTERACTION_MODELS, InteractionModel
from gridmarket.scenarios.registry import SCENARIOS
from gridmarket.scenarios.reproductions import REPRODUCTIONS
from gridmarket.scheduling import POLICIES, EASYScheduler, LocalScheduler, resolve_policy

ROOT = Path(__file__).resolve().parents[2]

PLUGINS = {
    "exiting_plugin.py": "import sys\nsys.exit(0)\n",
    "raising_plugin.py": "raise RuntimeError('no licence server')\n",
    "contract_plugins.py": textwrap.dedent('''
        from gridmarket.scheduling import EASYScheduler, LocalScheduler
        from gridmarket.agents import BrokerStrategy, ResourceProvider


        class NoPass(LocalScheduler):
            """A policy that never says which jobs to start."""

            name = "no-pass"


        class NoClock(EASYScheduler):
            """A pass without the time the simulator hands it."""

            name = "no-clock"

            def schedule(self):
                return []


        class Silent(BrokerStrategy):
            """take() without the job the broker hands it."""

            name = "silent"

            def take(self):
                pass


        class Deaf(ResourceProvider):
            """receive() without the message."""

            def receive(self):
                return None


        def three_args(quote, plan, extra):
            return 0.0
    '''),
}


@pytest.fixture
def plugin_dir(tmp_path, monkeypatch):
    for name, text in PLUGINS.items():
        (tmp_path / name).write_text(text)
        monkeypatch.delitem(sys.modules, name[:-3], raising=False)
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


REGISTRIES = {"policy": POLICIES, "broker strategy": BROKER_STRATEGIES, "provider agent": PROVIDER_AGENTS,
              "user agent": USER_AGENTS, "pricing rule": PRICING_RULES, "clearing": CLEARING_METHODS,
              "provisioning method": PROVISIONING_METHODS, "interaction model": INTERACTION_MODELS,
              "scenario": SCENARIOS, "reproduction": REPRODUCTIONS}


@pytest.mark.parametrize("kind", REGISTRIES)
def test_every_registry_is_the_one_registry_and_refuses_a_second_object_under_a_taken_name(kind):
    table = REGISTRIES[kind]
    assert isinstance(table, Registry) and table.kind == kind
    name = next(iter(table))
    other = {"policy": type("Other", (EASYScheduler,), {"name": name}),
             "broker strategy": type("Other", (BrokerStrategy,), {"name": name}),
             "provider agent": type("Other", (ResourceProvider,), {}), "user agent": type("Other", (User,), {}),
             "pricing rule": lambda quote, plan: 0.0, "clearing": lambda costs: None,
             "provisioning method": lambda problem, *, rng: None,
             "interaction model": InteractionModel("another"), "scenario": lambda: None,
             "reproduction": REPRODUCTIONS[next(n for n in REPRODUCTIONS if n != name)]}[kind]
    before = table[name]
    with pytest.raises(InvalidInput, match=f"{kind} '{name}' is already registered to .*; .* needs a name of its own"):
        table[name] = other  # item assignment registers: the same rule as register_*
    assert table[name] is before


def test_a_subclass_that_keeps_easys_name_does_not_replace_easy():
    class Cautious(EASYScheduler):
        pass

    with pytest.raises(InvalidInput, match="policy 'easy' is already registered"):
        POLICIES["easy"] = Cautious
    assert resolve_policy("easy") is EASYScheduler


@pytest.mark.parametrize("module", ["exiting_plugin", "raising_plugin"])
def test_a_module_that_exits_or_fails_on_import_is_one_line(plugin_dir, module):
    reason = {"exiting_plugin": r"SystemExit: 0", "raising_plugin": r"RuntimeError: no licence server"}[module]
    with pytest.raises(InvalidInput, match=rf"^policy '{module}:X': cannot import '{module}' \({reason}\)$"):
        load_plugin(f"{module}:X", kind="policy")


@pytest.mark.parametrize(("resolve", "name", "message"), [
    (resolve_policy, "contract_plugins:NoPass",
     r"policy 'contract_plugins:NoPass': NoPass does not define schedule\(now\) "
     r"\(gridmarket.scheduling.base.LocalScheduler leaves it to subclasses\)"),
    (resolve_policy, "contract_plugins:NoClock",
     r"policy 'contract_plugins:NoClock': NoClock.schedule\(self\) does not accept the call "
     r"LocalScheduler.schedule\(now\)"),
    (resolve_policy, "contract_plugins:three_args", r"is not a subclass of gridmarket.scheduling.base.LocalScheduler"),
    (resolve_pricing, "os:system", r"pricing rule 'os:system': system\(command\) cannot be called with \(quote, plan\)"),
    (resolve_pricing, "contract_plugins:three_args",
     r"three_args\(quote, plan, extra\) cannot be called with \(quote, plan\)"),
    (resolve_pricing, "contract_plugins:NoPass", r"is not a function of \(quote, plan\)"),
    (resolve_clearing, "os:getcwd", r"clearing 'os:getcwd': getcwd\(\) cannot be called with \(costs\)"),
])
def test_a_plugin_that_is_not_what_it_claims_is_refused_naming_what_is_missing(plugin_dir, resolve, name, message):
    with pytest.raises(InvalidInput, match=message) as err:
        resolve(name)
    assert "\n" not in str(err.value)


def test_strategy_and_agent_overrides_must_take_the_callers_arguments(plugin_dir):
    from gridmarket.agents import resolve_provider_agent, resolve_strategy

    with pytest.raises(InvalidInput, match=r"Silent.take\(self\) does not accept the call BrokerStrategy.take\(job\)"):
        resolve_strategy("contract_plugins:Silent")
    with pytest.raises(InvalidInput, match=r"Deaf.receive\(self\) does not accept the call "
                                           r"ResourceProvider.receive\(message\)"):
        resolve_provider_agent("contract_plugins:Deaf")


def test_a_class_handed_in_from_python_is_checked_too():
    class Blank(LocalScheduler):
        name = "blank"

    with pytest.raises(InvalidInput, match=r"Blank does not define schedule\(now\)"):
        resolve_policy(Blank)


def _gridmarket(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(cwd), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, "-m", "gridmarket.scenarios.commands.cli", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize(("args", "message"), [
    (["simulate", "--jobs", "20", "--procs", "8", "--policy", "exiting_plugin:X"],
     "policy 'exiting_plugin:X': cannot import 'exiting_plugin' (SystemExit: 0)"),
    (["simulate", "--jobs", "20", "--procs", "8", "--policy", "contract_plugins:NoClock"],
     "NoClock.schedule(self) does not accept the call LocalScheduler.schedule(now)"),
    (["quote", "--state", str(ROOT / "docs/examples/state.json"), "--procs", "2", "--duration", "3600",
      "--pricing", "os:system"], "pricing rule 'os:system': system(command) cannot be called with (quote, plan)"),
])
def test_the_command_line_refuses_such_a_plugin_in_one_line_with_status_2(plugin_dir, args, message):
    done = _gridmarket(args, plugin_dir)
    assert done.returncode == 2, done.stderr[-2000:]
    assert "Traceback" not in done.stderr and done.stdout == ""
    assert message in done.stderr.strip().splitlines()[-1]
