"""Murali & Vadhiyar (XSEDE, Table IV, Fig. 11): why MCMF's response directions fail under ``paper@0.7``.

Since ccf676b ``gridmarket run murali-xsede`` uses the ``paper@0.7`` workload (sec. 4.3.1's
run times, >= 30 min and 8.8 h mean, and 3.22 arrivals an hour per system; Lublin sizes scaled to a
0.7 offered load per system). BS answers in Table IV's 633.7 min, but MCMF w_t = 100 % cuts the
response by 14 % (Fig. 11: 48-49 %) and w_t = 25 % lengthens it by 67 % (Table IV: -24.6 %). Under
this workload, until 83d7713, every system fell back from Tsafrir's estimate model to the wall-time
limit as every job's estimate (the model, drawn for the long jobs alone, draws too few long
estimates for 8.8 h runs under 24-72 h limits): mean estimate 51 h for 8.9 h of run. This script changes one factor at a
time, everything else as ``murali-xsede --size full`` (Table I systems, PJM ComEd + synthetic
regional prices, SARIMA day-ahead forecasts, 10-minute cycles, MaxQ 2, 2000 jobs of predictor
warm-up, f_g = 1, the reproduction's seed streams: the same jobs, sizes and run times in every
variant of a seed):

``limit``        estimate = the origin's wall-time limit (the reproduction as it was when these
                 variants were measured, at 309b600: every system fell back to the limit).
``reproduction`` the reproduction as it is: since 83d7713 Tsafrir's estimates are drawn for the
                 stream as generated, short jobs included, before they are left out, and 6 of 8
                 systems keep them (Darter and Lonestar, 24 h limits, fall back to the limit). The
                 draw changes the random stream, so a seed's jobs differ from 309b600's.
``exact``        H1a: estimate = run time.
``tsafrir-cover`` H1b: Tsafrir's model (`gridmarket.workloads.tsafrir_distribution`, default parameters,
                 max estimate = the wall-time limit) assigned as ``est_assign`` (longest run first,
                 a uniform pick among the unused drawn estimates >= the run time), except that a job
                 no unused drawn estimate covers gets the smallest value of the drawn histogram
                 (head = the modal round values 5 min ... 18 h and the limit, plus the tail values)
                 that is >= its run time; the limit is always one. Reading: users still pick the
                 model's round values, but the mass of long ones is raised just enough to cover the
                 long runs -- the least adjustment of "the parameters of ... Tsafrir" (sec. 4.3.1)
                 that makes the model usable; the jobs the draw covers get its estimates as
                 ``est_assign`` hands them out. Measured: about a third of the jobs take a value
                 outside the draw (the model's mass below 30 min is of no use to runs >= 30 min).
                 The draws come from a stream of their own (``SeedSequence([seed, 14, 1])``).
``matched-history`` H2: the ``limit`` workload, but each system's wait predictor is warmed on 2000
                 past jobs of the *same* workload generator (``grid_workload`` on that system alone,
                 paper@0.7, wall-time estimates, ``SeedSequence([seed, 14, 2])``) replayed under EASY,
                 instead of `gridmarket.prediction.warm_predictor`'s Lublin jobs with Tsafrir estimates
                 at the model's own load (short runs and estimates unlike the run's). Injected
                 through the public ``GridConfig.wait_predictor`` factory (one pre-warmed copy per
                 system, handed out in site order, ``warmup=0``): no monkeypatching.
``exact-matched`` H1a and H2 together (exact estimates, history of the same generator with exact
                 estimates).
``maxq-inf``, ``maxq-1`` the ``limit`` workload with MaxQ unbounded or 1 (the paper's XSEDE runs: MaxQ = 2).
``uncapped``     H2: the ``limit`` workload with the wait predictor's ridge not capped at the longest
                 wait of its history (``QueueWaitPredictor(cap=False)``, our cap; the paper states
                 none), through the public ``GridConfig.wait_predictor`` (warm-up as the reproduction).
``equal-efficiency`` the ``limit`` workload on Table I's systems with every one drawing the same watts
                 per GFlop (Table I's total power kept; ``benchmarks/murali_cost_vs_efficiency.py``):
                 whether the 9.3x efficiency spread makes w_t = 25 % a cost-led policy here too.

Per variant, seed and strategy it records the mean response (split into wait and run), the cost,
the share of jobs moved away from their origin, and for MCMF's moved jobs the mean predicted wait
(``predicted_wait``) against the actual (``start - dispatch``), the mean estimate / run time, and
the busiest system's predicted vs actual wait as the report computes it (`murali._run`). It prints
per variant k of n and the mean with a Student-t 95 % interval of every direction and change, and
writes every figure per seed to ``--out`` (JSON lines).

    PYTHONPATH=$PWD GRIDMARKET_DATA=../shared/data nice -n 10 .venv/bin/python -W ignore \\
        benchmarks/murali_xsede_paper_workload.py --seeds 1,2,4,5,6 \\
        --variants limit,exact,tsafrir-cover,matched-history,exact-matched,maxq-inf --out out/pw.jsonl
    ... --variants uncapped,equal-efficiency ...; ... --variants maxq-1 ...      # the same seeds
    .venv/bin/python benchmarks/murali_xsede_paper_workload.py --summarize --out out/pw.jsonl

(``benchmarks/RESULTS_reproductions.md``, "murali-xsede under the paper's workload: failing directions
measured", has the figures: about 1-3 wall minutes a variant and seed on the shared 2-core machine.)
"""

