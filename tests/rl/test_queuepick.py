"""QueuePick-v0: the head rule is the base policy job for job; seeded episodes; the Gymnasium checker."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pandas as pd
import pytest
from gymnasium.utils.env_checker import check_env

import gridmarket.rl  # noqa: F401 - registers the environments
from gridmarket import datasets
from gridmarket.errors import InvalidInput
from gridmarket.metrics import bounded_slowdown
from gridmarket.rl import QueuePickEnv
from gridmarket.scenarios.commands.cli import main
from gridmarket.simulation import simulate
from gridmarket.workloads import read_swf, truncate

CTC_SAMPLE = "samples/CTC-SP2-1996-3.1-cln-first5000.swf.gz"


@pytest.fixture(scope="module")
def ctc():
    return read_swf(datasets.sample(CTC_SAMPLE))


def _run_head_rule(env: QueuePickEnv, seed: int = 0) -> tuple[dict[int, int], float, int]:
    env.reset(seed=seed)
    total, n, done = 0.0, 0, False
    while not done:
        _, reward, done, truncated, _ = env.step(0)
        assert not truncated
        total += reward
        n += 1
    assert env.simulation is not None
    return dict(env.simulation.start), total, n


def test_head_rule_under_fcfs_reproduces_gridmarket_simulate_fcfs_job_for_job(ctc, tmp_path, capsys):
    out = tmp_path / "fcfs.csv"
    assert main(["simulate", "--trace", str(datasets.sample(CTC_SAMPLE)), "--policy", "fcfs", "--out", str(out)]) == 0
    capsys.readouterr()
    table = pd.read_csv(out)
    starts, total, n = _run_head_rule(QueuePickEnv(ctc, policy="fcfs", n_jobs=None))
    assert len(starts) == len(table) == 5000
    assert starts == dict(zip(table["job_id"].tolist(), table["start"].tolist()))
    assert n == 5000  # FCFS starts every job at a decision of its own
    assert total == pytest.approx(-bounded_slowdown(table).sum(), rel=1e-12)


def test_head_rule_under_easy_reproduces_simulate_easy_job_for_job(ctc):
    records = simulate(ctc, policy="easy").records
    starts, total, n = _run_head_rule(QueuePickEnv(ctc, policy="easy", n_jobs=None, reward="wait"))
    assert starts == dict(zip(records["job_id"].tolist(), records["start"].tolist()))
    assert n < len(records)  # the backfilled jobs start without a decision
    assert total == pytest.approx(-records["wait"].sum() / 3600, rel=1e-12)


def test_passes_the_gymnasium_checker_through_make(ctc):
    env = gym.make("gridmarket/QueuePick-v0", workload=truncate(ctc, 400), n_jobs=200)
    check_env(env.unwrapped)


def _random_episode(env: QueuePickEnv, seed: int) -> tuple[list[np.ndarray], list[float], dict[int, int]]:
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    seen, rewards, done = [obs], [], False
    while not done:
        obs, reward, done, _, _ = env.step(int(rng.integers(env.action_space.n)))
        assert env.observation_space.contains(obs)
        seen.append(obs)
        rewards.append(reward)
    assert env.simulation is not None
    return seen, rewards, dict(env.simulation.start)


def test_reset_with_a_seed_replays_the_episode_exactly(ctc):
    env = QueuePickEnv(ctc, n_jobs=300)
    first = _random_episode(env, 7)
    again = _random_episode(env, 7)
    other = _random_episode(env, 8)
    assert first[2] == again[2] and first[1] == again[1]
    assert all(np.array_equal(a, b) for a, b in zip(first[0], again[0], strict=True))
    assert other[2] != first[2]  # another seed, another stretch of the trace


def test_a_random_episode_runs_every_job_once_and_its_return_is_minus_their_bounded_slowdowns():
    env = QueuePickEnv(n_jobs=150, procs=64, policy="fcfs")  # a Lublin workload drawn from the seed
    _, rewards, starts = _random_episode(env, 3)
    sim = env.simulation
    assert sim is not None and len(starts) == len(sim.end) == len(sim.jobs) == 150
    records = pd.DataFrame({"submit": [j.submit for j in sim.jobs], "start": [starts[j.id] for j in sim.jobs],
                            "end": [sim.end[j.id] for j in sim.jobs], "procs": [j.procs for j in sim.jobs]})
    assert sum(rewards) == pytest.approx(-bounded_slowdown(records).sum(), rel=1e-9)


def test_a_picked_job_that_does_not_fit_blocks_fcfs_until_it_starts():
    from gridmarket.job import Job

    jobs = [Job(1, 0, 2, 100, 100), Job(2, 0, 4, 10, 10), Job(3, 0, 1, 10, 10)]
    env = QueuePickEnv(jobs, procs=4, policy="fcfs")
    env.reset(seed=0)
    env.step(0)  # job 1 on two processors
    obs, _, _, _, info = env.step(0)  # job 2 needs four: picked, it waits, and job 3 may not pass it
    assert env.simulation is not None and env.simulation.start == {1: 0, 2: 100}
    assert info["time"] == 100 and info["queued"] == 1
    assert obs[0] == 1.0 and obs[5] == 0.0  # one job visible, job 3, the rest zeros


def test_wait_starts_nothing_until_the_next_event_and_is_masked_when_none_is_left():
    from gridmarket.job import Job

    env = QueuePickEnv([Job(1, 0, 1, 10, 10), Job(2, 5, 1, 10, 10)], procs=4, window=2, policy="fcfs")
    _, info = env.reset(seed=0)
    assert info["action_mask"].tolist() == [True, False, True]
    _, _, _, _, info = env.step(2)  # wait for job 2's arrival
    assert info["time"] == 5 and info["queued"] == 2
    _, _, _, _, info = env.step(1)  # job 2 first
    assert env.simulation is not None and env.simulation.start == {2: 5}
    assert info["action_mask"].tolist() == [True, False, True]  # job 2's end is still ahead
    _, _, done, _, info = env.step(2)
    assert not done and info["time"] == 15 and env.simulation.start == {2: 5}
    assert info["action_mask"].tolist() == [True, False, False]
    _, _, done, _, info = env.step(2)  # nothing left to wait for: the head starts
    assert done and env.simulation.start == {2: 5, 1: 15}


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"reward": "utility"}, "reward must be one of bsld, wait, response"),
    ({"window": 0}, "window must be a positive int"),
    ({"policy": "conservative"}, "plans its whole queue"),
    ({"n_jobs": None}, "a Lublin workload needs n_jobs"),
])
def test_bad_parameters_are_one_line_errors(kwargs, match):
    with pytest.raises(InvalidInput, match=match):
        QueuePickEnv(**kwargs)


def test_a_trace_file_is_read_once_and_episodes_are_runs_of_consecutive_jobs(tmp_path):
    env = QueuePickEnv(trace=datasets.sample(CTC_SAMPLE), n_jobs=50)
    env.reset(seed=4)
    assert env.simulation is not None
    ids = [job.id for job in env.simulation.jobs]
    assert len(ids) == 50 and ids == list(range(ids[0], ids[0] + 50))  # the sample numbers its jobs 1..5000
    missing = tmp_path / "nowhere.swf"
    with pytest.raises(InvalidInput, match="nowhere.swf"):
        QueuePickEnv(trace=missing)
