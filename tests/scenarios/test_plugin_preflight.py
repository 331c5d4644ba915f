"""compare and sweep check every model's plug-ins before any model runs.

A scenario whose second model cannot be built (here: a broker that reads priced plans beside a
provider whose policy pricing cannot run forward) is refused whole, in one line naming the model,
before its first model spends its minutes.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from gridmarket.errors import InvalidInput
from gridmarket.scenarios import experiment
from gridmarket.scenarios.config import load_toml_text
from gridmarket.scenarios.experiment import check_models, compare

NO_PLANNING = textwrap.dedent('''
    from gridmarket.errors import InvalidInput
    from gridmarket.scheduling import EASYScheduler


    class Unplannable(EASYScheduler):
        """EASY whose scheduler cannot be rebuilt for a forward run (say, its state lives in a site database)."""

        name = "unplannable"

        @classmethod
        def for_planning(cls, procs, planning_state):
            raise InvalidInput("unplannable keeps its state in the site's database")
''')

SCENARIO = textwrap.dedent('''
    name = "preflight"
    seed = 1
    models = ["best-effort", "greedy"]

    [[providers]]
    name = "site"
    procs = 16
    policy = "unplannable_policy:Unplannable"

    [workload]
    source = "lublin"
    n_jobs = 40
    procs = 16
''')


@pytest.fixture
def plugin_dir(tmp_path, monkeypatch):
    (tmp_path / "unplannable_policy.py").write_text(NO_PLANNING)
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


def test_compare_refuses_a_model_it_cannot_build_before_running_any(plugin_dir, monkeypatch):
    config = load_toml_text(SCENARIO)
    monkeypatch.setattr(experiment, "run_model", lambda *a, **k: pytest.fail("a model ran before the check"))
    message = (r"models: 'greedy': provider 'site': a greedy broker needs advertised or quoted slots, which policy "
               r"'unplannable_policy:Unplannable' cannot give")
    with pytest.raises(InvalidInput, match=message):
        check_models(config)
    with pytest.raises(InvalidInput, match=message):
        compare(config)


def test_the_compare_command_says_so_in_one_line_before_the_first_model(plugin_dir):
    scenario = plugin_dir / "preflight.toml"
    scenario.write_text(SCENARIO)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(plugin_dir), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-m", "gridmarket.scenarios.commands.cli", "compare", "--scenario",
                           str(scenario), "--out", str(plugin_dir / "out")], cwd=plugin_dir, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 2, done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    assert "[1/2] best-effort" not in done.stderr  # no model ran
    assert "models: 'greedy': provider 'site': a greedy broker needs advertised or quoted slots" in done.stderr
