"""The ``gridmarket`` command line: a thin layer over the functions in ``market``.

``gridmarket simulate`` runs one workload (an SWF/GWF/Batsim JSON trace, or the embedded
default: a seeded Lublin–Feitelson workload) on one machine under a local
policy, writes one row per job and prints the summary table.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import warnings
from pathlib import Path

import gridmarket
from gridmarket.errors import MarketError
from gridmarket.scenarios import interrupts
from gridmarket.scenarios.options import output_named

__all__ = ["full_parser", "main"]

DEFAULT_JOBS = 5000
DEFAULT_PROCS = 256
DEFAULT_SEED = 1


def _load_workload(args: argparse.Namespace):
    import numpy as np

    from gridmarket.validation import check_fits_memory
    from gridmarket.workloads import lublin_workload, read_trace, scale_load

    if args.trace is None:
        check_fits_memory("--jobs", args.jobs)
        workload = lublin_workload(
            args.jobs, procs=args.procs or DEFAULT_PROCS, rng=np.random.default_rng(args.seed),
            estimates="tsafrir",
        )
    else:
        workload = read_trace(args.trace)
    if args.load_factor != 1.0:
        workload = scale_load(workload, args.load_factor)
    return workload


_SIMULATE_METRICS = ("jobs", "dropped", "killed", "mean_wait", "median_wait", "mean_response", "mean_bsld",
                     "max_bsld", "utilization", "makespan")


def _format_summary(summary: dict, title: str) -> str:
    """The summary as a vertical table: each metric's full name and unit, value and direction (gridmarket.vocabulary)."""
    from gridmarket.vocabulary import metric

    rows = [(metric(n).heading, metric(n).format(summary[n]), metric(n).direction) for n in _SIMULATE_METRICS]
    rows += [(f"  dropped: {reason}", str(n), "") for reason, n in summary["dropped_reasons"].items()]
    width = max(len(k) for k, _, _ in rows)
    lines = [title, "-" * len(title)] + [f"{k:<{width}}  {v:>14}  {d}".rstrip() for k, v, d in rows]
    return "\n".join(lines)


