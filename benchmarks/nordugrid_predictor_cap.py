"""murali-nordugrid with the wait predictor's ridge capped at the longest wait seen (ours) and uncapped (the paper).

At medium and full size MCMF piles jobs onto one system whose waits it under-predicts by
orders of magnitude (``RESULTS_reproductions.md``). Our predictor caps a ridge prediction at the longest
wait in its history of *started* jobs, a cap the paper does not state; a growing queue's waits reach
that history only when its jobs start. This runs the reproduction once per seed with each reading
and prints, per seed, MCMF's mean response and cost beside BS's, the busiest system's share of MCMF's
jobs, the predicted and actual wait of the jobs MCMF sent there, and which checks hold.

    python benchmarks/nordugrid_predictor_cap.py --size medium --seeds 1,2,3 [--data DIR] [--out F.csv]
    python benchmarks/nordugrid_predictor_cap.py --branches --size medium --seeds 1   # which branch predicted
    python benchmarks/nordugrid_predictor_cap.py --setup authors --branches --size full --seeds 1

``--setup ours`` (the default, under which the recorded figures were made) runs ``murali-nordugrid-ours``;
``--setup authors`` runs ``murali-nordugrid`` (the authors' 60 s cycles and history at the origins).
"""

from __future__ import annotations

import argparse
import csv
import functools
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from datafiles import data_file  # noqa: E402


def _reproduction(setup: str):
    from gridmarket.scenarios.reproductions import murali

    return murali.murali_nordugrid if setup == "authors" else murali.murali_nordugrid_ours


def run(size: str, seed: int, data: Path, cap: bool, setup: str = "ours") -> dict:
    import gridmarket.metascheduling.grid as grid
    from gridmarket.prediction.queue_wait import QueueWaitPredictor

    original = grid.QueueWaitPredictor
    grid.QueueWaitPredictor = functools.partial(QueueWaitPredictor, cap=cap)
    try:
        t0 = time.perf_counter()
        rows, checks, _, _ = _reproduction(setup)(size, seed, data)
        seconds = time.perf_counter() - t0
    finally:
        grid.QueueWaitPredictor = original
    ours = {row.metric: row.ours for row in rows}
    out = {"setup": setup, "size": size, "seed": seed, "cap": cap, "seconds": round(seconds, 1)}
    for label in ("bs", "mcmf-w92.5", "inst"):
        out[f"{label} response (min)"] = ours[f"{label}: mean response"]
        out[f"{label} cost (EUR)"] = ours[f"{label}: electricity cost"]
        out[f"{label} busiest share (%)"] = ours[f"{label}: share of the jobs on the busiest system"]
    out["mcmf predicted wait there (min)"] = ours["mcmf-w92.5: jobs sent to the busiest system: mean predicted wait"]
    out["mcmf actual wait there (min)"] = ours["mcmf-w92.5: jobs sent to the busiest system: mean actual wait"]
    out["checks held"] = f"{sum(c.holds for c in checks)} of {len(checks)}"
    out["held"] = "; ".join(c.statement.split(" (")[0][:60] for c in checks if c.holds)
    return out


