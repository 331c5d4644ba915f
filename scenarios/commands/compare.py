"""``gridmarket compare`` and ``gridmarket sweep``: interaction models side by side, and parameter grids.

A thin layer over :func:`gridmarket.scenarios.experiment.compare` and
:func:`gridmarket.scenarios.sweep.run_sweep`. The main CLI adds the subcommands with
:func:`add_subcommands`; until it does, ``python -P -m gridmarket.scenarios.commands.compare compare``
runs them standalone. Times are seconds; allocation cost SU.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

from gridmarket.errors import InvalidInput
from gridmarket.scenarios.config import INTERACTION_MODELS, with_overrides
from gridmarket.scenarios.experiment import compare
from gridmarket.scenarios.interrupts import with_hint
from gridmarket.scenarios.options import bounded
from gridmarket.scenarios.outfolder import claim
from gridmarket.scenarios.registry import get_scenario, scenario_names
from gridmarket.scenarios.results import (
    PRINTED,
    format_table,
    manifest,
    prepare_out,
    remove_if_empty,
    run_currency,
    write_results,
)
from gridmarket.scenarios.sweep import EXECUTORS, parse_grid, read_points, run_sweep

__all__ = ["add_subcommands", "main", "run_compare", "run_sweep_command"]

DEFAULT_SCENARIO = "quickstart"


def _config(args: argparse.Namespace):
    config = get_scenario(args.scenario)
    overrides = {}
    if args.seed is not None:
        overrides["seed"] = args.seed
    if getattr(args, "jobs", None) is not None and not getattr(args, "trace", None):
        raise InvalidInput("--jobs N takes the first N jobs of --trace FILE; without --trace the scenario's own "
                           "workload.n_jobs applies (change it in the scenario file)")
    if getattr(args, "trace", None):
        overrides["workload.source"] = "trace"
        overrides["workload.trace"] = args.trace
        overrides["workload.n_jobs"] = args.jobs or 0
        overrides["workload.load_factor"] = 1.0
        if any(p.trace is not None for p in config.providers):  # the one trace replaces the providers' own
            overrides["providers.trace"] = None
            print(f"--trace {args.trace} replaces the providers' own traces", file=sys.stderr)
    if getattr(args, "models", None) is not None:
        models = tuple(m.strip() for m in args.models.split(","))
        if not all(models):
            raise InvalidInput(f"--models: expected a comma-separated list of models, e.g. mcmf,moga "
                               f"(got {args.models!r})")
        overrides["models"] = models
    return with_overrides(config, overrides) if overrides else config


def run_compare(args: argparse.Namespace) -> int:
    """Run the scenario's interaction models on one workload and seed; print the table; write the folder."""
    config = _config(args)
    out = Path(args.out or f"results-{config.name}-seed{config.seed}")
    with claim(out):  # one writer per folder, for the whole run
        return _compare_into(out, config, args)


def _compare_into(out: Path, config, args: argparse.Namespace) -> int:
    prepare_out(out, force=args.force)  # refuse before the work, not after
    print(f"{config.name}: {len(config.providers)} providers, models {', '.join(config.models)}, "
          f"seed {config.seed}", file=sys.stderr)
    try:
        runs = compare(config, progress=True)
    except KeyboardInterrupt as exc:  # nothing is written before every model has run
        removed = remove_if_empty(out)
        raise with_hint(exc, f"nothing written{f' ({out}/ removed)' if removed else ''}; run the command again")  # noqa: B904 - exc itself, re-raised
    jobs = pd.concat([r.records for r in runs], ignore_index=True)
    summary = pd.DataFrame([r.summary for r in runs])
    title = f"{config.name}, seed {config.seed}"
    print(title)
    print(format_table(summary, currency=run_currency(runs)))
    doc = manifest(config.to_dict(), config.seed, command=["gridmarket", *sys.argv[1:]])
    extra = (lambda folder: write_batsim(folder / "batsim", jobs, config.providers)) if getattr(
        args, "batsim", False) else None
    try:
        written = write_results(out, jobs, summary, doc, title, runs, {p.name: p.procs for p in config.providers},
                                extra=extra)
    except KeyboardInterrupt as exc:  # stopped before the manifest: write_results deleted what it wrote
        removed = remove_if_empty(out)
        raise with_hint(exc, f"stopped while writing; the unfinished files were deleted"
                             f"{f' ({out}/ removed)' if removed else ''}; run the command again") from None
    print(f"\nwrote {len(written)} files to {out}/ ({len(jobs)} job rows)")
    return 0


