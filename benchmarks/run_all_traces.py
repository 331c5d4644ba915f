"""Run every registered rigid-job policy on every registered trace found in the data root.

Checks the Done criterion "gridmarket simulate runs every policy on every trace" and records, per
(trace, policy): jobs, seconds, jobs/s, mean wait, mean bounded slowdown, utilization. Prints a
Markdown table. Run from the repo root:

    .venv/bin/python benchmarks/run_all_traces.py [--policies easy,conservative] [--traces GLOB] [--data DIR]

Traces are found as everywhere (benchmarks/datafiles.py): --data, else $GRIDMARKET_DATA, else the cache that
``gridmarket data fetch`` fills; with none of them found it stops with exit status 2 and the fetch command.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from datafiles import traces  # noqa: E402

from gridmarket.scheduling import POLICIES  # noqa: E402
from gridmarket.simulation import simulate  # noqa: E402
from gridmarket.workloads import read_swf  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--policies", default=",".join(sorted(POLICIES)))
    parser.add_argument("--traces", default="*", help="glob on the registered traces' file names (default all)")
    parser.add_argument("--data", help="data folder (default $GRIDMARKET_DATA, else the cache)")
    args = parser.parse_args()
    paths = traces(args.traces, args.data, needed_by="run_all_traces")
    warnings.simplefilter("ignore")
    print("| trace | policy | jobs | dropped | seconds | jobs/s | mean wait (s) | mean bsld | utilization |")
    print("|---|---|---|---|---|---|---|---|---|")
    for path in paths:
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
