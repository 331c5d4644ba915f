"""The ``gridmarket`` command line: a thin layer over the functions in ``market``.

``gridmarket simulate`` runs one workload (an SWF/GWF trace, or the embedded
default: a seeded Lublin–Feitelson workload) on one machine under a local
policy, writes one row per job and prints the summary table.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np

from market.errors import MarketError
from market.scheduling import POLICIES
from market.simulation import ESTIMATES, TWO_TIER_NAMES, simulate

__all__ = ["main"]

DEFAULT_JOBS = 5000
DEFAULT_PROCS = 256
DEFAULT_SEED = 1


def _load_workload(args: argparse.Namespace):
    from market.workloads import lublin_workload, read_gwf, read_swf, scale_load

    if args.trace is None:
        workload = lublin_workload(
            args.jobs, procs=args.procs or DEFAULT_PROCS, rng=np.random.default_rng(args.seed),
            estimates="tsafrir",
        )
    else:
        path = Path(args.trace)
        reader = read_gwf if path.name.removesuffix(".gz").endswith(".gwf") else read_swf
        workload = reader(path)
    if args.load_factor != 1.0:
        workload = scale_load(workload, args.load_factor)
    return workload


def _format_summary(summary: dict, title: str) -> str:
    rows = [
        ("jobs simulated", f"{summary['jobs']}"),
        ("jobs dropped", f"{summary['dropped']}"),
        ("jobs killed at estimate", f"{summary['killed']}"),
        ("mean wait (s)", f"{summary['mean_wait']:.1f}"),
        ("median wait (s)", f"{summary['median_wait']:.1f}"),
        ("mean response (s)", f"{summary['mean_response']:.1f}"),
        ("mean bounded slowdown", f"{summary['mean_bsld']:.3f}"),
        ("max bounded slowdown", f"{summary['max_bsld']:.3f}"),
        ("utilization", f"{summary['utilization']:.4f}"),
        ("makespan (s)", f"{summary['makespan']}"),
    ]
    rows += [(f"  dropped: {reason}", str(n)) for reason, n in summary["dropped_reasons"].items()]
    width = max(len(k) for k, _ in rows)
    lines = [title, "-" * len(title)] + [f"{k:<{width}}  {v:>14}" for k, v in rows]
    return "\n".join(lines)


def _simulate(args: argparse.Namespace) -> int:
    workload = _load_workload(args)
    result = simulate(workload, procs=args.procs, policy=args.policy, estimates=args.estimates,
                      rng=np.random.default_rng(args.seed))
    if args.out:
        out = Path(args.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        if args.format == "batsim":
            from market.batsim import to_batsim_jobs

            to_batsim_jobs(result.records, result.procs, workload.name or "w0").to_csv(out, index=False)
        else:
            result.records.to_csv(out, index=False)
    source = workload.name or "workload"
    title = f"{source}: {result.policy} on {result.procs} processors, {args.estimates} estimates"
    print(_format_summary(result.summary, title))
    if args.out:
        print(f"\nwrote {len(result.records)} job rows to {args.out} ({args.format})")
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gridmarket",
        description="Agent-based markets of HPC and grid resources: providers running real batch schedulers "
        "sell slots, brokers buy them for workflows and reservations, a metascheduler places the rest. "
        "Start with 'gridmarket compare' (the quickstart scenario, seconds) or 'gridmarket run --list'.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    sim = sub.add_parser(
        "simulate",
        help="run one workload on one machine under a local policy",
        description="Run a trace (SWF/GWF, .gz read directly) or the embedded Lublin–Feitelson "
        "default on one machine; write one row per job and print the summary.",
    )
    sim.add_argument("--trace", help="SWF or GWF file (.swf, .swf.gz, .gwf); default: a seeded Lublin workload")
    sim.add_argument("--procs", type=int, help="machine size (default: the trace's MaxProcs, else MaxNodes)")
    sim.add_argument("--policy", default="easy", choices=sorted(POLICIES) + list(TWO_TIER_NAMES),
                     help="local policy (default easy); keasy/reasy/measy share each processor "
                     "between a foreground and a background VM")
    sim.add_argument("--estimates", default="requested", choices=ESTIMATES,
                     help="plan with requested runtimes or exact ones (default requested)")
    sim.add_argument("--load-factor", type=float, default=1.0,
                     help="multiply the offered load by X (inter-arrival times divided by X)")
    sim.add_argument("--out", help="write per-job rows here (CSV)")
    sim.add_argument("--format", default="csv", choices=("csv", "batsim"),
                     help="csv: job_id,submit,start,end,procs,runtime,estimate,...; batsim: Batsim jobs.csv")
    sim.add_argument("--jobs", type=int, default=DEFAULT_JOBS,
                     help=f"jobs of the default Lublin workload (default {DEFAULT_JOBS})")
    sim.add_argument("--seed", type=int, default=DEFAULT_SEED,
                     help=f"seed of the default Lublin workload and of stochastic policies "
                     f"(default {DEFAULT_SEED})")
    sim.set_defaults(run=_simulate)

    from scenarios import compare, market_cli, metascheduling, provisioning

    compare.add_subcommands(sub)
    market_cli.add_subcommands(sub)
    metascheduling.add_clear_parser(sub)
    from viz import server as viz_server  # the SolaraViz page (imports no Solara until served)

    viz_server.add_subcommand(sub)
    prov = sub.add_parser(
        "provision",
        help="provision a workflow over slots (MOGA over advertisements or greedy over quotes)",
        description=provisioning.run.__doc__,
    )
    provisioning.add_arguments(prov)
    prov.set_defaults(run=provisioning.run)
    from scenarios import reproductions  # gridmarket run NAME: the seeds' named reproductions

    reproductions.add_subcommands(sub)
    return parser


def run_standalone(add_subcommands, argv: list[str] | None, description: str) -> int:
    """Parse ``argv`` for the subcommands ``add_subcommands`` adds and run one (``python -m`` entry)."""
    parser = argparse.ArgumentParser(prog="gridmarket", description=description)
    add_subcommands(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except (MarketError, OSError) as err:
        print(f"gridmarket: error: {err}", file=sys.stderr)
        return 2


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``gridmarket`` console script; returns the exit status."""
    parser = _parser()
    args = parser.parse_args(argv)
    if getattr(args, "load_factor", 1.0) <= 0:
        parser.error(f"--load-factor must be > 0, got {args.load_factor}")
    if getattr(args, "procs", None) is not None and args.procs < 1:
        parser.error(f"--procs must be >= 1, got {args.procs}")
    warnings.simplefilter("default")
    try:
        return args.run(args)
    except (MarketError, OSError) as err:
        print(f"gridmarket: error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
