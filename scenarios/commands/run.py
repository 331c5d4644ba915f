"""``gridmarket run NAME``: a named reproduction of a seed's experiment, or an agent scenario.

A reproduction (:data:`gridmarket.scenarios.reproductions.REPRODUCTIONS`) prints our
figures beside the seed's and one ``direction holds: yes/no`` line per
finding; ``--out DIR`` also writes ``report.csv``, ``report.md`` and
``manifest.json``. A name of :data:`gridmarket.scenarios.registry.SCENARIOS` (or a
scenario ``.toml`` file) runs every interaction model of that scenario on the
same workload, as ``gridmarket compare`` does, and prints its table; ``--out``
then writes the comparison's results folder. The main CLI adds the
subcommand with :func:`add_subcommands`.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import warnings
from pathlib import Path

from gridmarket.errors import InvalidInput, MarketError
from gridmarket.scenarios.config import suggest
from gridmarket.scenarios.interrupts import with_hint
from gridmarket.scenarios.options import bounded
from gridmarket.scenarios.outfolder import claim
from gridmarket.scenarios.registry import SCENARIOS, get_scenario, scenario_names
from gridmarket.scenarios.reproductions.report import (
    DATA_ENV,
    REPRODUCTIONS,
    SIZES,
    Report,
    SeedsReport,
    read_seed_reports,
    write_report,
    write_seeds_report,
)
from gridmarket.scenarios.results import RESULT_FILES, prepare_out, remove_if_empty
from gridmarket.validation import check_number

__all__ = ["add_subcommands", "format_list", "parse_seeds", "run_command", "run_seed"]

DEFAULT_SEED = 1

REPORT_FILES = ("report.csv", "report.md", "summary.csv", "summary.md", "figure-*.png", "seed-*", ".seed-*.partial")
"""What ``run --out`` writes besides ``manifest.json`` (glob patterns; ``prepare_out``'s ``ours``)."""


def format_list(data: str | Path | None = None) -> str:
    """Every runnable name with a one-line description: reproductions (with the real data each reads and
    whether :func:`gridmarket.datasets.data_root` of ``data`` holds it), then agent scenarios."""
    from gridmarket.datasets import data_root, fetch_command, needed_by

    names = sorted(REPRODUCTIONS) + scenario_names()
    width = max(len(n) for n in names)
    root = data_root(data)
    lines = ["reproductions of the seeds (gridmarket run NAME [--size small|medium|full] [--seed N | --seeds A..B] "
             f"[--json] [--out DIR]); real data is read from {root} (--data, else ${DATA_ENV}, else the cache):"]
    for name in sorted(REPRODUCTIONS):
        r = REPRODUCTIONS[name]
        lines.append(f"  {name:<{width}}  {r.summary} [{r.citation}; sizes {'/'.join(r.sizes)}]")
        needs = needed_by(name)
        if needs:
            missing = [p for p in needs if not (root / p).is_file()]
            state = f"missing; `{fetch_command(missing)}`" if missing else "found"
            lines.append(f"  {'':<{width}}    data: {', '.join(needs)} ({state})")
    lines.append("agent scenarios (gridmarket run NAME: every interaction model, as gridmarket compare):")
    for name in scenario_names():
        doc = (SCENARIOS[name].__doc__ or "").strip().splitlines()
        also = " (run: the reproduction above; compare --scenario and sweep: this scenario)" if name in REPRODUCTIONS \
            else ""
        lines.append(f"  {name:<{width}}  {doc[0] if doc else ''}{also}")
    return "\n".join(lines)


def _unknown(name: str) -> InvalidInput:
    known = sorted(REPRODUCTIONS) + scenario_names()
    return InvalidInput(f"unknown reproduction or scenario {name!r}{suggest(name, known)}")


def run_command(args: argparse.Namespace) -> int:
    """Body of ``gridmarket run``; returns the exit status."""
    if args.list:
        print(format_list(args.data))
        return 0
    if args.out:
        with claim(args.out):  # one writer per folder, for the whole run
            return _dispatch(args)
    return _dispatch(args)


def _dispatch(args: argparse.Namespace) -> int:
    if args.join:
        return _join(args)
    if not args.name:
        raise InvalidInput("name a reproduction or an agent scenario, or pass --list")
    if args.name in REPRODUCTIONS:
        return _run_reproduction(args)
    if args.name in SCENARIOS or args.name.endswith(".toml"):
        return _run_scenario(args)
    raise _unknown(args.name)


def _command() -> list[str]:
    return ["gridmarket", *sys.argv[1:]]


def parse_seeds(text: str) -> list[int]:
    """``A..B`` (inclusive) or ``a,b,c``: distinct integer seeds >= 0, in the order given.

    >>> parse_seeds("1..5"), parse_seeds("3,1,7")
    ([1, 2, 3, 4, 5], [3, 1, 7])
    """
    text = text.strip()
    try:
        if ".." in text:
            a, b = (int(part) for part in text.split(".."))
        else:
            seeds = [int(part) for part in text.split(",")]
    except ValueError:
        raise InvalidInput(f"--seeds: expected A..B or a,b,c of integers (got {text!r})") from None
    if ".." in text:
        if b >= a:  # counted before the list is built: a range of 10**12 seeds is refused, not allocated
            check_number(f"--seeds {text}: the number of seeds", b - a + 1, "runs")
        seeds = list(range(a, b + 1))
    if not seeds:
        raise InvalidInput(f"--seeds: {text!r} names no seed (A..B needs A <= B)")
    if min(seeds) < 0:
        raise InvalidInput(f"--seeds: seeds must be >= 0 (got {min(seeds)})")
    check_number("--seeds: a seed", max(seeds), "seed")
    check_number(f"--seeds {text}: the number of seeds", len(seeds), "runs")
    if len(set(seeds)) != len(seeds):
        raise InvalidInput(f"--seeds: a seed is named twice in {text!r}")
    return seeds


def run_seed(name: str, size: str, seed: int, data: str | None) -> Report | str:
    """One seed's run of reproduction ``name``, or the error that stopped it (one line).

    Module-level, so worker processes can run it; an error in one seed must
    not throw away the seeds that finished.
    """
    try:
        return REPRODUCTIONS[name].run(size, seed, data=data)
    except MarketError as err:
        return str(err)


def _collect(fn, tasks, args, workers, seeds, reports, failed, out=None) -> None:
    """Run ``tasks`` on the chosen executor; fill ``reports`` and ``failed`` by seed as they finish.

    With ``out``, each finished seed's report is written to ``out/seed-N/`` at once, so a run
    stopped later (Ctrl-C, SIGTERM, a session's end) keeps every seed that finished.
    """
    from gridmarket.scenarios.sweep import executor_runs

    with executor_runs(fn, tasks, executor=args.executor, workers=workers, scheduler=args.scheduler) as runs:
        for seed, report in runs:
            done = len(reports) + len(failed) + 1
            if isinstance(report, str):
                failed[seed] = report
                print(f"  [{done}/{len(seeds)}] seed {seed}: failed: {report}", file=sys.stderr, flush=True)
                continue
            if out is not None:
                _write_seed(Path(out), seed, report)
            reports[seed] = report
            print(f"  [{done}/{len(seeds)}] seed {seed}: {report.seconds:.1f} s, "
                  f"{sum(c.holds for c in report.checks)} of {len(report.checks)} directions hold",
                  file=sys.stderr, flush=True)


def _write_seed(out: Path, seed: int, report) -> None:
    """``out/seed-N/``, whole or not at all: written beside it, then renamed into place.

    A stop can arrive while a report is being written; a ``seed-N`` folder that exists is then
    always a finished one (the stop's message counts the folders, :func:`_finished_on_disk`).
    """
    partial, folder = out / f".seed-{seed}.partial", out / f"seed-{seed}"
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir()
    write_report(partial, report, command=_command(), figures=False)
    shutil.rmtree(folder, ignore_errors=True)
    os.replace(partial, folder)


def _finished_on_disk(out: Path, seeds: list[int]) -> list[int]:
    """The seeds whose ``seed-N`` folder is in ``out`` (each complete, :func:`_write_seed`); partial ones removed."""
    for partial in out.glob(".seed-*.partial"):
        shutil.rmtree(partial, ignore_errors=True)
    return [s for s in seeds if (out / f"seed-{s}").is_dir()]


def _run_seeds(args: argparse.Namespace, reproduction, size: str, seeds: list[int], out) -> int:
    workers = args.workers
    if args.executor == "local" and workers is None:
        workers = max(1, min(len(seeds), os.cpu_count() or 1))
    data = str(Path(args.data).resolve()) if args.data else None
    tasks = [(seed, (reproduction.name, size, seed, data)) for seed in seeds]
    reports: dict[int, Report] = {}
    failed: dict[int, str] = {}
    try:
        print(f"running {reproduction.name} at size {size}, seeds {', '.join(map(str, seeds))} "
              f"({args.executor}, {workers or 'cluster'} workers) ...", file=sys.stderr, flush=True)
        _collect(run_seed, tasks, args, workers, seeds, reports, failed, out)
    except KeyboardInterrupt as exc:  # finished seeds are on disk (with --out); the summary is not
        # with --out the folders count (a seed whose folder was renamed into place just before the stop
        # reached `reports` is finished too)
        finished = _finished_on_disk(Path(out), seeds) if out is not None else [s for s in seeds if s in reports]
        if out is not None and finished:
            kept = " ".join(f"{out}/seed-{s}" for s in finished)
            rest = ",".join(str(s) for s in seeds if s not in finished)
            raise with_hint(exc, f"{len(finished)} of {len(seeds)} seeds had finished, their reports kept in "
                                 f"{out}/seed-N/; 'gridmarket run --join {kept}' reports them, "
                                 f"'--seeds {rest} --out OTHER' runs the rest (then --join both)") from None
        removed = out is not None and remove_if_empty(out)
        raise with_hint(exc, f"{len(finished)} of {len(seeds)} seeds had finished; nothing written"
                             f"{f' ({out}/ removed)' if removed else ''}; run the command again") from None
    if not reports:
        raise InvalidInput(f"every seed failed; seed {seeds[0]}: {failed[seeds[0]]}")
    result = SeedsReport(tuple(reports[s] for s in seeds if s in reports))
    if args.json:
        doc = result.to_json()
        doc["failed"] = [{"seed": s, "error": failed[s]} for s in seeds if s in failed]
        print(json.dumps(doc, indent=1))
    else:
        print(result.format_text())
        for s in seeds:
            if s in failed:
                print(f"failed: seed {s}: {failed[s]} (left out of the figures above)")
    if out is not None:
        written = write_seeds_report(out, result, command=_command())
        print(f"\nwrote {len(written)} files to {out}/", file=sys.stderr if args.json else sys.stdout)
    if failed:
        print(f"gridmarket: error: {len(failed)} of {len(seeds)} seeds failed (seeds "
              f"{', '.join(map(str, sorted(failed)))}); the others are reported", file=sys.stderr)
        return 2
    return 0


def _join(args: argparse.Namespace) -> int:
    """``--join DIR ...``: one multi-seed report from seeds run apart (other machines, sessions, commands)."""
    for option in ("name", "size", "seed", "seeds", "workers", "scheduler", "data"):
        if getattr(args, option) is not None:
            raise InvalidInput(f"--join reads finished reports: it takes no {option.replace('_', '-')}"
                               f"{'' if option == 'name' else ' option'}")
    out = prepare_out(args.out, force=args.force, ours=REPORT_FILES) if args.out else None
    result = SeedsReport(tuple(read_seed_reports([Path(d) for d in args.join])))
    if args.json:
        doc = result.to_json()
        doc["failed"] = []  # the schema of a --seeds run; a failed seed left no report to join
        print(json.dumps(doc, indent=1))
    else:
        print(result.format_text())
    if out is not None:
        written = write_seeds_report(out, result, command=_command())
        print(f"\nwrote {len(written)} files to {out}/", file=sys.stderr if args.json else sys.stdout)
    return 0


def _run_reproduction(args: argparse.Namespace) -> int:
    reproduction = REPRODUCTIONS[args.name]
    size = args.size or "small"
    if size not in reproduction.sizes:  # before any worker starts: one clear line, not one per seed
        raise InvalidInput(f"{reproduction.name} has no size {size!r}; its sizes are {', '.join(reproduction.sizes)}")
    if args.seeds is not None and args.seed is not None:
        raise InvalidInput("give --seed N or --seeds A..B, not both")
    if args.seeds is None and (args.workers is not None or args.executor != "local" or args.scheduler):
        raise InvalidInput("--executor, --workers and --scheduler run several seeds: add --seeds A..B")
    # refuse before the work, not after
    out = prepare_out(args.out, force=args.force, ours=REPORT_FILES) if args.out else None
    if args.seeds is not None or args.json:
        seeds = parse_seeds(args.seeds) if args.seeds is not None else [
            DEFAULT_SEED if args.seed is None else args.seed]
        return _run_seeds(args, reproduction, size, seeds, out)
    seed = DEFAULT_SEED if args.seed is None else args.seed
    print(f"running {reproduction.name} at size {size}, seed {seed} ...", file=sys.stderr, flush=True)
    report = reproduction.run(size, seed, data=args.data, progress=True)
    print(report.format_text())
    if out is not None:
        written = write_report(out, report, command=_command())
        print(f"\nwrote {len(written)} files to {out}/")
    return 0


def _run_scenario(args: argparse.Namespace) -> int:
    import pandas as pd

    from gridmarket.scenarios.config import with_overrides
    from gridmarket.scenarios.experiment import compare
    from gridmarket.scenarios.results import format_table, manifest, run_currency, write_results

    if args.seeds is not None:  # one seed is run here; running only it would drop the others unseen
        raise InvalidInput(f"--seeds runs a reproduction once per seed; {args.name!r} is an agent scenario: run its "
                           f"seeds with 'gridmarket sweep {args.name} --grid seed={args.seeds}', or one with --seed N")
    for option, given in (("--json", args.json), ("--workers", args.workers is not None),
                          ("--executor", args.executor != "local"), ("--scheduler", args.scheduler is not None)):
        if given:  # these shape a reproduction's multi-seed report, which an agent scenario does not make
            raise InvalidInput(f"{option} applies to reproductions only; {args.name!r} is an agent scenario "
                               "(it prints a table; --out writes the results folder)")
    for option, value in (("--size", args.size), ("--data", args.data)):
        if value is not None:
            warnings.warn(f"{option} applies to reproductions only; {args.name!r} is an agent scenario",
                          stacklevel=2)
    config = get_scenario(args.name)
    if args.seed is not None:
        config = with_overrides(config, {"seed": args.seed})
    out = prepare_out(args.out, force=args.force, ours=RESULT_FILES) if args.out else None
    print(f"{config.name}: {len(config.providers)} providers, models {', '.join(config.models)}, seed {config.seed}",
          file=sys.stderr)
    runs = compare(config, progress=True)  # a line per finished model on stderr, as gridmarket compare
    summary = pd.DataFrame([r.summary for r in runs])
    title = f"{config.name}, seed {config.seed}"
    print(title)
    print(format_table(summary, currency=run_currency(runs)))
    if out is not None:
        jobs = pd.concat([r.records for r in runs], ignore_index=True)
        doc = manifest(config.to_dict(), config.seed, command=_command())
        written = write_results(Path(out), jobs, summary, doc, title)
        print(f"\nwrote {len(written)} files to {out}/ ({len(jobs)} job rows)")
    return 0


def add_subcommands(subparsers) -> None:
    """Add ``run`` to the main CLI's subparsers (it sets ``run``)."""
    p = subparsers.add_parser(
        "run",
        help="run a named reproduction of a seed's experiment (or an agent scenario); --list names them",
        description="Run a named reproduction: print our figures beside the seed paper's and whether each "
        "direction the seed reports holds; --out also writes report.csv, report.md, one figure-*.png per figure or "
        "table of the paper it reproduces (ours beside the paper's values) and manifest.json. An agent "
        "scenario's name (or a .toml file) runs its interaction models as 'gridmarket compare' does.",
    )
    p.add_argument("name", nargs="?", help="a reproduction or agent scenario (see --list), or a scenario .toml file")
    p.add_argument("--list", action="store_true", help="list every name with a one-line description")
    p.add_argument("--size", choices=SIZES, help="small (seconds, default), medium (where a reproduction has it; "
                   "--list names each one's sizes) or full (the seed's scale)")
    p.add_argument("--seed", type=bounded("seed"), help=f"root seed (default {DEFAULT_SEED}; agent scenarios: the scenario's)")
    p.add_argument("--seeds", metavar="A..B", help="run a reproduction once per seed (A..B or a,b,c), in parallel; "
                   "print each figure's mean and 95%% interval (bootstrap or t, by its range) and each direction's 'held in k of n seeds'")
    p.add_argument("--executor", choices=("local", "dask"), default="local",
                   help="with --seeds: local processes (default) or a Dask cluster, as gridmarket sweep")
    p.add_argument("--workers", type=bounded("workers"), help="with --seeds: processes (local; default min(seeds, CPUs)) or "
                   "loopback Dask workers")
    p.add_argument("--scheduler", help="with --seeds --executor dask: a running scheduler's tcp://HOST:PORT")
    p.add_argument("--json", action="store_true", help="print one JSON document: name, size, seeds, directions "
                   "(claim, held, of), metrics (metric, mean, ci95, paper)")
    p.add_argument("--out", help="write the report (or the comparison's results folder) here; must not exist")
    p.add_argument("--force", action="store_true", help="write into an existing folder, deleting what gridmarket "
                   "wrote there first (other files are kept)")
    p.add_argument("--data", help=f"folder laid out like the data registry, traces/ and prices/ (default ${DATA_ENV}, "
                   "else the cache that 'gridmarket data fetch' fills)")
    p.add_argument("--join", nargs="+", metavar="DIR", help="instead of running: join the seeds' reports in "
                   "these --out folders (seeds run apart, e.g. on other machines) into one multi-seed report")
    p.set_defaults(run=run_command)
