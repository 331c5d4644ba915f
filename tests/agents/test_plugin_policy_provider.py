"""A provider of the agent market under a plug-in local policy answers queries from its own plan.

The SJF-over-EASY plug-in of docs/extending.md is called ``sjf``, a name registered nowhere: the
provider's live scheduler must still be priced and advertised as SJF (``gridmarket.scheduling.policy_of``),
as a ProviderPlan of the same state under ``"sjf_policy:SJFScheduler"`` is.
"""

from pathlib import Path

import pytest

from gridmarket.agents import MarketModel, ProviderSpec
from gridmarket.agents.messages import Query, Submit
from gridmarket.job import Job
from gridmarket.pricing import ProviderPlan, ProviderState, RunningJob
from gridmarket.workloads.workload import Workload

PLUGINS = Path(__file__).resolve().parents[2] / "docs" / "examples" / "plugins"
SJF = "sjf_policy:SJFScheduler"


@pytest.fixture(autouse=True)
def sjf_importable(monkeypatch):
    monkeypatch.syspath_prepend(str(PLUGINS))


def test_an_agent_market_provider_under_the_plugin_advertises_the_holes_of_sjfs_plan():
    """4 processors busy until 100; job 2 (4 x 1000 s) then job 3 (2 x 100 s) wait: SJF runs 3 first."""
    jobs = (Job(1, 0, 4, 100, 100, user=1), Job(2, 0, 4, 1000, 1000, user=1), Job(3, 0, 2, 100, 100, user=1))
    model = MarketModel([ProviderSpec("s", 4, SJF)], Workload(jobs, name="fig"), rng=1)
    provider = model.providers["s"]
    for job in jobs:
        provider.receive(Submit("user1", "s", 0, job))
    answer = provider.receive(Query("broker", "s", 50, "advertise"))
    state = ProviderState(50, 4, running=(RunningJob(1, 4, 0, 100),), queue=jobs[1:])
    expected = ProviderPlan(state, SJF).advertise(until=answer.payload[-1].end)
    assert [(s.start, s.procs, s.duration) for s in answer.payload] == [(s.start, s.procs, s.duration) for s in expected]
    assert (answer.payload[0].start, answer.payload[0].end) == (100, 200)  # SJF's hole before job 2
    plan = provider.receive(Query("broker", "s", 50, "plan")).payload
    assert plan.policy == SJF and plan.planned == {2: 200, 3: 100}
