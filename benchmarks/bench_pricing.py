"""Cost of adaptive externality pricing over a whole trace, against the plain replay of that trace.

Run from the repository root::

    .venv/bin/python benchmarks/bench_pricing.py [--trace PATH] [--days N] [--easy-days N]

In one process it

1. picks the workload: ``--trace PATH``; else the registered CTC-SP2 from
   ``$GRIDMARKET_DATA`` or the cache (benchmarks/datafiles.py; without it, exit 2
   naming the fetch command); ``--days`` keeps the first N days;
2. times the plain conservative replay (``gridmarket.simulation.simulate``, no reservation);
3. times the priced replay (``gridmarket.scenarios.harnesses.pricing_replay.pricing_replay``): 10 % of the
   jobs (seed 1) reserve at the start eq. 20 picks (alpha 0.5) from the form-18 quote
   list of every request, priced by Fig. 22 under conservative backfilling;
4. replays the very same reservations at the very same starts without pricing, to
   separate what pricing costs from what the reservations cost the simulator;
5. optionally (``--easy-days N``) compares mean prices under conservative and EASY on
   the first N days, with random alphas (the thesis's Fig. 29 setting).

It prints CPU seconds (``time.process_time``, robust to other load on the machine) and
wall seconds, the ratio of the priced replay to the plain one against the goal of 5, and
the quoting work (requests, quotes, queue length). It is not part of the test suite.
"""

from __future__ import annotations

import argparse
import gc
import platform
import sys
import time
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

from datafiles import given_or_registered  # noqa: E402

from gridmarket.scenarios.harnesses.pricing_replay import pricing_replay  # noqa: E402
from gridmarket.simulation import simulate  # noqa: E402
from gridmarket.workloads import read_swf  # noqa: E402

CTC = "traces/CTC-SP2-1996-3.1-cln.swf.gz"
GOAL = 5.0


def _timed(fn):
    gc.collect()
    c0, w0 = time.process_time(), time.perf_counter()
    out = fn()
    return out, time.process_time() - c0, time.perf_counter() - w0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trace", help=f"SWF trace (default: the registered {CTC}, from $GRIDMARKET_DATA or the cache)")
    parser.add_argument("--days", type=float, help="keep only the jobs submitted in the first N days")
    parser.add_argument("--easy-days", type=float, default=0.0,
                        help="also compare conservative and EASY prices on the first N days (slow for EASY)")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    path = given_or_registered(args.trace, CTC, needed_by="bench_pricing")
    workload = read_swf(path)
    jobs = [j for j in workload.jobs if args.days is None or j.submit < args.days * 86400]
    procs = workload.max_procs
    jobs = [j for j in jobs if j.procs <= procs]
    print(f"trace {path.name}: {len(jobs)} jobs on {procs} processors"
          + (f" (first {args.days:g} days)" if args.days else " (whole trace)"))
    print(f"python {platform.python_version()} on {platform.machine()}, {platform.system()}")

    plain, plain_cpu, plain_wall = _timed(lambda: simulate(jobs, procs=procs, policy="conservative"))
    priced, priced_cpu, priced_wall = _timed(lambda: pricing_replay(jobs, procs=procs, policy="conservative",
                                                                    fraction=0.1, alpha=0.5, seed=1))
    decisions = dict(zip(priced.reservations["job_id"], priced.reservations["start"]))
    same, same_cpu, same_wall = _timed(lambda: pricing_replay(jobs, procs=procs, policy="conservative",
                                                              fraction=0.1, alpha=0.5, seed=1,
                                                              decisions=decisions))
    assert same.jobs["start"].tolist() == priced.jobs["start"].tolist()
    s = priced.summary
    rows = [
        ("plain conservative replay (no reservation)", plain_cpu, plain_wall),
        ("same 10 % reservations, starts given (no pricing)", same_cpu, same_wall),
        ("priced replay: 10 % reservations by form 18", priced_cpu, priced_wall),
        ("  of which pricing (priced - same)", priced_cpu - same_cpu, priced_wall - same_wall),
    ]
    width = max(len(r[0]) for r in rows)
    print(f"\n{'run':<{width}}  {'cpu s':>9}  {'wall s':>9}  {'x plain':>8}")
    for name, cpu, wall in rows:
        print(f"{name:<{width}}  {cpu:9.1f}  {wall:9.1f}  {cpu / plain_cpu:8.2f}")
    ratio = priced_cpu / plain_cpu
    print(f"\npriced / plain = {ratio:.2f} (cpu) against the goal of <= {GOAL:g}: "
          f"{'met' if ratio <= GOAL else 'NOT met'}")
    print(f"requests {s['n_reservations']}, quotes per request {s['mean_quotes']:.1f}, "
          f"pricing per request {(priced_cpu - same_cpu) / max(s['n_reservations'], 1) * 1000:.1f} ms cpu")
    print(f"mean price {s['mean_price_su']:.1f} SU, reservation wait {s['mean_reservation_wait_h']:.2f} h, "
          f"best-effort wait {s['mean_best_effort_wait_h']:.2f} h "
          f"(plain replay: {plain.records['wait'].mean() / 3600:.2f} h)")

    if args.easy_days:
        head = [j for j in jobs if j.submit < args.easy_days * 86400]
        print(f"\nconservative vs EASY on the first {args.easy_days:g} days ({len(head)} jobs), random alphas:")
        for policy in ("conservative", "easy"):
            r, cpu, _ = _timed(lambda policy=policy: pricing_replay(head, procs=procs, policy=policy, alpha=None, seed=1))
            t = r.summary
            print(f"  {policy:<12} mean price {t['mean_price_su']:8.1f} SU  reservation wait "
                  f"{t['mean_reservation_wait_h']:.2f} h  best-effort wait {t['mean_best_effort_wait_h']:.2f} h  "
                  f"({cpu:.1f} s cpu)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