from __future__ import annotations

import argparse
import copy
import dataclasses
import json
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from gridmarket.scenarios.commands.run import parse_seeds

sys.path.insert(0, str(Path(__file__).resolve().parent))
from datafiles import data_file  # noqa: E402

VARIANTS = ("limit", "reproduction", "exact", "tsafrir-cover", "matched-history", "exact-matched", "maxq-inf",
            "maxq-1", "uncapped", "equal-efficiency")
_DAY = 86400
_HISTORY_JOBS = 2000  # sec. 4.3.2; murali._HISTORY


def covered_tsafrir(jobs, max_estimate: int, rng: np.random.Generator) -> tuple[list, int]:
    """Tsafrir estimates that cover every run time (H1b above); returns ``(jobs, how many fell back)``.

    Draws the histogram of `tsafrir_distribution` for ``len(jobs)`` jobs; assigns as ``est_assign``
    (runs longest first, each a uniform pick among the unused drawn estimates >= its run time). A job
    no unused drawn estimate covers takes the smallest histogram value >= its run time (at most
    ``max_estimate``, always one of them) and uses none of the drawn estimates.
    """
    from gridmarket.workloads import tsafrir_distribution

    n = len(jobs)
    if n == 0:
        return [], 0
    dist = tsafrir_distribution(n, max_estimate=max_estimate, rng=rng)
    values = sorted(dist)
    pool = sorted((t for t, c in dist.items() for _ in range(c)), reverse=True)
    runtimes = [j.runtime for j in jobs]
    order = sorted(range(n), key=lambda i: -runtimes[i])
    draws = rng.random(n)
    assigned = [0] * n
    used = 0  # pool[:used] are taken
    hi = -1  # pool[hi] is the last drawn estimate >= the current run time
    fell = 0
    for j, i in enumerate(order):
        r = runtimes[i]
        while hi < n - 1 and r <= pool[hi + 1]:
            hi += 1
        if hi >= used:
            k = used + int(draws[j] * (hi - used + 1))
            assigned[i] = pool[k]
            pool[k], pool[used] = pool[used], pool[k]
            used += 1
        else:
            assigned[i] = next(v for v in values if v >= r)
            fell += 1
    return [replace(job, estimate=int(e)) for job, e in zip(jobs, assigned)], fell


def with_estimates(jobs, systems, variant: str, seed: int) -> tuple[tuple, dict]:
    """``jobs`` with the variant's estimates (run times, sizes, submits unchanged) and notes."""
    if variant in ("exact", "exact-matched"):
        return tuple(replace(j, estimate=j.runtime) for j in jobs), {}
    if variant == "reproduction":
        return tuple(jobs), {}
    if variant != "tsafrir-cover":
        limit = {s.name: s.max_walltime for s in systems}
        return tuple(replace(j, estimate=limit[j.site]) for j in jobs), {}
    rng = np.random.default_rng(np.random.SeedSequence([seed, 14, 1]))
    by_id = {}
    fell = {}
    for s in systems:
        mine = [j for j in jobs if j.site == s.name]
        new, n_fell = covered_tsafrir(mine, max(s.max_walltime, 3600), rng)
        fell[s.name] = n_fell / max(len(mine), 1)
        by_id.update({j.id: replace(j, estimate=min(j.estimate, s.max_walltime)) for j in new})
    return tuple(by_id[j.id] for j in jobs), {"fell_back_share": fell}


