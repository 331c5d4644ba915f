"""The compiled two-tier engine (``_cengine.pyx``) against the pure-Python reference: the same records, bit for bit."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gridmarket.errors import InvalidInput
from gridmarket.job import Job
from gridmarket.twotier import simulation
from gridmarket.twotier.policies import MEASY, TwoTierPolicy
from gridmarket.twotier.progress import JobTraits

compiled = pytest.importorskip("gridmarket.twotier._cengine", reason="the compiled kernel is not built here")


@st.composite
def cases(draw, max_jobs=30, max_procs=10):
    procs = draw(st.integers(1, max_procs))
    n = draw(st.integers(1, max_jobs))
    jobs, t = [], 0
    for i in range(n):
        t += draw(st.integers(0, 30))  # many same-time arrivals and ends: the tie rules are exercised
        runtime = draw(st.integers(1, 120))
        estimate = draw(st.one_of(st.just(runtime), st.integers(1, 240)))
        jobs.append(Job(draw(st.integers(0, 3)) * 1000 + i, t, draw(st.integers(1, procs)), runtime, estimate))
    jobs.sort(key=lambda j: (j.submit, j.id))
    usage = draw(st.sampled_from(["paper", "full", "mixed"]))
    if usage == "mixed":  # given usages, some hidden from the scheduler (None), some zero
        usage = {j.id: draw(st.one_of(st.none(), st.sampled_from([0.0, 0.3, 0.97, 1.0]),
                                      st.lists(st.sampled_from([0.0, 0.5, 0.96, 1.0]), min_size=j.procs,
                                               max_size=j.procs)))
                 for j in jobs if draw(st.booleans())}
    return procs, jobs, usage


def _records(monkeypatch, engine, jobs, seed, **kw):
    monkeypatch.setattr(simulation, "_compiled", engine)
    return simulation.simulate_twotier(jobs, rng=np.random.default_rng(seed), **kw).records


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(case=cases(), policy=st.sampled_from(["keasy", "reasy", "measy", "easy1"]), seed=st.integers(0, 2**16),
       known=st.booleans(), cost=st.integers(0, 50), model=st.sampled_from(["product", "ratio"]),
       threshold=st.sampled_from([0.96, 0.5, 1.0, 0.0]), exact=st.booleans())
def test_the_compiled_engine_gives_the_references_records(monkeypatch, case, policy, seed, known, cost, model,
                                                          threshold, exact):
    procs, jobs, usage = case
    kw = dict(procs=procs, policy=policy, usage=usage, usage_known=known, migration_cost=cost, bg_model=model,
              threshold=threshold, estimates="exact" if exact else "requested", validate=True)
    want = _records(monkeypatch, None, jobs, seed, **kw)
    got = _records(monkeypatch, compiled, jobs, seed, **kw)
    assert list(got.dtypes) == list(want.dtypes)
    assert got.equals(want), got.compare(want)


@pytest.mark.parametrize("name,load", [("feitelson96", 0.9), ("jann97", 0.6)])
def test_the_same_records_on_the_papers_workload_models(monkeypatch, name, load):
    """2,000 jobs of the paper's models at a load where every policy kills, migrates, swaps and backfills."""
    from gridmarket.scenarios.harnesses.twotier_tables import base_workload, offered_load
    from gridmarket.workloads import scale_interarrival

    seeds = np.random.SeedSequence(3).spawn(3)
    base = base_workload(name, 2000, 320, seeds)
    w = scale_interarrival(base, offered_load(base, 320) / load)
    for policy in ("keasy", "reasy", "measy"):
        want = _records(monkeypatch, None, w, seeds[2], procs=320, policy=policy)
        got = _records(monkeypatch, compiled, w, seeds[2], procs=320, policy=policy)
        assert got.equals(want), (policy, got.compare(want))
        moved = {"keasy": "kills", "measy": "migrations", "reasy": "swaps"}[policy]
        assert want[moved].sum() > 0 and (want["finished_in"] == "bg").any()


def test_the_compiled_engine_runs_by_default_and_a_policy_subclass_runs_the_reference(monkeypatch):
    from gridmarket import kernel

    if kernel.KERNEL == "compiled":
        assert simulation._compiled is compiled
    calls = []

    class Logged(TwoTierPolicy):
        def schedule(self, machine, queue, *, migration_cost=0):
            calls.append(machine.now)
            super().schedule(machine, queue, migration_cost=migration_cost)

    jobs = [Job(1, 0, 2, 100, 100), Job(2, 5, 1, 60, 60)]
    mine = simulation.simulate_twotier(jobs, procs=2, policy=Logged("logged", "M"), rng=np.random.default_rng(1))
    plain = simulation.simulate_twotier(jobs, procs=2, policy=MEASY, rng=np.random.default_rng(1))
    assert calls[:2] == [0, 5]  # its own pass ran: the reference engine, at each arrival
    assert mine.records.equals(plain.records)


def test_a_job_id_given_twice_is_refused_naming_it():
    jobs = [Job(1, 0, 1, 10, 10), Job(1, 5, 1, 10, 10)]
    with pytest.raises(InvalidInput, match="job id 1 appears twice"):
        simulation.simulate_twotier(jobs, procs=2, policy="measy", rng=np.random.default_rng(0))


def test_hand_checked_traits_run_the_same_in_both_engines(monkeypatch):
    """Job 2's usage is hidden from the scheduler (seen None): its bg VM counts as available."""
    jobs = [Job(1, 0, 2, 100, 100), Job(2, 0, 2, 50, 80), Job(3, 1, 1, 30, 30)]
    traits = {1: JobTraits((0.5, 0.99), (None, 0.99), 0.9, 0.02), 2: JobTraits((1.0, 0.4), (1.0, 0.4), 0.5, 0.01)}
    for policy in ("keasy", "reasy", "measy"):
        want = _records(monkeypatch, None, jobs, 4, procs=2, policy=policy, traits=traits)
        got = _records(monkeypatch, compiled, jobs, 4, procs=2, policy=policy, traits=traits)
        assert got.equals(want), policy
