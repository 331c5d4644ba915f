"""Murali & Vadhiyar (XSEDE, Table IV): where the electricity-cost changes come from, energy or prices paid.

The paper's cost changes against BS are small (MCMF w_t = 25 % -3.0 %, w_t = 0 % -18.9 %,
TWOPRICE +0.7 %, w_t = 50 % "almost the same", sec. 5.2 and 5.7.2), and it explains MCMF's edge
over TWOPRICE by prices alone ("TWOPRICE is unaware of fine grained price fluctuations every
hour"). `gridmarket run murali-xsede --size full` finds every policy that weighs electricity about
45 % cheaper than BS. A cost is energy x the price paid per MWh, so this splits each policy's cost
change into the two:

* energy (MWh): where the work runs. A job's energy on system S is cores x Table I's watts per
  core x its run time there, scaled by Table I's GFlops per core (sec. 4.5), so it is
  proportional to S's watts per GFlop, which Table I spreads from 1.05 (Gordon) to 9.77
  (Blacklight);
* the mean price paid (USD/MWh): where (region) and when (hour) that energy is bought.

Two variants of the grid, everything else as the reproduction (the same workload, prices, SARIMA
forecasts, 10-minute cycles, MaxQ 2, warm predictors; seed for seed, the ``table-i`` variant gives
the reproduction's figures):

* ``table-i``: Table I's systems (the reproduction);
* ``equal-efficiency``: every system draws the same watts per GFlop (each system's watts per core
  = its GFlops per core x one constant, chosen so that all cores busy draw Table I's total), so
  moving work between systems cannot change its energy and only prices can move the cost.

    PYTHONPATH=$PWD GRIDMARKET_DATA=../shared/data .venv/bin/python -W ignore \\
        benchmarks/murali_cost_vs_efficiency.py --seeds 1..3 [--variants table-i,equal-efficiency] [--days 15] \\
        [--tail-days 200]
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from pathlib import Path

import numpy as np

_PAPER = {  # change vs BS in %, Table IV and sec. 5.7.2
    "mcmf-w0": ("cost", -18.9), "mcmf-w25": ("cost", -3.0), "mcmf-w50": ("cost", 0.0),
    "twoprice-w25": ("cost", +0.7),
}


from gridmarket.scenarios.commands.run import parse_seeds  # noqa: E402 (the CLI's A..B / a,b,c rule)

sys.path.insert(0, str(Path(__file__).resolve().parent))
from datafiles import data_file  # noqa: E402


def _systems(variant: str):
    from gridmarket.energy.systems import xsede_systems

    systems = xsede_systems()
    if variant == "table-i":
        return systems
    if variant != "equal-efficiency":
        raise SystemExit(f"unknown variant {variant!r}")
    total_watts = sum(s.cores * s.watts_per_core for s in systems)
    per_gflop = total_watts / sum(s.cores * s.gflops_per_core for s in systems)
    return tuple(dataclasses.replace(s, watts_per_core=s.gflops_per_core * per_gflop) for s in systems)


def one(seed: int, variant: str, days: float, labels: list[str]) -> dict:
    """Every policy on one seed's workload and prices: response, cost, MWh, USD/MWh, core-hours per system."""
    from gridmarket.metascheduling import GridConfig, run_grid, stream_rng
    from gridmarket.scenarios.harnesses.metascheduling import WARMUP_DAYS, xsede_sites
    from gridmarket.scenarios.reproductions.murali import _HISTORY, _grid_jobs

    pjm = data_file("prices/pjm_comed_2013-2018_epftoolbox.csv", needed_by="murali_cost_vs_efficiency")
    systems = _systems(variant)
    sites = xsede_sites(days, seed=seed, systems=systems, pjm_csv=pjm)
    streams = np.random.SeedSequence(seed).spawn(2)  # as the reproduction
    jobs, _ = _grid_jobs(list(systems), days=days, rng=np.random.default_rng(streams[0]),
                         start=WARMUP_DAYS * 86400)
    configs = {"bs": GridConfig("bs"), "mcmf-w0": GridConfig("mcmf", w_t=0, maxq=2),
               "mcmf-w25": GridConfig("mcmf", w_t=25, maxq=2), "mcmf-w50": GridConfig("mcmf", w_t=50, maxq=2),
               "mcmf-w100": GridConfig("mcmf", w_t=100, maxq=2),
               "twoprice-w25": GridConfig("twoprice", w_t=25, maxq=2)}
    out = {}
    for label in labels:
        config = dataclasses.replace(configs[label], warmup=_HISTORY)
        result = run_grid(jobs, sites, config, rng=stream_rng(streams[1]))
        s, per = result.summary, result.per_system
        out[label] = {"response": s["mean_response"] / 60.0, "cost": s["total_energy_cost"],
                      "mwh": s["total_energy_mwh"], "core_hours": per["core_hours"].to_dict()}
    return out