def write_batsim(folder: Path, jobs: pd.DataFrame, providers) -> list[Path]:
    """Batsim's outputs per interaction model and provider: ``folder/MODEL/PROVIDER/{jobs,machine_states,consumed_energy}.csv``.

    Every row a provider ran (machine jobs, workflow tasks and reserved jobs) with the processors it
    held and its energy in joules from the provider's ``watts_per_proc`` (busy power;
    :func:`gridmarket.batsim.to_batsim_jobs`), the provider's processors computing and idle over time
    (:func:`gridmarket.batsim.machine_states`) and its energy over time
    (:func:`gridmarket.batsim.consumed_energy`); evalys reads each folder as one machine's run.
    """
    from gridmarket.batsim import consumed_energy, machine_states, to_batsim_jobs, write_batsim_csv

    written = []
    for model, rows in jobs.groupby("model", sort=False):
        for p in providers:
            ran = rows[rows["site"] == p.name].sort_values(["start", "job_id"], kind="stable")
            place = folder / str(model) / p.name
            place.mkdir(parents=True, exist_ok=True)
            for name, frame in (
                ("jobs.csv", to_batsim_jobs(ran, p.procs, workload_name=str(model), watts_per_proc=p.watts_per_proc)),
                ("machine_states.csv", machine_states(ran, p.procs)),
                ("consumed_energy.csv", consumed_energy(ran, p.watts_per_proc)),
            ):
                write_batsim_csv(frame, place / name)
                written.append(place / name)
    return written


def run_sweep_command(args: argparse.Namespace) -> int:
    """Run a grid of parameter values over a scenario; resume what a previous run finished."""
    config = get_scenario(args.scenario)
    if args.points and args.grid:
        raise InvalidInput("--points and --grid exclude each other: a design is either a list of points or a grid")
    points = read_points(args.points) if args.points else None
    grid = None if points else parse_grid(args.grid or [])
    if grid == {}:
        grid = {"seed": [config.seed]}
    out = Path(args.out or f"sweep-{config.name}")

    bars: list = []  # on a terminal, one tqdm bar; in a log, a line per run

    def progress(rid: str, status: str, n_done: int, n_total: int) -> None:
        if not sys.stderr.isatty():
            print(f"  [{n_done}/{n_total}] {rid}: {status}", file=sys.stderr, flush=True)
            return
        if not bars:
            from tqdm import tqdm

            bars.append(tqdm(total=n_total, desc=f"sweep {config.name}", unit="run", file=sys.stderr))
        bars[0].update(n_done - bars[0].n)
        bars[0].set_postfix_str(f"{rid}: {status}", refresh=True)

    try:
        table = run_sweep(config, grid, out, points=points, executor=args.executor, workers=args.workers,
                          scheduler=args.scheduler, resume=args.resume, force=args.force, progress=progress)
    finally:
        for bar in bars:
            bar.close()
    from gridmarket.scenarios.pointtable import format_points, point_table

    print(format_points(point_table(table, [m for m in PRINTED if m in table]), PRINTED))
    print(f"\nmeans over seeds per design point in {out / 'means.csv'} and {out / 'means.md'}; {len(table)} rows "
          f"(one per run and model) in {out / 'sweep.csv'} and {out / 'sweep.parquet'}")
    return 0


