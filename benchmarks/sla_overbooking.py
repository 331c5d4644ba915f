"""What overbooking does to service-level agreements: the auction-market scenario's ``sla`` model as every
provider signs on more and more of its processors.

For each load factor and seed the scenario's jobs, prices and valuations are built once; the ``sla``
model then runs with every provider's ``overbooking`` set to each factor (1 signs only what the plan can
honour). Prints, as Markdown, the mean over seeds and 95 % interval (named under each table) of the contracts signed and
violated (started late, never run; broken ones re-signed with another provider), the penalties paid,
what the contracts that ran were priced at,
the contracts' revenue net of penalties, every provider's revenue, social welfare and users' surplus;
then, paired by seed, each factor's change in provider revenue against factor 1 and in how many
seeds it rose ("k of n").

    python benchmarks/sla_overbooking.py --seeds 1..5 --loads 10,40 --factors 1,1.1,1.25,1.5,2,3

Money SU (processor-hours at the base rate), times seconds.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from gridmarket.scenarios.config import with_overrides  # noqa: E402
from gridmarket.scenarios.experiment import build_inputs, run_model  # noqa: E402
from gridmarket.scenarios.intervals import Interval, interval, interval_of  # noqa: E402
from gridmarket.scenarios.registry import get_scenario  # noqa: E402

METRICS = (
    ("sla_contracts", "contracts signed", 1),
    ("sla_violations", "contracts violated", 1),
    ("sla_late", "of which started late", 1),
    ("sla_never_ran", "of which never ran (broken)", 1),
    ("sla_reoffered", "broken and re-signed with another provider", 1),
    ("sla_penalties", "penalties paid, SU", 0),
    ("sla_gross", "prices of the contracts that ran, SU", 0),
    ("sla_net_revenue", "contracts' revenue net of penalties, SU", 0),
    ("provider_revenue", "providers' revenue (contracts and home queues), SU", 0),
    ("social_welfare", "social welfare, SU", 0),
    ("users_surplus", "users' surplus, SU", 0),
    ("mean_response", "mean response, s", 0),
)


from gridmarket.scenarios.commands.run import parse_seeds  # noqa: E402 (the CLI's A..B / a,b,c rule)


def run(seeds: list[int], loads: list[float], factors: list[float]) -> pd.DataFrame:
    """One row per (load, seed, factor): the ``sla`` run's summary."""
    rows = []
    for load in loads:
        for seed in seeds:
            base = with_overrides(get_scenario("auction-market"),
                                  {"seed": seed, "workload.load_factor": load, "models": ("sla",)})
            inputs = build_inputs(base)[:3]
            for factor in factors:
                config = replace(base, providers=tuple(replace(p, overbooking=factor) for p in base.providers))
                s = run_model(config, "sla", inputs=inputs).summary
                rows.append({"load": load, "seed": seed, "factor": factor, **{k: s[k] for k, _, _ in METRICS
                                                                             if k in s},
                             "sla_gross": s["sla_net_revenue"] + s["sla_penalties"], "seconds": s["seconds"]})
                print(f"load x{load:g} seed {seed} factor {factor:g}: {s['sla_violations']} violated, "
                      f"revenue {s['provider_revenue']:,.0f} SU ({s['seconds']:.1f} s)", file=sys.stderr)
    return pd.DataFrame(rows)


def _cell(s, digits: int) -> str:
    """An interval (:class:`gridmarket.scenarios.intervals.Interval`) as ``mean [low, high]``."""
    return f"{s.mean:,.{digits}f} [{s.low:,.{digits}f}, {s.high:,.{digits}f}]"


def _of(key: str, values) -> Interval:
    """The 95 % interval of a metric; the contracts' gross price (not in the vocabulary) is an amount, >= 0."""
    return interval(list(values), low=0.0) if key == "sla_gross" else interval_of(key, list(values))


def markdown(frame: pd.DataFrame) -> str:
    """The tables: per load, a metric a row and a factor a column; then the paired revenue change."""
    out = []
    factors = sorted(frame["factor"].unique())
    for load in sorted(frame["load"].unique()):
        at = frame[frame["load"] == load]
        n = at["seed"].nunique()
        out.append(f"#### load x{load:g}: mean [95 % interval] over {n} seeds\n")
        out.append("| metric | " + " | ".join(f"x{f:g}" for f in factors) + " |")
        out.append("|---|" + "---:|" * len(factors))
        for key, label, digits in METRICS:
            out.append(f"| {label} | " + " | ".join(_cell(_of(key, at[at["factor"] == f][key]), digits) for f in factors)
                       + " |")
        base = at[at["factor"] == 1.0].set_index("seed")["provider_revenue"]
        cells, held = [], []
        for f in factors:
            d = at[at["factor"] == f].set_index("seed")["provider_revenue"] - base
            cells.append(_cell(interval(list(d), low=None), 0))  # a paired difference: unbounded
            held.append(f"{int((d > 0).sum())} of {len(d)}")
        out.append("| providers' revenue minus factor 1's, same seed, SU | " + " | ".join(cells) + " |")
        out.append("| seeds where overbooking raised providers' revenue | " + " | ".join(held) + " |")
        out.append("\n95 % interval over seeds: bootstrap percentile for amounts (>= 0), Student t for the net revenue, "
                   "the users' surplus and the paired difference")
        out.append("")
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", default="1..5")
    ap.add_argument("--loads", default="10,40", help="load factors of the auction-market workload")
    ap.add_argument("--factors", default="1,1.1,1.25,1.5,2,3", help="overbooking factors (>= 1)")
    ap.add_argument("--csv", help="also write the per-run rows here")
    args = ap.parse_args(argv)
    started = time.perf_counter()
    frame = run(parse_seeds(args.seeds), [float(x) for x in args.loads.split(",")],
                [float(x) for x in args.factors.split(",")])
    if args.csv:
        frame.to_csv(args.csv, index=False)
    print(markdown(frame))
    print(f"{len(frame)} runs, {frame['seconds'].sum():.0f} s of runs, {time.perf_counter() - started:.0f} s in all",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
