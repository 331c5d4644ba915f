"""Reproductions of Singh 2008 (``singh-provisioning-thesis.txt``): chs. 3-4, 5, 6 and 7.

Composes :mod:`gridmarket.scenarios.harnesses.provisioning` (providers replaying PWA traces, MOGA,
greedy provisioning, VAR and the combined scheme) and
:mod:`gridmarket.scenarios.harnesses.pricing_replay` (the priced trace replay of ch. 5.3). The
traces are the thesis's on its machines: SDSC-SP2 on 128 processors and
CTC-SP2 on 430 (ch. 3.1, 4.7, 5.3: "430 node CTC cluster"; the trace's own
batch partition has 338, on which its offered load is 84 % instead of the
thesis's 63 %). Times are
seconds inside, reported in hours; costs are SU (processor-hours).
"""

from __future__ import annotations

from bisect import bisect_left
from pathlib import Path
from typing import Any

import numpy as np

from gridmarket.errors import InvalidInput
from gridmarket.scenarios.reproductions.report import (
    Check,
    Row,
    controlled,
    data_file,
    mean,
    paper_number,
    read_trace,
    register,
    sequence_ints,
    setup_check,
    steps,
)

__all__ = ["singh_advertisement", "singh_greedy", "singh_pricing", "singh_var"]

_H = 3600.0
_FLAT_PRICE = "a flat price in the externality price's place (every price equal)"
_AS_BEST_EFFORT = "reservations waiting as best-effort jobs (no reservation)"
_ACCURATE = "accurate estimates in the recorded ones' place"
_AXIS = "a scale check: the chart's value axis, not a finding"


def _series(r: dict) -> str:
    return ", ".join(f"{k}: {v:.2f}" for k, v in r.items())


def _rises(r: dict) -> tuple[bool, str]:
    v = list(r.values())
    return all(x < y for x, y in zip(v, v[1:])), _series(r)


def _falls(r: dict) -> tuple[bool, str]:
    v = list(r.values())
    return all(x > y for x, y in zip(v, v[1:])), _series(r)


def _highest_first(r: dict) -> tuple[bool, str]:
    v = list(r.values())
    return all(v[0] > x for x in v[1:]), _series(r)


def _first_higher(r: dict) -> tuple[bool, str]:
    a, b = r.values()
    return a > b, _series(r)


def _first_lower(r: dict) -> tuple[bool, str]:
    a, b = r.values()
    return a < b, _series(r)


def _fastest_below(r: dict) -> tuple[bool, str]:
    return r["fastest"] < r["be"], f"{r['fastest'] / _H:.2f} h vs best effort {r['be'] / _H:.2f} h"


def _worst_below(r: dict) -> tuple[bool, str]:
    return r["worst"] < r["be"], f"worst alpha {r['worst'] / _H:.2f} h vs best effort {r['be'] / _H:.2f} h"


def _ratio_below_one(worst: float) -> tuple[bool, str]:
    return worst < 1, f"largest ratio {worst:.3f}"


def _majority(r: dict) -> tuple[bool, str]:
    # NaN (no case where both succeed) fails
    return r["share"] > 50, f"{r['who']} cheaper in {r['share']:.0f} % of {r['n']} cases"
_BEST_EFFORT = "best effort in the broker's place"
_ALPHA0 = "the broker at alpha = 0 (cost not weighed)"
_DAY = 86400

_TRACES = {  # site: (file under the data folder, processors, mean processors per task of the ch. 4.7 workflow)
    "sdsc": ("traces/SDSC-SP2-1998-4.2-cln.swf.gz", 128, 6),
    "ctc": ("traces/CTC-SP2-1996-3.1-cln.swf.gz", 430, 22),
}
COST_RATIO_TOLERANCE = 0.2
"""How far from the thesis's 1.43 a two-provider cost ratio may be and still count as 'about 43 % more'."""
_ADVERTISED = {"sdsc": 14, "ctc": 27}  # ch. 3.1, Fig. 4: "The average number of advertised slots"


def _trace(site: str, data: Path | None, name: str):
    return read_trace(data_file(data, _TRACES[site][0], needed_by=name))


def _points(jobs, count: int, before: int = 1500, after: int = 3000) -> list[int]:
    """Indices of the submission jobs of ``count`` instants evenly spaced in time over the trace.

    Each instant is moved to the next submission, between the ``before``-th job and the ``after``-th
    from the end (a replay window around each). Ch. 4.7: "submitting the application at different
    times during the simulation run". Instants spaced evenly over the job indices instead (an earlier
    version) put more of them where submissions are dense, the trace's busy stretches
    (``benchmarks/RESULTS_reproductions.md``, "Fig. 15's 3-procs ratio, third pass": the instants'
    offered load 72 % against the trace's 66 %).
    """
    submits = [j.submit for j in jobs]
    last = len(jobs) - after
    return [min(max(bisect_left(submits, t), before), last)
            for t in np.linspace(jobs[before].submit, jobs[last].submit, count)]


def _offered_load(jobs, procs: int, t0: int, t1: int) -> float:
    """Processor-seconds submitted in ``[t0, t1)`` over ``procs`` x the span (a utilisation proxy)."""
    work = sum(j.procs * j.effective_runtime for j in jobs if t0 <= j.submit < t1)
    return work / (procs * (t1 - t0))


# ----------------------------------------------------------------------------- ch. 3-4
@register("singh-advertisement", citation="Singh 2008, ch. 3.1 Fig. 4 and ch. 4.7 Fig. 13 (Fig. 15 at full size)",
          summary="MOGA over advertised slots vs best effort just in time on SDSC-SP2 (and CTC-SP2)")
