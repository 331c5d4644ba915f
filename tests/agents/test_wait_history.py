"""Wait predictors trained on a replayed history before the market opens (Murali & Vadhiyar sec. 4.3.2)."""

import dataclasses

import numpy as np
import pytest

from agents import MarketModel, ProviderSpec
from agents.metascheduler import MetaschedulerSpec
from market.errors import InvalidInput
from market.workloads import lublin_workload
from market.workloads.workload import Workload
from scenarios.experiment import build_inputs, build_market
from scenarios.registry import get_scenario


def _quickstart_mcmf(history: int):
    config = get_scenario("quickstart")
    config = dataclasses.replace(config, parameters=dataclasses.replace(config.parameters, wait_history=history))
    workload, prices, requests, rng = build_inputs(config)
    market = build_market(config, "mcmf", workload, prices, rng=rng, requests=requests)
    result = market.run()
    jobs = result.records[result.records["kind"] == "job"]
    jobs = jobs.assign(predicted=jobs["job_id"].map(market.metascheduler.predicted_wait),
                       dispatch_wait=jobs["start"] - jobs["dispatch"])
    return market, jobs


def test_a_cold_predictor_misses_the_queue_a_warm_one_sees():
    # quickstart, seed 1: MCMF (w_t = 25 %) sends most jobs to south. With empty histories south's
    # predictor has seen only zero waits when the queue builds, and predicts 0 for every job sent
    # there although they wait hours; trained on 2000 past jobs it predicts waits of the right size.
    _, cold = _quickstart_mcmf(0)
    _, warm = _quickstart_mcmf(2000)
    cold_south, warm_south = cold[cold["site"] == "south"], warm[warm["site"] == "south"]
    assert cold_south["predicted"].max() == 0 and cold_south["dispatch_wait"].mean() > 3600
    assert warm_south["predicted"].mean() > 0.5 * warm_south["dispatch_wait"].mean() > 0
    assert warm["wait"].mean() < cold["wait"].mean()


def test_history_fills_each_predictor_and_does_not_move_the_model_stream():
    spec = [ProviderSpec("a", 16, "easy"), ProviderSpec("b", 32, "psp")]  # psp: the history carries users
    workload = Workload(lublin_workload(60, procs=16, rng=np.random.default_rng(3)).jobs)

    def market(history):
        return MarketModel(spec, workload, route="random", metascheduler=MetaschedulerSpec(history=history), rng=7)

    warm, cold, again = market(300), market(0), market(300)
    assert [len(p.wait_predictor) for p in warm.providers.values()] == [300, 300]
    assert [len(p.wait_predictor) for p in cold.providers.values()] == [0, 0]
    assert warm.rng.integers(1 << 30) == cold.rng.integers(1 << 30)  # spawned streams: the model's is untouched
    for p, q in zip(warm.providers.values(), again.providers.values(), strict=True):
        n = len(p.wait_predictor)
        assert np.array_equal(p.wait_predictor._x[:n], q.wait_predictor._x[:n])


@pytest.mark.parametrize("history", [-1, 1.5, True])
def test_bad_history_is_refused(history):
    with pytest.raises(InvalidInput, match="history"):
        MetaschedulerSpec(history=history)
