"""Two-tier engine (KEASY, REASY, MEASY) timed run by run, with a hash of each run's per-job records.

Usage::

    python benchmarks/bench_twotier.py TAG [JOBS]     # default 5,000 jobs

FWload and JWload (``gridmarket.scenarios.harnesses.twotier_tables.base_workload``, seed 1) at loads 0.6 and 0.9, each
policy under both bg-progress readings: 24 runs on 320 processors. Each line prints the tag, the run,
the first 12 hex digits of the SHA-1 of its records as CSV, and its seconds; the last line the total.
Run it on the code before and after a change (tags "before"/"after") and compare the hashes: equal
hashes mean byte-identical records. Used for the "kernel, third step" figures in RESULTS.md.
"""

import hashlib
import sys
import time

import numpy as np

from gridmarket.scenarios.harnesses.twotier_tables import base_workload, offered_load
from gridmarket.twotier import simulate_twotier
from gridmarket.workloads import scale_interarrival

PROCS = 320


def main(tag: str, n_jobs: int) -> None:
    total = 0.0
    for name in ("feitelson96", "jann97"):
        seeds = np.random.SeedSequence(1).spawn(3)
        base = base_workload(name, n_jobs, PROCS, seeds)
        for load in (0.6, 0.9):
            workload = scale_interarrival(base, offered_load(base, PROCS) / load)
            for policy in ("keasy", "reasy", "measy"):
                for bg_model in ("product", "ratio"):
                    t = time.perf_counter()
                    result = simulate_twotier(workload, procs=PROCS, policy=policy, bg_model=bg_model,
                                              rng=np.random.default_rng(seeds[2]))
                    seconds = time.perf_counter() - t
                    total += seconds
                    digest = hashlib.sha1(result.records.to_csv(index=False).encode()).hexdigest()[:12]
                    print(tag, name, load, policy, bg_model, digest, round(seconds, 2))
    print(tag, "total", round(total, 1))


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 5000)