def branches(size: str, seed: int, data: Path, setup: str = "ours", nearest: bool = False) -> list[dict]:
    """MCMF alone (w_t = 92.5 %): per system, how its predictor answered (cluster or ridge) and what it predicted.

    Returns one row per system, busiest first: jobs run there, the predictions its predictor made (for
    every job of every clearing cycle, routed there or not) by each branch with their means (min), how
    many ridge answers were clipped to a zero wait (the ridge's value was <= 0), the mean actual wait of
    the jobs MCMF routed there (min), and how many of those jobs had been predicted a zero wait there.
    With ``nearest``, a ridge answer <= 0 is replaced by the wait of the nearest history job (scaled
    Manhattan distance), as the authors' predictor falls back to its one-neighbour weighted average
    (``QueueWaitingTime.py``: ``regression_output > 0`` or ``WA_Predictor``, ``test_weighted_avg_neighbour_count = 1``)
    where ours clips to zero.
    """
    import numpy as np

    import gridmarket.metascheduling.grid as grid
    import gridmarket.scenarios.reproductions.murali as murali
    from gridmarket.prediction.queue_wait import QueueWaitPredictor

    made: list = []

    class Recording(QueueWaitPredictor):
        def predict_many(self, features):
            values = super().predict_many(features)  # (>= 0)
            self.log.extend(zip(self.last_by_cluster.tolist(), values.tolist()))
            return values

        def _ridge(self, Xs, y, q):
            value = super()._ridge(Xs, y, q)
            if nearest and value <= 0:
                value = float(y[np.abs(Xs - q).sum(axis=1).argmin()])
            return value

    def factory(**kwargs):
        p = Recording(**kwargs)
        p.log = []
        made.append(p)
        return p

    captured = {}
    original_run, original_cls = murali._run, grid.QueueWaitPredictor

    def only_mcmf(jobs, sites, configs, seed_stream, run_setup, lead_in, **__):
        from gridmarket.metascheduling import run_grid, stream_rng

        config = next(c for c in configs if c.strategy == "mcmf")  # as murali._run sets it up
        config = __import__("dataclasses").replace(config, warmup=run_setup.replay_history, cycle=run_setup.cycle,
                                                   lead_in=lead_in, wait_nonpositive=run_setup.wait_nonpositive)
        made.clear()  # the predictors of this run only
        captured["result"] = run_grid(jobs, sites, config, rng=stream_rng(seed_stream))
        captured["names"] = [s.system.name for s in sites]
        raise StopIteration

    murali._run, grid.QueueWaitPredictor = only_mcmf, factory
    try:
        _reproduction(setup)(size, seed, data)
    except StopIteration:
        pass
    finally:
        murali._run, grid.QueueWaitPredictor = original_run, original_cls
    result, names = captured["result"], captured["names"]
    rec, per = result.records, result.per_system
    rows = []
    for name, p in zip(names, made, strict=True):
        cl = [v for c, v in p.log if c]
        rg = [v for c, v in p.log if not c]
        sent = rec[(rec["system"] == name) & rec["routed"]]
        rows.append({"system": name, "jobs": int(per.loc[name, "jobs"]) if name in per.index else 0,
                     "cluster predictions": len(cl), "ridge predictions": len(rg),
                     "mean cluster prediction (min)": float(np.mean(cl)) / 60 if cl else float("nan"),
                     "mean ridge prediction (min)": float(np.mean(rg)) / 60 if rg else float("nan"),
                     "ridge predictions clipped to 0": sum(v == 0 for v in rg),
                     "routed jobs": len(sent),
                     "routed jobs predicted 0": int((sent["predicted_wait"] == 0).sum()),
                     "mean predicted wait of routed jobs (min)": float(sent["predicted_wait"].mean()) / 60
                     if len(sent) else float("nan"),
                     "mean actual wait of routed jobs (min)": float((sent["start"] - sent["dispatch"]).mean()) / 60
                     if len(sent) else float("nan")})
    return sorted(rows, key=lambda r: -r["jobs"])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", default="medium", choices=["small", "medium", "full"])
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--data", type=Path, help="data folder (default $GRIDMARKET_DATA, else the cache)")
    ap.add_argument("--out", type=Path, help="append one CSV row per run here")
    ap.add_argument("--setup", default="ours", choices=["ours", "authors"],
                    help="murali-nordugrid-ours (default) or murali-nordugrid (the authors' set-up)")
    ap.add_argument("--nearest", action="store_true",
                    help="with --branches: a ridge answer <= 0 becomes the nearest history job's wait (the authors')")
    ap.add_argument("--branches", action="store_true",
                    help="instead: MCMF alone, per system, how many predictions each predictor branch made")
    args = ap.parse_args(argv)
    data_file("prices/nordpool_system_2013-2018_epftoolbox.csv", args.data, needed_by="nordugrid_predictor_cap")
    if args.branches:
        for seed in [int(s) for s in args.seeds.split(",")]:
            for row in branches(args.size, seed, args.data, args.setup, args.nearest)[:5]:
                print(f"seed {seed} | " + " | ".join(f"{k}: {v:.1f}" if isinstance(v, float) else f"{k}: {v}"
                                                      for k, v in row.items()), flush=True)
        return 0
    for seed in [int(s) for s in args.seeds.split(",")]:
        for cap in (True, False):
            row = run(args.size, seed, args.data, cap, args.setup)
            print(" | ".join(f"{k}: {v:.1f}" if isinstance(v, float) else f"{k}: {v}" for k, v in row.items()),
                  flush=True)
            if args.out:
                new = not args.out.exists()
                with args.out.open("a", newline="") as f:
                    w = csv.DictWriter(f, fieldnames=list(row))
                    if new:
                        w.writeheader()
                    w.writerow(row)
    return 0


if __name__ == "__main__":
    sys.exit(main())
