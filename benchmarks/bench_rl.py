"""Steps per second of the learning environments (``gridmarket.rl``), one process, one core.

Goal (issue 37): QueuePick >= 10,000 steps/s on CTC-SP2. A QueuePick episode here is the whole trace
(every job of the full CTC-SP2 log, ``n_jobs=None``) under each base policy, driven by the head rule
(the base policy itself) and by uniformly random actions from a seeded generator; the environment is
made once (the trace read outside the timing), then ``reset`` and the steps are timed. The market
environments (Bid-v0 on ``auction-market``, Dispatch-v0 on ``quickstart``, the parallel market of three
brokers) run whole episodes of their registered scenario, reset (building the scenario's agent model)
included, driven truthfully / by MCMF's choice and randomly. Wall seconds and the process's CPU
seconds are both printed: on a shared machine the CPU figure is the one core's rate.

    GRIDMARKET_DATA=../shared/data python benchmarks/bench_rl.py [--trace FILE] [--policies fcfs,easy] [--repeat 3] [--markets]
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from datafiles import data_file  # noqa: E402

CTC = "traces/CTC-SP2-1996-3.1-cln.swf.gz"


def episode(env, driver: str, seed: int) -> tuple[int, float, float]:
    """Steps of one whole episode, its wall and CPU seconds."""
    rng = np.random.default_rng(seed)
    n_actions = int(env.action_space.n)
    w0, c0 = time.perf_counter(), time.process_time()
    env.reset(seed=seed)
    steps, done = 0, False
    if driver == "head":
        while not done:
            done = env.step(0)[2]
            steps += 1
    else:
        actions = rng.integers(n_actions, size=1 << 16)
        while not done:
            done = env.step(int(actions[steps & 0xFFFF]))[2]
            steps += 1
    return steps, time.perf_counter() - w0, time.process_time() - c0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trace", help=f"SWF trace (default: {CTC} under the data root)")
    parser.add_argument("--policies", default="fcfs,easy", help="base policies, comma-separated")
    parser.add_argument("--drivers", default="head,random", help="head (action 0) and/or random")
    parser.add_argument("--repeat", type=int, default=3, help="episodes per cell; the best is reported")
    parser.add_argument("--markets", action="store_true", help="also the market environments (Bid, Dispatch, parallel)")
    parser.add_argument("--no-queuepick", action="store_true", help="skip QueuePick (with --markets)")
    args = parser.parse_args()
    if not args.no_queuepick:
        queuepick(args)
    if args.markets:
        markets(args.repeat)


def market_episode(name: str, driver: str, seed: int) -> tuple[int, float, float]:
    """Steps of one whole episode of a market environment (reset included), its wall and CPU seconds."""
    from gridmarket.clearing import resolve_clearing
    from gridmarket.rl import market_parallel_env
    from gridmarket.rl.bid import BidEnv
    from gridmarket.rl.dispatch import DispatchEnv

    w0, c0 = time.perf_counter(), time.process_time()
    steps = 0
    if name == "parallel":
        penv = market_parallel_env(n_brokers=3)
        penv.reset(seed=seed)
        for a in penv.possible_agents:
            penv.action_space(a).seed(seed)
        while penv.agents:
            penv.step({a: (np.ones(16, np.float32) if driver == "truthful" else penv.action_space(a).sample())
                       for a in penv.agents})
            steps += 1
        return steps, time.perf_counter() - w0, time.process_time() - c0
    env = BidEnv() if name == "Bid-v0" else DispatchEnv()
    env.action_space.seed(seed)
    env.reset(seed=seed)
    mcmf = resolve_clearing("mcmf")
    done = False
    while not done:
        if driver == "random":
            action = env.action_space.sample()
        elif name == "Bid-v0":
            action = np.ones(env.max_jobs, np.float32)
        else:
            action = env.action_for(mcmf(env.costs))
        done = env.step(action)[2]
        steps += 1
    return steps, time.perf_counter() - w0, time.process_time() - c0


def markets(repeat: int) -> None:
    print(f"\nmarket environments, whole episodes of seed 0..{repeat - 1} (reset included), the best by CPU")
    print(f"{'environment':<12} {'driver':<9} {'steps':>6} {'wall s':>8} {'CPU s':>8} {'steps/s (wall)':>15} {'steps/s (CPU)':>14}")
    for name, drivers in (("Bid-v0", ("truthful", "random")), ("Dispatch-v0", ("mcmf", "random")),
                          ("parallel", ("truthful", "random"))):
        for driver in drivers:
            runs = [market_episode(name, driver, seed) for seed in range(repeat)]
            steps, wall, cpu = min(runs, key=lambda r: r[2])
            print(f"{name:<12} {driver:<9} {steps:>6} {wall:>8.2f} {cpu:>8.2f} {steps / wall:>15,.1f} {steps / cpu:>14,.1f}")


def queuepick(args) -> None:

    from gridmarket.rl import QueuePickEnv
    from gridmarket.workloads import read_swf

    trace = Path(args.trace) if args.trace else data_file(CTC, needed_by="bench_rl.py")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the trace's dropped jobs are counted, not news here
        workload = read_swf(trace)
    print(f"QueuePick-v0 on {trace.name}: {len(workload.jobs)} jobs, {workload.max_procs} processors, "
          f"best of {args.repeat} whole-trace episodes")
    print(f"{'policy':<8} {'driver':<7} {'steps':>8} {'wall s':>8} {'CPU s':>8} {'steps/s (wall)':>15} {'steps/s (CPU)':>14}")
    for policy in args.policies.split(","):
        env = QueuePickEnv(workload, policy=policy, n_jobs=None)
        for driver in args.drivers.split(","):
            runs = [episode(env, driver, seed) for seed in range(args.repeat)]
            steps, wall, cpu = min(runs, key=lambda r: r[2])
            print(f"{policy:<8} {driver:<7} {steps:>8} {wall:>8.2f} {cpu:>8.2f} {steps / wall:>15,.0f} {steps / cpu:>14,.0f}")


if __name__ == "__main__":
    main()
