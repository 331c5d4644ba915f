"""The Mesa market model drives the machines exactly as the bare simulator does."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gridmarket.agents import MarketModel, ProviderSpec
from gridmarket.errors import InvalidInput
from gridmarket.job import Job
from gridmarket.simulation import simulate
from gridmarket.workloads.workload import Workload
from tests.market.scheduling.strategies import machines_and_jobs


def test_every_annotation_in_the_agents_package_names_something_importable():
    """``typing.get_type_hints`` resolves every annotation (mypy, sphinx and pydantic-style readers call it):
    under ``from __future__ import annotations`` an unimported name is a NameError only when someone asks."""
    import importlib
    import inspect
    import pkgutil
    import typing

    import gridmarket.agents

    unresolved = []
    for info in pkgutil.walk_packages(gridmarket.agents.__path__, "gridmarket.agents."):
        module = importlib.import_module(info.name)
        for obj in vars(module).values():
            if getattr(obj, "__module__", None) != module.__name__:
                continue
            members = [obj, *(f for f in vars(obj).values() if inspect.isfunction(f))] if inspect.isclass(obj) else [obj]
            for member in (m for m in members if inspect.isfunction(m) or inspect.isclass(m)):
                try:
                    typing.get_type_hints(member)
                except NameError as err:
                    unresolved.append(f"{module.__name__}.{member.__qualname__}: {err}")
    assert not unresolved, unresolved


def _workload(jobs):
    return Workload(tuple(jobs), name="w")


@pytest.mark.parametrize("policy", ["fcfs", "easy", "conservative", "slots", "psp"])
@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_one_provider_market_equals_the_bare_simulation(policy, data):
    procs, jobs = data.draw(machines_and_jobs())
    bare = simulate(jobs, procs=procs, policy=policy).records
    run = MarketModel([ProviderSpec("site", procs, policy)], _workload(jobs), rng=1).run()
    cols = ["job_id", "submit", "start", "end"]
    assert run.records[cols].values.tolist() == bare.sort_values(["submit", "job_id"])[cols].values.tolist()
    assert run.messages == {"submit": len(jobs)}


def test_random_routing_is_seeded():
    jobs = [Job(i, i * 5, 1 + i % 3, 50, 60, user=i % 4) for i in range(60)]
    specs = [ProviderSpec("a", 4), ProviderSpec("b", 4, "conservative"), ProviderSpec("c", 8, "fcfs")]

    def sites(seed):
        r = MarketModel(specs, _workload(jobs), route="random", rng=seed).run()
        return r.records["site"].tolist()

    assert sites(7) == sites(7)
    assert sites(7) != sites(8)
    assert set(sites(7)) == {"a", "b", "c"}


def test_least_loaded_routing_spreads_a_burst_and_summaries_cover_every_site():
    jobs = [Job(i, 0, 2, 100, 100, user=0) for i in range(6)]
    r = MarketModel([ProviderSpec("a", 2), ProviderSpec("b", 2)], _workload(jobs), route="least-loaded",
                    rng=1).run()
    assert sorted(r.records["start"]) == [0, 0, 100, 100, 200, 200]
    assert set(r.summaries) == {"a", "b", "all"} and r.summaries["all"]["jobs"] == 6


def test_datacollector_samples_queue_and_busy_processors():
    jobs = [Job(i, 0, 2, 7200, 7200, user=0) for i in range(3)]
    m = MarketModel([ProviderSpec("a", 2)], _workload(jobs), collect_every=3600, rng=1)
    m.run()
    frame = m.datacollector.get_model_vars_dataframe()
    assert frame["busy"].iloc[1] == 2 and frame["queued"].iloc[1] == 2


def test_bad_markets_are_refused():
    w = _workload([Job(1, 0, 1, 1, 1, user=0)])
    with pytest.raises(InvalidInput, match="at least one provider"):
        MarketModel([], w)
    with pytest.raises(InvalidInput, match="unique"):
        MarketModel([ProviderSpec("a", 1), ProviderSpec("a", 2)], w)
    with pytest.raises(InvalidInput, match="route must be one of"):
        MarketModel([ProviderSpec("a", 1)], w, route="cheapest")
    wide = _workload([Job(1, 0, 8, 1, 1, user=0)])
    with pytest.raises(InvalidInput, match="no provider has that many"):
        MarketModel([ProviderSpec("a", 4)], wide, rng=1).run()
