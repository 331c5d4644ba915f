"""Two-tier providers (KEASY, REASY, MEASY; Liu et al. 2012) in the agent market.

A provider whose ``policy`` is a two-tier one runs a :class:`TwoTierMachineSimulation`; its users'
jobs, arriving as messages, start and end exactly as the whole-run engine schedules the same jobs
with the traits the provider drew; the metascheduler dispatches to it; models whose brokers buy
slots refuse it in one line.
"""

from __future__ import annotations

import numpy as np
import pytest

from gridmarket.agents import MarketModel, ProviderSpec, Query
from gridmarket.agents.twotier_provider import TwoTierProvider
from gridmarket.errors import InvalidInput
from gridmarket.scenarios.config import ProviderConfig, ScenarioConfig, WorkloadConfig
from gridmarket.scenarios.experiment import compare
from gridmarket.twotier.progress import DEFAULT_BG_MODEL, USAGE_THRESHOLD
from gridmarket.twotier.simulation import DEFAULT_MIGRATION_COST, TWO_TIER_POLICIES, reference_run_events
from gridmarket.workloads import lublin_workload, scale_load
from gridmarket.workloads.workload import Workload


def _workload(n=300, procs=32, load=30.0, seed=3) -> Workload:
    return scale_load(lublin_workload(n, procs=procs, rng=np.random.default_rng(seed)), load)


@pytest.mark.parametrize("policy", sorted(TWO_TIER_POLICIES))
def test_a_two_tier_site_runs_its_users_jobs_as_the_engine_does(policy):
    workload = _workload()
    market = MarketModel([ProviderSpec("site", 32, policy)], workload, route="round-robin",
                         rng=7)
    provider = market.providers["site"]
    assert type(provider) is TwoTierProvider
    records = market.run().records.set_index("job_id")
    jobs = list(workload.jobs)
    traits = [provider.machine.traits_of(j.id) for j in jobs]
    cols = reference_run_events(jobs, traits, TWO_TIER_POLICIES[policy], 32, DEFAULT_MIGRATION_COST, DEFAULT_BG_MODEL,
                                USAGE_THRESHOLD)
    assert records.loc[[j.id for j in jobs], "start"].tolist() == cols["start"].tolist()
    assert records.loc[[j.id for j in jobs], "end"].tolist() == cols["end"].tolist()
    # a loaded machine: jobs queue, run in bg VMs and (by policy) are killed, swapped or migrated
    assert (cols["start"] > np.array([j.submit for j in jobs])).sum() > 20
    runs = provider.machine.runs.values()
    assert sum(r.finished_in == "bg" for r in runs) > 10 and sum(r.kills + r.swaps + r.migrations for r in runs) > 10


def test_the_same_seed_gives_the_same_run_and_another_seed_other_traits():
    def run(seed):
        market = MarketModel([ProviderSpec("site", 32, "measy")], _workload(120), rng=seed)
        return market.run().records, market.providers["site"].machine

    (a, ma), (b, _), (_, mc) = run(1), run(1), run(2)
    assert a.equals(b)
    assert ma.traits_of(1) != mc.traits_of(1)


def _scenario(models, policy="measy") -> ScenarioConfig:
    return ScenarioConfig(
        name="two-tier-market",
        providers=(ProviderConfig("two", 32, policy, "fixed"), ProviderConfig("one", 32, "easy", "fixed")),
        workload=WorkloadConfig(n_jobs=150, procs=32, load_factor=8.0, n_workflows=0),
        models=models,
    )


def test_the_metascheduler_dispatches_to_a_two_tier_site_and_its_wait_predictor_learns():
    best, mcmf = compare(_scenario(("best-effort", "mcmf")))
    assert best.summary["jobs"] == mcmf.summary["jobs"] == 150
    assert mcmf.messages["dispatch"] > 0
    sites = mcmf.records[mcmf.records["routed"]].groupby("site").size()
    assert sites.get("two", 0) > 10 and sites.get("one", 0) > 10


@pytest.mark.parametrize("model", ["greedy", "moga", "first-price"])
def test_models_whose_brokers_buy_slots_refuse_a_two_tier_site_in_one_line(model):
    # refused when the market is built (brokers that read plans: moga) or at the first plan query
    with pytest.raises(InvalidInput, match=r"two\b.*a two-tier provider \(measy\) cannot (give|price or advertise "
                                           r"slots): .*keeps no plan"):
        compare(_scenario((model,)))


def test_a_plan_query_is_refused_and_a_bad_policy_names_the_two_tier_ones():
    market = MarketModel([ProviderSpec("site", 8, "keasy")], _workload(20, procs=8), rng=1)
    with pytest.raises(InvalidInput, match=r"site: a two-tier provider \(keasy\) cannot price or advertise slots"):
        market.providers["site"].receive(Query("broker", "site", 0, "advertise"))
    with pytest.raises(InvalidInput, match=r"provider 'x': unknown policy 'measyy' \(did you mean 'measy'\?\); "
                                           r"known: .*keasy, measy, psp, psp-slurm, reasy, slots, or a plug-in"):
        ProviderConfig("x", 8, "measyy")


def test_a_two_tier_site_warms_its_wait_predictor_on_a_two_tier_machine_of_its_policy():
    from gridmarket.prediction.wait_replay import past_jobs, simulated_waits
    from gridmarket.twotier.stepper import TwoTierMachineSimulation

    provider = MarketModel([ProviderSpec("site", 32, "measy")], _workload(20), rng=1).providers["site"]
    provider.track_waits()
    provider.warm_waits(300, np.random.default_rng(9))
    rng = np.random.default_rng(9)  # the same draws: the history, then its traits
    history = past_jobs(300, procs=32, rng=rng)
    sim = TwoTierMachineSimulation(32, "measy", rng=rng)
    for job in history:
        sim.submit(job)
    sim.run_until(None)
    want = sorted(sim.start[j.id] - j.submit for j in history)
    assert len(provider.wait_predictor) == 300
    assert sorted(provider.wait_predictor._y[:300].tolist()) == want
    assert sorted(w for _, w in simulated_waits(history, procs=32, policy="easy")) != want  # not EASY's waits
