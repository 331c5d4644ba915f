"""Bid-v0: truthful reports are the ``vickrey`` model run for run; seeded episodes; the Gymnasium checker."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pandas as pd
import pytest
from gymnasium.utils.env_checker import check_env

import gridmarket.rl  # noqa: F401 - registers the environments
from gridmarket.errors import InvalidInput
from gridmarket.rl.bid import BidEnv
from gridmarket.scenarios.config import with_overrides
from gridmarket.scenarios.experiment import run_model
from gridmarket.scenarios.registry import get_scenario


def _episode(env: BidEnv, seed: int, factors) -> tuple[list[float], int]:
    env.reset(seed=seed)
    rewards, done = [], False
    while not done:
        _, reward, done, truncated, _ = env.step(factors(env))
        assert not truncated
        rewards.append(reward)
    return rewards, len(rewards)


def test_truthful_reports_reproduce_the_vickrey_model_of_auction_market():
    env = BidEnv("auction-market", mechanism="vickrey")
    rewards, n = _episode(env, 1, lambda e: np.ones(e.max_jobs, dtype=np.float32))
    ref = run_model(with_overrides(get_scenario("auction-market"), {"seed": 1}), "vickrey")
    key = ["submit", "job_id", "kind"]
    ours = env.records().sort_values(key, ignore_index=True)
    theirs = ref.records.drop(columns=["model", "seed"]).sort_values(key, ignore_index=True)
    pd.testing.assert_frame_equal(ours, theirs)
    assert env.summary is not None
    for column, value in ref.summary.items():
        if column not in ("run_id", "seed", "seconds", "model"):
            assert env.summary[column] == pytest.approx(value, nan_ok=True), column
    assert n > 10  # one step per cycle that traded jobs
    assert sum(rewards) == pytest.approx(ref.summary["users_surplus"], rel=1e-9)


def test_shaded_reports_change_the_run_and_the_return_stays_the_runs_users_surplus():
    env = BidEnv()
    rewards, _ = _episode(env, 1, lambda e: np.full(e.max_jobs, 0.9, dtype=np.float32))
    assert env.summary is not None
    truthful = run_model(with_overrides(get_scenario("auction-market"), {"seed": 1}), "vickrey").summary
    assert env.summary["provider_revenue"] != pytest.approx(truthful["provider_revenue"])
    assert sum(rewards) == pytest.approx(env.summary["users_surplus"], rel=1e-9)


def test_reset_with_a_seed_replays_the_episode_exactly():
    env = BidEnv()

    def random_factors(seed):
        rng = np.random.default_rng(seed)
        return lambda e: rng.uniform(0.0, 2.0, e.max_jobs).astype(np.float32)

    first = _episode(env, 5, random_factors(0))
    records = env.records()
    again = _episode(env, 5, random_factors(0))
    assert first == again
    pd.testing.assert_frame_equal(records, env.records())


def test_passes_the_gymnasium_checker_through_make():
    env = gym.make("gridmarket/Bid-v0")
    check_env(env.unwrapped)


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"mechanism": "double"}, "mechanism must be one of first-price, vickrey, english, dutch"),
    ({"max_jobs": 0}, "max_jobs must be a positive int"),
    ({"scenario": 3}, "scenario must be a scenario name"),
])
def test_bad_parameters_are_one_line_errors(kwargs, match):
    with pytest.raises(InvalidInput, match=match):
        BidEnv(**kwargs)
