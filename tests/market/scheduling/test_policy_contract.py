"""The policy contract is enforced by the simulator: a pass that over-commits the machine stops the run.

A policy written outside gridmarket that starts jobs without checking that they fit (here: every
queued job, at once) must not produce a schedule with more processors busy than the machine has;
the simulator counts the processors of the jobs it started itself and checks after every pass.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from gridmarket.errors import PolicyError
from gridmarket.job import Job
from gridmarket.scheduling import EASYScheduler
from gridmarket.simulation import MachineSimulation, simulate

OVERCOMMIT = textwrap.dedent('''
    from gridmarket.scheduling import LocalScheduler


    class StartEverything(LocalScheduler):
        """Starts every queued job at once, whether it fits or not (the contract says: only if it fits)."""

        name = "start-everything"

        def schedule(self, now):
            self.advance_to(now)
            started, self.queue = self.queue, []
            for job in started:
                self.start_job(job, now)
            return started
''')


def _jobs(n: int = 6) -> list[Job]:
    return [Job(i, 0, 3, 100, 100) for i in range(1, n + 1)]  # 6 jobs of 3 processors: 18 on a 4-processor machine


@pytest.fixture
def overcommit_module(tmp_path, monkeypatch):
    (tmp_path / "overcommit_policy.py").write_text(OVERCOMMIT)
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


def test_a_pass_that_over_commits_stops_the_simulation_naming_the_policy(overcommit_module):
    with pytest.raises(PolicyError, match=r"policy 'start-everything' \(overcommit_policy.StartEverything\) "
                                          r"over-committed the machine at t=0: 18 processors busy of 4"):
        simulate(_jobs(), procs=4, policy="overcommit_policy:StartEverything")


def test_a_job_started_twice_stops_the_simulation():
    class Twice(EASYScheduler):
        name = "twice"

        def schedule(self, now):
            started = super().schedule(now)
            return started + started[:1]

    with pytest.raises(PolicyError, match=r"policy 'twice' .*: job 1 started again at 0 \(it started at 0\)"):
        MachineSimulation(Twice(8), [Job(1, 0, 1, 10, 10)]).run_until(None)


def test_a_policy_within_capacity_runs_and_the_count_returns_to_zero():
    sim = MachineSimulation(EASYScheduler(4), _jobs())
    sim.run_until(50)
    assert sim.busy == 3  # one 3-processor job at a time
    sim.run_until(None)
    assert sim.busy == 0 and len(sim.end) == 6


def _gridmarket(args: list[str], cwd: Path, plugin_dir: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(plugin_dir)}
    return subprocess.run([sys.executable, "-m", "gridmarket.scenarios.commands.cli", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("command", ["simulate", "compare", "sweep"])
def test_the_command_line_refuses_an_over_committing_plug_in_in_one_line(overcommit_module, tmp_path, command):
    if command == "simulate":
        args = ["simulate", "--jobs", "50", "--procs", "16", "--policy", "overcommit_policy:StartEverything"]
    else:  # the scenario's provider runs the plug-in in the agent market (compare) and in worker processes (sweep)
        scenario = tmp_path / "overcommit.toml"
        scenario.write_text(textwrap.dedent('''
            name = "overcommit"
            seed = 1
            models = ["best-effort"]

            [[providers]]
            name = "site"
            procs = 16
            policy = "overcommit_policy:StartEverything"

            [workload]
            source = "lublin"
            n_jobs = 50
            procs = 16
        '''))
        args = (["compare", "--scenario", str(scenario), "--out", str(tmp_path / "out")] if command == "compare" else
                ["sweep", str(scenario), "--grid", "seed=1..2", "--workers", "2", "--out", str(tmp_path / "out")])
    done = _gridmarket(args, tmp_path, overcommit_module)
    assert done.returncode == 2, done.stderr[-2000:]
    lines = done.stderr.strip().splitlines()
    assert "Traceback" not in done.stderr
    assert any("policy 'start-everything' (overcommit_policy.StartEverything) over-committed the machine" in line
               for line in lines), done.stderr[-2000:]