def singh_advertisement(size: str, seed: int, data: Path | None):
    """Slot advertisement and MOGA provisioning against best effort (Singh 2008, ch. 3.1 and 4.7).

    Reproduces Figure 13: a layered workflow (ch. 4.7: 100 tasks, 10 levels,
    mean runtime 1000 s, mean 6 processors per task on SDSC, 22 on CTC) is
    submitted at several instants of a provider replaying its trace with exact
    estimates under the slot scheduler; MOGA (population 100, 10 generations)
    picks a plan over the advertised slots for alpha = 0, 0.5, 1, and the same
    workflow also runs best effort just in time under conservative
    backfilling. Also reports the mean number of advertised slots (ch. 3.1,
    Fig. 4: 14 on SDSC, 27 on CTC) and, at full size, Figure 15's task-size
    bars on CTC (3 and 30 processors per task, whose ratios the thesis states).

    Seed's direction: the provisioned makespan is below best effort for every
    alpha, at a slightly higher allocation cost that approaches the best-effort
    lower bound as alpha -> 1 ("almost the same" at alpha = 1).

    Ch. 4.7 also states "The provisioned makespan is lower at the CTC
    cluster as compared to SDSC" (checked for every alpha). Each provider's
    measured offered load is reported beside ch. 4.7's utilisation (63 % CTC,
    70 % SDSC).

    Sizes: ``small`` SDSC and CTC, a 30-task workflow (5 levels), MOGA 30 x 4
    generations, 4 submission instants. ``full`` SDSC and CTC, the
    100-task workflow, MOGA 100 x 10, 50 instants (the thesis's), plus the
    CTC task-size runs: 25 minutes on one core (measured; all 7 directions
    hold, ``benchmarks/RESULTS_reproductions.md``).
    """
    small = size == "small"
    sites = ("sdsc", "ctc")
    n_tasks, depth = (30, 5) if small else (100, 10)
    population, generations = (30, 4) if small else (100, 10)
    count = 4 if small else 50
    from gridmarket.scenarios.harnesses.provisioning import Provider, compare_moga
    from gridmarket.scenarios.harnesses.twotier_tables import offered_load
    from gridmarket.workflows import layered_workflow

    rows, checks, notes = [], [], []
    streams = iter(sequence_ints(seed, 8))

    def sweep(site: str, mean_procs: int, alphas=(0.0, 0.5, 1.0)):
        w = _trace(site, data, "singh-advertisement")
        procs = _TRACES[site][1]
        graph = layered_workflow(n_tasks, depth=depth, mean_procs=mean_procs, rng=np.random.default_rng(next(streams)))
        moga_seeds = sequence_ints(next(streams), count)
        out: dict[Any, list] = {"slots": [], "be": [], "be_cost": [], **{a: [] for a in alphas},
                                **{("cost", a): [] for a in alphas}}
        for k, s in steps(zip(_points(w.jobs, count), moga_seeds), f"{site}: instants"):
            provider = Provider(site, procs, w.jobs[k - 1500:k + 3000])
            result = compare_moga(graph, [provider], at=w.jobs[k].submit, alphas=alphas, seed=s,
                                  population=population, generations=generations)
            for r in result[:-1]:
                out[r["alpha"]].append(r["makespan"])
                out["cost", r["alpha"]].append(r["allocation_cost"])
            out["slots"].append(result[0]["n_slots"])
            out["be"].append(result[-1]["makespan"])
            out["be_cost"].append(result[-1]["allocation_cost"])
        return out

    by_site = {}
    for site in sites:
        out = by_site[site] = sweep(site, _TRACES[site][2])
        be, be_cost = mean(out["be"]), mean(out["be_cost"])
        up = site.upper()
        w_site = _trace(site, data, "singh-advertisement")
        rows.append(Row(f"{up}: offered load of the trace on {_TRACES[site][1]} processors",
                        100 * offered_load(w_site, _TRACES[site][1]), 100 * _BASE_UTILIZATION[site], "%",
                        "ch. 4.7: 63 % for CTC, 70 % for SDSC"))
        rows.append(Row(f"{up}: mean advertised slots at submission", mean(out["slots"]), _ADVERTISED[site], "slots",
                        "ch. 3.1 Fig. 4: average number of advertised slots"))
        rows.append(Row(f"{up}: best-effort makespan", be / _H, None, "h", "Fig. 13 (chart only)"))
        for a in (0.0, 0.5, 1.0):
            rows.append(Row(f"{up}: MOGA a={a:g} makespan / best effort", mean(out[a]) / be, None, "ratio",
                            "Fig. 13: < 1 for every alpha (chart)"))
        for a in (0.0, 1.0):
            rows.append(Row(f"{up}: MOGA a={a:g} allocation cost / best effort", mean(out["cost", a]) / be_cost, None,
                            "ratio", "Fig. 13: >= 1; 'almost the same' at alpha = 1"))
        # control: best effort in MOGA's place (the broker switched off)
        run = {"fastest": mean(out[0.0]), "worst": max(mean(out[a]) for a in (0.0, 0.5, 1.0)), "be": be}
        as_be = {"fastest": be, "worst": be, "be": be}
        checks.append(controlled(
            f"{up}: provisioned makespan at alpha = 0 (the fastest plan) below best effort (Fig. 13)",
            _fastest_below, run, as_be, control=_BEST_EFFORT))
        checks.append(controlled(
            f"{up}: provisioned makespan below best effort for every alpha (Fig. 13)",
            _worst_below, run, as_be, control=_BEST_EFFORT))
        # "almost the same" is two-sided; best effort in MOGA's place would pass it by definition, so the control
        # is MOGA with the cost not weighed (alpha = 0), the trade-off factor being the mechanism under test
        checks.append(paper_number(f"{up}: MOGA alpha = 1 allocation cost / best effort ('almost the same')",
                                   mean(out["cost", 1.0]) / be_cost, 1.0, abs_tol=0.05, where="ch. 4.7, Fig. 13",
                                   control=_ALPHA0, control_ours=mean(out["cost", 0.0]) / be_cost))

    if "ctc" in by_site:  # ch. 4.7: "The provisioned makespan is lower at the CTC cluster as compared to SDSC"
        ctc, sdsc = ({a: mean(by_site[site][a]) for a in (0.0, 0.5, 1.0)} for site in ("ctc", "sdsc"))
        be_site = {site: mean(by_site[site]["be"]) for site in ("ctc", "sdsc")}

        def lower_at_ctc(r):
            return (all(r["ctc"][a] < r["sdsc"][a] for a in r["ctc"]),
                    ", ".join(f"a={a:g}: {r['ctc'][a] / _H:.2f} h vs {r['sdsc'][a] / _H:.2f} h" for a in r["ctc"]))
        checks.append(controlled("provisioned makespan lower at CTC than at SDSC for every alpha (ch. 4.7, Fig. 13)",
                                 lower_at_ctc, {"ctc": ctc, "sdsc": sdsc},
                                 {site: dict.fromkeys(ctc, be_site[site]) for site in ("ctc", "sdsc")},
                                 control=_BEST_EFFORT))

    if not small:  # Fig. 15 on CTC: the thesis states the ratios for 3 and 30 processors per task
        stated = {3: ((0.87, 0.92), (1.5, 1.0)), 30: ((0.577, 0.585), (1.003, 1.0))}
        makespan_ratio = {}
        for task_size, ((m0, m1), (c0, c1)) in stated.items():
            out = sweep("ctc", task_size, alphas=(0.0, 1.0))
            be, be_cost = mean(out["be"]), mean(out["be_cost"])
            for a, ms, cs in ((0.0, m0, c0), (1.0, m1, c1)):
                ours_ms, ours_cs = mean(out[a]) / be, mean(out["cost", a]) / be_cost
                rows.append(Row(f"CTC {task_size} procs/task: MOGA a={a:g} makespan / best effort",
                                ours_ms, ms, "ratio", "ch. 4.7, Fig. 15 text"))
                rows.append(Row(f"CTC {task_size} procs/task: MOGA a={a:g} allocation cost / best effort",
                                ours_cs, cs, "ratio", "ch. 4.7, Fig. 15 text"))
                # makespan: against best effort (ratio 1); cost at alpha = 1 against alpha = 0's plan (best effort
                # would meet "1" by definition), cost at alpha = 0 against best effort
                checks.append(paper_number(f"CTC {task_size} procs/task: MOGA a={a:g} makespan / best effort",
                                           ours_ms, ms, abs_tol=FIG15_MAKESPAN_TOLERANCE, where="ch. 4.7, Fig. 15",
                                           control=_BEST_EFFORT, control_ours=1.0))
                cost_control = (_ALPHA0, mean(out["cost", 0.0]) / be_cost) if a == 1.0 else (_BEST_EFFORT, 1.0)
                checks.append(paper_number(f"CTC {task_size} procs/task: MOGA a={a:g} allocation cost / best effort",
                                           ours_cs, cs, rel_tol=FIG54_COST_TOLERANCE, where="ch. 4.7, Fig. 15",
                                           control=cost_control[0], control_ours=cost_control[1]))
            makespan_ratio[task_size] = mean(out[0.0]) / be
        checks.append(controlled(
            "CTC: larger tasks gain more from provisioning (Fig. 15: 0.87 -> 0.577 at alpha = 0)",
            lambda r: (r[30] < r[3], f"ratio {r[3]:.3f} (3 procs) vs {r[30]:.3f} (30 procs)"),
            makespan_ratio, {3: 1.0, 30: 1.0}, control=_BEST_EFFORT))
    notes.append("submission instants are spread evenly in time over the trace; each provider replays the 1500 jobs "
                 "before and 3000 after the instant (exact estimates, as ch. 4.7)")
    settings = {"sites": list(sites), "tasks": n_tasks, "levels": depth, "population": population,
                "generations": generations, "instants": count}
    return rows, checks, settings, notes


# ----------------------------------------------------------------------------- ch. 5
_READINGS = {  # ch. 5.3 contradicts itself; both readings run, so neither is chosen silently
    "AB+recorded": ("easy", "requested"),  # set-up: "aggressive backfilling ... estimates ... as recorded"
    "CB+actual": ("conservative", "exact"),  # later: "conservative backfilling ... used for the preceding experiments"
}
_FIG23_AXIS_SU = 40.0  # Fig. 23's price axis: 0-40 SU
_FIG24_AXIS_H = {"ctc": 1.5, "sdsc": 1.4}  # Fig. 24's wait axes (hours)


_UTILIZATION = {"sdsc": 63.4, "ctc": 58.7}  # ch. 5.3, "Impact of resource utilization"
_RAISED_UTILIZATION = {"ctc": (68.4, 78.8), "sdsc": (77.8, 87.4)}  # ch. 5.3: +20 % and +40 % load
_FIG25_AXIS_SU = 200.0  # Fig. 25's price axis: 0-200 SU
_FIG27_AXIS_SU = 45.0  # Fig. 27's price axis: 0-45 SU


DEFAULT_COPY = "week-earlier"
COPY_PLACEMENTS = {"week-earlier": True, "week-later": False}
"""Where Figs. 25-26's duplicated jobs go: ``duplicate_trace(..., ahead=...)`` per named placement.

Ch. 5.3 says only "we increase the resource utilization by 20% and 40% by
duplicating tasks in the simulated workload"; ch. 4.7's method (two copies "with
a week's difference between their start time") does not say which copy comes
first. Inside the first 30 days a copy a week *later* covers days 7-30 only
(+40 %: 96 % offered load there, none added to days 0-7); a copy a week
*earlier* (the trace's days 7-37 on days 0-30) adds to the whole window. The
default is ``week-earlier``, a reading: its utilisation ratios match the
thesis's stated ones (+40 %: SDSC 1.38 vs 87.4/63.4 = 1.38, CTC 1.34 vs
78.8/58.7 = 1.34; the later copy 1.35 and 1.31, its bunched work spilling past
day 30). ``week-later`` is the earlier reading, kept to re-make its figures.
"""


