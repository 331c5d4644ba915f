"""Dispatch-v0: MCMF's choices are the ``mcmf`` model run for run; seeded episodes; the Gymnasium checker."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pandas as pd
import pytest
from gymnasium.utils.env_checker import check_env

import gridmarket.rl  # noqa: F401 - registers the environments
from gridmarket.clearing import resolve_clearing
from gridmarket.errors import InvalidInput
from gridmarket.rl.dispatch import DispatchEnv
from gridmarket.scenarios.config import with_overrides
from gridmarket.scenarios.experiment import run_model
from gridmarket.scenarios.registry import get_scenario

KEY = ["submit", "job_id", "kind"]


def _episode(env: DispatchEnv, seed: int, choose) -> list[float]:
    _, info = env.reset(seed=seed)
    rewards, done = [], False
    while not done:
        _, reward, done, truncated, info = env.step(choose(env, info))
        assert not truncated
        rewards.append(reward)
    return rewards


def test_choosing_what_mcmf_chooses_reproduces_the_mcmf_model_of_quickstart():
    mcmf = resolve_clearing("mcmf")
    env = DispatchEnv("quickstart")
    rewards = _episode(env, 1, lambda e, info: e.action_for(mcmf(e.costs)))
    ref = run_model(with_overrides(get_scenario("quickstart"), {"seed": 1}), "mcmf")
    assert env.records is not None
    ours = env.records.sort_values(KEY, ignore_index=True)
    pd.testing.assert_frame_equal(ours, ref.records.drop(columns=["model", "seed"]).sort_values(KEY, ignore_index=True))
    routed = ours[ours["routed"]]
    assert len(rewards) > 5 and len(routed) > 50
    w = env.w_t / 100
    realised = w * (routed["end"] - routed["submit"]).sum() / 3600 + (1 - w) * routed["electricity_cost"].sum()
    assert sum(rewards) == pytest.approx(-realised, rel=1e-9)


def test_holding_every_job_but_one_a_cycle_changes_the_run():
    def first_job_to_west(env, info):
        action = np.full(env.max_jobs, len(env.systems))
        action[0] = env.systems.index("west")
        return action

    env = DispatchEnv()
    _episode(env, 1, first_job_to_west)
    assert env.records is not None
    routed = env.records[env.records["routed"]]
    assert (routed["site"] == "west").all() and len(routed) > 50


def test_reset_with_a_seed_replays_the_episode_exactly():
    def random_choice(seed):
        rng = np.random.default_rng(seed)
        return lambda env, info: rng.integers(0, len(env.systems) + 1, env.max_jobs)

    env = DispatchEnv()
    first = _episode(env, 2, random_choice(0))
    records = env.records
    assert first == _episode(env, 2, random_choice(0))
    pd.testing.assert_frame_equal(records, env.records)


def test_passes_the_gymnasium_checker_through_make():
    env = gym.make("gridmarket/Dispatch-v0", w_t=50.0)
    check_env(env.unwrapped)


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"w_t": 120}, r"w_t must be in \[0, 100\] percent"),
    ({"max_jobs": 0}, "max_jobs must be a positive int"),
])
def test_bad_parameters_are_one_line_errors(kwargs, match):
    with pytest.raises(InvalidInput, match=match):
        DispatchEnv(**kwargs)