def _simulate(args: argparse.Namespace) -> int:
    import numpy as np

    from gridmarket.simulation import simulate

    if args.watts_per_proc is not None and not (args.out and args.format == "batsim"):
        from gridmarket.errors import InvalidInput

        raise InvalidInput("--watts-per-proc gives the energy of Batsim's output: use it with --out FILE --format batsim")
    workload = _load_workload(args)
    result = simulate(workload, procs=args.procs, policy=args.policy, estimates=args.estimates,
                      rng=np.random.default_rng(args.seed))
    series = []
    if args.out:
        out = Path(args.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        if args.format == "batsim":
            from gridmarket.batsim import (
                companion_path,
                consumed_energy,
                machine_states,
                to_batsim_jobs,
                write_batsim_csv,
            )

            # Batsim's time series beside its jobs file; energy only with a power, as Batsim writes it
            series.append(companion_path(out, "machine_states.csv"))
            write_batsim_csv(machine_states(result.records, result.procs), series[-1])
            if args.watts_per_proc is not None:
                series.append(companion_path(out, "consumed_energy.csv"))
                write_batsim_csv(consumed_energy(result.records, args.watts_per_proc), series[-1])
            table = to_batsim_jobs(result.records, result.procs, workload.name or "w0",
                                   watts_per_proc=args.watts_per_proc)
        else:
            table = result.columns  # written without loading pandas
        from gridmarket.csvout import write_csv

        write_csv(table, out)  # whole or not at all: a full disk keeps the previous file
    source = workload.name or "workload"
    title = f"{source}: {result.policy} on {result.procs} processors, {args.estimates} estimates"
    print(_format_summary(result.summary, title))
    if args.out:
        print(f"\nwrote {len(result.columns['job_id'])} job rows to {args.out} ({args.format})"
              + "".join(f" and {path}" for path in series))
    return 0


def _add_simulate(sub) -> None:
    from gridmarket.scenarios.options import bounded, checked
    from gridmarket.scheduling import machine_policy_names, resolve_machine_policy
    from gridmarket.simulation import ESTIMATES
    from gridmarket.workloads.traces import TRACE_FORMATS

    sim = sub.add_parser(
        "simulate",
        help=_COMMANDS["simulate"][2],
        description="Run a trace (SWF/GWF/Batsim JSON, .gz read directly) or the embedded Lublin–Feitelson "
        "default on one machine; write one row per job and print the summary.",
    )
    sim.add_argument("--trace", help=f"{TRACE_FORMATS} file; default: a seeded Lublin workload")
    sim.add_argument("--procs", type=bounded("processors"), help="machine size (default: the trace's MaxProcs, else MaxNodes)")
    sim.add_argument("--policy", default="easy", type=checked(resolve_machine_policy),
                     help=f"local policy: {', '.join(machine_policy_names())} or a plug-in "
                     "'package.module:Name' (default easy); keasy/reasy/measy share each processor "
                     "between a foreground and a background VM")
    sim.add_argument("--estimates", default="requested", choices=ESTIMATES,
                     help="plan with requested runtimes or exact ones (default requested)")
    sim.add_argument("--load-factor", type=bounded("load factor"), default=1.0,
                     help="multiply the offered load by X (inter-arrival times divided by X)")
    sim.add_argument("--out", help="write per-job rows here (CSV)")
    sim.add_argument("--format", default="csv", choices=("csv", "batsim"),
                     help="csv: job_id,submit,start,end,procs,runtime,estimate,...; batsim: Batsim jobs.csv, and "
                     "machine_states.csv beside it (PREFIXjobs.csv gives PREFIXmachine_states.csv)")
    sim.add_argument("--watts-per-proc", type=bounded("watts"), metavar="W",
                     help="with --format batsim: power of a busy processor; fills consumed_energy (joules) and "
                     "writes consumed_energy.csv beside the jobs file")
    sim.add_argument("--jobs", type=bounded("jobs", low=1), default=DEFAULT_JOBS,
                     help=f"jobs of the default Lublin workload (default {DEFAULT_JOBS})")
    sim.add_argument("--seed", type=bounded("seed"), default=DEFAULT_SEED,
                     help=f"seed of the default Lublin workload and of stochastic policies "
                     f"(default {DEFAULT_SEED})")
    sim.set_defaults(run=_simulate)


def _add_provision(sub) -> None:
    from gridmarket.scenarios.commands import provision

    prov = sub.add_parser("provision", help=_COMMANDS["provision"][2], description=provision.run.__doc__)
    provision.add_arguments(prov)
    prov.set_defaults(run=provision.run)


# every subcommand: (module, function adding its parser(s), one-line help). Only the module of the
# subcommand being run is imported, so `gridmarket --help` or `quote` do not load Mesa, Solara or
# matplotlib; the help lines here are the ones the modules' parsers show.
_COMMANDS = {
    "simulate": (__name__, "_add_simulate", "run one workload on one machine under a local policy"),
    "compare": ("gridmarket.scenarios.commands.compare", "add_subcommands",
                "run every interaction model of a scenario on one workload and compare them"),
    "sweep": ("gridmarket.scenarios.commands.compare", "add_subcommands",
              "run a scenario over a grid of parameters and seeds (local processes or Dask)"),
    "quote": ("gridmarket.scenarios.commands.quote", "add_subcommands", "price slots on a provider's state (Singh ch. 5)"),
    "advertise": ("gridmarket.scenarios.commands.quote", "add_subcommands",
                  "list the non-delaying slots a provider advertises (Singh ch. 3)"),
    "clear": ("gridmarket.scenarios.commands.clear", "add_clear_parser",
              "clear pending jobs across systems by MCMF or stable matching (Murali & Vadhiyar)"),
    "viz": ("gridmarket.viz.server", "add_subcommand", "serve the live market page (Mesa SolaraViz) on this machine"),
    "provision": (__name__, "_add_provision",
                  "provision a workflow over slots (MOGA over advertisements or greedy over quotes)"),
    "run": ("gridmarket.scenarios.commands.run", "add_subcommands",
            "run a named reproduction of a seed's experiment (or an agent scenario); --list names them"),
    "data": ("gridmarket.scenarios.commands.data", "add_subcommands",
             "list, fetch (sha256-checked, into the user cache) or locate the real data files"),
    "report": ("gridmarket.scenarios.commands.report", "add_subcommand",
               "write an HTML and a Markdown page (tables, figures, provenance) for a results folder"),
}


def _parser(argv: list[str] | None = None, *, every: bool = False,
            parser_class: type[argparse.ArgumentParser] = argparse.ArgumentParser) -> argparse.ArgumentParser:
    """The ``gridmarket`` parser with the full parser of the subcommand named in ``argv`` only.

    Other subcommands appear by name and help line (enough for ``--help`` and
    for argparse's "invalid choice" message); their modules are not imported.
    ``every`` adds every subcommand's full parser (:func:`full_parser`).
    """
    parser = parser_class(
        prog="gridmarket",
        description="Agent-based markets of HPC and grid resources: providers running real batch schedulers "
        "sell slots, brokers buy them for workflows and reservations, a metascheduler places the rest. "
        "Start with 'gridmarket compare' (the quickstart scenario, seconds) or 'gridmarket run --list'.",
    )
    parser.add_argument("--version", action="version", version=f"gridmarket {gridmarket.__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    args = sys.argv[1:] if argv is None else argv
    chosen = next((a for a in args if not a.startswith("-")), None)
    for name, (module, adder, _) in _COMMANDS.items():
        if (every or name == chosen) and name not in sub.choices:
            getattr(importlib.import_module(module), adder)(sub)
    for name, (_, _, help_line) in _COMMANDS.items():
        if name not in sub.choices:
            sub.add_parser(name, help=help_line, add_help=False)
    return parser


def full_parser(parser_class: type[argparse.ArgumentParser] = argparse.ArgumentParser) -> argparse.ArgumentParser:
    """The ``gridmarket`` parser with every subcommand's full parser (imports every command's module).

    The command-line reference page (``docs/cli.md``, written by ``tools/cli_reference.py``)
    is generated from it; ``parser_class`` builds the main parser and, through ``add_subparsers``, the others.
    """
    return _parser([], every=True, parser_class=parser_class)


#: OpenBLAS kernel the command line pins on x86-64 CPUs with AVX2 and FMA (see `pin_blas_kernel`).
BLAS_KERNEL = "Haswell"


def pin_blas_kernel() -> str | None:
    """Pin OpenBLAS's CPU kernel before numpy loads, so floating-point results match across x86-64 hosts.

    numpy's and scipy's OpenBLAS pick a kernel for the CPU at load time (AVX2 "Haswell", AVX-512
    "SkylakeX", ...), and kernels sum in different orders. Most results here are exact integers and
    do not care; statsmodels' SARIMA fits (the Murali forecasts) do: the same fit differs by up to
    0.02 EUR/MWh between the two kernels, which moved a murali-nordugrid seed's MCMF response from
    88,562 to 77,442 min (benchmarks/RESULTS_reproductions.md). So the command line sets
    ``OPENBLAS_CORETYPE`` to :data:`BLAS_KERNEL` where the CPU runs it (x86-64 with AVX2 and FMA),
    unless the variable is already set or numpy is already loaded (then nothing changes). Worker
    processes inherit it. Returns the kernel pinned, or None. Other CPUs (ARM, x86-64 without AVX2)
    keep their own kernel and may give other last digits.
    """
    import platform

    if "OPENBLAS_CORETYPE" in os.environ or "numpy" in sys.modules:
        return None
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return None
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            flags = next((line.split(":", 1)[1].split() for line in fh if line.startswith("flags")), [])
    except OSError:
        return None
    if not {"avx2", "fma"} <= set(flags):
        return None
    os.environ["OPENBLAS_CORETYPE"] = BLAS_KERNEL
    return BLAS_KERNEL


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``gridmarket`` console script; returns the exit status."""
    pin_blas_kernel()  # before any subcommand module (and numpy) is imported
    parser = _parser(argv)
    args = parser.parse_args(argv)
    if args.command == "simulate" and args.format != "csv" and not args.out:
        parser.error(f"--format {args.format} describes the --out file; give --out FILE")
    warnings.simplefilter("default")
    warnings.formatwarning = _one_line_warning
    interrupts.install()
    if args.command in ("compare", "run", "sweep"):  # manifests name the code as it was at the start
        from gridmarket.scenarios.results import code_version

        code_version()
    try:
        with output_named():
            return args.run(args)
    except KeyboardInterrupt as exc:  # Ctrl-C or SIGTERM: workers stopped, finished files kept
        interrupts.stop_workers()
        print(interrupts.message(exc), file=sys.stderr)
        return interrupts.exit_status(exc)
    except BrokenPipeError:  # `gridmarket ... | head`: the reader left; end quietly as Unix tools do
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at exit's flush
        return 141
    except (MarketError, OSError) as err:
        print(f"gridmarket: error: {err}", file=sys.stderr)
        return 2


def _one_line_warning(message, category, filename, lineno, line=None) -> str:
    """Warnings on the command line: one line naming what happened, without Python's source line."""
    return f"gridmarket: warning: {message}\n"


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
