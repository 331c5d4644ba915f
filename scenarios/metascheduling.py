"""Metascheduling experiments of Murali & Vadhiyar, and the ``gridmarket clear`` command.

Composition only: the mechanisms live in ``market.energy``, ``market.prediction``,
``market.clearing`` and ``market.metascheduling``. This module builds the XSEDE
grid (Table I systems, one synthetic or real hourly price series per market
region, a Lublin + Tsafrir workload per system, EASY at every site), runs the
strategies BS, INST, TWOPRICE, MCMF at several ``w_t`` and stable matching on
the same jobs, and reports the paper's Table IV-style summary plus fairness
(eq. 9) against BS.

    python -m scenarios.metascheduling --days 15 --seed 1 --out runs/xsede

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

from market.clearing import (
    CLEARING_METHODS,
    ClearingProblem,
    CycleCosts,
    check_result,
    clear_mcmf,
    resolve_clearing,
    stable_match,
)
from market.energy import GridSystem, HourlyPrices, align_to_utc, fixed_prices, read_prices, synthetic_prices, xsede_systems
from market.errors import InvalidInput, MarketError
from market.metascheduling import GridConfig, Site, fairness_scores, grid_workload, run_grid
from market.plugins import is_plugin_name
from market.validation import check_keys, suggest
from scenarios.options import checked

__all__ = [
    "REGION_PRICES",
    "clear_from_json",
    "add_clear_parser",
    "main",
    "run_clear",
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
    ``shared/data/prices/pjm_comed_2013-2018_epftoolbox.csv``) the PJM region
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
        result = run_grid(jobs, sites, config, rng=np.random.default_rng(seeds[1]))
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
            result.records.to_csv(Path(out) / f"{config.name}-seed{seed}.csv", index=False)
    baseline = results["bs"].records
    fairness = pd.DataFrame({name: fairness_scores(r.records, baseline) for name, r in results.items() if name != "bs"})
    summary = pd.DataFrame(rows)
    if out is not None:
        summary.to_csv(Path(out) / "summary.csv", index=False)
        fairness.to_csv(Path(out) / "fairness.csv")
    return summary, fairness


# ---------------------------------------------------------------- gridmarket clear
METHODS = ("mcmf", "stable-jobs", "stable-systems")
"""The command's own clearing methods on ``cost`` as given; any other name is a clearing method of
:mod:`market.clearing.methods` (registered, or a plug-in ``"package.module:function"``)."""

DEFAULT_W_T = 25.0
"""``--wt`` of ``gridmarket clear`` for a registry or plug-in method: the metascheduler's default (percent)."""


def check_clear_method(name: str) -> str:
    """``name`` if ``gridmarket clear`` can clear by it; else one line naming what it can.

    The command's own :data:`METHODS` first (its ``mcmf`` clears ``cost`` as given), then the
    metascheduler's clearing methods (:func:`market.clearing.resolve_clearing`: registered names such
    as ``stable``, and plug-ins ``"package.module:function"``, imported here).

    >>> check_clear_method("stable-systems"), check_clear_method("stable")
    ('stable-systems', 'stable')
    >>> check_clear_method("stabel")
    Traceback (most recent call last):
    ...
    market.errors.InvalidInput: unknown clearing method 'stabel' (did you mean 'stable'?); known: mcmf, stable-jobs, stable-systems, stable, or a plug-in 'package.module:function'
    """
    if name in METHODS:
        return name
    if is_plugin_name(name) or name in CLEARING_METHODS:
        resolve_clearing(name)  # a plug-in that cannot be imported is a one-line error here
        return name
    known = list(METHODS) + [m for m in CLEARING_METHODS if m not in METHODS]
    raise InvalidInput(f"unknown clearing method {name!r}{suggest(str(name), known)}; known: {', '.join(known)}, "
                       "or a plug-in 'package.module:function'")


COSTS_KEYS = ("jobs", "systems", "cost", "capacity", "system_cost")
"""Keys of the costs JSON of ``gridmarket clear``."""