def matched_predictors(systems, seed: int, exact: bool) -> list:
    """Per system, a `QueueWaitPredictor` warmed on 2000 past jobs of the run's own generator (paper@0.7)."""
    import warnings

    from gridmarket.metascheduling import grid_workload
    from gridmarket.prediction import QueueWaitPredictor
    from gridmarket.prediction.wait_replay import replay_wait_predictions
    from gridmarket.scenarios.reproductions.murali import XSEDE_MEAN_RUNTIME, XSEDE_MIN_RUNTIME

    rng = np.random.default_rng(np.random.SeedSequence([seed, 14, 2]))
    days = _HISTORY_JOBS / (3.22 * 24) + 1.0
    out = []
    for s in systems:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the Tsafrir fallback to the limit: the run's estimates too
            past = list(grid_workload([s], days=days, rng=rng, offered_load=0.7, mean_runtime=XSEDE_MEAN_RUNTIME,
                                      min_runtime=XSEDE_MIN_RUNTIME, sizes_to_load=True))
        past = [replace(j, estimate=j.runtime if exact else s.max_walltime) for j in past]
        p = QueueWaitPredictor(history=_HISTORY_JOBS)
        replay_wait_predictions(past, procs=s.cores, policy="easy", predictor=p, predict=False)
        out.append(p)
    return out


def _configs(names: list[str], maxq):
    from gridmarket.metascheduling import GridConfig

    table = {"bs": GridConfig("bs"), "mcmf-w100": GridConfig("mcmf", w_t=100, maxq=maxq),
             "mcmf-w25": GridConfig("mcmf", w_t=25, maxq=maxq), "mcmf-w50": GridConfig("mcmf", w_t=50, maxq=maxq),
             "mcmf-w0": GridConfig("mcmf", w_t=0, maxq=maxq), "twoprice-w25": GridConfig("twoprice", w_t=25, maxq=maxq),
             "inst": GridConfig("inst", w_t=25, maxq=maxq)}
    return [(n, table[n]) for n in names]


def _figures(result, sizes: dict) -> dict:
    rec, per = result.records, result.per_system
    wait = rec["start"] - rec["submit"]
    out = {"response_min": float((rec["end"] - rec["submit"]).mean()) / 60, "wait_min": float(wait.mean()) / 60,
           "run_min": float((rec["end"] - rec["start"]).mean()) / 60, "cost": result.summary["total_energy_cost"],
           "moved_share": float((rec["origin"] != rec["system"]).mean()),
           "estimate_over_run": float(rec["estimate"].sum() / rec["runtime"].sum())}
    # the work each system ran over the submission period's length: where a policy piles jobs up
    cores = {n: c for n, c in zip(per.index, result.per_system["core_hours"])}
    period = float(rec["submit"].max() - rec["submit"].min()) / 3600.0
    out["work_over_capacity"] = {n: cores[n] / (sizes[n] * period) for n in cores}
    sent = rec[rec["routed"]]
    if len(sent) and sent["predicted_wait"].notna().any():
        moved = sent[sent["origin"] != sent["system"]]
        for key, part in (("routed", sent), ("moved", moved)):
            actual = (part["start"] - part["dispatch"]) / 60
            pred = part["predicted_wait"] / 60
            out[f"{key}_pred_wait_min"] = float(pred.mean()) if len(part) else float("nan")
            out[f"{key}_actual_wait_min"] = float(actual.mean()) if len(part) else float("nan")
            out[f"{key}_median_abs_err_min"] = float((pred - actual).abs().median()) if len(part) else float("nan")
            out[f"{key}_under_share"] = float((pred < actual - 60).mean()) if len(part) else float("nan")
        busiest = per["jobs"].idxmax()
        top = sent[sent["system"] == busiest]
        out["top_system"] = str(busiest)
        out["top_share"] = float(per["jobs"].max() / len(rec))
        out["top_pred_wait_min"] = float(top["predicted_wait"].mean()) / 60
        out["top_actual_wait_min"] = float((top["start"] - top["dispatch"]).mean()) / 60
    return out