def add_subcommands(subparsers) -> None:
    """Add ``compare`` and ``sweep`` to the main CLI's subparsers (they set ``run``)."""
    names = ", ".join(scenario_names())
    cmp = subparsers.add_parser(
        "compare",
        help="compare interaction models on one workload and seed (default: the quickstart scenario)",
        description=f"Run a scenario's interaction models ({', '.join(INTERACTION_MODELS)}) as Mesa agents on "
        "the same workload and seed; print the table (a block per topic: jobs, time, money, market, reservations; "
        "a legend line under each, names and units from the glossary); write jobs.parquet/.csv, summary.csv/.md, "
        "PNG figures and manifest.json to --out.",
    )
    cmp.add_argument("--scenario", default=DEFAULT_SCENARIO,
                     help=f"a registered scenario ({names}) or a scenario .toml file (default {DEFAULT_SCENARIO})")
    cmp.add_argument("--trace", help="replace the scenario's workload by this SWF/GWF/Batsim JSON trace (.gz read directly)")
    cmp.add_argument("--jobs", type=bounded("jobs", low=1), help="with --trace: keep the first N jobs (default all)")
    cmp.add_argument("--seed", type=bounded("seed"), help="seed (default: the scenario's)")
    cmp.add_argument("--models", help="comma-separated interaction models (default: the scenario's); a plug-in "
                     "'package.module:Name' names a broker strategy, a clearing method or a whole model "
                     "(docs/extending.md)")
    cmp.add_argument("--out", help="results folder (default results-SCENARIO-seedN); must not exist")
    cmp.add_argument("--force", action="store_true", help="write into an existing results folder, deleting what "
                     "gridmarket wrote there first (other files are kept)")
    cmp.add_argument("--batsim", action="store_true",
                     help="also write batsim/MODEL/PROVIDER/ with Batsim's jobs.csv, machine_states.csv and "
                          "consumed_energy.csv (energy in joules from each provider's watts_per_proc; evalys reads them)")
    cmp.set_defaults(run=run_compare)

    sw = subparsers.add_parser(
        "sweep",
        help="run a scenario over a grid of parameter values (resumable; local processes or Dask)",
        description="Finished runs are stored in OUT/parts/ (a few Parquet files per worker process, each "
        "rewritten atomically when one of its runs finishes); "
        "--resume skips finished runs (after a crash or a kill); the combined table (a row per run and model) goes "
        "to OUT/sweep.csv and OUT/sweep.parquet. The mean over seeds and its 95 % interval per design point "
        "(bootstrap percentile for metrics bounded below, Student t otherwise) is printed by topic and written to "
        "OUT/means.csv and OUT/means.md; OUT/sweep.png plots it.",
    )
    sw.add_argument("scenario", help=f"a registered scenario ({names}) or a scenario .toml file")
    sw.add_argument("--grid", action="append", metavar="NAME=VALUES",
                    help="e.g. alpha=0,0.5,1 or seed=1..10 or model=mcmf,stable (repeatable)")
    sw.add_argument("--points", metavar="DESIGN.csv",
                    help="instead of --grid: run these design points (a CSV: a header of parameter names, one "
                         "point per line, e.g. a Latin hypercube)")
    sw.add_argument("--executor", choices=EXECUTORS, default="local",
                    help="local: a process pool (default); dask: a Dask distributed cluster")
    sw.add_argument("--scheduler", metavar="tcp://HOST:PORT",
                    help="with --executor dask: the running scheduler (default: start a loopback LocalCluster)")
    sw.add_argument("--workers", type=bounded("workers"),
                    help="processes: local pool (default 1 = this process) or LocalCluster (default CPU count)")
    sw.add_argument("--out", help="sweep folder (default sweep-SCENARIO)")
    again = sw.add_mutually_exclusive_group()
    again.add_argument("--resume", action="store_true", help="continue the same sweep in --out: skip finished runs")
    again.add_argument("--force", action="store_true", help="delete the sweep in --out and start over")
    sw.set_defaults(run=run_sweep_command)


def main(argv: list[str] | None = None) -> int:
    """``python -P -m gridmarket.scenarios.commands.compare {compare,sweep} ...``; returns the exit status."""
    from gridmarket.scenarios.options import run_standalone

    return run_standalone(add_subcommands, argv, __doc__.splitlines()[0])


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
