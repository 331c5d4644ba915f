"""Random jobs shared by the job-market tests: small seeded workloads, with users' valuations."""

import numpy as np

from gridmarket.job import Job
from gridmarket.valuation import Valuation, draw_valuations
from gridmarket.workloads.workload import Workload

H = 3600


def valued_jobs(rng: np.random.Generator, n: int, gap: int, sites: str) -> tuple[list[Job], dict[int, Valuation]]:
    """``n`` jobs (inter-arrivals uniform on 0..``gap`` s, 1-8 processors, runs 60-4000 s, estimates up to
    3000 s longer; users by id mod 3, home site by id over ``sites``) and their valuations, from ``rng``."""
    jobs, t = [], 0
    for i in range(1, n + 1):
        t += int(rng.integers(0, gap + 1))
        runtime = int(rng.integers(60, 4000))
        jobs.append(Job(i, t, int(rng.integers(1, 9)), runtime, runtime + int(rng.integers(0, 3000)), user=i % 3,
                        site=sites[i % len(sites)]))
    vals = draw_valuations(((j.id, j.submit, j.procs * j.estimate / H, min(j.runtime, j.estimate)) for j in jobs),
                           rng=rng)
    return jobs, vals


def two_site_workload(n: int = 30, seed: int = 3) -> Workload:
    """``n`` seeded jobs (inter-arrivals up to 299 s, runs 300-4000 s) homed alternately at sites a and b."""
    rng = np.random.default_rng(seed)
    jobs, t = [], 0
    for i in range(1, n + 1):
        t += int(rng.integers(0, 300))
        procs, runtime = int(rng.integers(1, 9)), int(rng.integers(300, 4000))
        jobs.append(Job(i, t, procs, runtime, runtime + int(rng.integers(0, 2000)), user=i % 3, site="ab"[i % 2]))
    return Workload(tuple(jobs), name="t")