def _equal_efficiency(sites):
    """``sites`` with every system drawing the same watts per GFlop, Table I's total power kept (same prices)."""
    from gridmarket.metascheduling import Site

    systems = [s.system for s in sites]
    total_watts = sum(s.cores * s.watts_per_core for s in systems)
    per_gflop = total_watts / sum(s.cores * s.gflops_per_core for s in systems)
    return [Site(replace(s.system, watts_per_core=s.system.gflops_per_core * per_gflop), s.prices, s.outlook,
                 s.continuation) for s in sites]


def one(seed: int, variant: str, sites, base_jobs, names: list[str], days: float) -> dict:
    from gridmarket.metascheduling import run_grid, stream_rng
    from gridmarket.prediction import QueueWaitPredictor
    from gridmarket.scenarios.reproductions.murali import _HISTORY

    if variant == "equal-efficiency":
        sites = _equal_efficiency(sites)  # the same outlooks: the SARIMA fits are shared

    systems = [s.system for s in sites]
    jobs, notes = with_estimates(base_jobs, systems, variant, seed)
    streams = np.random.SeedSequence(seed).spawn(2)  # as murali._xsede: streams[1] seeds every strategy
    maxq = {"maxq-inf": None, "maxq-1": 1}.get(variant, 2)
    warmed = (matched_predictors(systems, seed, exact=variant == "exact-matched")
              if variant in ("matched-history", "exact-matched") else None)
    horizon = days * _DAY
    loads = {s.name: sum(j.procs * j.runtime for j in jobs if j.site == s.name) / (s.cores * horizon) for s in systems}
    est = np.array([j.estimate for j in jobs], float)
    run = np.array([j.runtime for j in jobs], float)
    out = {"seed": seed, "variant": variant, "jobs": len(jobs), "loads": loads,
           "mean_estimate_h": float(est.mean() / 3600), "mean_runtime_h": float(run.mean() / 3600),
           "estimate_at_limit_share": float(np.mean([j.estimate == next(s.max_walltime for s in systems
                                                                          if s.name == j.site) for j in jobs])),
           **notes, "strategies": {}}
    for label, config in _configs(names, maxq):
        if warmed is not None and config.strategy != "bs":
            queue = [copy.deepcopy(p) for p in warmed]  # _SiteState asks for one per site, in site order
            config = dataclasses.replace(config, warmup=0, wait_predictor=lambda q=queue: q.pop(0))
        elif variant == "uncapped" and config.strategy != "bs":
            config = dataclasses.replace(config, warmup=_HISTORY,
                                         wait_predictor=lambda: QueueWaitPredictor(history=_HISTORY_JOBS, cap=False))
        else:
            config = dataclasses.replace(config, warmup=_HISTORY)
        t0 = time.perf_counter()
        result = run_grid(jobs, sites, config, rng=stream_rng(streams[1]))
        out["strategies"][label] = {**_figures(result, {s.system.name: s.system.cores for s in sites}), "seconds": time.perf_counter() - t0}
    return out


def _change(r: dict, label: str, key: str) -> float:
    s = r["strategies"]
    return 100.0 * (s[label][key] / s["bs"][key] - 1.0)


