"""A deadline-and-budget-constrained broker over providers that quote, post or auction.

The auction-market scenario's ``dbc`` model with its three providers (north 32, south 32, west 64
processors) selling in different ways (``ProviderConfig.sells``): every provider quoting (the
scenario as it is), every one posting advertised slots at the best-effort rate, every one
auctioning the job's slot (a sealed second-price auction, its quote the reserve), and one of each.
The same jobs, prices and valuations per seed. Prints, as Markdown, the mean over seeds and 95 % t
interval of the jobs the broker bought (the rest went to their home queues), the bids it made,
social welfare, the share of the jobs' and workflows' value realised, users' surplus, providers'
revenue, negotiation messages and mean response.

    python benchmarks/dbc_mixed_sellers.py --seeds 1..5

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
from gridmarket.scenarios.intervals import interval, interval_of  # noqa: E402
from gridmarket.scenarios.registry import get_scenario  # noqa: E402

MIXES = {
    "all quote": ("quote", "quote", "quote"),
    "all post": ("post", "post", "post"),
    "all auction": ("auction", "auction", "auction"),
    "quote / post / auction": ("quote", "post", "auction"),
}
"""Seller mixes, in the scenario's provider order (north, south, west)."""

METRICS = (
    ("bought", "jobs bought (of 150)", 1),
    ("msg_bid", "auction bids", 1),
    ("social_welfare", "social welfare, SU", 0),
    ("value_share", "value realised, %", 1),
    ("users_surplus", "users' surplus, SU", 0),
    ("provider_revenue", "providers' revenue, SU", 0),
    ("negotiation_messages", "negotiation messages", 0),
    ("mean_response", "mean response, s", 0),
)


from gridmarket.scenarios.commands.run import parse_seeds  # noqa: E402 (the CLI's A..B / a,b,c rule)


def run(seeds: list[int]) -> pd.DataFrame:
    """One row per (seed, mix): the ``dbc`` run's summary, jobs bought (one ``Reserve`` per sale) and value share."""
    rows = []
    for seed in seeds:
        base = with_overrides(get_scenario("auction-market"), {"seed": seed, "models": ("dbc",)})
        inputs = build_inputs(base)[:3]
        requests = inputs[2]
        total = sum(v.value for v in requests.valuations.values()) + sum(
            v.value for v in requests.workflow_valuations.values())
        for mix, sells in MIXES.items():
            config = replace(base, providers=tuple(replace(p, sells=k) for p, k in zip(base.providers, sells)))
            s = run_model(config, "dbc", inputs=inputs).summary
            rows.append({"seed": seed, "mix": mix, "bought": s.get("msg_reserve", 0), "msg_bid": s.get("msg_bid", 0),
                         "value_share": 100 * s["social_welfare"] / total,
                         **{k: s[k] for k, _, _ in METRICS if k in s}, "seconds": s["seconds"]})
            print(f"seed {seed} {mix}: bought {rows[-1]['bought']}, welfare {s['social_welfare']:,.0f} SU "
                  f"({s['seconds']:.1f} s)", file=sys.stderr)
    return pd.DataFrame(rows)


def markdown(frame: pd.DataFrame) -> str:
    mixes = list(MIXES)
    n = frame["seed"].nunique()
    out = [f"| metric (mean [95 % interval] over {n} seeds) | " + " | ".join(mixes) + " |",
           "|---|" + "---:|" * len(mixes)]
    methods = set()
    for key, label, digits in METRICS:
        cells = []
        for mix in mixes:
            values = frame[frame["mix"] == mix][key].tolist()
            # jobs bought and the share of value realised are amounts (>= 0); the rest are metrics of the vocabulary
            s = interval(values, low=0.0) if key in ("bought", "value_share") else interval_of(key, values)
            methods.add(s.method)
            cells.append(f"{s.mean:,.{digits}f} [{s.low:,.{digits}f}, {s.high:,.{digits}f}]")
        out.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(out) + f"\n\n95 % interval over seeds: {', '.join(sorted(methods))}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", default="1..5")
    ap.add_argument("--csv", help="also write the per-run rows here")
    args = ap.parse_args(argv)
    started = time.perf_counter()
    frame = run(parse_seeds(args.seeds))
    if args.csv:
        frame.to_csv(args.csv, index=False)
    print(markdown(frame))
    print(f"{len(frame)} runs, {frame['seconds'].sum():.0f} s of runs, {time.perf_counter() - started:.0f} s in all",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
