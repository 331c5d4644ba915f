"""Rocchetti et al. Sec. 6 (Table 3): the spread between accuracy classes against how much PSP's class weighs.

Sec. 6 prints the most accurate class's wait 2.25-2.88x below the least accurate's (CF
2.43, CFG 2.88, DI 2.43, HDI 2.25); `gridmarket run rocchetti-psp --size full` finds 5-33x under
both readings (strict PSP over EASY, PSP as the dominant factor of SLURM's multifactor priority).
Table 3 also says how far PSP moved the classes from the all-equal case: BE (every user in a1)
waits 820 min and GE (every user in a5) 796 min, and the top class of the mixed scenarios still
waits 0.52-0.63 of that (CF a4 450, CFG a5 517, DI a5 424, HDI a5 484 min). This reruns the
reproduction's workloads (the same seeds, four workloads a seed, 64 processors) under queue
orders that give the class more or less weight:

* ``easy``: EASY backfilling in arrival order, no PSP (accuracy acts only through backfilling);
* ``psp``: the strict class order over EASY (the reproduction's first reading);
* ``slurm:P:A``: SLURM's multifactor priority with PSP weight P, age weight A (max age 7 days) and
  job-size weight 1000, served by SLURM's backfill pass; ``slurm:10000:1000`` is the
  reproduction's second reading, ``slurm:0:1000`` SLURM without PSP.

Per policy it prints, as means over seeds with a 95 % bootstrap percentile interval (waits and ratios are >= 0): each mixed scenario's
least / most accurate class wait (Sec. 6's spread; k = seeds within 25 % of the paper's, the
reproduction's check), the top and the bottom class's wait relative to BE's (the paper's
0.52-0.63 and 1.26-1.82), the overall BE and GE waits, the directions the reproduction checks
(class order in CF/CFG/DI/HDI, BE > GE, DI's lowest class below every a1) with the ratios behind the
last two (the paper's margins are 3 % and 6 %), and the mean absolute log error over Table 3's cells.

    PYTHONPATH=$PWD .venv/bin/python benchmarks/rocchetti_spread_vs_priority.py --seeds 1..10 \\
        --policies psp,easy,slurm:10000:1000,slurm:0:1000,slurm:100:1000,slurm:250:1000 [--procs 64]
"""

from __future__ import annotations

import argparse
import math
import sys
import time

import numpy as np

_SPREAD = {"CF": 2.43, "CFG": 2.88, "DI": 2.43, "HDI": 2.25}  # Sec. 6
_BE = 820.05  # Table 3, minutes


from gridmarket.scenarios.commands.run import parse_seeds  # noqa: E402 (the CLI's A..B / a,b,c rule)


def _policy(spec: str):
    """A policy name or class for `class_wait_table` from ``easy``, ``psp`` or ``slurm:P:A``."""
    if not spec.startswith("slurm:"):
        return spec
    from gridmarket.scheduling.slurm import SlurmPSPScheduler, SlurmWeights

    _, psp, age = spec.split(":")
    weights = SlurmWeights(psp=float(psp), age=float(age))

    class Weighted(SlurmPSPScheduler):
        name = spec

        def __init__(self, procs: int) -> None:
            super().__init__(procs, weights=weights)

    Weighted.__name__ = f"Slurm_{psp}_{age}"
    return Weighted


