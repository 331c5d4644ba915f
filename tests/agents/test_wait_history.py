"""Wait predictors trained on a replayed history before the market opens (Murali & Vadhiyar sec. 4.3.2)."""

import dataclasses

import numpy as np
import pytest

from gridmarket.agents import MarketModel, ProviderSpec
from gridmarket.agents.metascheduler import MetaschedulerSpec
from gridmarket.agents.model import BrokerSpec
from gridmarket.errors import InvalidInput
from gridmarket.job import Job
from gridmarket.prediction import past_jobs, simulated_waits
from gridmarket.scenarios.experiment import build_inputs, build_market
from gridmarket.scenarios.registry import get_scenario
from gridmarket.workloads import lublin_workload
from gridmarket.workloads.workload import Workload


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


def _var_market(history, rng=7):
    spec = [ProviderSpec("a", 16, "easy"), ProviderSpec("b", 32, "conservative")]
    workload = Workload((Job(1, 0, 2, 3600, 3600, site="a"),))
    return MarketModel(spec, workload, route="site", reservations={1: 7200},
                       broker=BrokerSpec("var", history=history), rng=rng)


def test_a_var_broker_history_gives_qbets_bounds_before_any_job_started():
    # Singh ch. 6.1: the submission time comes from QBETS bounds on past waits. Cold, every bound is 0
    # and Fig. 33 submits at once; warm, each site's bounds come from its own replayed past.
    warm, cold, again = _var_market(300), _var_market(0), _var_market(300)
    for name in ("a", "b"):
        w, c = warm.broker.strategy.predictors[name], cold.broker.strategy.predictors[name]
        assert len(w._windows[()]) == 300 and len(c._windows[()]) == 0
        assert w.probability(2, 3600, 7200) > 0 == c.probability(2, 3600, 7200)
        assert list(w._windows[()]) == list(again.broker.strategy.predictors[name]._windows[()])
    warm_predictors = warm.broker.strategy.predictors
    assert list(warm_predictors["a"]._windows[()]) != list(warm_predictors["b"]._windows[()])
    assert warm.rng.integers(1 << 30) == cold.rng.integers(1 << 30)  # spawned streams: the model's is untouched


def test_simulated_waits_are_the_machine_waits_in_start_order():
    jobs = past_jobs(200, procs=16, rng=np.random.default_rng(5))
    out = simulated_waits(jobs, procs=16, policy="easy")
    assert sorted(j.id for j, _ in out) == sorted(j.id for j in jobs)
    starts = [j.submit + w for j, w in out]
    assert starts == sorted(starts) and min(w for _, w in out) == 0 < max(w for _, w in out)
    with pytest.raises(InvalidInput, match="needs 64 processors"):
        simulated_waits([Job(1, 0, 64, 10, 10)], procs=16, policy="easy")


@pytest.mark.parametrize("history", [-1, 1.5, True])
def test_bad_history_is_refused(history):
    with pytest.raises(InvalidInput, match="history"):
        MetaschedulerSpec(history=history)
    with pytest.raises(InvalidInput, match="history"):
        BrokerSpec("var", history=history)


def test_the_metascheduler_plans_with_published_prices_then_sarima_forecasts_when_asked():
    """The metascheduler agent can use Murali & Vadhiyar's SARIMA forecasts instead of actual prices."""
    from gridmarket.energy import synthetic_prices

    prices = synthetic_prices(8, rng=np.random.default_rng(5))
    spec = [ProviderSpec("a", 16, "easy", prices), ProviderSpec("b", 32, "easy", prices)]
    workload = Workload(lublin_workload(20, procs=16, rng=np.random.default_rng(3)).jobs)
    model = MarketModel(spec, workload, route="random", rng=7,
                        metascheduler=MetaschedulerSpec(price_forecasts="sarima"))
    meta, a = model.metascheduler, model.providers["a"]
    day = 86400
    early = meta.price_view(a, day + 3600)  # one day published: that day repeated after the known horizon
    assert np.array_equal(early.prices[:48], prices.prices[:48])
    assert np.array_equal(early.prices[48:72], prices.prices[24:48])
    late = meta.price_view(a, 4 * day + 3600)  # three days of history: published to midnight, then SARIMA
    known = 5 * 24
    assert np.array_equal(late.prices[:known], prices.prices[:known])
    assert len(late.prices) == known + 4 * 24 and not np.array_equal(late.prices[known:known + 24],
                                                                      prices.prices[known:known + 24])
    assert abs(late.prices[known:known + 24].mean() - prices.prices[known:known + 24].mean()) < \
        0.5 * prices.prices.mean()  # a forecast, not noise
    actual = MarketModel(spec, workload, route="random", rng=7, metascheduler=MetaschedulerSpec())
    assert actual.metascheduler.price_view(actual.providers["a"], day) is prices
    with pytest.raises(InvalidInput, match="price_forecasts must be one of"):
        MetaschedulerSpec(price_forecasts="arima")