DIRECTIONS = [  # (text, test on one seed's record)
    ("MCMF w25 better than BS on response and cost (Table IV)",
     lambda s: s["mcmf-w25"]["response_min"] < s["bs"]["response_min"] and s["mcmf-w25"]["cost"] < s["bs"]["cost"]),
    ("MCMF w25 faster than BS (Table IV -24.6 %)", lambda s: s["mcmf-w25"]["response_min"] < s["bs"]["response_min"]),
    ("MCMF w100 faster than BS (Fig. 11 -48.5 %)", lambda s: s["mcmf-w100"]["response_min"] < s["bs"]["response_min"]),
    ("MCMF w50 faster than BS (sec. 5.7.2 -40.8 %)", lambda s: s["mcmf-w50"]["response_min"] < s["bs"]["response_min"]),
    ("MCMF w0 cheaper than BS (Table IV -18.9 %)", lambda s: s["mcmf-w0"]["cost"] < s["bs"]["cost"]),
    ("TWOPRICE costs more than BS (Table IV +0.7 %)", lambda s: s["twoprice-w25"]["cost"] > s["bs"]["cost"]),
    ("MCMF w25 cheaper than TWOPRICE (Table IV)", lambda s: s["mcmf-w25"]["cost"] < s["twoprice-w25"]["cost"]),
    ("INST slower than BS (Table IV 5.5x)", lambda s: s["inst"]["response_min"] > s["bs"]["response_min"]),
    ("MCMF w100 within 10 pts of -48.5 %",
     lambda s: abs(100 * (s["mcmf-w100"]["response_min"] / s["bs"]["response_min"] - 1) + 48.5) <= 10),
    ("MCMF w25 within 10 pts of -24.6 %",
     lambda s: abs(100 * (s["mcmf-w25"]["response_min"] / s["bs"]["response_min"] - 1) + 24.6) <= 10),
]