def _raised_window(w, jobs, procs: int, t1: int, raise_by: float, draw: int, copy: str = DEFAULT_COPY):
    """The window ``[0, t1)`` with ch. 4.7's copy of trace ``w`` placed by ``copy``, admitted with p; (jobs, p).

    p makes the window's offered load ``1 + raise_by`` times its own (``jobs``), from the
    *measured* offered loads of the window alone and with the whole copy (p = 1), capped at 1.
    """
    from gridmarket.workloads import duplicate_trace

    if copy not in COPY_PLACEMENTS:
        raise InvalidInput(f"singh-pricing: copy must be one of {', '.join(COPY_PLACEMENTS)}, got {copy!r}")
    ahead = COPY_PLACEMENTS[copy]
    own = _offered_load(jobs, procs, 0, t1)
    full_copy = duplicate_trace(w, p=1.0, rng=np.random.default_rng(draw), ahead=ahead)
    copy_load = _offered_load(full_copy.jobs, procs, 0, t1) - own
    p = round(min(max(raise_by * own / copy_load, 0.0), 1.0), 3) if copy_load > 0 else 0.0
    loaded = duplicate_trace(w, p=p, rng=np.random.default_rng(draw + 1), ahead=ahead)
    return [j for j in loaded.jobs if j.submit < t1], p


def _window_utilisation(result, procs: int, t1: int) -> float:
    """Busy processor-seconds inside ``[0, t1)`` of one replay (best-effort and reserved jobs) over ``procs * t1``."""
    j, s = result.jobs, result.reservations
    busy = float((j["procs"] * (np.minimum(j["end"], t1) - np.minimum(j["start"], t1))).sum())
    end = s["start"] + np.minimum(s["runtime"], s["duration"])
    busy += float((s["procs"] * (np.minimum(end, t1) - np.minimum(s["start"], t1))).sum())
    return busy / (procs * t1)


def _pricing_load_and_share(site, w, jobs, days, procs, alphas, draw, policy, estimates, base, rows, checks,
                            copy=DEFAULT_COPY, base_utilisation=None):
    """Figs. 25-28 (ch. 5.3): prices and waits with the load raised by 20 % and 40 %, and with more reservations.

    The load is raised by ch. 4.7's method, a week-shifted copy of the trace
    whose jobs are admitted with probability p; p is computed from the
    *measured* offered loads of the simulated window (own, and the copy's at
    p = 1) so the window's load is 1.2 and 1.4 times its own. ``copy`` names
    where the copy goes (:data:`COPY_PLACEMENTS`). ``base`` holds the 10 %
    summaries by alpha; ``base_utilisation`` the original window's
    utilisation (for the row beside the thesis's).
    """
    from gridmarket.scenarios.harnesses.pricing_replay import pricing_replay

    up, t1 = site.upper(), days * _DAY
    own = _offered_load(jobs, procs, 0, t1)
    loads = {"original": (own, base)}
    for raise_by, thesis in zip((0.2, 0.4), _RAISED_UTILIZATION[site]):
        window, p = _raised_window(w, jobs, procs, t1, raise_by, draw, copy)
        load = _offered_load(window, procs, 0, t1)
        rows.append(Row(f"{up} CB+actual +{100 * raise_by:.0f} % load: offered load with the copy", 100 * load,
                        thesis, "%", f"ch. 5.3: utilisation with +{100 * raise_by:.0f} % (p = {p:g}, copy {copy})"))
        results = {a: pricing_replay(window, procs=procs, policy=policy, alpha=a, seed=draw, estimates=estimates)
                   for a in steps(alphas, f"{up} +load: alphas")}
        by_alpha = {a: r.summary for a, r in results.items()}
        util = _window_utilisation(results[alphas[0]], procs, t1)
        rows.append(Row(f"{up} CB+actual +{100 * raise_by:.0f} % load: utilisation in the window, alpha=0",
                        100 * util, thesis, "%", f"ch. 5.3: utilisation with +{100 * raise_by:.0f} %"))
        if base_utilisation:
            rows.append(Row(f"{up} CB+actual +{100 * raise_by:.0f} % load: utilisation / original's",
                            util / base_utilisation, thesis / _UTILIZATION[site], "ratio",
                            "ch. 5.3's stated utilisations, raised / original"))
        loads[f"+{100 * raise_by:.0f} %"] = (load, by_alpha)
        for a in alphas:
            s = by_alpha[a]
            rows.append(Row(f"{up} CB+actual +{100 * raise_by:.0f} % load: mean price, alpha={a:g}",
                            s["mean_price_su"], None, "SU", "Fig. 25 (chart, 0-200 SU axis)"))
    levels = list(loads)
    for a in alphas[:-1]:  # alpha = 1 buys free starts: price 0 at every load
        prices = [loads[k][1][a]["mean_price_su"] for k in levels]
        checks.append(controlled(f"{up} CB+actual: price rises with load at alpha = {a:g} (Fig. 25)", _rises,
                                 dict(zip(levels, prices)), dict.fromkeys(levels, prices[0]), control=_FLAT_PRICE))
    top = max(loads[k][1][a]["mean_price_su"] for k in levels for a in alphas)
    checks.append(setup_check(Check(f"{up} CB+actual: prices at raised load within Fig. 25's 0-{_FIG25_AXIS_SU:g} SU "
                                    "axis", top <= _FIG25_AXIS_SU, f"highest {top:.1f} SU"), _AXIS))

    def normalised(s):
        be = s["mean_best_effort_wait_h"]
        return s["mean_reservation_wait_h"] / be if be > 0 else float("nan")

    for a in alphas:
        ratios = [normalised(loads[k][1][a]) for k in levels]
        rows += [Row(f"{up} CB+actual {k} load: reservation wait / best-effort wait, alpha={a:g}", r, None, "ratio",
                     "Fig. 26 (chart, 0-1.2 axis)") for k, r in zip(levels, ratios)]
        checks.append(controlled(f"{up} CB+actual: reservation wait relative to best effort falls with load at "
                                 f"alpha = {a:g} (Fig. 26)", _falls, dict(zip(levels, ratios)),
                                 dict.fromkeys(levels, 1.0), control=_AS_BEST_EFFORT))
    shares = (0.1, 0.4, 0.9) if len(alphas) == 3 else (0.1, 0.2, 0.4, 0.6, 0.8, 0.9)
    share_price = {}
    for f in steps(shares, f"{up} reservation shares"):
        s = base[0.0] if f == 0.1 else pricing_replay(jobs, procs=procs, policy=policy, alpha=0.0, seed=draw,
                                                      estimates=estimates, fraction=f).summary
        share_price[f] = s["mean_price_su"]
        rows.append(Row(f"{up} CB+actual {100 * f:.0f} % reservations: mean price, alpha=0", s["mean_price_su"],
                        None, "SU", "Fig. 27: falls as the share rises (chart, 0-45 SU axis)"))
    seq = [share_price[f] for f in shares]
    checks.append(controlled(f"{up} CB+actual: price at alpha = 0 falls as the share of reservations rises (Fig. 27)",
                             _falls, {f"{100 * f:.0f} %": share_price[f] for f in shares},
                             {f"{100 * f:.0f} %": seq[0] for f in shares}, control=_FLAT_PRICE))
    checks.append(setup_check(Check(f"{up} CB+actual: prices within Fig. 27's 0-{_FIG27_AXIS_SU:g} SU axis",
                                    max(seq) <= _FIG27_AXIS_SU, f"highest {max(seq):.1f} SU"), _AXIS))
    half = {a: pricing_replay(jobs, procs=procs, policy=policy, alpha=a, seed=draw, estimates=estimates,
                              fraction=0.5).summary for a in (alphas[0], alphas[-1])}
    for a, s in half.items():
        rows.append(Row(f"{up} CB+actual 50 % reservations: best-effort wait, alpha={a:g}",
                        s["mean_best_effort_wait_h"], None, "h", "Fig. 28 (chart)"))
        rows.append(Row(f"{up} CB+actual 50 % reservations: reservation wait, alpha={a:g}",
                        s["mean_reservation_wait_h"], None, "h", "Fig. 28 (chart)"))
    b0, b1 = (half[a]["mean_best_effort_wait_h"] for a in (alphas[0], alphas[-1]))
    checks.append(controlled(f"{up} CB+actual: with 50 % reservations best-effort waits fall as alpha rises (Fig. 28)",
                             _falls, {"alpha 0": b0, "alpha 1": b1}, {"alpha 0": b0, "alpha 1": b0},
                             control="alpha not weighed (alpha = 0's plan at alpha = 1)"))


@register("singh-pricing", citation="Singh 2008, ch. 5.3 Figs. 23-31",
          summary="priced trace replay: 10 % of jobs reserve at adaptive externality prices (form 18, eq. 20)")