def clear_from_json(data: dict, *, method: str = "mcmf", maxq: int | None = None, backend: str = "ortools",
                    where: str = "costs JSON", w_t: float = DEFAULT_W_T) -> dict:
    """Clear one cycle given as the CLI's JSON object; return the CLI's JSON answer.

    ``data`` = ``{"jobs": [...], "systems": [...], "cost": [[number|null, ...], ...],
    "capacity": {system: K} or [K per system], "system_cost": [[...]] (optional,
    shaped like cost)}``. ``maxq`` (if given) replaces every capacity. Null =
    incompatible. Unknown keys are refused (``where`` names the document).

    ``method``: one of :data:`METHODS`, or a clearing method of the metascheduler
    (:func:`check_clear_method`), which sees the document as one cycle's
    :class:`market.clearing.CycleCosts`: ``response`` = ``cost`` (what jobs minimise),
    ``energy`` = ``system_cost`` (what systems minimise; ``cost`` without it), ``capacity``,
    and ``w_t`` (percent); its answer is checked (:func:`market.clearing.check_result`).

    Examples
    --------
    >>> out = clear_from_json({"jobs": ["a", "b", "c"], "systems": ["X"], "cost": [[1], [2], [None]],
    ...                        "capacity": {"X": 1}})
    >>> out["assignment"], out["total_cost"], [u["job"] for u in out["unassigned"]]
    ({'a': 'X'}, 1.0, ['b', 'c'])
    """
    check_clear_method(method)
    if not 0 <= w_t <= 100:
        raise InvalidInput(f"w_t must be in [0, 100] percent, got {w_t!r}")
    check_keys(where, data, COSTS_KEYS, required=("jobs", "systems", "cost"))
    for key in ("jobs", "systems"):
        names = data[key]
        if not isinstance(names, list) or not all(isinstance(n, (str, int)) and not isinstance(n, bool)
                                                  for n in names):
            raise InvalidInput(f"{where}: {key} must be a list of names (strings or integers) (got {names!r})")
    cost = data["cost"]
    if not isinstance(cost, list) or not all(isinstance(row, list) for row in cost):
        raise InvalidInput(f"{where}: cost must be a list of rows, one per job (got {str(cost)[:60]})")
    for i, row in enumerate(cost):
        for j, v in enumerate(row):
            if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float))):
                raise InvalidInput(f"{where}: cost[{i}][{j}] must be a number or null (got {v!r})")
    capacity = data.get("capacity")
    if capacity is not None and not isinstance(capacity, (dict, list)) and (
            isinstance(capacity, bool) or not isinstance(capacity, int)):
        raise InvalidInput(f"{where}: capacity must be an object of system -> jobs per cycle, a list, or one "
                           f"integer (got {capacity!r})")
    for value in (capacity.values() if isinstance(capacity, dict) else capacity if isinstance(capacity, list)
                  else [capacity]):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
            raise InvalidInput(f"{where}: capacity values must be integers >= 0 or null (got {value!r})")
    capacity = maxq if maxq is not None else capacity
    if isinstance(capacity, list):  # the Python API's form: one capacity per system, in order
        if len(capacity) != len(data["systems"]):
            raise InvalidInput(f"{where}: capacity has {len(capacity)} entries for {len(data['systems'])} systems "
                               f"(got {capacity!r})")
        capacity = dict(zip(data["systems"], capacity))
    problem = ClearingProblem.from_mapping(data["jobs"], data["systems"], data["cost"], capacity)
    if method == "mcmf":
        return clear_mcmf(problem, backend=backend).to_json()
    system_cost = data.get("system_cost")
    if system_cost is not None:
        shape = (len(data["jobs"]), len(data["systems"]))
        if not (isinstance(system_cost, list) and len(system_cost) == shape[0]
                and all(isinstance(row, list) and len(row) == shape[1] for row in system_cost)):
            raise InvalidInput(f"{where}: system_cost must be a list of {shape[0]} rows (one per job) of "
                               f"{shape[1]} numbers or null (one per system), like cost "
                               f"(got {str(system_cost)[:60]})")
        try:
            system_cost = np.array([[np.nan if v is None else v for v in row] for row in system_cost],
                                   dtype=float)
        except (TypeError, ValueError):
            raise InvalidInput(f"{where}: system_cost entries must be numbers or null "
                               f"(got {str(system_cost)[:60]})") from None
    if method in METHODS:
        return stable_match(problem, proposing=method.split("-")[1], system_cost=system_cost).to_json()
    costs = CycleCosts(list(problem.jobs), list(problem.systems), problem.cost.copy(),
                       problem.cost.copy() if system_cost is None else system_cost, list(problem.capacity), w_t)
    return check_result(resolve_clearing(method)(costs), costs, method).to_json()


def add_clear_parser(subparsers) -> argparse.ArgumentParser:
    """Register ``clear`` on the ``gridmarket`` sub-command parsers (the hook for scenarios/cli.py)."""
    p = subparsers.add_parser(
        "clear",
        help="clear one metascheduling cycle (MCMF or stable matching) from a costs JSON",
        description="Read {jobs, systems, cost, capacity[, system_cost]} JSON (null = incompatible) and print "
        '{"assignment", "total_cost", "unassigned"} as JSON.',
    )
    p.add_argument("--costs", required=True, help="costs JSON file ('-' for standard input)")
    p.add_argument("--method", default="mcmf", type=checked(check_clear_method),
                   help="mcmf (min-cost max-flow on cost), stable-jobs, stable-systems (stable matching, the jobs' "
                   "or the systems' side proposing), or a clearing method of the metascheduler: "
                   f"{', '.join(m for m in CLEARING_METHODS if m not in METHODS)} or a plug-in "
                   "'package.module:function', which sees cost as the response and system_cost as the energy "
                   "(docs/extending.md) (default mcmf)")
    p.add_argument("--maxq", type=int, help="jobs per system per cycle, for every system (overrides capacity)")
    p.add_argument("--backend", default="ortools", choices=("ortools", "networkx"), help="MCMF solver")
    p.add_argument("--wt", type=float, help="for a registry or plug-in --method: weight of cost (response) "
                   f"against system_cost (energy), percent, eq. 6 (default {DEFAULT_W_T:g})")
    p.set_defaults(run=run_clear)
    return p