def main(argv: list[str] | None = None) -> int:
    from gridmarket.scenarios.intervals import STUDENT_T, interval

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", default="1..3")
    parser.add_argument("--variants", default="table-i,equal-efficiency")
    parser.add_argument("--days", type=float, default=15.0)
    parser.add_argument("--policies", default="bs,mcmf-w0,mcmf-w25,mcmf-w50,mcmf-w100,twoprice-w25")
    parser.add_argument("--tail-days", type=int, default=None,
                        help="days of prices after the submissions (default: the reproduction's "
                             "gridmarket.scenarios.harnesses.metascheduling.TAIL_DAYS, 60); a policy that piles jobs up can need more, "
                             "and another value redraws the synthetic price series")
    args = parser.parse_args(argv)
    if args.tail_days is not None:
        import gridmarket.scenarios.harnesses.metascheduling as meta

        meta.TAIL_DAYS = args.tail_days
    seeds = parse_seeds(args.seeds)
    labels = args.policies.split(",")
    if labels[0] != "bs":
        labels = ["bs"] + [x for x in labels if x != "bs"]
    for variant in args.variants.split(","):
        systems = _systems(variant)
        print(f"\n== {variant}: watts per GFlop " + ", ".join(
            f"{s.name} {s.watts_per_core / s.gflops_per_core:.2f}" for s in systems))
        runs = []
        for seed in seeds:
            t0 = time.perf_counter()
            r = one(seed, variant, args.days, labels)
            runs.append(r)
            bs = r["bs"]
            print(f"  seed {seed} ({time.perf_counter() - t0:.0f} s): BS {bs['response']:.1f} min, "
                  f"{bs['cost']:,.0f} USD, {bs['mwh']:.1f} MWh, {bs['cost'] / bs['mwh']:.2f} USD/MWh")
            for label in labels[1:]:
                x = r[label]
                print(f"    {label:<13} response {100 * (x['response'] / bs['response'] - 1):+6.1f} %  "
                      f"cost {100 * (x['cost'] / bs['cost'] - 1):+6.1f} %  energy {100 * (x['mwh'] / bs['mwh'] - 1):+6.1f} %"
                      f"  USD/MWh {100 * ((x['cost'] / x['mwh']) / (bs['cost'] / bs['mwh']) - 1):+6.1f} %")
            sys.stdout.flush()
        print(f"  mean over seeds {seeds[0]}..{seeds[-1]} [95 %, {STUDENT_T}: changes are unbounded], change vs BS:")
        print("    policy         response                  cost                      energy                    "
              "USD/MWh paid              paper (cost)    k(cost within 5 pts)")
        for label in labels[1:]:
            cells = []
            for key in ("response", "cost", "mwh", "price"):
                if key == "price":
                    vals = [100 * ((r[label]["cost"] / r[label]["mwh"]) / (r["bs"]["cost"] / r["bs"]["mwh"]) - 1)
                            for r in runs]
                else:
                    vals = [100 * (r[label][key] / r["bs"][key] - 1) for r in runs]
                s = interval(vals, low=None)
                m, lo, hi = s.mean, s.low, s.high
                cells.append(f"{m:+6.1f} [{lo:+6.1f}, {hi:+6.1f}]")
            paper = _PAPER.get(label)
            if paper:
                costs = [100 * (r[label]["cost"] / r["bs"]["cost"] - 1) for r in runs]
                k = sum(abs(c - paper[1]) <= 5.0 for c in costs)
                tail = f"{paper[1]:+6.1f} %        {k}/{len(runs)}"
            else:
                tail = "-"
            print(f"    {label:<13}  " + "  ".join(f"{c:<24}" for c in cells) + f"  {tail}")
        tp = [r["twoprice-w25"]["cost"] > r["bs"]["cost"] for r in runs if "twoprice-w25" in r]
        mc = [r["mcmf-w25"]["cost"] < r["twoprice-w25"]["cost"] for r in runs
              if "twoprice-w25" in r and "mcmf-w25" in r]
        both = [r["mcmf-w25"]["cost"] < r["bs"]["cost"] and r["mcmf-w25"]["response"] < r["bs"]["response"]
                for r in runs if "mcmf-w25" in r]
        print(f"  directions: TWOPRICE costs more than BS {sum(tp)}/{len(tp)}; MCMF w25 cheaper than TWOPRICE "
              f"{sum(mc)}/{len(mc)}; MCMF w25 better than BS on both {sum(both)}/{len(both)}")
        names = list(runs[0]["bs"]["core_hours"])
        print("  share of the core-hours per system (mean over seeds), " + ", ".join(names))
        for label in labels:
            shares = np.mean([[r[label]["core_hours"][n] / sum(r[label]["core_hours"].values()) for n in names]
                              for r in runs], axis=0)
            print(f"    {label:<13} " + " ".join(f"{100 * v:5.1f}" for v in shares))
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