def singh_pricing(size: str, seed: int, data: Path | None, *, copy: str = DEFAULT_COPY,
                  slot_estimates: str = "exact"):
    """Adaptive externality pricing over a replayed trace (Singh 2008, ch. 5.3).

    Reproduces Figures 23 and 24 (mean slot price and mean waits of
    reservations and best-effort jobs against the trade-off factor alpha) and
    Figure 29 (conservative vs aggressive backfilling, alpha random per
    request): a seeded 10 % of the jobs ask query form 18 at their submit time
    and reserve the start chosen by eq. 20; the rest run best effort, on the
    thesis's machines (CTC 430 and SDSC 128 processors; it stopped at the
    first 30 days of each trace).

    Ch. 5.3 contradicts itself: its set-up says "We used aggressive
    backfilling ... The runtime estimates and the actual runtimes of the jobs
    are used as recorded in the workload traces", while the Fig. 29 text
    compares aggressive backfilling "to that of the conservative backfilling
    (CB) that has been used for the preceding experiments". Both readings run:
    ``AB+recorded`` (EASY backfilling, the trace's requested estimates,
    actual runtimes) and ``CB+actual`` (conservative backfilling, exact
    estimates). Fig. 29's comparison runs in each reading with its estimates.

    Seed's direction: the price is highest at alpha = 0 and zero at alpha = 1
    (Fig. 23); at low alpha reservations wait much less than best-effort jobs
    (Fig. 24); EASY (aggressive) backfilling prices above conservative
    (Fig. 29); SDSC prices above CTC at the same alpha (Fig. 23 text). Range
    checks: mean prices within Fig. 23's 0-40 SU axis, waits within Fig. 24's
    axes (1.5 h CTC, 1.4 h SDSC). In the CB+actual reading also Figs. 25-28
    (:func:`_pricing_load_and_share`): with the load raised by 20 % and 40 %
    (thesis: CTC 58.7 -> 68.4 / 78.8 %, SDSC 63.4 -> 77.8 / 87.4 %; our
    offered load and achieved utilisation are rows beside these) the price
    rises for every alpha < 1 (Fig. 25) and the reservation wait relative to
    best effort falls (Fig. 26); the price at alpha = 0 falls as the share of
    reservations rises (Fig. 27: 10-90 %); with 50 % reservations best-effort
    waits fall as alpha rises (Fig. 28). Figs. 30-31 run conservative
    backfilling with the best-effort jobs' recorded estimates ("Till now, we have assumed that
    the tasks executing using the best effort service request their actual
    running time", which is evidence for the CB+actual reading of Figs.
    23-29): prices higher than with accurate estimates (Fig. 30, 0-50 SU
    axis), both waits longer, and at alpha = 1 reservations wait longer
    than best-effort jobs (Fig. 31 text). The thesis's utilisations are 58.7 % (CTC)
    and 63.4 % (SDSC) ("Impact of resource utilization").

    Two set-up readings the text leaves open are named options (defaults
    first). ``copy``: where Figs. 25-26's duplicated jobs go,
    ``"week-earlier"`` or ``"week-later"`` (:data:`COPY_PLACEMENTS`).
    ``slot_estimates``: what Figs. 30-31's reservation requests ask for while
    the best-effort jobs plan with the recorded estimates: ``"exact"`` (their
    actual runtimes; the thesis: "the requested runtime estimates of the tasks
    in the best effort workload") or ``"requested"`` (every job's recorded
    estimate, the earlier reading, kept to re-make its figures).

    Sizes: ``small`` SDSC, first 14 days, alpha 0 / 0.5 / 1, both readings,
    shares 10 / 40 / 90 %. ``full`` SDSC and CTC, first 30 days, alpha 0 /
    0.25 / 0.5 / 0.75 / 1, both readings, shares 10 / 20 / 40 / 60 / 80 / 90 %.
    """
    from gridmarket.scenarios.harnesses.pricing_replay import pricing_replay
    from gridmarket.scenarios.harnesses.twotier_tables import offered_load
    from gridmarket.workloads.workload import Workload

    if copy not in COPY_PLACEMENTS:
        raise InvalidInput(f"singh-pricing: copy must be one of {', '.join(COPY_PLACEMENTS)}, got {copy!r}")
    if slot_estimates not in ("exact", "requested"):
        raise InvalidInput(f"singh-pricing: slot_estimates must be 'exact' or 'requested', got {slot_estimates!r}")
    small = size == "small"
    sites = ("sdsc",) if small else ("sdsc", "ctc")
    days = 14 if small else 30
    alphas = (0.0, 0.5, 1.0) if small else (0.0, 0.25, 0.5, 0.75, 1.0)
    utilization = _UTILIZATION
    rows, checks = [], []
    price0 = {}
    for site, draw in zip(sites, sequence_ints(seed, len(sites))):
        w = _trace(site, data, "singh-pricing")
        procs = _TRACES[site][1]
        jobs = [j for j in w.jobs if j.submit < days * _DAY]
        up = site.upper()
        rows.append(Row(f"{up}: offered load, first {days} days", 100 * offered_load(Workload(tuple(jobs)), procs),
                        utilization[site], "%", "ch. 5.3: utilisation of the simulated trace"))
        for reading, (policy, estimates) in _READINGS.items():
            tag = f"{up} {reading}"
            by_alpha = {}
            for a in steps(alphas, f"{tag}: alphas"):
                r = pricing_replay(jobs, procs=procs, policy=policy, alpha=a, seed=draw, estimates=estimates)
                s = by_alpha[a] = r.summary
                if a == alphas[0]:
                    first = r
                rows.append(Row(f"{tag}: mean price, alpha={a:g}", s["mean_price_su"], 0.0 if a == 1 else None, "SU",
                                "Fig. 23: zero at alpha = 1" if a == 1 else "Fig. 23: falls with alpha (0-40 SU axis)"))
            for a in (alphas[0], alphas[-1]):
                s = by_alpha[a]
                rows.append(Row(f"{tag}: reservation wait, alpha={a:g}", s["mean_reservation_wait_h"], None, "h",
                                f"Fig. 24 (chart, 0-{_FIG24_AXIS_H[site]:g} h axis)"))
                rows.append(Row(f"{tag}: best-effort wait, alpha={a:g}", s["mean_best_effort_wait_h"], None, "h",
                                f"Fig. 24 (chart, 0-{_FIG24_AXIS_H[site]:g} h axis)"))
            prices = [by_alpha[a]["mean_price_su"] for a in alphas]
            # "zero at alpha = 1" holds by construction (form 18 always offers a start with f = 0): a set-up
            # check; "highest at alpha = 0" is the finding, against a flat price
            checks.append(controlled(f"{tag}: price highest at alpha = 0, above every other alpha (Fig. 23)",
                                     _highest_first, dict(zip(alphas, prices)), dict.fromkeys(alphas, prices[0]),
                                     control=_FLAT_PRICE))
            checks.append(setup_check(Check(f"{tag}: price zero at alpha = 1 (Fig. 23)", prices[-1] == 0,
                                            f"{prices[-1]:.2f} SU"),
                                      "holds by construction: form 18 always offers a start with f = 0"))
            checks.append(setup_check(Check(f"{tag}: mean prices within Fig. 23's 0-{_FIG23_AXIS_SU:g} SU axis",
                                            max(prices) <= _FIG23_AXIS_SU, f"highest {max(prices):.1f} SU"), _AXIS))
            s0 = by_alpha[0.0]
            r0, b0 = s0["mean_reservation_wait_h"], s0["mean_best_effort_wait_h"]
            checks.append(controlled(f"{tag}: at alpha = 0 reservations wait less than best-effort jobs (Fig. 24)",
                                     _first_lower, {"reservations": r0, "best effort": b0},
                                     {"reservations": b0, "best effort": b0}, control=_AS_BEST_EFFORT))
            waits = [by_alpha[a][k] for a in alphas for k in ("mean_reservation_wait_h", "mean_best_effort_wait_h")]
            checks.append(setup_check(Check(f"{tag}: mean waits within Fig. 24's 0-{_FIG24_AXIS_H[site]:g} h axis",
                                            max(waits) <= _FIG24_AXIS_H[site], f"longest {max(waits):.2f} h"), _AXIS))
            policy_price = {}
            for other in steps(("conservative", "easy"), f"{tag}: policies"):
                s = pricing_replay(jobs, procs=procs, policy=other, alpha=None, seed=draw,
                                   estimates=estimates).summary
                policy_price[other] = s["mean_price_su"]
                rows.append(Row(f"{tag}: mean price, {other} backfilling, random alpha", s["mean_price_su"], None,
                                "SU", "Fig. 29: aggressive > conservative (chart)"))
            easy, cons = policy_price["easy"], policy_price["conservative"]
            checks.append(controlled(f"{tag}: EASY (aggressive) backfilling prices above conservative (Fig. 29)",
                                     _first_higher, {"EASY": easy, "conservative": cons},
                                     {"EASY": cons, "conservative": cons}, control=_FLAT_PRICE))
            price0[site, reading] = prices[0]
            if reading == "CB+actual":
                util = _window_utilisation(first, procs, days * _DAY)
                rows.append(Row(f"{up} CB+actual: utilisation in the window, alpha=0", 100 * util, utilization[site],
                                "%", "ch. 5.3: utilisation of the simulated trace"))
                _pricing_load_and_share(site, w, jobs, days, procs, alphas, draw, policy, estimates, by_alpha,
                                        rows, checks, copy=copy, base_utilisation=util)
                accurate = by_alpha
        _pricing_inaccurate(up, jobs, procs, alphas, draw, slot_estimates, accurate, rows, checks)
    if len(sites) == 2:
        for reading in _READINGS:
            a, b = price0["sdsc", reading], price0["ctc", reading]
            checks.append(controlled(f"{reading}: SDSC prices above CTC at alpha = 0 (Fig. 23 text)", _first_higher,
                                     {"SDSC": a, "CTC": b}, {"SDSC": b, "CTC": b}, control=_FLAT_PRICE))
    notes = ["the same seeded 10 % of jobs reserve in every run of a trace (common random numbers)",
             "AB+recorded: EASY backfilling, the trace's requested estimates (ch. 5.3 set-up); CB+actual: "
             "conservative backfilling, exact estimates (ch. 5.3, Fig. 29 text)",
             f"Figs. 25-26: the load is raised by a copy of the trace one {copy.replace('-', ' ')} (a reading: "
             "ch. 5.3 does not say where the duplicated jobs go)",
             f"Figs. 30-31 (CB+recorded): best-effort jobs plan with the recorded estimates; reservations ask for "
             f"{'their actual runtimes' if slot_estimates == 'exact' else 'their recorded estimates'} "
             "(ch. 5.3: 'the requested runtime estimates of the tasks in the best effort workload')"]
    settings = {"sites": list(sites), "days": days, "alphas": list(alphas), "fraction": 0.1,
                "readings": {k: {"policy": p, "estimates": e} for k, (p, e) in _READINGS.items()},
                "copy": copy, "fig30_slot_estimates": slot_estimates}
    return rows, checks, settings, notes