def run_clear(args: argparse.Namespace) -> int:
    """Body of ``gridmarket clear``: returns the exit status."""
    if args.maxq is not None and args.maxq < 0:
        raise InvalidInput(f"--maxq must be >= 0, got {args.maxq}")
    if args.wt is not None and args.method in METHODS:
        raise InvalidInput(f"--wt weighs cost against system_cost for a registry or plug-in --method; "
                           f"{args.method} does not read it")
    if args.wt is not None and not 0 <= args.wt <= 100:
        raise InvalidInput(f"--wt must be in [0, 100] percent, got {args.wt}")
    try:
        text = sys.stdin.read() if args.costs == "-" else Path(args.costs).read_text(encoding="utf-8")
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise InvalidInput(f"{args.costs}: not valid JSON: {err}") from None
    except UnicodeDecodeError as err:
        raise InvalidInput(f"{args.costs}: not UTF-8 text ({err.reason} at byte {err.start})") from None
    print(json.dumps(clear_from_json(data, method=args.method, maxq=args.maxq, backend=args.backend,
                                     where="standard input" if args.costs == "-" else args.costs,
                                     w_t=DEFAULT_W_T if args.wt is None else args.wt)))
    return 0


def main(argv: list[str] | None = None) -> int:
    """``python -m scenarios.metascheduling``: the XSEDE experiment, or ``clear``."""
    parser = argparse.ArgumentParser(prog="metascheduling", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command")
    add_clear_parser(sub)
    xsede = sub.add_parser("xsede", help="run the XSEDE experiment (default)")
    for p in (parser, xsede):
        p.add_argument("--days", type=float, default=15)
        p.add_argument("--seed", type=int, default=1)
        p.add_argument("--load", type=float, default=0.7, help="offered load per system")
        p.add_argument("--wt", type=float, nargs="+", default=[0, 25, 50, 100], help="MCMF weights w_t (percent)")
        p.add_argument("--maxq", type=int, default=2, help="jobs per system per cycle (0 = unbounded)")
        p.add_argument("--pjm-csv", help="real PJM prices CSV for the PJM region")
        p.add_argument("--out", help="directory for per-run records and the summary")
    args = parser.parse_args(argv)
    try:
        if args.command == "clear":
            return run_clear(args)
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
        r = run_grid(jobs, sites, config, rng=np.random.default_rng(seeds[1]))
        rec = r.records
        mwh = (rec["power_watts"] * (rec["end"] - rec["start"]) / 3600 / 1e6).sum()
        rows.append({"threshold_hours": p, "mean_wait_ppe": r.summary["mean_wait_ppe"],
                     "mean_response_min": r.summary["mean_response"] / 60,
                     "mean_price": r.summary["total_energy_cost"] / mwh})
    return pd.DataFrame(rows)


def wait_error_report(trace: str | Path, *, first: int = 0, n_jobs: int = 3000, policy: str = "easy") -> dict:
    """Sec. 5.1.1 on one SWF trace: replay ``n_jobs`` jobs from ``first`` and score the wait predictions."""
    from dataclasses import replace

    from market.prediction import replay_wait_predictions, wait_prediction_errors
    from market.workloads import read_swf

    w = read_swf(trace)
    jobs = list(w.jobs[first:first + n_jobs])
    if not jobs:
        raise InvalidInput(f"{trace}: no jobs from index {first}")
    t0 = jobs[0].submit
    jobs = [replace(j, submit=j.submit - t0) for j in jobs]
    report = wait_prediction_errors(replay_wait_predictions(jobs, procs=w.max_procs, policy=policy))
    report["trace"] = Path(trace).name
    return report


def price_forecast_report(paths: Sequence[str | Path], *, start: str, n_days: int = 14) -> pd.DataFrame:
    """Sec. 5.1.2 on real series: SARIMA day-ahead MAPE vs the seasonal naive forecast, per file."""
    from market.prediction import forecast_errors

    rows = []
    for path in paths:
        first = np.datetime64(start, "D") - np.timedelta64(3, "D")
        series = read_prices(path, start=str(first), end=str(first + np.timedelta64(n_days + 3, "D")))
        r = forecast_errors(series, n_days=n_days)
        rows.append({"series": Path(path).name, "start": start, "days": n_days,
                     "sarima_mape": r["mape"], "naive_mape": r["naive_mape"]})
    return pd.DataFrame(rows)
