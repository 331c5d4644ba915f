"""Run every registered rigid-job policy on every trace in ../shared/data/traces.

Checks the Done criterion "gridmarket simulate runs every policy on every trace" and records, per
(trace, policy): jobs, seconds, jobs/s, mean wait, mean bounded slowdown, utilization. Prints a
Markdown table. Run from the repo root:

    .venv/bin/python benchmarks/run_all_traces.py [--policies easy,conservative] [--traces GLOB]
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

from gridmarket.scheduling import POLICIES
from gridmarket.simulation import simulate
from gridmarket.workloads import read_swf

TRACES = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "traces"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--policies", default=",".join(sorted(POLICIES)))
    parser.add_argument("--traces", default="*.swf*")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    print("| trace | policy | jobs | dropped | seconds | jobs/s | mean wait (s) | mean bsld | utilization |")
    print("|---|---|---|---|---|---|---|---|---|")
    for path in sorted(TRACES.glob(args.traces)):
        workload = read_swf(path)
        for policy in args.policies.split(","):
            if policy == "psp" and all(j.user < 0 for j in workload.jobs[:100]):
                print(f"| {path.name} | {policy} | (no users in trace) |")
                continue
            t0 = time.perf_counter()
            s = simulate(workload, policy=policy).summary
            dt = time.perf_counter() - t0
            print(f"| {path.name} | {policy} | {s['jobs']} | {s['dropped']} | {dt:.1f} | "
                  f"{s['jobs'] / dt:,.0f} | {s['mean_wait']:.0f} | {s['mean_bsld']:.2f} | "
                  f"{s['utilization']:.3f} |", flush=True)


if __name__ == "__main__":
    main()
