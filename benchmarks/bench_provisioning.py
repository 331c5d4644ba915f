"""Provisioning benchmark: plan evaluation speed, MOGA time and front quality, greedy, best effort, VAR.

Measured in one run on the machine at hand (Singh 2008, ch. 4, 6, 7):

1. plans evaluated per second: a 100-task layered workflow (10 levels, mean
   6 processors, mean runtime 1000 s) scheduled on random plans over the 40
   slots SDSC-SP2 advertises at the submission of its job 1400 (slot
   scheduler, exact estimates);
2. MOGA, population 100 x 10 generations, on that instance: seconds and the
   hypervolume of the front (objectives normalised by the best-effort
   allocation cost and makespan, reference point (1.5, 1.5)), against a
   100 x 50 run of the same seed;
3. small instances (11-18 slots): MOGA's front against the exact front by
   enumeration, hypervolume ratio (the goal: >= 0.95);
4. provisioned (MOGA at alpha 0 / 0.5 / 1; greedy over f = 0 quotes and over
   adaptive externality quotes of ``gridmarket.pricing``) against best effort just
   in time (conservative backfilling), at several submission times on
   SDSC-SP2 and CTC-SP2: makespan and allocation cost ratios;
5. VAR requests on SDSC-SP2 (the twelve of ch. 6.2, 32/64 processors, 1/4 h,
   leads 1/4/8 h): success rate and normalised allocation cost; then VAR,
   adaptive-pricing reservations and the combined scheme (penalty 0.1) on the
   same requests, at the trace's load and at 1.5 times it.

Usage: ``python benchmarks/bench_provisioning.py [--quick]``. Needs the registered SDSC-SP2 and CTC-SP2
traces in ``$GRIDMARKET_DATA`` or the cache (``gridmarket data fetch``; benchmarks/datafiles.py).
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402
from datafiles import data_file  # noqa: E402

from gridmarket.job import Job  # noqa: E402
from gridmarket.provisioning import PlanEvaluator, advertise, exact_front, hypervolume, moga
from gridmarket.scenarios.harnesses.provisioning import (
    Provider,
    compare_greedy,
    compare_moga,
    reservation_schemes,
    var_requests,
)
from gridmarket.scheduling import SlotScheduler
from gridmarket.workflows import layered_workflow
from gridmarket.workloads import read_swf, scale_load

SDSC, CTC = "traces/SDSC-SP2-1998-4.2-cln.swf.gz", "traces/CTC-SP2-1996-3.1-cln.swf.gz"


def _norm_hv(points, ac0, sc0, ref=(1.5, 1.5)):
    return hypervolume([(a / ac0, s / sc0) for a, s in points], ref)


def _tiny(seed, procs=16, n_jobs=25):
    rng = np.random.default_rng(seed)
    s = SlotScheduler(procs)
    for i in range(n_jobs):
        d = int(rng.integers(1, 8)) * 600
        s.submit(Job(i, 0, int(rng.integers(1, procs + 1)), d, d), 0)
    slots = advertise("m", s.free_slots(0, until=s.plan_end + 300))
    g = layered_workflow(10, depth=3, mean_runtime=900, mean_procs=3, rng=rng)
    return PlanEvaluator(g, slots)


def _ratio(found, exact):
    pts = exact.points
    lo = [min(p[i] for p in pts) for i in (0, 1)]
    span = [(max(p[i] for p in pts) - lo[i]) or 1.0 for i in (0, 1)]

    def norm(ps):
        return [tuple((p[i] - lo[i]) / span[i] for i in (0, 1)) for p in ps]

    return hypervolume(norm(found), (1.1, 1.1)) / hypervolume(norm(pts), (1.1, 1.1))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    parser.add_argument("--reservations-only", action="store_true", help="run part 5 alone")
    args = parser.parse_args(argv)
    sdsc_path = data_file(SDSC, needed_by="bench_provisioning")
    ctc_path = None if args.reservations_only else data_file(CTC, needed_by="bench_provisioning")
    warnings.simplefilter("ignore")
    sdsc_w = read_swf(sdsc_path)
    sdsc = Provider("sdsc", 128, sdsc_w.jobs[:6000])
    if args.reservations_only:
        _reservations(sdsc_w, sdsc)
        return 0
    wf = layered_workflow(100, depth=10, mean_procs=6, rng=np.random.default_rng(0))
    at = sdsc_w.jobs[1400].submit

    # 1. plan evaluation
    slots = sdsc.advertised(at)
    ev = PlanEvaluator(wf, slots, release=at, capacity={"sdsc": 128})
    rng = np.random.default_rng(1)
    plans = [rng.integers(0, 2, len(slots)).tolist() for _ in range(300)]
    t0 = time.perf_counter()
    results = [ev.evaluate(p) for p in plans]
    dt = time.perf_counter() - t0
    feasible = sum(r[1] < float("inf") for r in results)
    print(f"[1] plan evaluation, 100 tasks x {len(slots)} slots "
          f"({sum(not s.divisible for s in slots)} indivisible): {len(plans) / dt:.0f} plans/s "
          f"({1000 * dt / len(plans):.2f} ms/plan; {feasible}/{len(plans)} random plans feasible)")

    # 2. MOGA 100 x 10, and a 100 x 50 reference
    rows = compare_moga(wf, [sdsc], at=at, seed=1)
    be = rows[-1]
    t0 = time.perf_counter()
    r10 = moga(ev, population=100, generations=10, rng=np.random.default_rng(1))
    t10 = time.perf_counter() - t0
    t0 = time.perf_counter()
    r50 = moga(ev, population=100, generations=50, rng=np.random.default_rng(1))
    t50 = time.perf_counter() - t0
    hv10 = _norm_hv(r10.front.points, be["allocation_cost"], be["makespan"])
    hv50 = _norm_hv(r50.front.points, be["allocation_cost"], be["makespan"])
    print(f"[2] MOGA 100x10: {t10:.1f} s, {r10.n_evaluations} plans, front {len(r10.front)}, "
          f"HV {hv10:.4f}; 100x50: {t50:.1f} s, front {len(r50.front)}, HV {hv50:.4f}; "
          f"ratio {hv10 / hv50:.3f}")

    # 3. small instances against enumeration
    ratios = []
    seeds = [1, 3, 4, 5, 9, 11] if args.quick else [0, 1, 3, 4, 5, 6, 7, 9, 10, 11]
    for seed in seeds:
        tiny = _tiny(seed)
        if tiny.n_slots > 16:
            continue
        t0 = time.perf_counter()
        exact = exact_front(tiny)
        te = time.perf_counter() - t0
        found = moga(tiny, rng=np.random.default_rng(seed)).front
        ratios.append(_ratio(found.points, exact))
        print(f"    seed {seed}: {tiny.n_slots} slots, exact front {len(exact)} "
              f"({te:.1f} s to enumerate 2^{tiny.n_slots}), MOGA front {len(found)}, HV ratio {ratios[-1]:.3f}")
    print(f"[3] MOGA vs enumeration: HV ratio min {min(ratios):.3f}, mean {np.mean(ratios):.3f} "
          f"over {len(ratios)} instances")

    # 4. provisioned vs best effort on real traces
    ctc_w = read_swf(ctc_path)
    for name, w, procs, mean_procs in (("sdsc", sdsc_w, 128, 6), ("ctc", ctc_w, 338, 22)):
        g = layered_workflow(100, depth=10, mean_procs=mean_procs, rng=np.random.default_rng(0))
        points = [800, 1400, 2000] if args.quick else [800, 1100, 1400, 1700, 2000, 2300]
        stats: dict[str, list[tuple[float, float]]] = {}
        t0 = time.perf_counter()
        for k in points:
            provider = Provider(name, procs, w.jobs[max(0, k - 1500):k + 3000])
            at_k = w.jobs[k].submit
            rows = (compare_moga(g, [provider], at=at_k, seed=k)
                    + compare_greedy(g, [provider], at=at_k, pricing="free")[:-1]
                    + compare_greedy(g, [provider], at=at_k, pricing="adaptive")[:-1])
            base = rows[3]
            for r in rows:
                key = r["method"] if r["method"] == "best-effort" else f"{r['method']} a={r['alpha']:g}"
                stats.setdefault(key, []).append((r["makespan"] / base["makespan"],
                                                  r["allocation_cost"] / base["allocation_cost"]))
        summary = ", ".join(f"{k}: makespan x{np.mean([m for m, _ in v]):.2f} cost x{np.mean([c for _, c in v]):.3f}"
                            for k, v in stats.items() if k != "best-effort")
        print(f"[4] {name} ({len(points)} submission times, {time.perf_counter() - t0:.0f} s), "
              f"relative to best effort: {summary}")

    _reservations(sdsc_w, sdsc)
    return 0


def _reservations(sdsc_w, sdsc) -> None:
    """Part 5 (also alone with --reservations-only)."""
    # 5. VAR, adaptive-pricing reservations and the combined scheme on SDSC-SP2, at its load and x1.5
    h = 3600
    requests_ = [(n, d, lead) for n in (32, 64) for d in (h, 4 * h) for lead in (h, 4 * h, 8 * h)]
    at_list = [sdsc_w.jobs[k].submit for k in range(1500, 1500 + 250 * len(requests_), 250)]
    reqs = []
    last_end = 0
    for t, (n, d, lead) in zip(at_list, requests_):
        t = max(t, last_end)
        reqs.append((t, n, d, lead))
        last_end = t + lead + 1
    t0 = time.perf_counter()
    outcomes, summary = var_requests(sdsc, reqs, warmup=sdsc_w.jobs[500].submit)
    print(f"[5] VAR on SDSC-SP2, {summary['n']} requests ({time.perf_counter() - t0:.1f} s): success "
          f"{summary['success_rate']:.0%}, mean normalised extra cost {summary['mean_normalized_cost']:.2f}; "
          f"submitted at once in {sum(o.submit == r[0] for o, r in zip(outcomes, reqs))} cases")
    for factor in (1.0, 1.5):
        w = sdsc_w if factor == 1.0 else scale_load(sdsc_w, factor)
        provider = Provider("sdsc", 128, w.jobs[:9000])
        reqs, last_end = [], 0
        for rep in range(2):
            for k, (n, d, lead) in enumerate(requests_):
                t = max(w.jobs[1500 + 250 * (k + rep * len(requests_))].submit, last_end)
                reqs.append((t, n, d, lead))
                last_end = t + lead + 1
        t0 = time.perf_counter()
        _, schemes = reservation_schemes(provider, reqs, warmup=w.jobs[500].submit)
        text = "; ".join(f"{k}: success {v['success_rate']:.0%}, cost {v['mean_normalized_cost']:.2f}"
                         for k, v in schemes.items())
        print(f"    load x{factor:g}, {len(reqs)} requests ({time.perf_counter() - t0:.1f} s): {text}")


if __name__ == "__main__":
    sys.exit(main())