def summarize(records: list[dict]) -> str:
    from gridmarket.scenarios.intervals import interval

    def fmt(values) -> str:  # a change: unbounded
        s = interval(values, low=None)
        return f"{s.mean:+.1f} [{s.low:+.1f}, {s.high:+.1f}]" if len(values) > 1 else f"{s.mean:+.1f}"

    def fmt_abs(values) -> str:  # an amount: never below 0
        s = interval(values, low=0.0)
        return f"{s.mean:.0f} [{s.low:.0f}, {s.high:.0f}]" if len(values) > 1 else f"{s.mean:.0f}"

    lines = []
    by_variant: dict[str, list[dict]] = {}
    for r in records:
        by_variant.setdefault(r["variant"], []).append(r)
    for variant, rs in by_variant.items():
        n = len(rs)
        lines.append(f"\n== {variant} (seeds {', '.join(str(r['seed']) for r in rs)})")
        lines.append(f"  mean estimate {np.mean([r['mean_estimate_h'] for r in rs]):.1f} h, mean run "
                     f"{np.mean([r['mean_runtime_h'] for r in rs]):.1f} h, estimate at the limit "
                     f"{100 * np.mean([r['estimate_at_limit_share'] for r in rs]):.0f} % of jobs; offered load per "
                     f"system {100 * np.mean([min(r['loads'].values()) for r in rs]):.0f}-"
                     f"{100 * np.mean([max(r['loads'].values()) for r in rs]):.0f} %")
        if "fell_back_share" in rs[0]:
            fb = [np.mean(list(r["fell_back_share"].values())) for r in rs]
            lines.append(f"  jobs given a histogram value outside the draw (H1b): {100 * np.mean(fb):.1f} % "
                         f"(per system, mean over systems)")
        labels = list(rs[0]["strategies"])
        for text, test in DIRECTIONS:
            try:
                k = sum(bool(test(r["strategies"])) for r in rs)
            except KeyError:
                continue
            lines.append(f"  {text}: {k}/{n}")
        lines.append("  BS mean response (min): " + fmt_abs([r["strategies"]["bs"]["response_min"] for r in rs]))
        for label in labels:
            if label == "bs":
                continue
            s = [r["strategies"][label] for r in rs]
            lines.append(f"  {label}: response {fmt([_change(r, label, 'response_min') for r in rs])} %, cost "
                         f"{fmt([_change(r, label, 'cost') for r in rs])} %, moved "
                         f"{100 * np.mean([x['moved_share'] for x in s]):.0f} %; wait {np.mean([x['wait_min'] for x in s]):.0f}"
                         f" (BS {np.mean([r['strategies']['bs']['wait_min'] for r in rs]):.0f}) + run "
                         f"{np.mean([x['run_min'] for x in s]):.0f} (BS {np.mean([r['strategies']['bs']['run_min'] for r in rs]):.0f}) min")
            if "work_over_capacity" in s[0]:
                top = [max(x["work_over_capacity"].items(), key=lambda kv: kv[1]) for x in s]
                lines.append(f"      most loaded system: {', '.join(sorted({t[0] for t in top}))} at "
                             f"{100 * np.mean([t[1] for t in top]):.0f} % of its cores over the submission period "
                             f"(BS: {100 * np.mean([max(r['strategies']['bs']['work_over_capacity'].values()) for r in rs]):.0f} %)")
            if label.startswith(("mcmf", "twoprice")) and "moved_pred_wait_min" in s[0]:
                lines.append(f"      moved jobs: predicted wait {fmt_abs([x['moved_pred_wait_min'] for x in s])} vs actual "
                             f"{fmt_abs([x['moved_actual_wait_min'] for x in s])} min, median |error| "
                             f"{np.nanmean([x['moved_median_abs_err_min'] for x in s]):.0f} min, under-predicted (> 1 min) "
                             f"{100 * np.nanmean([x['moved_under_share'] for x in s]):.0f} %; all routed: predicted "
                             f"{np.mean([x['routed_pred_wait_min'] for x in s]):.0f} vs actual "
                             f"{np.mean([x['routed_actual_wait_min'] for x in s]):.0f} min; busiest system "
                             f"({', '.join(sorted({x['top_system'] for x in s}))}, {100 * np.mean([x['top_share'] for x in s]):.0f} % "
                             f"of jobs): predicted {np.mean([x['top_pred_wait_min'] for x in s]):.0f} vs actual "
                             f"{np.mean([x['top_actual_wait_min'] for x in s]):.0f} min")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    import warnings

    from gridmarket.scenarios.harnesses.metascheduling import WARMUP_DAYS, xsede_sites
    from gridmarket.scenarios.reproductions.murali import _xsede_continued, xsede_jobs

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", default="1,2,4,5,6")
    parser.add_argument("--variants", default="limit,exact,tsafrir-cover,matched-history")
    parser.add_argument("--strategies", default="bs,mcmf-w100,mcmf-w25,mcmf-w50,mcmf-w0,twoprice-w25,inst")
    parser.add_argument("--days", type=float, default=15.0)
    parser.add_argument("--out", default="out/murali_xsede_paper_workload.jsonl")
    parser.add_argument("--summarize", action="store_true", help="only print the summary of --out")
    args = parser.parse_args(argv)
    out = Path(args.out)
    if args.summarize:
        print(summarize([json.loads(line) for line in out.read_text().splitlines() if line.strip()]))
        return 0
    variants = args.variants.split(",")
    bad = [v for v in variants if v not in VARIANTS]
    if bad:
        print(f"unknown variant(s) {', '.join(bad)}; known: {', '.join(VARIANTS)}", file=sys.stderr)
        return 2
    names = args.strategies.split(",")
    if "bs" not in names:
        names.insert(0, "bs")
    pjm = data_file("prices/pjm_comed_2013-2018_epftoolbox.csv", needed_by="murali_xsede_paper_workload")
    out.parent.mkdir(parents=True, exist_ok=True)
    records = []
    for seed in parse_seeds(args.seeds):
        sites, _ = _xsede_continued(xsede_sites(args.days, seed=seed, pjm_csv=pjm))  # forecasts shared by variants
        streams = np.random.SeedSequence(seed).spawn(2)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the Tsafrir fallback: counted in estimate_at_limit_share
            base, _ = xsede_jobs("paper@0.7", [s.system for s in sites], days=args.days,
                                 rng=np.random.default_rng(streams[0]), start=WARMUP_DAYS * _DAY)
        for variant in variants:
            t0 = time.perf_counter()
            r = one(seed, variant, sites, base, names, args.days)
            records.append(r)
            with out.open("a") as fh:
                fh.write(json.dumps(r) + "\n")
            s = r["strategies"]
            print(f"seed {seed} {variant} ({time.perf_counter() - t0:.0f} s): BS {s['bs']['response_min']:.0f} min; "
                  + ", ".join(f"{k} {_change(r, k, 'response_min'):+.1f} % resp / {_change(r, k, 'cost'):+.1f} % cost"
                              for k in s if k != "bs"), flush=True)
    print(summarize(records))
    return 0


if __name__ == "__main__":
    sys.exit(main())
