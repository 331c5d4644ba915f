"""One metascheduling clearing cycle: OR-Tools vs networkx on the same instance, in one run.

The instance: 1000 pending jobs x 58 systems (XSEDE's 8 + 50 NorduGrid
systems), eq. (6) costs built from random predicted response times and
electricity costs, ~80 % of pairs compatible. The paper reports 16.3 s per
cycle for its networkx network simplex. Prints both times, their ratio and
whether the optimal costs agree.

    .venv/bin/python benchmarks/bench_clearing.py [--jobs 1000] [--systems 58] [--maxq 0] [--repeat 3]

``--maxq 0`` means unbounded (MaxQ = infinity, the NorduGrid setting).

``--nordugrid DAYS`` instead times a whole grid run at NorduGrid scale: 50
synthetic systems (356,856 cores in all, as Table II), ~1,400 jobs a day (126k
in 90 days), 10-minute cycles, MCMF with MaxQ = infinity. ``--strategy inst``
skips the wait predictor (the engine and the clearing alone); ``mcmf`` runs the
full DBSCAN/ridge predictor per system.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from gridmarket.clearing import ClearingProblem, clear_mcmf, combined_cost, integer_costs
from gridmarket.scenarios.reproductions.murali import nordugrid_systems


def instance(n_jobs: int, n_systems: int, maxq: int | None, *, rng: np.random.Generator) -> ClearingProblem:
    wait = rng.exponential(3600.0, size=(n_jobs, n_systems))
    runtime = rng.lognormal(8.5, 1.2, size=(n_jobs, 1)) * rng.uniform(0.5, 2.0, size=(1, n_systems))
    price = rng.uniform(20.0, 80.0, size=(1, n_systems))
    watts = rng.uniform(20.0, 90.0, size=(1, n_systems)) * rng.integers(1, 512, size=(n_jobs, 1))
    response = wait + runtime
    energy = watts * runtime / 3600.0 * price / 1e6
    incompatible = rng.random((n_jobs, n_systems)) < 0.2
    response[incompatible] = np.nan
    energy[incompatible] = np.nan
    cost = combined_cost(response, energy, 25.0)
    return ClearingProblem(range(n_jobs), [f"S{k}" for k in range(n_systems)], cost, [maxq] * n_systems)


def _time(fn, repeat: int) -> tuple[float, object]:
    best, result = float("inf"), None
    for _ in range(repeat):
        t = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - t)
    return best, result


def nordugrid_run(days: float, strategy: str, seed: int) -> int:
    from gridmarket.energy import fixed_prices, synthetic_prices
    from gridmarket.metascheduling import GridConfig, Site, grid_workload, run_grid
    from gridmarket.prediction import PriceOutlook

    rng = np.random.default_rng(seed)
    systems = nordugrid_systems(rng)
    n_days = int(np.ceil(days)) * 8 + 3 + 30  # INST piles jobs onto the fastest systems: long tails
    sites = []
    for k, system in enumerate(systems):
        prices = (fixed_prices(60.0, n_days * 24) if k % 2 else
                  synthetic_prices(n_days, rng=rng, mean=30.0, start_hour_of_day=system.utc_offset_hours))
        sites.append(Site(system, prices, PriceOutlook(prices, forecaster=None)))
    t = time.perf_counter()
    jobs = grid_workload(systems, days=days, rng=rng, jobs_per_hour=126_344 / (90 * 24 * 50), start=3 * 86400)
    t_jobs = time.perf_counter() - t
    t = time.perf_counter()
    result = run_grid(jobs, sites, GridConfig(strategy, w_t=92.5, maxq=None, cycle=600), rng=rng)
    t_run = time.perf_counter() - t
    s = result.summary
    print(f"NorduGrid-scale: {len(systems)} systems, {sum(x.cores for x in systems)} cores, {days:g} days, "
          f"{len(jobs)} jobs, {int(days * 144)} cycles, strategy {strategy}")
    print(f"workload generation {t_jobs:.1f} s; grid run {t_run:.1f} s "
          f"({t_run / max(days * 144, 1) * 1e3:.1f} ms per cycle); migrated {s['migrated']}, "
          f"mean response {s['mean_response'] / 60:.1f} min")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nordugrid", type=float, metavar="DAYS", help="time a NorduGrid-scale grid run instead")
    parser.add_argument("--strategy", default="inst", choices=("inst", "mcmf"), help="with --nordugrid")
    parser.add_argument("--jobs", type=int, default=1000)
    parser.add_argument("--systems", type=int, default=58)
    parser.add_argument("--maxq", type=int, default=0, help="jobs per system per cycle; 0 = unbounded")
    parser.add_argument("--repeat", type=int, default=3, help="best of N for OR-Tools (networkx runs once)")
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args(argv)
    if args.nordugrid:
        return nordugrid_run(args.nordugrid, args.strategy, args.seed)
    problem = instance(args.jobs, args.systems, args.maxq or None, rng=np.random.default_rng(args.seed))
    scaled = integer_costs(problem.cost)
    spos = {s: k for k, s in enumerate(problem.systems)}

    def objective(result) -> int:
        return int(sum(scaled[j, spos[s]] for j, s in result.assignment.items()))

    t_fast, fast = _time(lambda: clear_mcmf(problem, backend="ortools"), args.repeat)
    t_ref, ref = _time(lambda: clear_mcmf(problem, backend="networkx"), 1)
    n_arcs = int(problem.compatible.sum())
    print(f"instance: {args.jobs} jobs x {args.systems} systems, {n_arcs} compatible arcs, "
          f"MaxQ={'inf' if not args.maxq else args.maxq}, seed {args.seed}")
    print(f"ortools  : {t_fast * 1e3:9.1f} ms  placed {len(fast.assignment):5d}  integer cost {objective(fast)}")
    print(f"networkx : {t_ref * 1e3:9.1f} ms  placed {len(ref.assignment):5d}  integer cost {objective(ref)}")
    same = objective(fast) == objective(ref) and len(fast.assignment) == len(ref.assignment)
    print(f"speed-up : {t_ref / t_fast:9.1f}x   identical optimum: {same}")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
