"""The SLA and DBC desks ask only the providers that can win: the same trades as asking every provider."""

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gridmarket.agents.desks import DBCDesk, SLADesk
from gridmarket.agents.model import BrokerSpec, MarketModel, ProviderSpec
from gridmarket.auctions.slot import SlotRequest
from gridmarket.pricing.state import base_profile
from gridmarket.provisioning.dbc import quoted_offers
from gridmarket.workloads.workload import Workload
from tests.agents.markets import valued_jobs

H = 3600


class AskEverySLADesk(SLADesk):
    """The SLA desk asking every provider that fits the job (no bound prunes one)."""

    name = "sla-ask-every"

    def _candidates(self, job, request, now, exclude, firm):
        return [((-math.inf, -math.inf, rank), rank, p) for rank, p in enumerate(self.home_first(job))
                if p.procs >= job.procs and p.name != exclude]


class AskEveryDBCDesk(DBCDesk):
    """The DBC desk asking every provider for every start it quotes (up to 16), as before the bounds."""

    name = "dbc-ask-every"

    def offers(self, job, now):
        request = SlotRequest(job.id, job.procs, job.estimate, self.valuations[job.id], job.runtime)
        found = []
        for p in self.broker.providers():
            found += quoted_offers(self.broker.query(p.name, now, "plan"), request, provider=p.name)
        return found


class CostDBCDesk(DBCDesk):
    """The DBC desk under cost optimisation (equal prices tie by the providers' order alone)."""

    name = "dbc-cost"

    def __init__(self, broker):
        super().__init__(broker, strategy="cost")


class AskEveryCostDBCDesk(AskEveryDBCDesk):
    name = "dbc-cost-ask-every"

    def __init__(self, broker):
        super().__init__(broker, strategy="cost")


class CheckedSLADesk(SLADesk):
    """The SLA desk checking each bound's start against the base profile of the provider's state at the query."""

    name = "sla-checked"

    def _candidates(self, job, request, now, exclude, firm):
        found = super()._candidates(job, request, now, exclude, firm)
        for (_, start, _), _, p in found:
            base = base_profile(p.state(now)).earliest_start(request.procs, request.duration, now)
            self.checked.append(start == base)
        return found

    @property
    def checked(self):
        return self.__dict__.setdefault("_checked", [])


def _market(seed, n, gap, method, policies, overbooking=1.0):
    rng = np.random.default_rng(seed)
    jobs, vals = valued_jobs(rng, n, gap, "abc")
    specs = [ProviderSpec(name, 8, policy, overbooking=overbooking if name == "a" else 1.0)
             for name, policy in zip("abc", policies)]
    m = MarketModel(specs, Workload(tuple(jobs)), route="site", broker=BrokerSpec(method, cycle=60), valuations=vals,
                    rng=seed)
    return m, m.run()


def _same_trades(a, b):
    cols = ["job_id", "site", "start", "end", "cost", "kind", "outcome"]
    left = a.records[cols].sort_values(["job_id", "kind", "start"]).reset_index(drop=True)
    right = b.records[cols].sort_values(["job_id", "kind", "start"]).reset_index(drop=True)
    pd.testing.assert_frame_equal(left, right)


POLICIES = st.permutations(["easy", "conservative", "slots"]) | st.just(["easy", "easy", "fcfs"])


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(2, 30), gap=st.integers(0, 300), policies=POLICIES,
       overbooking=st.sampled_from([1.0, 1.0, 1.5]))
def test_the_sla_desk_signs_what_asking_every_provider_signs(seed, n, gap, policies, overbooking):
    _, pruned = _market(seed, n, gap, "sla", policies, overbooking)
    _, every = _market(seed, n, gap, f"{__name__}:AskEverySLADesk", policies, overbooking)
    _same_trades(pruned, every)
    pd.testing.assert_frame_equal(pruned.slas, every.slas)
    assert pruned.messages["query"] <= every.messages["query"]


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(2, 30), gap=st.integers(0, 300), policies=POLICIES,
       desks=st.sampled_from([("dbc", "AskEveryDBCDesk"), ("CostDBCDesk", "AskEveryCostDBCDesk")]))
def test_the_dbc_desk_buys_what_asking_every_provider_for_every_start_buys(seed, n, gap, policies, desks):
    ours, oracle = desks
    _, pruned = _market(seed, n, gap, ours if ours == "dbc" else f"{__name__}:{ours}", policies)
    _, every = _market(seed, n, gap, f"{__name__}:{oracle}", policies)
    _same_trades(pruned, every)
    assert pruned.messages["query"] <= every.messages["query"]


@pytest.mark.parametrize("policies", [["easy", "conservative", "slots"], ["slots", "fcfs", "easy"]])
def test_a_providers_earliest_start_is_its_plans_base_earliest_start_at_every_query(policies):
    m, _ = _market(5, 60, 90, f"{__name__}:CheckedSLADesk", policies)
    assert len(m.broker.desk.checked) > 30 and all(m.broker.desk.checked)
