"""The Gantt of a two-tier provider (KEASY, REASY, MEASY; Liu et al. 2012): which tier and which processors.

A processor holds one fg VM and one bg VM (sec. 2.1): the plan draws bg-tier jobs as ``background``
blocks on the processors they are on, apart from the fg tier's capacity, and the chart draws them in
the upper half of those processors' rows, the fg tier in the lower half, within the processor count.
"""

import re
from types import SimpleNamespace

import numpy as np
import pytest

from gridmarket.errors import InvalidInput
from gridmarket.job import Job
from gridmarket.twotier.progress import JobTraits
from gridmarket.twotier.stepper import TwoTierMachineSimulation
from gridmarket.viz.charts import gantt_figure
from gridmarket.viz.plan import PlanBlock, assign_rows, machine_plan

# the example of TwoTierMachineSimulation: job 1 on both processors' fg VMs, job 2 in a bg VM behind it
# (bg rate 0.9 x 1.0 x (1 - 0.5) = 0.45 s/s while job 1 runs)
TRAITS = {1: JobTraits((0.5, 0.5), (0.5, 0.5), 0.9, 0.0), 2: JobTraits((1.0,), (1.0,), 0.9, 0.0)}
JOBS = [Job(1, 0, 2, 100, 100), Job(2, 0, 1, 60, 60)]


def _sim(procs, jobs, traits, until):
    sim = TwoTierMachineSimulation(procs, "measy", rng=np.random.default_rng(1), traits=traits)
    for job in jobs:
        sim.submit(job)
    sim.run_until(until)
    return sim


def _view(sim, now, *, step=50, horizon=150):
    provider = SimpleNamespace(name="two", procs=sim.scheduler.procs, policy="measy", machine=sim)
    return SimpleNamespace(market=SimpleNamespace(providers={"two": provider}), now=now, step_seconds=step,
                           horizon_seconds=horizon, error=None)


def test_the_scheduler_view_says_tier_and_processors_of_each_running_job():
    view = _sim(2, JOBS, TRAITS, 50).scheduler
    assert view.tiers == {1: ("fg", (0, 1)), 2: ("bg", (0,))}
    assert view.tier_spans == {1: (0, 100), 2: (0, 134)}  # 50 + (60 - 22.5) / 0.45 s, rounded up


def test_a_bg_job_is_a_background_block_on_its_processor_beside_the_fg_job():
    blocks = machine_plan(_sim(2, JOBS, TRAITS, 50), 50, window=(0, 200))
    got = sorted((b.kind, b.label, b.start, b.end, b.rows) for b in blocks)
    # job 2's bg block ends where its current rate takes it; the fg tier is free once job 1 ends
    assert got == [("background", "2", 0, 134, (0,)), ("free", "", 100, 200, None), ("running", "1", 0, 100, (0, 1))]
    placed = {b.label or b.kind: rows for b, rows in assign_rows(blocks, 2)}
    assert placed == {"1": [0, 1], "2": [0], "free": [0, 1]}


def test_the_free_capacity_is_what_the_fg_tier_leaves():
    # 3 procs: job 1 fg on 0, 1; job 2 (3 procs, the shorter estimate: SJF) runs in the bg VMs of all three;
    # job 3 (2 procs) waits. Drawn as if it held its own processors, job 2 took the idle fg VM of processor 2.
    traits = {**TRAITS, 2: JobTraits((0.4,) * 3, (0.4,) * 3, 0.9, 0.0), 3: JobTraits((1.0,) * 2, (1.0,) * 2, 0.9, 0.0)}
    sim = _sim(3, [Job(1, 0, 2, 100, 100), Job(2, 0, 3, 60, 60), Job(3, 0, 2, 50, 200)], traits, 50)
    assert sim.scheduler.tiers == {1: ("fg", (0, 1)), 2: ("bg", (0, 1, 2))}
    blocks = machine_plan(sim, 50, window=(0, 300))
    fg = [b for b in blocks if b.kind != "background"]
    for t in range(50, 300, 5):  # the fg tier's blocks add up to the machine, bg jobs on top of them
        assert sum(b.procs for b in fg if b.start <= t < b.end) == 3
    assert [(b.start, b.end, b.procs) for b in blocks if b.kind == "free" and b.start < 100] == [(50, 300, 1)]
    assert {b.label: b.start for b in blocks if b.kind == "projected"} == {"3": 100}


def test_a_job_that_swapped_to_the_fg_tier_is_background_before_and_running_after():
    blocks = machine_plan(_sim(2, JOBS, TRAITS, 110), 110, window=(0, 200))
    assert sorted((b.kind, b.label, b.start, b.end, b.rows) for b in blocks if b.label == "2") == [
        ("background", "2", 0, 100, None), ("running", "2", 100, 115, (0,))]


def test_the_gantt_draws_fg_in_lower_and_bg_in_upper_halves_within_the_processors():
    fig = gantt_figure(_view(_sim(2, JOBS, TRAITS, 50), 50))
    ax = fig.axes[0]
    polys = {c.get_gid(): [p.vertices for p in c.get_paths()] for c in ax.collections}
    assert {"running", "background"} <= set(polys)
    for kind, shapes in polys.items():
        for v in shapes:
            y0, y1 = v[:, 1].min(), v[:, 1].max()
            assert 0 <= y0 < y1 <= 2, (kind, y0, y1)
            row = int(np.floor(y0))
            half = (row + 0.5, row + 1) if kind == "background" else (row, row + 0.5)
            assert (y0, y1) == pytest.approx(half), (kind, y0, y1)
    # job 1 holds the lower half of both rows up to 100 s; job 2 the upper half of processor 0
    def bottom_and_end(v):  # (lowest y, last second)
        return float(v[:, 1].min()), round(float(v[:, 0].max()) * 3600)

    assert sorted(map(bottom_and_end, polys["running"])) == [(0, 100), (1, 100)]
    assert list(map(bottom_and_end, polys["background"])) == [(0.5, 134)]
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    assert "running (bg tier)" in labels
    assert ax.get_title(loc="left") == "two: measy, 2 procs, 0 queued, 1 in bg tier"


def test_an_ordinary_provider_keeps_whole_rows():
    from gridmarket.scheduling import EASYScheduler
    from gridmarket.simulation import MachineSimulation

    m = MachineSimulation(EASYScheduler(2), [Job(1, 0, 2, 100, 100)])
    m.run_until(0)
    view = _view(m, 0)
    view.market.providers["two"].policy = "easy"
    polys = {c.get_gid(): [p.vertices for p in c.get_paths()] for c in gantt_figure(view).axes[0].collections}
    assert [(v[:, 1].min(), v[:, 1].max()) for v in polys["running"]] == [(0, 2)]


def test_plan_block_rows_must_be_its_processors():
    assert PlanBlock("background", 0, 10, 2, "g", (0, 3)).rows == (0, 3)
    for rows in [(0,), (1, 1), (-1, 0)]:
        with pytest.raises(InvalidInput, match=rf"plan block 'g': rows must be 2 distinct processor indices >= 0, "
                                               rf"got {re.escape(repr(rows))}"):
            PlanBlock("background", 0, 10, 2, "g", rows)
