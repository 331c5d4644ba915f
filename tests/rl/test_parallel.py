"""market_parallel_env: the PettingZoo API test; all brokers truthful is the ``vickrey`` model of auction-market."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from pettingzoo.test import parallel_api_test

from gridmarket.errors import InvalidInput
from gridmarket.rl import market_parallel_env
from gridmarket.scenarios.config import with_overrides
from gridmarket.scenarios.experiment import build_inputs, run_model
from gridmarket.scenarios.registry import get_scenario
from gridmarket.valuation import realised_values

KEY = ["submit", "job_id", "kind"]


def _episode(env, seed: int, factor) -> dict[str, float]:
    env.reset(seed=seed)
    returns = dict.fromkeys(env.possible_agents, 0.0)
    while env.agents:
        actions = {a: np.full(16, factor(a), dtype=np.float32) for a in env.agents}
        _, rewards, terminations, truncations, _ = env.step(actions)
        assert len(set(terminations.values())) == 1 and not any(truncations.values())
        for a, r in rewards.items():
            returns[a] += r
    return returns


def test_passes_the_pettingzoo_parallel_api_test():
    parallel_api_test(market_parallel_env(n_brokers=3), num_cycles=1000)


def test_every_broker_truthful_is_the_vickrey_model_and_the_returns_are_the_users_jobs_surplus():
    env = market_parallel_env(n_brokers=3)
    returns = _episode(env, 1, lambda agent: 1.0)
    config = with_overrides(get_scenario("auction-market"), {"seed": 1})
    ref = run_model(config, "vickrey")
    ours = env.bid.records().sort_values(KEY, ignore_index=True)
    pd.testing.assert_frame_equal(ours, ref.records.drop(columns=["model", "seed"]).sort_values(KEY, ignore_index=True))
    jobs = ref.records[ref.records["kind"] == "job"]
    completed = jobs[jobs["outcome"] == "completed"]
    valuations = build_inputs(config)[2].valuations
    value = realised_values(dict(zip(completed["job_id"], completed["end"])), valuations)
    by_broker = {f"broker_{b}": 0.0 for b in range(3)}
    for job_id, user, cost in zip(jobs["job_id"], jobs["user"], jobs["cost"]):
        by_broker[f"broker_{user % 3}"] += value.get(job_id, 0.0) - cost
    assert returns == pytest.approx(by_broker, rel=1e-9)
    assert all(r != 0 for r in returns.values())


def test_one_broker_shading_its_bids_changes_the_market_and_the_episode_replays_with_its_seed():
    env = market_parallel_env(n_brokers=2)
    truthful = _episode(env, 1, lambda agent: 1.0)
    records = env.bid.records()
    shaded = _episode(env, 1, lambda agent: 0.8 if agent == "broker_0" else 1.0)
    assert shaded["broker_0"] != pytest.approx(truthful["broker_0"])
    assert not env.bid.records().equals(records)
    assert _episode(env, 1, lambda agent: 0.8 if agent == "broker_0" else 1.0) == shaded


def test_bad_parameters_are_one_line_errors():
    with pytest.raises(InvalidInput, match="n_brokers must be a positive int"):
        market_parallel_env(n_brokers=0)
