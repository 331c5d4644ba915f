"""Metascheduling experiments of Murali & Vadhiyar (the ``clear`` command is `gridmarket.scenarios.commands.clear`).

Composition only: the mechanisms live in ``gridmarket.energy``, ``gridmarket.prediction``,
``gridmarket.clearing`` and ``gridmarket.metascheduling``. This module builds the XSEDE
grid (Table I systems, one synthetic or real hourly price series per market
region, a Lublin + Tsafrir workload per system, EASY at every site), runs the
strategies BS, INST, TWOPRICE, MCMF at several ``w_t`` and stable matching on
the same jobs, and reports the paper's Table IV-style summary plus fairness
(eq. 9) against BS.

    python -P -m gridmarket.scenarios.harnesses.metascheduling --days 15 --seed 1 --out runs/xsede

Times are integer seconds; prices ``price_per_mwh``; costs in USD.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from gridmarket.atomicfile import write_atomic
from gridmarket.csvout import write_csv
from gridmarket.energy import (
    GridSystem,
    HourlyPrices,
    align_to_utc,
    fixed_prices,
    read_prices,
    synthetic_prices,
    xsede_systems,
)
from gridmarket.errors import InvalidInput, MarketError
from gridmarket.metascheduling import GridConfig, Site, fairness_scores, grid_workload, run_grid, stream_rng
from gridmarket.scenarios.options import bounded

__all__ = [
    "REGION_PRICES",
    "main",
    "run_experiment",
    "xsede_sites",
]

WARMUP_DAYS = 3
"""Days of prices before the first submission: the SARIMA forecasts train on the previous three days."""

TAIL_DAYS = 60
"""Days of prices after the last submission, for queued and long jobs to finish (INST queues grow long).

