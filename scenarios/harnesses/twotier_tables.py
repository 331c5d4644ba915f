"""Results tables of Liu et al. 2012 (MEASY): EASY, KEASY, REASY and MEASY across loads, and the sec. 3.5 runs.

Usage::

    python -P -m gridmarket.scenarios.harnesses.twotier_tables                       # small default: 2000 jobs, 5 loads, seed 1
    python -P -m gridmarket.scenarios.harnesses.twotier_tables --jobs 200000 --workloads feitelson96 --out out/fw.csv   # paper scale
    python -P -m gridmarket.scenarios.harnesses.twotier_tables --sections main --loads 0.6,0.9 --jobs 1000 --seed 7

What it runs (sec. 3 of the paper; ``shared/seeds/measy-migration-consolidation.txt``):

* workloads: ``feitelson96`` (FWload, :mod:`gridmarket.workloads.feitelson96`, 320 processors) and
  ``jann97`` (JWload, :mod:`gridmarket.workloads.jann97`), with user estimates from the Tsafrir et al.
  model (:func:`gridmarket.workloads.tsafrir_estimates`, maximum estimate = the model's runtime cap),
  on a machine of ``--procs`` (320) processors;
* loads: each workload's inter-arrival times are multiplied by one factor
  (:func:`gridmarket.workloads.scale_interarrival`, sec. 3.3) so that its offered load — processor
  seconds of work over ``procs`` x (last submit - first submit) — is each of ``--loads``;
* section ``main`` (Figs. 6-8): EASY (:func:`gridmarket.simulation.simulate`), KEASY, REASY, MEASY
  (:func:`gridmarket.twotier.simulate_twotier`, migration cost 20 s): average response time and
  average bounded slowdown (tau = 10 s, :func:`gridmarket.twotier.paper_metrics`), kills of KEASY and
  migrations per job of MEASY;
* section ``usage`` (Figs. 9-12): KEASY and MEASY without usage information (sec. 3.5.1) and
  with every process at 100 % (sec. 3.5.2);
* section ``cost`` (Figs. 13-14): MEASY with migration costs ``--costs`` (up to 1500 s), with
  KEASY as the reference.

Randomness: ``numpy.random.SeedSequence(--seed).spawn(3)`` gives the workload, estimate and job
trait streams; every policy, load and setting gets the same jobs and the same traits (common
random numbers). The seed is in every result row. The paper's batch-means confidence intervals
are not computed. Rows go to ``--out`` (CSV) when given; the tables are printed.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd

from gridmarket.csvout import write_csv
from gridmarket.errors import MarketError
from gridmarket.scenarios.options import bounded
from gridmarket.scheduling import resolve_machine_policy
from gridmarket.simulation import simulate
from gridmarket.twotier import DEFAULT_MIGRATION_COST, paper_metrics, simulate_twotier
from gridmarket.twotier.policies import BG_STEPS
from gridmarket.twotier.progress import BG_MODELS, DEFAULT_BG_MODEL
from gridmarket.validation import check_fits_memory
from gridmarket.workloads import scale_interarrival, tsafrir_estimates
from gridmarket.workloads.feitelson96 import FEITELSON96_LIU2012, feitelson96_workload
from gridmarket.workloads.jann97 import JANN97_MAX_RUNTIME, jann97_workload
from gridmarket.workloads.workload import Workload

__all__ = ["WORKLOADS", "base_workload", "main", "offered_load", "run_tables"]

WORKLOADS = ("feitelson96", "jann97")
SECTIONS = ("main", "usage", "cost")
DEFAULT_LOADS = (0.5, 0.6, 0.7, 0.8, 0.9)
DEFAULT_COSTS = (0, 20, 120, 480, 900, 1500)
DEFAULT_JOBS = 2000
DEFAULT_PROCS = 320
DEFAULT_SEED = 1


def offered_load(workload: Workload, procs: int) -> float:
    """Processor-seconds of work over ``procs`` x the submit span (seconds)."""
    jobs = workload.jobs
    span = jobs[-1].submit - jobs[0].submit
    work = sum(j.procs * j.effective_runtime for j in jobs)
    return work / (procs * span) if span > 0 else float("inf")


def base_workload(name: str, n_jobs: int, procs: int, seeds: Sequence[np.random.SeedSequence]) -> Workload:
    """Workload ``name`` of ``n_jobs`` jobs on ``procs`` processors with Tsafrir estimates, at its natural load.

    ``seeds``: the workload and estimate streams (``seeds[0]``, ``seeds[1]``) of :func:`run_tables`.
    """
    rng_w, rng_e = np.random.default_rng(seeds[0]), np.random.default_rng(seeds[1])
    if name == "feitelson96":
        w = feitelson96_workload(n_jobs, rng=rng_w, procs=procs, params=FEITELSON96_LIU2012)
        cap = FEITELSON96_LIU2012.max_runtime
    elif name == "jann97":
        w = jann97_workload(n_jobs, rng=rng_w, procs=procs)
        cap = JANN97_MAX_RUNTIME
    else:
        raise MarketError(f"unknown workload {name!r}; known: {', '.join(WORKLOADS)}")
    return tsafrir_estimates(w, max_estimate=cap, rng=rng_e)


def _runs(sections: Sequence[str], costs: Sequence[int]) -> list[dict]:
    """The (policy, setting) combinations to simulate at every load."""
    runs: list[dict] = []
    if "main" in sections:
        runs.append(dict(section="main", policy="easy"))
        runs += [dict(section="main", policy=p) for p in ("keasy", "reasy", "measy")]
    if "usage" in sections:
        for p in ("keasy", "measy"):
            runs.append(dict(section="usage", policy=p, usage_known=False))
            runs.append(dict(section="usage", policy=p, usage="full"))
    if "cost" in sections:
        if "main" not in sections:
            runs.append(dict(section="cost", policy="keasy"))
        runs += [dict(section="cost", policy="measy", migration_cost=int(c)) for c in costs
                 if not ("main" in sections and c == DEFAULT_MIGRATION_COST)]
    return runs


def run_tables(
    *,
    workloads: Sequence[str] = WORKLOADS,
    loads: Sequence[float] = DEFAULT_LOADS,
    n_jobs: int = DEFAULT_JOBS,
    procs: int = DEFAULT_PROCS,
    seed: int = DEFAULT_SEED,
    sections: Sequence[str] = SECTIONS,
    costs: Sequence[int] = DEFAULT_COSTS,
    bg_model: str = DEFAULT_BG_MODEL,
    progress=None,
    bg_step: str = "every-event",
) -> pd.DataFrame:
    """Simulate every workload x load x (policy, setting); one row per run.

    ``bg_model`` is the form of the bg progress equation (:func:`gridmarket.twotier.progress.bg_rate`);
    ``bg_step`` when the two-tier policies run Step 3 (:data:`gridmarket.twotier.policies.BG_STEPS`).
    Columns: ``workload, load, offered_load, mean_procs, serial_share, policy, section, usage,
    usage_known, migration_cost, bg_model, seed, jobs, mean_response, mean_bsld, kills, migrations,
    migrations_per_job, seconds`` (``mean_procs`` and ``serial_share``: the generated workload's
    average parallelism and share of one-process jobs, Liu et al. 2012 sec. 3.1 and Table 1).
    """
    if bg_model not in BG_MODELS:
        raise MarketError(f"bg_model must be one of {', '.join(BG_MODELS)}, got {bg_model!r}")
    if bg_step not in BG_STEPS:
        raise MarketError(f"bg_step must be one of {', '.join(BG_STEPS)}, got {bg_step!r}")
    rows = []
    ss = np.random.SeedSequence(seed)
    for w_index, name in enumerate(workloads):
        seeds = ss.spawn(3) if w_index == 0 else np.random.SeedSequence([seed, w_index]).spawn(3)
        base = base_workload(name, n_jobs, procs, seeds)
        natural = offered_load(base, procs)
        sizes = np.fromiter((j.procs for j in base.jobs), np.int64, len(base.jobs))
        mean_procs, serial_share = round(float(sizes.mean()), 3), round(float((sizes == 1).mean()), 4)
        for load in loads:
            w = scale_interarrival(base, natural / load)
            for spec in _runs(sections, costs):
                t0 = time.perf_counter()
                policy = spec["policy"]
                machine_policy = resolve_machine_policy(policy)
                usage = spec.get("usage", "paper")
                known = spec.get("usage_known", True)
                cost = spec.get("migration_cost", DEFAULT_MIGRATION_COST)
                migrates = False
                if isinstance(machine_policy, type):  # the rigid-job baseline (EASY), on the single-machine simulator
                    res = simulate(w, procs=procs, policy=machine_policy)
                else:
                    res = simulate_twotier(w, procs=procs, policy=replace(machine_policy, bg_step=bg_step),
                                           rng=np.random.default_rng(seeds[2]),
                                           usage=usage, usage_known=known, migration_cost=cost,
                                           bg_model=bg_model)
                    migrates = machine_policy.migrates
                m = paper_metrics(res.records)
                rec = res.records
                rows.append(dict(
                    workload=name, load=load, offered_load=round(offered_load(w, procs), 4),
                    mean_procs=mean_procs, serial_share=serial_share, policy=policy,
                    section=spec["section"], usage=usage, usage_known=known,
                    migration_cost=cost if migrates else 0, bg_model=bg_model, seed=seed, jobs=len(rec),
                    mean_response=m["mean_response"], mean_bsld=m["mean_bsld"],
                    kills=int(rec["kills"].sum()) if "kills" in rec else 0,
                    migrations=int(rec["migrations"].sum()) if "migrations" in rec else 0,
                    migrations_per_job=float(rec["migrations"].mean()) if "migrations" in rec else 0.0,
                    seconds=round(time.perf_counter() - t0, 2),
                ))  # fmt: skip
                if progress is not None:
                    progress(rows[-1])
    return pd.DataFrame(rows)


def _label(row: pd.Series) -> str:
    label = row["policy"].upper()
    if not row["usage_known"]:
        label += " no-usage"
    if row["usage"] == "full":
        label += " 100%"
    machine_policy = resolve_machine_policy(row["policy"])
    if row["section"] == "cost" and not isinstance(machine_policy, type) and machine_policy.migrates:
        label += f" c={row['migration_cost']}s"
    return label


def format_tables(rows: pd.DataFrame) -> str:
    """The printed tables: per workload and section, loads x policies."""
    out = []
    rows = rows.assign(label=rows.apply(_label, axis=1))
    for name, w in rows.groupby("workload", sort=False):
        for section, title in (("main", "EASY vs KEASY, REASY, MEASY (Figs. 6-8)"),
                               ("usage", "sec. 3.5.1-3.5.2: no usage information / 100 % usage (Figs. 9-12)"),
                               ("cost", "sec. 3.5.3: MEASY migration cost (Figs. 13-14)")):
            part = w[w["section"] == section]
            if section != "main" and not part.empty:
                ref = w[(w["section"] == "main") & w["policy"].isin(["easy", "keasy", "measy"])]
                part = pd.concat([ref, part])
            if part.empty:
                continue
            order = list(dict.fromkeys(part["label"]))
            for metric, fmt in (("mean_response", "{:.0f}"), ("mean_bsld", "{:.2f}")):
                table = part.pivot_table(index="load", columns="label", values=metric, sort=False)[order]
                out.append(f"## {name}: {title} — {metric} ({'s' if metric == 'mean_response' else 'tau=10 s'})")
                out.append(table.to_string(float_format=lambda v, f=fmt: f.format(v)))
                out.append("")
            if section == "main":
                by_load = part.set_index(["load", "policy"])
                loads = list(dict.fromkeys(part["load"]))
                mig = pd.DataFrame({
                    "KEASY kills": [int(by_load.loc[(x, "keasy"), "kills"]) for x in loads],
                    "MEASY migrations": [int(by_load.loc[(x, "measy"), "migrations"]) for x in loads],
                    "MEASY migrations/job": [by_load.loc[(x, "measy"), "migrations_per_job"] for x in loads],
                }, index=pd.Index(loads, name="load"))  # fmt: skip
                out.append(f"## {name}: KEASY kills and MEASY migrations (Fig. 8)")
                out.append(mig.to_string(float_format=lambda v: f"{v:.3f}"))
                out.append("")
    return "\n".join(out)


def _bounded_list(quantity: str, *, low: float | None = None):
    """An argparse ``type``: a comma list of numbers, each within ``quantity``'s bounds (:mod:`gridmarket.limits`)."""
    each = bounded(quantity, low=low)

    def parse(text: str) -> list:
        values = [each(x.strip()) for x in text.split(",") if x.strip()]
        if not values:
            raise argparse.ArgumentTypeError(f"expected a comma list of numbers, got {text!r}")
        return values

    return parse


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -P -m gridmarket.scenarios.harnesses.twotier_tables", description=__doc__.splitlines()[0],
                                epilog="See the module docstring for what each section reproduces.")
    p.add_argument("--workloads", default=",".join(WORKLOADS), help=f"comma list of {', '.join(WORKLOADS)}")
    p.add_argument("--loads", type=_bounded_list("load factor"), default=",".join(map(str, DEFAULT_LOADS)), help="offered loads, comma list")
    p.add_argument("--jobs", type=bounded("jobs", low=2), default=DEFAULT_JOBS, help=f"jobs per workload (default {DEFAULT_JOBS}; "
                   "the paper: 200000 FWload, 100000 JWload)")
    p.add_argument("--procs", type=bounded("processors"), default=DEFAULT_PROCS, help=f"processors (default {DEFAULT_PROCS})")
    p.add_argument("--seed", type=bounded("seed"), default=DEFAULT_SEED, help=f"root seed (default {DEFAULT_SEED})")
    p.add_argument("--sections", default=",".join(SECTIONS), help=f"comma list of {', '.join(SECTIONS)}")
    p.add_argument("--costs", type=_bounded_list("seconds"), default=",".join(map(str, DEFAULT_COSTS)),
                   help="MEASY migration costs in seconds for the cost section")
    p.add_argument("--bg-model", choices=BG_MODELS, default=DEFAULT_BG_MODEL,
                   help=f"form of the bg progress equation (gridmarket.twotier.progress.bg_rate; default {DEFAULT_BG_MODEL})")
    p.add_argument("--out", help="write one CSV row per run here")
    p.add_argument("--quiet", action="store_true", help="do not print a line per finished run")
    return p


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit status."""
    parser = _parser()
    args = parser.parse_args(argv)
    workloads = [w.strip() for w in args.workloads.split(",") if w.strip()]
    sections = [s.strip() for s in args.sections.split(",") if s.strip()]
    bad = [w for w in workloads if w not in WORKLOADS] + [s for s in sections if s not in SECTIONS]
    if bad:
        parser.error(f"unknown workload or section: {', '.join(bad)}")
    loads, costs = args.loads, args.costs
    try:
        check_fits_memory("--jobs", args.jobs)
    except MarketError as err:
        parser.error(str(err))

    def report(row: dict) -> None:
        if not args.quiet:
            print(f"  {row['workload']} load {row['load']}: {_label(pd.Series(row))} "
                  f"response {row['mean_response']:.0f} s, bsld {row['mean_bsld']:.2f} ({row['seconds']} s)",
                  file=sys.stderr)

    try:
        rows = run_tables(workloads=workloads, loads=loads, n_jobs=args.jobs, procs=args.procs, seed=args.seed,
                          sections=sections, costs=costs, bg_model=args.bg_model, progress=report)
    except MarketError as err:
        print(f"twotier_tables: error: {err}", file=sys.stderr)
        return 2
    print(f"# seed {args.seed}, {args.jobs} jobs per workload, {args.procs} processors, bg model {args.bg_model}\n")
    print(format_tables(rows))
    if args.out:
        out = Path(args.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        write_csv(rows, out)
        print(f"wrote {len(rows)} rows to {out}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