def _pricing_inaccurate(up: str, jobs, procs: int, alphas, draw: int, slot_estimates: str, accurate: dict,
                        rows: list, checks: list) -> None:
    """Figs. 30-31 of one site ``up``: its rows and checks with the best-effort jobs' recorded estimates.

    ``accurate``: the CB+actual summaries by alpha (Figs. 23-24) they are compared with; the replays share
    their seed ``draw``, so the same jobs reserve.
    """
    from gridmarket.scenarios.harnesses.pricing_replay import pricing_replay

    # conservative backfilling, the best-effort jobs with their recorded (inaccurate) estimates,
    # against accurate ones; the reservations ask for `slot_estimates`
    inaccurate = {a: pricing_replay(jobs, procs=procs, policy="conservative", alpha=a, seed=draw,
                                    estimates="requested", slot_estimates=slot_estimates).summary
                  for a in steps(alphas, f"{up} CB+recorded")}
    for a in alphas:
        s = inaccurate[a]
        rows.append(Row(f"{up} CB+recorded: mean price, alpha={a:g}", s["mean_price_su"], None, "SU",
                        "Fig. 30: above accurate estimates (chart, 0-50 SU axis)"))
        rows.append(Row(f"{up} CB+recorded: reservation wait, alpha={a:g}", s["mean_reservation_wait_h"], None,
                        "h", "Fig. 31 (chart)"))
        rows.append(Row(f"{up} CB+recorded: best-effort wait, alpha={a:g}", s["mean_best_effort_wait_h"], None,
                        "h", "Fig. 31 (chart)"))
    pairs = [(accurate[a]["mean_price_su"], inaccurate[a]["mean_price_su"]) for a in alphas[:-1]]
    def higher_everywhere(r):
        return (all(x < y for x, y in r),
                ", ".join(f"a={a:g}: {x:.1f} -> {y:.1f} SU" for a, (x, y) in zip(alphas, r)))
    checks.append(controlled(f"{up}: prices higher with inaccurate (recorded) than accurate estimates for every "
                             "alpha < 1 (Fig. 30)", higher_everywhere, pairs, [(x, x) for x, _ in pairs],
                             control=_ACCURATE))
    top = max(inaccurate[a]["mean_price_su"] for a in alphas)
    checks.append(setup_check(Check(f"{up}: prices with inaccurate estimates within Fig. 30's 0-50 SU axis",
                                    top <= 50.0, f"highest {top:.1f} SU"), _AXIS))
    for key, what in (("mean_reservation_wait_h", "reservation"), ("mean_best_effort_wait_h", "best-effort")):
        acc, inacc = mean([accurate[a][key] for a in alphas]), mean([inaccurate[a][key] for a in alphas])
        checks.append(controlled(f"{up}: {what} waits longer with inaccurate estimates (Fig. 31 vs Fig. 24, mean "
                                 "over alpha)", _first_higher, {"inaccurate": inacc, "accurate": acc},
                                 {"inaccurate": acc, "accurate": acc}, control=_ACCURATE))
    s1 = inaccurate[alphas[-1]]
    r1, b1 = s1["mean_reservation_wait_h"], s1["mean_best_effort_wait_h"]
    checks.append(controlled(f"{up}: with inaccurate estimates at alpha = 1 reservations wait longer than best-effort "
                             "jobs (Fig. 31 text)", _first_higher, {"reservations": r1, "best effort": b1},
                             {"reservations": b1, "best effort": b1}, control=_AS_BEST_EFFORT))


# ----------------------------------------------------------------------------- ch. 6
_TWELVE = tuple((n, d, lead) for n in (32, 64) for d in (1 * 3600, 4 * 3600) for lead in (3600, 4 * 3600, 8 * 3600))
"""The twelve reservations of ch. 6.2: 32 or 64 nodes, for 1 or 4 hours, starting in 1, 4 or 8 hours."""
_JOBS_PER_DAY = 75  # SDSC-SP2: about 54,000 jobs over two years


@register("singh-var", citation="Singh 2008, ch. 6.3-6.4 Figs. 38-49",
          summary="virtual advance reservations vs adaptive-pricing reservations vs the combined scheme on SDSC-SP2")
