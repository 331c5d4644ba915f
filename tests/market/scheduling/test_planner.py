"""Planners (gridmarket.scheduling.planner): every scheduler gives the planner pricing and the plan views use."""

from __future__ import annotations

import pytest

from gridmarket.errors import InvalidInput
from gridmarket.job import Job
from gridmarket.pricing import ExternalityPricer, ProviderPlan
from gridmarket.scheduling import (
    ConservativeScheduler,
    EASYScheduler,
    FCFSScheduler,
    ForwardPlanner,
    GreedyPlanner,
    PSPScheduler,
    SlotScheduler,
    SlurmPSPScheduler,
    planner_of,
)
from gridmarket.scheduling.state import ProviderState, RunningJob
from gridmarket.simulation import MachineSimulation


@pytest.mark.parametrize(("cls", "kind"), [
    (ConservativeScheduler, GreedyPlanner), (SlotScheduler, GreedyPlanner), (EASYScheduler, ForwardPlanner),
    (FCFSScheduler, ForwardPlanner), (PSPScheduler, ForwardPlanner), (SlurmPSPScheduler, ForwardPlanner)])
def test_each_scheduler_class_and_instance_gives_its_own_planner(cls, kind):
    assert type(cls.planner) is kind and cls.planner.policy is cls
    assert cls(4).planner == cls.planner == planner_of(cls.name) == planner_of(cls(4))
    assert cls.planner.plans_whole_queue is (kind is GreedyPlanner)


class _Strict(EASYScheduler):
    """An EASY variant that keeps its base's name: planned as itself, not as EASY."""


class _OwnConservative(ConservativeScheduler):
    name = "own-conservative"


def test_a_subclass_plans_as_itself_with_its_bases_kind_of_planner():
    assert _Strict.planner == ForwardPlanner(_Strict) != EASYScheduler.planner
    assert _OwnConservative.planner == GreedyPlanner(_OwnConservative)


def test_a_subclass_of_conservative_backfilling_is_priced_by_the_exact_replan_not_forward_runs(monkeypatch):
    def forward(*args, **kwargs):
        raise AssertionError("a whole-queue plan must not be run forward")

    prices = []
    for cls in (ConservativeScheduler, _OwnConservative):
        sim = MachineSimulation(cls(4), [Job(1, 0, 3, 100, 100), Job(2, 5, 4, 50, 50), Job(3, 6, 2, 30, 30)])
        sim.run_until(10)
        with monkeypatch.context() as m:
            m.setattr(ForwardPlanner, "plan", forward)
            pricer = ExternalityPricer.from_scheduler(sim.scheduler, 10)
            prices.append((pricer.planned, pricer.feasible_prices_ps(2, 40)))
    assert prices[0] == prices[1]
    assert prices[0][0] == {2: 100, 3: 150}


def test_a_name_is_resolved_to_the_same_planner_a_scheduler_gives():
    state = ProviderState(1, 4, running=(RunningJob(1, 3, 0, 100),),
                          queue=(Job(2, 1, 4, 10, 10), Job(3, 1, 1, 50, 50)))
    by_name, by_planner = ProviderPlan(state, "easy"), ProviderPlan(state, EASYScheduler.planner)
    assert by_name.planner is by_planner.planner is EASYScheduler.planner
    assert (by_name.policy, by_name.planned) == ("easy", {2: 100, 3: 1})


def test_planner_of_names_what_a_plan_takes_when_the_name_is_unknown():
    with pytest.raises(InvalidInput, match=r"^unknown planning policy 'sjf'; known: conservative, slots, easy, fcfs"):
        planner_of("sjf")


def test_the_planner_example_of_the_extending_guide_runs_as_written():
    import os
    import subprocess
    import sys
    from pathlib import Path

    from markdown_it import MarkdownIt

    root = Path(__file__).resolve().parents[3]
    doc = (root / "docs" / "extending.md").read_text(encoding="utf-8")
    blocks = [t.content for t in MarkdownIt("commonmark").parse(doc) if t.type == "fence" and t.info.strip() == "py"]
    assert len(blocks) == 1 and "planner_of" in blocks[0]
    plugins = str(root / "docs" / "examples" / "plugins")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (plugins, os.environ.get("PYTHONPATH", "")) if p)}
    done = subprocess.run([sys.executable, "-c", blocks[0]], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