30 days were too few: at seed 3 of the full murali-xsede run a job on Queenbee ended 0.4 days past
them (15 + 3 + 30 = 48 days of prices)."""

REGION_PRICES = {
    "PJM": {"mean": 45.0},
    "CAISO": {"mean": 50.0, "daily_amplitude": 0.45},
    "MISO": {"mean": 36.0},
    "ERCOT": {"mean": 38.0, "daily_amplitude": 0.5},
    "TVA-fixed": {"fixed": 65.0},
}
"""Synthetic market of each XSEDE price region (USD/MWh, June-2014-like levels; our assumption)."""


def xsede_sites(
    days: float,
    *,
    seed: int,
    systems: Sequence[GridSystem] | None = None,
    pjm_csv: str | Path | None = None,
    epoch_utc: str = "2014-06-01T00",
) -> list[Site]:
    """One `Site` per XSEDE system with hourly prices from its region.

    Regions get independent seeded synthetic series (systems of one region
    share theirs); ``TVA-fixed`` is a flat tariff. With ``pjm_csv`` (e.g.
    ``prices/pjm_comed_2013-2018_epftoolbox.csv`` of :mod:`gridmarket.datasets`) the PJM region
    uses the real PJM ComEd day-ahead prices from ``epoch_utc`` minus the
    warm-up. Series start at simulation time 0 in UTC, each in its site's
    local hours.
    """
    systems = tuple(systems or xsede_systems())
    n_days = int(np.ceil(days)) + WARMUP_DAYS + TAIL_DAYS
    regions = sorted({s.price_region for s in systems})
    streams = dict(zip(regions, np.random.SeedSequence(seed).spawn(len(regions))))
    by_region: dict[str, HourlyPrices] = {}
    sites = []
    for system in systems:
        region = system.price_region
        key = f"{region}@{system.utc_offset_hours}"
        if key not in by_region:
            spec = REGION_PRICES.get(region, {"mean": 40.0})
            if "fixed" in spec:
                series = fixed_prices(spec["fixed"], n_days * 24, zone=region, currency="USD")
            elif region == "PJM" and pjm_csv is not None:
                start = np.datetime64(epoch_utc, "h") - np.timedelta64(WARMUP_DAYS * 24 + 24, "h")
                real = read_prices(pjm_csv, start=str(start), end=str(start + np.timedelta64((n_days + 3) * 24, "h")))
                first = np.datetime64(epoch_utc, "h") - np.timedelta64(WARMUP_DAYS * 24, "h")
                series = align_to_utc(real, str(first), system.utc_offset_hours, n_days * 24)
            else:
                params = {k: v for k, v in spec.items()}
                series = synthetic_prices(
                    n_days, rng=np.random.default_rng(streams[region]),
                    start_hour_of_day=system.utc_offset_hours % 24, zone=region, currency="USD", **params,
                )
            by_region[key] = series
        sites.append(Site(system, by_region[key]))
    return sites


def default_configs(w_ts: Sequence[float] = (0, 25, 50, 100), maxq: int | None = 2) -> list[GridConfig]:
    """BS, MCMF at each ``w_t``, TWOPRICE (w_t = 25), stable matching both ways, INST (w_t = 25)."""
    configs = [GridConfig("bs")] + [GridConfig("mcmf", w_t=w, maxq=maxq) for w in w_ts]
    configs += [GridConfig("twoprice", w_t=25, maxq=maxq), GridConfig("stable-jobs", maxq=maxq),
                GridConfig("stable-systems", maxq=maxq), GridConfig("inst", w_t=25, maxq=maxq)]
    return configs


def run_experiment(
    *,
    days: float = 15,
    seed: int = 1,
    configs: Sequence[GridConfig] | None = None,
    offered_load: float = 0.7,
    jobs_per_hour: float = 3.22,
    pjm_csv: str | Path | None = None,
    out: str | Path | None = None,
    progress=None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Run every config on the same XSEDE workload and prices.

    Returns
    -------
    (summary, fairness)
        ``summary``: one row per run (``run, seed, jobs, mean_response_min,
        total_energy_cost, mean_bsld, migrated, mean_wait_ppe``); ``fairness``:
        eq. (9) score per origin system (rows) and run (columns), against BS.
        With ``out``, each run's per-job records are written as
        ``<out>/<run>-seed<seed>.csv`` plus ``summary.csv`` and ``fairness.csv``.
    """
    configs = list(configs or default_configs())
    seeds = np.random.SeedSequence(seed).spawn(2)
    sites = xsede_sites(days, seed=seed, pjm_csv=pjm_csv)
    jobs = grid_workload(
        [s.system for s in sites], days=days, rng=np.random.default_rng(seeds[0]),
        jobs_per_hour=jobs_per_hour, offered_load=offered_load, start=WARMUP_DAYS * 86400,
    )
    if not any(c.strategy == "bs" for c in configs):
        configs.insert(0, GridConfig("bs"))
    results, rows = {}, []
    for config in configs:
        result = run_grid(jobs, sites, config, rng=stream_rng(seeds[1]))
        results[config.name] = result
        s = result.summary
        rows.append({
            "run": config.name, "seed": seed, "jobs": s["jobs"],
            "mean_response_min": s["mean_response"] / 60.0, "total_energy_cost": s["total_energy_cost"],
            "mean_bsld": s["mean_bsld"], "migrated": s["migrated"], "mean_wait_ppe": s["mean_wait_ppe"],
        })  # fmt: skip
        if progress is not None:
            progress(rows[-1])
        if out is not None:
            Path(out).mkdir(parents=True, exist_ok=True)
            write_csv(result.records, Path(out) / f"{config.name}-seed{seed}.csv")
    baseline = results["bs"].records
    fairness = pd.DataFrame({name: fairness_scores(r.records, baseline) for name, r in results.items() if name != "bs"})
    summary = pd.DataFrame(rows)
    if out is not None:
        write_csv(summary, Path(out) / "summary.csv")
        write_atomic(Path(out) / "fairness.csv", fairness.to_csv())
    return summary, fairness