def singh_var(size: str, seed: int, data: Path | None):
    """VAR, adaptive-pricing reservations and the combined scheme (Singh 2008, ch. 6.3-6.4).

    Reproduces Figures 38-44 (allocation cost and success rate of VAR and of
    adaptive-pricing reservations, 32- and 64-node requests, and the share of
    cases in which each is cheaper) and 46-49 (the combined scheme, penalty
    factor 0.1): the twelve reservations of ch. 6.2 (32/64 nodes x 1/4 h x
    starting in 1/4/8 h) are asked of a provider replaying SDSC-SP2 on 128
    processors under conservative backfilling. As in the thesis, which priced
    each reservation from a ``qstat -a`` snapshot of a live queue (ch. 6.2),
    the plan and the price see the jobs' *requested* walltimes while the jobs
    run their actual runtimes, so a VAR job can start earlier than the plan
    says. (With exact estimates a VAR job could start by S only where the plan
    already has the processors free, i.e. where the price is 0, and neither
    "VAR is cheaper" nor "the combined scheme beats AR" could ever hold.)
    VAR submits a padded job timed by Figure 33 with a wait predictor trained
    on the replay (the thesis used QBETS on the NCSA TeraGrid cluster, whose
    log we do not have); the adaptive price is form 17 on the conservative
    plan of the request instant. Costs are the extra over n x D, normalised
    by n x D.

    Seed's direction: VAR is cheaper than adaptive pricing on average
    (Figs. 38, 41); adaptive pricing succeeds more often (Figs. 39, 43);
    among the cases where both succeed, adaptive pricing is cheaper in a
    majority for 32 nodes x 1 h and VAR in a majority for 32 nodes x 4 h
    (Fig. 40) and for 64 nodes (Fig. 44: "the VAR system is cheaper than the
    adaptive pricing scheme in a majority of cases"); the combined scheme
    costs less than adaptive pricing (Figs. 46, 48). That it succeeds at
    least as often as either (Figs. 47, 49) holds by construction of
    Figure 45 (it falls back on whichever succeeded) and is reported, not
    checked.

    Sizes: ``small`` five rounds of the twelve requests a simulated day apart
    (10-20 s; one round gave one or two cases where both succeed). ``full``
    30 rounds a simulated day apart, as the thesis's 30 days: about 1
    minute (measured). The seed picks where in the trace the rounds start.
    """
    from gridmarket.scenarios.harnesses.provisioning import Provider, reservation_schemes
    from gridmarket.scenarios.harnesses.twotier_tables import offered_load
    from gridmarket.workloads.workload import Workload

    small = size == "small"
    rounds = 5 if small else 30
    w = _trace("sdsc", data, "singh-var")
    jobs = w.jobs
    first = 1500 + int(np.random.default_rng(seed).integers(0, 500))
    # one round of the twelve requests a simulated day (SDSC-SP2 receives about 75 jobs a day), all twelve asked
    # at the same instant, each on its own replay: independent requests, as the thesis's daily observations
    requests = [(jobs[first + _JOBS_PER_DAY * r].submit, n, d, lead) for r in range(rounds) for n, d, lead in _TWELVE]
    provider = Provider("sdsc", 128, jobs[:first + _JOBS_PER_DAY * rounds + 1500], estimates="requested")
    table = []
    for request in steps(requests, "requests"):
        table += reservation_schemes(provider, [request], penalty_factor=0.1, warmup=jobs[500].submit)[0]

    def summary(part):
        var = [r for r in part if r["var_success"]]
        ar = [r for r in part if r["ar_success"]]
        comb = [r for r in part if r["combined_used"] is not None]
        both = [r for r in part if r["var_success"] and r["ar_success"]]
        return {
            "var_rate": 100 * len(var) / len(part), "ar_rate": 100 * len(ar) / len(part),
            "comb_rate": 100 * len(comb) / len(part),
            "var_cost": mean([r["var_cost"] for r in var]) if var else float("nan"),
            "ar_cost": mean([r["ar_cost"] for r in ar]) if ar else float("nan"),
            "comb_cost": mean([r["combined_cost"] for r in comb]) if comb else float("nan"),
            "var_cheaper": 100 * sum(r["var_cost"] < r["ar_cost"] for r in both) / len(both) if both else float("nan"),
            "ar_cheaper": 100 * sum(r["ar_cost"] < r["var_cost"] for r in both) / len(both) if both else float("nan"),
        }  # fmt: skip

    rows, checks = [], []
    parts = {"all": table, "32 nodes": [r for r in table if r["procs"] == 32],
             "64 nodes": [r for r in table if r["procs"] == 64],
             **{f"{n} nodes x {d // 3600} h": [r for r in table if r["procs"] == n and r["duration"] == d]
                for n in (32, 64) for d in (3600, 4 * 3600)}}
    refs = {"rate": ("%", "Figs. 39/43/47/49: AR > VAR; combined >= both (chart)"),
            "cost": ("x n*D", "Figs. 38/41/46/48: VAR < combined < AR (chart)")}
    stats = {}
    for label, part in parts.items():
        s = stats[label] = summary(part)
        if " x " in label:  # the four Fig. 40/44 panels: only the share of cases each scheme is cheaper
            if s["var_cheaper"] == s["var_cheaper"]:
                rows.append(Row(f"{label}: VAR cheaper than adaptive pricing (both succeed)", s["var_cheaper"], None,
                                "%", "Fig. 40 (32 nodes: AR majority at 1 h, VAR at 4 h) / Fig. 44 (64: VAR majority)"))
            continue
        for scheme, key in (("VAR", "var"), ("adaptive pricing", "ar"), ("combined", "comb")):
            rows.append(Row(f"{label}: {scheme} success rate", s[f"{key}_rate"], None, *refs["rate"]))
        for scheme, key in (("VAR", "var"), ("adaptive pricing", "ar"), ("combined", "comb")):
            if s[f"{key}_cost"] == s[f"{key}_cost"]:  # no successful request: no mean cost
                rows.append(Row(f"{label}: {scheme} normalised allocation cost", s[f"{key}_cost"], None,
                                *refs["cost"]))
        if s["var_cheaper"] == s["var_cheaper"]:
            rows.append(Row(f"{label}: VAR cheaper than adaptive pricing (both succeed)", s["var_cheaper"], None, "%",
                            "Figs. 40/44: majority for 4 h and 64-node requests, minority for 32 nodes x 1 h"))
    both = {label: sum(r["var_success"] and r["ar_success"] for r in part) for label, part in parts.items()}
    s = stats["all"]
    # controls: the other scheme in the place of the one the direction credits (the two schemes then tie)
    checks.append(controlled("VAR costs less than adaptive pricing on average (Figs. 38, 41)", _first_lower,
                             {"VAR": s["var_cost"], "AR": s["ar_cost"]}, {"VAR": s["ar_cost"], "AR": s["ar_cost"]},
                             control="adaptive pricing in VAR's place"))
    checks.append(controlled("adaptive pricing succeeds more often than VAR (Figs. 39, 43)", _first_higher,
                             {"AR": s["ar_rate"], "VAR": s["var_rate"]}, {"AR": s["var_rate"], "VAR": s["var_rate"]},
                             control="VAR in adaptive pricing's place"))
    for label, want_var, fig in (("32 nodes x 1 h", False, "Fig. 40"), ("32 nodes x 4 h", True, "Fig. 40"),
                                 ("64 nodes", True, "Fig. 44")):
        # strictly cheaper: a tie (both free on an empty queue) is neither scheme's win
        key = "var_cheaper" if want_var else "ar_cheaper"
        who = "VAR" if want_var else "adaptive pricing"
        checks.append(controlled(
            f"{label}: {who} strictly cheaper in a majority of the cases where both succeed ({fig})", _majority,
            {"share": stats[label][key], "who": who, "n": both[label]},
            {"share": 0.0, "who": who, "n": both[label]}, control="both schemes at one price (every case a tie)"))
    checks.append(setup_check(Check("the combined scheme costs less than adaptive pricing (Figs. 46, 48)",
                                    s["comb_cost"] < s["ar_cost"],
                                    f"combined {s['comb_cost']:.2f} vs AR {s['ar_cost']:.2f} x n*D"),
                              "holds by the scheme's construction (ch. 6.4: 'we never pay more than the adaptive "
                              "reservation pricing')"))
    w_all = Workload(tuple(provider.jobs))
    t0, t1 = requests[0][0], requests[-1][0] + 8 * 3600 + 4 * 3600
    rows.append(Row("SDSC: offered load of the replayed jobs on 128 processors", 100 * offered_load(w_all, 128),
                    70.0, "%", "ch. 4.7: 70 % for SDSC (ch. 6 ran on NCSA's TeraGrid cluster; load not stated)"))
    rows.append(Row("SDSC: offered load over the request windows", 100 * _offered_load(provider.jobs, 128, t0, t1),
                    None, "%", "ch. 6.2: NCSA TeraGrid cluster, load not stated"))
    notes = [(f"{len(requests)} requests: the twelve at the submit time of job {first} + {_JOBS_PER_DAY} x round, "
              "each on a fresh replay (independent requests, as the thesis's daily observations)"),
             "plan and price on the trace's requested walltimes, jobs run their actual runtimes (ch. 6.2)",
             "the combined scheme succeeds whenever VAR or adaptive pricing does (Fig. 45), so its success rate "
             "is at least either's by construction: reported, not checked"]
    settings = {"rounds": rounds, "requests": len(requests), "first_job": first, "penalty": 0.1,
                "estimates": "requested (plan and price), actual (run)"}
    return rows, checks, settings, notes


# ----------------------------------------------------------------------------- ch. 7
_MULTI_SITE = (  # ch. 4.9 (and 7.3): providers added in this order; load raised by a one-week-shifted copy
    ("ctc-88", "ctc", 0.88), ("sdsc-84", "sdsc", 0.84), ("ctc-76", "ctc", 0.76),
    ("sdsc-78", "sdsc", 0.78), ("ctc-63", "ctc", 0.63), ("sdsc-70", "sdsc", 0.70),
)
_BASE_UTILIZATION = {"ctc": 0.63, "sdsc": 0.70}  # ch. 4.7: "63% for the CTC cluster and 70% for the SDSC cluster"


def _admission(target: float, measured: float) -> float:
    """Probability of admitting each job of the week-shifted copy so the offered load reaches ``target``.

    Ch. 4.7's method (after Sabin et al.): the trace plus a copy shifted by a
    week whose jobs are admitted with probability p, so the offered load is
    about ``measured * (1 + p)``; ``measured`` is the trace's own offered load
    on the simulated machine (not the thesis's utilisation figure). A target
    below the trace's own load gives 0: the method only adds work.

    >>> _admission(0.88, 0.6572), _admission(0.70, 0.8246)
    (0.339, 0.0)
    """
    return round(min(max(target / measured - 1.0, 0.0), 1.0), 3)