def one(seed: int, spec: str, procs: int) -> dict:
    """The reproduction's full-size table (four workloads) for one seed under one queue order."""
    from gridmarket.scenarios.harnesses.psp import class_wait_table
    from gridmarket.scenarios.reproductions.rocchetti import _TABLE_3

    table = class_wait_table(seed=seed, n_workloads=4, policy=_policy(spec), procs=procs) / 60.0
    be = float(table.loc["BE"].dropna().iloc[0])
    ge = float(table.loc["GE"].dropna().iloc[0])
    out = {"BE": be, "GE": ge, "BE>GE": be > ge}
    errors = []
    for scenario, cells in _TABLE_3.items():
        for cls, paper in cells.items():
            ours = float(table.loc[scenario, cls])
            if not math.isnan(ours) and ours > 0:
                errors.append(abs(math.log(ours / paper)))
    out["cell_error"] = float(np.mean(errors))
    for scenario in _SPREAD:
        waits = table.loc[scenario].dropna()
        lo, hi = int(waits.index.min()), int(waits.index.max())
        out[f"{scenario} spread"] = float(waits[lo] / waits[hi])
        out[f"{scenario} order"] = bool(waits[hi] < waits[lo])
        out[f"{scenario} top/BE"] = float(waits[hi] / be)
        out[f"{scenario} bottom/BE"] = float(waits[lo] / be)
    di_low = float(table.loc["DI"].dropna().iloc[0])
    others = [float(table.loc[s, 1]) for s in ("CF", "CFG", "HDI") if not math.isnan(table.loc[s, 1])]
    out["DI low < a1s"] = all(di_low < v for v in others)
    out["DI low / min a1"] = di_low / min(others)
    out["BE/GE"] = be / ge
    out["all four spreads"] = all(abs(out[f"{s} spread"] - w) <= 0.25 * w for s, w in _SPREAD.items())
    return out


def _ci(values):
    """Mean, low, high of the 95 % interval over seeds of a wait or a ratio of waits (never below 0)."""
    from gridmarket.scenarios.intervals import interval

    s = interval(values, low=0.0)
    return s.mean, s.low, s.high


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", default="1..10")
    parser.add_argument("--policies", default="easy,psp,slurm:10000:1000,slurm:0:1000")
    parser.add_argument("--procs", type=int, default=64)
    args = parser.parse_args(argv)
    seeds = parse_seeds(args.seeds)
    paper_top = {"CF": 450.30 / _BE, "CFG": 517.35 / _BE, "DI": 424.43 / _BE, "HDI": 484.20 / _BE}
    paper_bottom = {"CF": 1093.12 / _BE, "CFG": 1488.60 / _BE, "DI": 1030.25 / _BE, "HDI": 1091.58 / _BE}
    for spec in args.policies.split(","):
        t0 = time.perf_counter()
        runs = [one(seed, spec, args.procs) for seed in seeds]
        n = len(runs)
        print(f"\n== {spec} on {args.procs} processors, seeds {seeds[0]}..{seeds[-1]} "
              f"({time.perf_counter() - t0:.1f} s)")
        for key in ("BE", "GE"):
            m, lo, hi = _ci([r[key] for r in runs])
            print(f"  {key} wait {m:8.1f} min [{lo:.1f}, {hi:.1f}]   (paper {820.05 if key == 'BE' else 796.18})")
        print(f"  BE > GE: {sum(r['BE>GE'] for r in runs)}/{n};  DI's lowest class below every a1: "
              f"{sum(r['DI low < a1s'] for r in runs)}/{n};  mean |log(ours / paper)| over Table 3's cells: "
              f"{np.mean([r['cell_error'] for r in runs]):.2f}")
        m, lo, hi = _ci([r["BE/GE"] for r in runs])
        print(f"  BE / GE wait {m:.3f} [{lo:.3f}, {hi:.3f}] (paper {820.05 / 796.18:.3f});  DI's lowest class / the "
              "lowest a1 of CF, CFG, HDI {:.3f} [{:.3f}, {:.3f}] (paper {:.3f});  all four spreads within 25 % at once: "
              "{}/{}".format(*_ci([r["DI low / min a1"] for r in runs]), 1030.25 / 1091.58,
                             sum(r["all four spreads"] for r in runs), n))
        print("  scenario  spread mean [95 %]        k(+-25 %)  order  top/BE (paper)      bottom/BE (paper)")
        for s, want in _SPREAD.items():
            vals = [r[f"{s} spread"] for r in runs]
            m, lo, hi = _ci(vals)
            k = sum(abs(v - want) <= 0.25 * want for v in vals)
            order = sum(r[f"{s} order"] for r in runs)
            top = _ci([r[f"{s} top/BE"] for r in runs])[0]
            bottom = _ci([r[f"{s} bottom/BE"] for r in runs])[0]
            print(f"  {s:<8}  {m:6.2f} [{lo:6.2f}, {hi:6.2f}] (paper {want})  {k:2d}/{n}   {order:2d}/{n}  "
                  f"{top:.2f} ({paper_top[s]:.2f})        {bottom:.2f} ({paper_bottom[s]:.2f})")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
