"""Offered load of each XSEDE system under Murali & Vadhiyar's stated workload (sec. 4.3.1).

The paper's synthetic workload: Lublin-Feitelson jobs (Tsafrir estimates), jobs under 30 minutes not
modelled, mean run time 8.8 h, 3.22 arrivals per hour per system, 15 days. This prints, per system of
Table I, the offered load (work / (cores x 15 days)) that set-up gives with the Lublin model's job
sizes, over seeds; the reproduction's default keeps a 0.7 offered load instead (see
benchmarks/RESULTS_reproductions.md).

    python benchmarks/murali_workload_load.py [--seeds 1..5]
"""

from __future__ import annotations

import argparse
import sys
import warnings

import numpy as np

from gridmarket.energy import xsede_systems
from gridmarket.metascheduling import grid_workload


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", default="1..5")
    ap.add_argument("--days", type=float, default=15)
    args = ap.parse_args(argv)
    a, b = (int(x) for x in args.seeds.split(".."))
    systems = xsede_systems()
    loads = {s.name: [] for s in systems}
    means = []
    for seed in range(a, b + 1):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # Tsafrir cannot cover such long jobs: wall-time estimates
            jobs = grid_workload(systems, days=args.days, rng=np.random.default_rng(seed), mean_runtime=8.8 * 3600,
                                 min_runtime=1800)
        means.append(np.mean([j.runtime for j in jobs]) / 3600)
        for s in systems:
            work = sum(j.procs * j.runtime for j in jobs if j.site == s.name)
            loads[s.name].append(work / (s.cores * args.days * 86400))
    print(f"seeds {a}..{b}, {args.days:g} days; mean run time {np.mean(means):.2f} h (paper 8.8 h)")
    print(f"{'system':<11} {'cores':>6}  offered load (mean, min-max over seeds)")
    for s in systems:
        v = loads[s.name]
        print(f"{s.name:<11} {s.cores:>6}  {np.mean(v):.2f} ({min(v):.2f}-{max(v):.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