FIG15_MAKESPAN_TOLERANCE = 0.025
"""Absolute tolerance on Fig. 15's printed makespan ratios (ch. 4.7: 3 processors per task "0.87 (alpha=0) to
0.92 (alpha=1)", 30 "0.577 to 0.585"): half the gap between the two printed ratios at 3 processors per task,
so a tolerance cannot be wider than the effect the figure shows."""
FIG54_MAKESPAN_TOLERANCE = 0.1
"""Absolute tolerance on Fig. 54's printed makespan ratios (0.85 at alpha = 0, 0.89 at alpha = 1)."""
FIG54_COST_TOLERANCE = 0.25
"""Relative tolerance on Fig. 54's printed allocation-cost ratios (2.2 CTC, about 6 SDSC, at alpha = 0)."""
_FIG54 = {  # ch. 7.2, 3 processors per task: (makespan ratio at alpha = 0, at 1; cost ratio at alpha = 0)
    "ctc": (0.85, 0.89, 2.2),  # "0.85 times ... 2.2 times ... When the trade-off factor was 1, ... 0.89 times"
    "sdsc": (None, None, 6.0),  # "about 6 times the cost in the SDSC cluster for application with small sized tasks"
}


def _single_site(size: str, seed: int, data: Path | None):
    """Ch. 7.2 (Figs. 52 and 54): greedy provisioning at adaptive prices on one site at a time vs best effort.

    The set-up of ch. 4.7 with the adaptive-pricing provider of ch. 5: the
    layered workflow (mean 6 processors per task on SDSC, 22 on CTC) is
    submitted at instants spread over each trace (exact estimates,
    conservative backfilling); greedy provisioning (Fig. 51) buys quoted slots
    for alpha = 0, 0.5, 1 (Fig. 52); then with 3 processors per task (and, at
    full size, 10, 20, 30) for alpha = 0 and 1 (Fig. 54). Returns rows, checks
    and notes.
    """
    from gridmarket.scenarios.harnesses.provisioning import Provider, compare_greedy
    from gridmarket.workflows import layered_workflow

    small = size == "small"
    n_tasks, depth = (30, 5) if small else (100, 10)
    count = 6 if small else 50  # ch. 7.2: "repeated 50 times by submitting the application at different times"
    task_sizes = (3,) if small else (3, 10, 20, 30)
    streams = iter(sequence_ints(seed + 7_200, 16))
    rows, checks = [], []

    def sweep(site, mean_procs, alphas):
        w = _trace(site, data, "singh-greedy")
        graph = layered_workflow(n_tasks, depth=depth, mean_procs=mean_procs,
                                 rng=np.random.default_rng(next(streams)))
        points = _points(w.jobs, count + 1)[1:]  # not the trace's first job: an empty machine
        out: dict[Any, tuple[list, list]] = {a: ([], []) for a in (*alphas, "be")}
        for k in steps(points, f"ch. 7.2 {site} {mean_procs} procs/task: instants"):
            provider = Provider(site, _TRACES[site][1], w.jobs[k - 1500:k + 3000])
            for r in compare_greedy(graph, [provider], at=w.jobs[k].submit, alphas=alphas, seed=seed):
                key = r["alpha"] if r["method"] != "best-effort" else "be"
                out[key][0].append(r["makespan"])
                out[key][1].append(r["allocation_cost"])
        be_m, be_c = mean(out["be"][0]), mean(out["be"][1])
        return {a: (mean(out[a][0]) / be_m, mean(out[a][1]) / be_c) for a in alphas}, be_m

    cost0 = {}
    for site in ("sdsc", "ctc"):
        up = site.upper()
        ratios, be_m = sweep(site, _TRACES[site][2], (0.0, 0.5, 1.0))
        rows.append(Row(f"ch. 7.2 {up}: best-effort makespan", be_m / _H, None, "h",
                        "Fig. 52 (chart: CTC axis 0-9 h, SDSC 0-12 h)"))
        for a, (m, c) in ratios.items():
            rows.append(Row(f"ch. 7.2 {up}: greedy a={a:g} makespan / best effort", m, None, "ratio",
                            "Fig. 52: < 1 for every alpha (chart)"))
            rows.append(Row(f"ch. 7.2 {up}: greedy a={a:g} allocation cost / best effort", c,
                            1.0 if a == 1 else None, "ratio",
                            "ch. 7.2: 'the same as the best effort allocation cost' at alpha = 1" if a == 1
                            else "Fig. 52: > 1 (chart)"))
        worst = max(m for m, _ in ratios.values())
        checks.append(controlled(f"ch. 7.2 {up}: greedy provisioned makespan below best effort for every alpha "
                                 "(Fig. 52)", _ratio_below_one, worst, 1.0, control=_BEST_EFFORT))
        cost0[site] = ratios[0.0][1]
        by_size = {}
        for task_size in task_sizes:
            r, _ = sweep(site, task_size, (0.0, 1.0))
            by_size[task_size] = r
            m0, m1, c0 = _FIG54[site]
            rows.append(Row(f"ch. 7.2 {up} {task_size} procs/task: a=0 makespan / best effort", r[0.0][0],
                            m0 if task_size == 3 else None, "ratio", "ch. 7.2, Fig. 54"))
            rows.append(Row(f"ch. 7.2 {up} {task_size} procs/task: a=1 makespan / best effort", r[1.0][0],
                            m1 if task_size == 3 else None, "ratio", "ch. 7.2, Fig. 54"))
            rows.append(Row(f"ch. 7.2 {up} {task_size} procs/task: a=0 allocation cost / best effort", r[0.0][1],
                            c0 if task_size == 3 else None, "ratio", "ch. 7.2, Fig. 54"))
        m0, m1, c0 = _FIG54[site]
        r3 = by_size[3]
        if m0 is not None:
            for a, want in ((0.0, m0), (1.0, m1)):
                if want is None:
                    continue
                got = r3[a][0]
                checks.append(Check(f"ch. 7.2 {up} 3 procs/task: a={a:g} makespan ratio is Fig. 54's {want} "
                                    f"(+- {FIG54_MAKESPAN_TOLERANCE:g})",
                                    abs(got - want) <= FIG54_MAKESPAN_TOLERANCE,
                                    f"ratio {got:.3f}; control ({_BEST_EFFORT}): 1", _BEST_EFFORT,
                                    abs(1.0 - want) <= FIG54_MAKESPAN_TOLERANCE))
        got = r3[0.0][1]
        checks.append(Check(f"ch. 7.2 {up} 3 procs/task: a=0 allocation cost ratio is the thesis's {c0:g} "
                            f"(+- {100 * FIG54_COST_TOLERANCE:.0f} %, Fig. 54 text)",
                            abs(got - c0) <= FIG54_COST_TOLERANCE * c0, f"ratio {got:.2f}; control ({_BEST_EFFORT}): 1",
                            _BEST_EFFORT, abs(1.0 - c0) <= FIG54_COST_TOLERANCE * c0))
        if len(task_sizes) > 1:
            lo, hi = task_sizes[0], task_sizes[-1]

            def gains_more(r, lo=lo, hi=hi):
                return (r[hi][0] < r[lo][0] and r[hi][1] < r[lo][1],
                        f"makespan {r[lo][0]:.3f} -> {r[hi][0]:.3f}, cost {r[lo][1]:.2f} -> {r[hi][1]:.2f}")
            checks.append(controlled(f"ch. 7.2 {up}: larger tasks gain more, makespan and cost relative to best "
                                     f"effort ({lo} -> {hi} procs/task, a = 0, Fig. 54)", gains_more,
                                     {t: by_size[t][0.0] for t in (lo, hi)}, {lo: (1.0, 1.0), hi: (1.0, 1.0)},
                                     control=_BEST_EFFORT))
    checks.append(controlled("ch. 7.2: provisioned allocation cost relative to best effort higher at SDSC than CTC "
                             "(a = 0, Fig. 52 text)", _first_higher, {"SDSC": cost0["sdsc"], "CTC": cost0["ctc"]},
                             {"SDSC": 1.0, "CTC": 1.0}, control=_BEST_EFFORT))
    notes = [f"ch. 7.2: one site at a time, {count} instants evenly in time over each trace (1500 jobs before, "
             f"3000 after), {n_tasks}-task workflow; task sizes {list(task_sizes)} for Fig. 54"]
    return rows, checks, notes


@register("singh-greedy", citation="Singh 2008, ch. 7.2 Figs. 52/54 and ch. 7.3 Fig. 56 (set-up of ch. 4.9)",
          summary="greedy provisioning over adaptive-price quotes vs best effort, one site and 2 to 6 providers")