def main(argv: list[str] | None = None) -> int:
    """``python -P -m gridmarket.scenarios.harnesses.metascheduling``: the XSEDE experiment (``clear``: `gridmarket.scenarios.commands.clear`)."""
    parser = argparse.ArgumentParser(prog="metascheduling", description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=bounded("days"), default=15)
    parser.add_argument("--seed", type=bounded("seed"), default=1)
    parser.add_argument("--load", type=bounded("load factor"), default=0.7, help="offered load per system")
    parser.add_argument("--wt", type=bounded("percent"), nargs="+", default=[0, 25, 50, 100], help="MCMF weights w_t (percent)")
    parser.add_argument("--maxq", type=bounded("jobs"), default=2, help="jobs per system per cycle (0 = unbounded)")
    parser.add_argument("--pjm-csv", help="real PJM prices CSV for the PJM region")
    parser.add_argument("--out", help="directory for per-run records and the summary")
    args = parser.parse_args(argv)
    try:
        configs = default_configs(args.wt, maxq=args.maxq or None)
        summary, fairness = run_experiment(
            days=args.days, seed=args.seed, configs=configs, offered_load=args.load, pjm_csv=args.pjm_csv,
            out=args.out, progress=lambda row: print(json.dumps(row), file=sys.stderr, flush=True),
        )
    except (MarketError, OSError) as err:
        print(f"metascheduling: error: {err}", file=sys.stderr)
        return 2
    with pd.option_context("display.width", 160, "display.max_columns", 20):
        print(summary.round(2).to_string(index=False))
        print("\nfairness (eq. 9) against BS, by origin system:")
        print(fairness.round(3).to_string())
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())


# ---------------------------------------------------------------- reports of secs. 5.1 and 5.3
def perturbation_table(
    *, days: float = 15, seed: int = 1, thresholds: Sequence[float] = (0, 1, 3, 6, 12, 24), w_t: float = 25,
    maxq: int | None = 2, pjm_csv: str | Path | None = None,
) -> pd.DataFrame:
    """Table V: MCMF(w_t) with U[1, P] h added to every predicted wait, P in ``thresholds``.

    Columns: ``threshold_hours, mean_wait_ppe, mean_response_min, mean_price`` (energy cost per MWh used).
    """
    configs = [GridConfig("mcmf", w_t=w_t, maxq=maxq, perturbation_hours=p) for p in thresholds]
    rows = []
    sites = xsede_sites(days, seed=seed, pjm_csv=pjm_csv)
    seeds = np.random.SeedSequence(seed).spawn(2)
    jobs = grid_workload([s.system for s in sites], days=days, rng=np.random.default_rng(seeds[0]),
                         start=WARMUP_DAYS * 86400)
    for p, config in zip(thresholds, configs):
        r = run_grid(jobs, sites, config, rng=stream_rng(seeds[1]))
        rec = r.records
        mwh = (rec["power_watts"] * (rec["end"] - rec["start"]) / 3600 / 1e6).sum()
        rows.append({"threshold_hours": p, "mean_wait_ppe": r.summary["mean_wait_ppe"],
                     "mean_response_min": r.summary["mean_response"] / 60,
                     "mean_price": r.summary["total_energy_cost"] / mwh})
    return pd.DataFrame(rows)


def wait_error_report(trace: str | Path, *, first: int = 0, n_jobs: int = 3000, policy: str = "easy") -> dict:
    """Sec. 5.1.1 on one SWF trace: replay ``n_jobs`` jobs from ``first`` and score the wait predictions."""
    from dataclasses import replace

    from gridmarket.prediction import replay_wait_predictions, wait_prediction_errors
    from gridmarket.workloads import read_swf

    w = read_swf(trace)
    jobs = list(w.jobs[first:first + n_jobs])
    if not jobs:
        raise InvalidInput(f"{trace}: no jobs from index {first}")
    t0 = jobs[0].submit
    jobs = [replace(j, submit=j.submit - t0) for j in jobs]
    report = wait_prediction_errors(replay_wait_predictions(jobs, procs=w.max_procs, policy=policy))  # type: ignore[arg-type]  # PWA traces declare MaxProcs
    report["trace"] = Path(trace).name
    return report


def price_forecast_report(paths: Sequence[str | Path], *, start: str, n_days: int = 14) -> pd.DataFrame:
    """Sec. 5.1.2 on real series: SARIMA day-ahead MAPE vs the seasonal naive forecast, per file."""
    from gridmarket.prediction import forecast_errors

    rows = []
    for path in paths:
        first = np.datetime64(start, "D") - np.timedelta64(3, "D")
        series = read_prices(path, start=str(first), end=str(first + np.timedelta64(n_days + 3, "D")))
        r = forecast_errors(series, n_days=n_days)
        rows.append({"series": Path(path).name, "start": start, "days": n_days,
                     "sarima_mape": r["mape"], "naive_mape": r["naive_mape"]})
    return pd.DataFrame(rows)
