"""Where each negotiation mechanism wins as the load grows: the auction-market scenario swept over load.

Runs (or reads, with ``--from``) ``gridmarket sweep auction-market --grid workload.load_factor=...
--grid seed=...`` and prints, as Markdown, the mean over seeds and 95 % interval of social
welfare, users' surplus, provider revenue and mean response per model and load factor, and the
winner of each market outcome at each load; draws the lines with their bands to ``--png``
(:func:`gridmarket.plots.metric_lines`). The load factor multiplies the offered load of the
scenario's 150 Lublin jobs (factor 10: about 106 % of the 128 processors over their arrivals).

    python benchmarks/auction_market_load.py --out out/sweep-am --loads 2.5,5,10,20,40 --seeds 1..5 \\
        --png benchmarks/auction_market_load.png

Values SU (processor-hours at the base rate); response seconds.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from gridmarket.plots import metric_lines  # noqa: E402
from gridmarket.scenarios.intervals import interval_of  # noqa: E402
from gridmarket.scenarios.pointtable import point_table, winners  # noqa: E402

X = "grid.workload.load_factor"
TABLES = (("welfare_gain", "social welfare minus best effort's on the same seed, SU (paired)", 0),
          ("social_welfare", "social welfare, SU", 0), ("users_surplus", "users' surplus, SU", 0),
          ("provider_revenue", "provider revenue, SU", 0), ("mean_response", "mean response, s", 0))
PANELS = (("welfare_gain", "welfare − best effort's, same seed (SU)"), ("users_surplus", "users' surplus (SU)"),
          ("provider_revenue", "provider revenue (SU)"), ("mean_response", "mean response (s)"))


def with_gain(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with ``welfare_gain``: each run's welfare minus best effort's at the same load and seed (SU).

    The seeds draw different workloads whose total value varies more than the models differ; the
    paired difference removes that common part.
    """
    base = frame[frame["model"] == "best-effort"].set_index([X, "seed"])["social_welfare"]
    key = pd.MultiIndex.from_frame(frame[[X, "seed"]])
    return frame.assign(welfare_gain=frame["social_welfare"].to_numpy() - base.reindex(key).to_numpy())


def _table(frame: pd.DataFrame, col: str, digits: int) -> str:
    loads = sorted(frame[X].unique())
    lines = ["| model | " + " | ".join(f"load x{v:g}" for v in loads) + " |", "|---|" + "---:|" * len(loads)]
    methods = set()
    for model in dict.fromkeys(frame["model"]):
        cells = []
        for v in loads:
            s = interval_of(col, frame[(frame["model"] == model) & (frame[X] == v)][col].tolist())
            methods.add(s.method)
            cells.append(f"{s.mean:,.{digits}f} [{s.low:,.{digits}f}, {s.high:,.{digits}f}]")
        lines.append(f"| {model} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + f"\n\n95 % interval over seeds: {', '.join(sorted(methods))}"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default="out/sweep-am", help="the sweep's folder (written unless --from)")
    p.add_argument("--from", dest="existing", action="store_true", help="read the finished sweep in --out")
    p.add_argument("--loads", default="2.5,5,10,20,40")
    p.add_argument("--seeds", default="1..5")
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--png", default="benchmarks/auction_market_load.png")
    args = p.parse_args(argv)
    out = Path(args.out)
    if not args.existing:
        from gridmarket.scenarios.registry import get_scenario
        from gridmarket.scenarios.sweep import parse_grid, run_sweep

        grid = parse_grid([f"workload.load_factor={args.loads}", f"seed={args.seeds}"])
        run_sweep(get_scenario("auction-market"), grid, out, workers=args.workers, resume=out.exists())
    frame = with_gain(pd.read_csv(out / "sweep.csv"))
    points = point_table(frame, [p if isinstance(p, str) else p[0] for p in PANELS])
    metric_lines(points, Path(args.png), "auction-market over load", metrics=PANELS,
                 xlabel="load factor (x10 = 106 % offered)")
    for col, name, digits in TABLES:
        print(f"\n### {name} (mean [95 % interval] over seeds)\n")
        print(_table(frame, col, digits))
    best = winners(point_table(frame, ("welfare_gain", "users_surplus", "provider_revenue")),
                   metrics=("welfare_gain", "users_surplus", "provider_revenue"))
    print("\n### highest mean per load (tied: another model's interval holds the winner's mean)\n")
    print("| load factor | metric | winner | mean [95 % CI] | tied |\n|---:|---|---|---:|---|")
    for r in best.itertuples(index=False):
        print(f"| {r[0]:g} | {r.metric} | {r.winner} | {r.mean:,.0f} [{r.low:,.0f}, {r.high:,.0f}] | {r.tied} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