def singh_greedy(size: str, seed: int, data: Path | None):
    """Greedy provisioning over adaptive-price quotes: one site (ch. 7.2) and several providers (ch. 7.3, Fig. 56).

    Ch. 7.2 (:func:`_single_site`): on SDSC and CTC alone, the provisioned
    makespan is below best effort for every alpha (Fig. 52), at alpha = 1 at
    the best-effort allocation cost; with 3 processors per task on CTC the
    makespan ratios are 0.85 (alpha = 0) and 0.89 (alpha = 1) and the cost
    ratio 2.2 at alpha = 0, "about 6 times" on SDSC (Fig. 54); the cost ratio
    is higher on SDSC than CTC (Fig. 52 text).

    The set-up of ch. 4.9: providers are added in the order CTC at 88 %
    utilisation, SDSC at 84 %, CTC 76 %, SDSC 78 %, CTC 63 % and SDSC 70 %
    (each trace's own load; higher loads by a one-week-shifted copy of the
    trace whose jobs are admitted with probability ``target / measured - 1``,
    ch. 4.7, where ``measured`` is the trace's own offered load on the
    simulated machine: 65.7 % for CTC on 430 processors, 82.5 % for SDSC on
    128, whose targets of 78 % and 70 % are therefore below its own load and
    run at 82.5 %). The workflow has 100 tasks, 10 levels, mean 14 processors per
    task, two parents per task, 1000 Gb (125 GB) mean transfers over 10 Gb/s
    links with 150 s latency. Greedy provisioning (Fig. 51, alpha = 0.5)
    buys slots quoted at adaptive prices; best effort sends each ready task
    to the provider with the fewest queued and running tasks.

    Seed's direction: the provisioned makespan is below best effort for every
    number of providers; best effort improves as less-loaded providers join
    while the provisioned makespan hardly changes; with the two loaded
    providers the provisioned allocation cost is "about 43 % more" than best
    effort (ch. 7.3). Ch. 4.9 (MOGA, Fig. 19) puts the provisioned makespan at
    about 30 % of best effort with 2 providers and 45 % with 6; ch. 7.3 says
    greedy's is lower still.

    Sizes: ``small`` a 20-task workflow (4 levels), one submission instant,
    2 and 6 providers, 3 days of replay either side; ch. 7.2 with a 30-task
    workflow at 6 instants per site and 3 processors per task for Fig. 54.
    ``full`` the 100-task workflow, 10 instants (the thesis's), 2 to 6
    providers, 7 days before and 10 after each instant: 54 minutes here
    (3,211 s at seed 1, before ch. 7.2 was added), more than half of it the
    first instant, where the loaded CTC providers' queues are deepest and
    every quote re-plans 300-400 queued jobs; ch. 7.2 with the 100-task
    workflow at 50 instants per site (the thesis's) and 3/10/20/30 processors
    per task (Fig. 54's bars).
    """
    from gridmarket.scenarios.harnesses.provisioning import Provider, compare_greedy
    from gridmarket.workflows import Network, layered_workflow
    from gridmarket.workloads import duplicate_trace

    small = size == "small"
    n_tasks, depth = (20, 4) if small else (100, 10)
    counts = (2, 6) if small else (2, 3, 4, 5, 6)
    instants = [40 * _DAY] if small else [int(t) for t in np.linspace(30 * _DAY, 300 * _DAY, 10)]
    before, after = (3 * _DAY, 3 * _DAY) if small else (7 * _DAY, 10 * _DAY)
    streams = sequence_ints(seed, len(_MULTI_SITE) + 1)
    network = Network(latency=150, bytes_per_second=1.25e9)
    graph = layered_workflow(n_tasks, depth=depth, mean_procs=14, n_parents=2, mean_data_bytes=125e9,
                             rng=np.random.default_rng(streams[-1]))
    from gridmarket.scenarios.harnesses.twotier_tables import offered_load

    loaded = []
    rows, checks = [], []
    for (name, site, target), stream in zip(_MULTI_SITE, streams):
        w = _trace(site, data, "singh-greedy")
        procs = _TRACES[site][1]
        measured = offered_load(w, procs)
        p = _admission(target, measured)
        if p > 0:
            w = duplicate_trace(w, p=p, rng=np.random.default_rng(stream))
        loaded.append((name, procs, w.jobs, target))
        rows.append(Row(f"{name}: the trace's own offered load on {procs} processors", 100 * measured,
                        100 * _BASE_UTILIZATION[site], "%", "ch. 4.7: utilisation of the trace alone"))
        rows.append(Row(f"{name}: admission probability p of the shifted copy", p, None, "",
                        "ch. 4.7: target / measured - 1, clipped to [0, 1]"))
        rows.append(Row(f"{name}: offered load, whole trace with the copy", 100 * offered_load(w, procs),
                        100 * target, "%", "ch. 4.9: utilisation of the provider"))
    for name, procs, jobs, target in loaded:
        t0, t1 = instants[0] - before, instants[-1] + after
        rows.append(Row(f"{name}: offered load around the instants", 100 * _offered_load(jobs, procs, t0, t1),
                        100 * target, "%", "ch. 4.9: utilisation of the provider"))
    result: dict[int, dict[str, list[float]]] = {n: {"prov": [], "be": [], "prov_cost": [], "be_cost": []} for n in counts}
    for at in steps(instants, "instants"):
        providers = [Provider(name, procs, [j for j in jobs if at - before <= j.submit < at + after])
                     for name, procs, jobs, _ in loaded]
        for n in counts:
            plan, best = compare_greedy(graph, providers[:n], at=at, alphas=(0.5,), seed=seed, network=network)
            result[n]["prov"].append(plan["makespan"])
            result[n]["prov_cost"].append(plan["allocation_cost"])
            result[n]["be"].append(best["makespan"])
            result[n]["be_cost"].append(best["allocation_cost"])
    fig19 = {2: "ch. 4.9: MOGA ~0.30 with 2 providers; greedy lower (ch. 7.3)",
             6: "ch. 4.9: MOGA ~0.45 with 6 providers; greedy lower (ch. 7.3)"}
    for n in counts:
        r = result[n]
        prov, be = mean(r["prov"]), mean(r["be"])
        rows.append(Row(f"{n} providers: provisioned makespan", prov / _H, None, "h", "Fig. 56 (chart)"))
        rows.append(Row(f"{n} providers: best-effort makespan", be / _H, None, "h", "Fig. 56 (chart)"))
        rows.append(Row(f"{n} providers: makespan provisioned / best effort", prov / be, None, "ratio",
                        fig19.get(n, "Fig. 56: < 1 (chart)")))
        rows.append(Row(f"{n} providers: allocation cost provisioned / best effort",
                        mean(r["prov_cost"]) / mean(r["be_cost"]), 1.43 if n == 2 else None, "ratio",
                        "ch. 7.3: 'about 43% more' with two providers" if n == 2 else "Fig. 56 (chart)"))
    lo, hi = counts[0], counts[-1]
    worst = max(mean(result[n]["prov"]) / mean(result[n]["be"]) for n in counts)
    checks.append(controlled("provisioned makespan below best effort for every number of providers (Fig. 56)",
                             _ratio_below_one, worst, 1.0, control=_BEST_EFFORT))
    be_lo, be_hi = mean(result[lo]["be"]), mean(result[hi]["be"])
    checks.append(setup_check(Check(f"best-effort makespan falls as less-loaded providers join ({lo} -> {hi}, "
                                    "Fig. 56)", be_hi < be_lo, f"{be_lo / _H:.2f} h -> {be_hi / _H:.2f} h"),
                              "a property of the providers' loads (no provisioning in it)"))
    provs = [mean(result[n]["prov"]) for n in counts]
    bes = [mean(result[n]["be"]) for n in counts]

    def steadier(r):
        spread_prov = (max(r["prov"]) - min(r["prov"])) / max(r["prov"])
        spread_be = (max(r["be"]) - min(r["be"])) / max(r["be"])
        return spread_prov < spread_be, f"relative range provisioned {spread_prov:.2f} vs best effort {spread_be:.2f}"
    checks.append(controlled("provisioned makespan changes less than best effort's with the number of providers "
                             "(Fig. 56)", steadier, {"prov": provs, "be": bes}, {"prov": bes, "be": bes},
                             control=_BEST_EFFORT))
    cost2 = mean(result[lo]["prov_cost"]) / mean(result[lo]["be_cost"])
    # "> 1" is implied by the 1.43 check (its interval lies above 1): the printed figure is the one direction
    checks.append(paper_number(f"with {lo} providers the allocation cost ratio is the thesis's 'about 43 % more' "
                               "(ch. 7.3)", cost2, 1.43, abs_tol=COST_RATIO_TOLERANCE, where="ch. 7.3",
                               control=_BEST_EFFORT, control_ours=1.0))
    single_rows, single_checks, single_notes = _single_site(size, seed, data)
    rows += single_rows
    checks += single_checks
    notes = [*single_notes, "CTC-SP2 runs on the thesis's 430 processors (the trace's batch partition has 338)",
             "SDSC-SP2's own offered load on 128 processors (82.5 %) is above the 78 % and 70 % targets: the "
             "trace-duplication method only adds work, so those providers run at the trace's own load",
             "each provider replays only the jobs submitted in a window around the instant"]
    settings = {"tasks": n_tasks, "levels": depth, "providers": list(counts), "instants": len(instants),
                "alpha": 0.5, "window_days": [before / _DAY, after / _DAY]}
    return rows, checks, settings, notes
