"""Why REASY beats EASY on JWload in our two-tier machine: serial and parallel jobs' responses and waits.

The paper (Liu et al., sec. 3.4 (1)) says REASY is worse than EASY on JWload because it delays
the single-process jobs EASY would backfill. This prints, per seed and policy, the mean response of
all, serial and parallel jobs, the serial jobs' mean wait and the share of jobs that finished on a
background VM, for JWload at one offered load (``benchmarks/RESULTS_reproductions.md``, measy).

    python benchmarks/measy_reasy_serial.py [--jobs 5000] [--procs 320] [--load 0.9] [--seeds 1,2]
        [--bg-model ratio]
"""

from __future__ import annotations

import argparse
import sys
import warnings

import numpy as np


def main(argv: list[str] | None = None) -> int:
    from gridmarket.scenarios.harnesses.twotier_tables import base_workload, offered_load
    from gridmarket.simulation import simulate
    from gridmarket.twotier.progress import BG_MODELS, DEFAULT_BG_MODEL
    from gridmarket.twotier.simulation import simulate_twotier
    from gridmarket.workloads import scale_load

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=5000)
    ap.add_argument("--procs", type=int, default=320)
    ap.add_argument("--load", type=float, default=0.9)
    ap.add_argument("--seeds", default="1,2")
    ap.add_argument("--bg-model", choices=BG_MODELS, default=DEFAULT_BG_MODEL)
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")  # the workload generators' dropped-job notes
    for seed in [int(s) for s in args.seeds.split(",")]:
        streams = np.random.SeedSequence(seed).spawn(3)
        w = base_workload("jann97", args.jobs, args.procs, streams[:2])
        w = scale_load(w, args.load / offered_load(w, args.procs))
        runs = {"easy": simulate(w, procs=args.procs, policy="easy").records}
        for policy in ("keasy", "reasy", "measy"):
            runs[policy] = simulate_twotier(w, procs=args.procs, policy=policy, bg_model=args.bg_model,
                                            rng=np.random.default_rng(streams[2])).records
        for name, r in runs.items():
            response, serial = r["end"] - r["submit"], r["procs"] == 1
            bg = f" | finished in bg {100 * (r['finished_in'] == 'bg').mean():.1f} %" if "finished_in" in r else ""
            print(f"seed {seed} {name:6s} mean response {response.mean():9.0f} s | serial {response[serial].mean():9.0f}"
                  f" | parallel {response[~serial].mean():9.0f} | serial wait "
                  f"{(r['start'] - r['submit'])[serial].mean():8.0f}{bg}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
