"""docs/extending.md run as written: a plug-in local policy named "package.module:Name".

The plug-in file shown is the file shipped; each bash command runs in a shell from the repository's
root (a sweep's --out redirected to a temporary folder) and ends with status 0; the Python block
runs; without PYTHONPATH the policy is a one-line error with status 2.
"""

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from gridmarket.errors import InvalidInput
from gridmarket.scheduling import POLICIES, make_scheduler, resolve_policy

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "extending.md"
PLUGIN = ROOT / "docs" / "examples" / "plugins" / "sjf_policy.py"
BIN = Path(sys.executable).parent


def _fences(info: str) -> list[str]:
    from markdown_it import MarkdownIt

    tokens = MarkdownIt("commonmark").parse(DOC.read_text(encoding="utf-8"))
    return [t.content for t in tokens if t.type == "fence" and t.info.strip() == info]


def _env(**extra) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    env.update(extra)
    return env


def test_the_doc_shows_the_shipped_plugin_files():
    assert _fences("python")[0] == PLUGIN.read_text(encoding="utf-8")
    assert _fences("python")[2] == (PLUGIN.parent / "cheapest_clearing.py").read_text(encoding="utf-8")
    assert _fences("python")[3] == (PLUGIN.parent / "peak_pricing.py").read_text(encoding="utf-8")


@pytest.mark.parametrize("command", [c for block in _fences("bash")[:3] for c in block.splitlines() if c.strip()])
def test_documented_command_runs_as_written(command, tmp_path):
    command = re.sub(r"--out \S+", f"--out {shlex.quote(str(tmp_path / 'out'))}", command)
    done = subprocess.run(command, shell=True, cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip()
    if " sweep " in command:  # two seeds in two worker processes, each of which imported the plug-in
        table = (tmp_path / "out" / "sweep.csv").read_text()
        assert len(table.strip().splitlines()) == 1 + 2 * 2  # header + 2 seeds x 2 models


def test_python_block_runs(tmp_path):
    done = subprocess.run([sys.executable, "-c", _fences("python")[1]], cwd=ROOT, capture_output=True, text=True,
                          env=_env(PYTHONPATH=str(PLUGIN.parent)), timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert float(done.stdout) >= 0


def test_the_plugin_orders_the_queue_shortest_first_and_is_not_registered_by_being_named():
    assert resolve_policy("gridmarket.scheduling.easy:EASYScheduler") is POLICIES["easy"]
    sys.path.insert(0, str(PLUGIN.parent))
    try:
        sched = make_scheduler("sjf_policy:SJFScheduler", 4)
    finally:
        sys.path.remove(str(PLUGIN.parent))
    from gridmarket.job import Job

    sched.submit(Job(1, 0, 4, 100, 100), 0)
    assert [j.id for j in sched.schedule(0)] == [1]
    for job in (Job(2, 1, 2, 50, 500), Job(3, 1, 2, 50, 50), Job(4, 1, 2, 50, 200)):
        sched.submit(job, 1)
    assert [j.id for j in sched.queue] == [3, 4, 2]
    assert "sjf" not in POLICIES  # naming a plug-in does not add it to the registry


def test_without_pythonpath_the_policy_is_a_one_line_error(capsys):
    done = subprocess.run([str(BIN / "gridmarket"), "simulate", "--jobs", "10", "--policy", "sjf_policy:SJFScheduler"],
                          cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert "policy 'sjf_policy:SJFScheduler': cannot import 'sjf_policy' (ModuleNotFoundError" in done.stderr
    assert "Traceback" not in done.stderr
    for bad, message in [("gridmarket.scheduling:nothing", "module 'gridmarket.scheduling' has no 'nothing'"),
                         ("gridmarket.job:Job", "is not a subclass of gridmarket.scheduling.base.LocalScheduler"),
                         ("mod:", "unknown policy 'mod:'")]:
        with pytest.raises(InvalidInput, match=re.escape(message)):
            resolve_policy(bad)


def test_a_clearing_plugin_that_breaks_the_rules_is_refused_naming_it(monkeypatch):
    """A plug-in clearing's answer is checked before any job is dispatched."""
    import numpy as np

    from gridmarket.clearing import ClearingResult, CycleCosts, check_result, resolve_clearing
    from gridmarket.scenarios.config import check_model

    monkeypatch.syspath_prepend(str(PLUGIN.parent))
    costs = CycleCosts([1, 2, 3], ["a", "b"], np.array([[10.0, np.nan], [10.0, 20.0], [30.0, 5.0]]),
                       np.array([[1.0, np.nan], [2.0, 0.5], [0.1, 0.2]]), [1, None], 50.0)
    result = resolve_clearing("cheapest_clearing:cheapest_energy")(costs)
    assert result.assignment == {1: "a", 2: "b", 3: "b"}  # job 3's cheapest, a, is full after job 1
    assert check_result(result, costs, "x") is result
    with pytest.raises(InvalidInput, match=r"clearing 'x' assigned job 1 to 'b', which cannot run it"):
        check_result(ClearingResult({1: "b"}, 0.0, {}, "x"), costs, "x")
    with pytest.raises(InvalidInput, match=r"clearing 'x' sent 2 jobs to 'a', over its capacity of 1"):
        check_result(ClearingResult({1: "a", 2: "a"}, 0.0, {}, "x"), costs, "x")
    with pytest.raises(InvalidInput, match=r"returned dict, not a ClearingResult"):
        check_result({1: "a"}, costs, "x")
    with pytest.raises(InvalidInput, match=r"models: interaction model 'cheapest_clearing:nothing': module "):
        check_model("cheapest_clearing:nothing")
