"""Singh ch. 5.3, Figs. 23-31: the factors behind the singh-pricing directions that fail, measured.

The reproductions' audit left seven singh-pricing directions below 80 % of ten full-size seeds without a
measured explanation (k of 10 in the audit table of ``benchmarks/RESULTS_reproductions.md``).
This varies, one at a time, the factor the thesis's text and our set-up point to, with everything
else as in the reproduction (``gridmarket.scenarios.reproductions.singh.singh_pricing``: first 30 days of the
trace on the thesis's machine, the same seeded draws ``sequence_ints(seed, 2)`` per site, the same
``gridmarket.scenarios.harnesses.pricing_replay``), and prints k of n per setting with the reproduction's own tolerance.

Families (``--family``):

``load`` (Figs. 25, 26; and Fig. 23's "SDSC above CTC"): how the load is raised. The reproduction
  (before ea45d5e; since then its default is the week-earlier copy, ``copy="week-earlier"``) added ch. 4.7's copy of the trace shifted one week *later*, admitted with probability p; inside a
  30-day window that copy covers only days 7-30, so the added work piles into 23 days. Settings:
  the copy one week later (the reproduction before ea45d5e) or one week *earlier* (its default since) (days 7-37 of the trace moved
  to 0-30, so the whole window gets the copy; still "two copies with a week's difference"), each
  aimed at +20/+40 % of our measured offered load (the reproduction) or at the thesis's stated
  utilisations (SDSC 77.8/87.4 %, CTC 68.4/78.8 %). Also CTC raised to SDSC's own offered load
  (Fig. 29's text: at equal utilisation CTC prices more).
``share`` (Fig. 27): the price at alpha 0 against the share of reservations, on the 30-day window
  and on the first 90 days (three times as many reservations per mean).
``estimates`` (Figs. 24 axis, 30, 31): conservative or EASY backfilling with exact estimates, and
  conservative with the recorded estimates for every job (the reproduction's Figs. 30-31 before
  ea45d5e) or for the best-effort jobs only (its default since, ``slot_estimates="exact"``), the slots sized by the jobs' actual runtimes (the thesis: "We
  performed experiments using the requested runtime estimates of the tasks in the best effort
  workload"); and without reservations, exact against recorded estimates on six 30-day windows.
``fig30`` (Fig. 30's 0-50 SU axis, second pass): the reproduction's Figs. 30-31 set-up (conservative,
  recorded estimates for best effort, slots of actual length) against one factor at a time:
  ``recreated`` counts each price from the queue planned afresh (Fig. 22 step 1, "Create a schedule
  of the tasks in Q using pi") instead of the scheduler's compressed plan (``pricing_replay``'s
  ``plan_without``); ``easy`` runs the set-up paragraph's aggressive backfilling ("We use aggressive
  backfilling as the resource scheduling policy for the best effort jobs"); ``replan`` (a diagnostic
  scheduler, not a registered policy) makes the simulated conservative scheduler plan its queue afresh
  at every early end instead of compressing it, so the plan it keeps is always Fig. 22's fresh one.
  ``--variants`` picks them.

    PYTHONPATH=$PWD GRIDMARKET_DATA=../shared/data nice -n 10 .venv/bin/python -W ignore \\
        benchmarks/singh_pricing_figs25_31.py --family load --seeds 1..10

Times are hours, prices SU (processor-hours); intervals 95 % over seeds, bootstrap percentile (every figure
here is >= 0: loads, utilisations, prices, ratios).
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace

import numpy as np

from gridmarket.scenarios.commands.run import parse_seeds

_D = 86400
_ALPHAS = (0.0, 0.25, 0.5, 0.75, 1.0)
_SITES = ("sdsc", "ctc")  # the reproduction's order: sequence_ints(seed, 2) gives (SDSC, CTC) draws
_THESIS_RAISED = {"sdsc": (0.778, 0.874), "ctc": (0.684, 0.788)}  # ch. 5.3, "Impact of resource utilization"
_FIG24_AXIS_H = {"ctc": 1.5, "sdsc": 1.4}
_FIG25_AXIS_SU, _FIG30_AXIS_SU = 200.0, 50.0


def _setup(site: str, seed: int, days: int = 30):
    from gridmarket.scenarios.reproductions.report import sequence_ints
    from gridmarket.scenarios.reproductions.singh import _TRACES, _trace

    draw = dict(zip(_SITES, sequence_ints(seed, 2)))[site]
    w = _trace(site, None, "benchmark")
    jobs = [j for j in w.jobs if j.submit < days * _D]
    return w, jobs, _TRACES[site][1], draw


def _load(jobs, procs, t0, t1):
    from gridmarket.scenarios.reproductions.singh import _offered_load

    return _offered_load(jobs, procs, t0, t1)


def _copy(w, p: float, rng, shift: int):
    """The trace plus a copy shifted by ``shift`` seconds (may be negative), each copied job admitted with p.

    ``shift = +1 week`` is ``gridmarket.workloads.duplicate_trace`` (what the reproduction used before ea45d5e,
    to the last job); ``-1 week`` moves days 7.. of the trace to 0.., so a window starting at 0 gets copies
    throughout: ``duplicate_trace(..., ahead=True)``, the reproduction's default since ea45d5e, to the last job.
    """
    from gridmarket.job import Job
    from gridmarket.workloads import duplicate_trace

    if shift >= 0:
        return list(duplicate_trace(w, p=p, rng=rng, shift=shift).jobs)
    jobs = w.jobs
    admitted = rng.random(len(jobs)) < p
    offset = max(j.id for j in jobs) - min(j.id for j in jobs) + 1
    copies = [Job(j.id + offset, j.submit + shift, j.procs, j.runtime, j.estimate, j.user, j.group, j.site,
                  j.power_watts, j.data_bytes)
              for j, take in zip(jobs, admitted.tolist()) if take and j.submit + shift >= 0]
    return sorted(list(jobs) + copies, key=lambda j: (j.submit, j.id))


def _raised(w, jobs, procs, draw, target: float, shift: int, days: int = 30):
    """Jobs of the window with the copy admitted so the window's offered load is ``target`` (absolute)."""
    t1 = days * _D
    own = _load(jobs, procs, 0, t1)
    full = [j for j in _copy(w, 1.0, np.random.default_rng(draw), shift) if j.submit < t1]
    copy_load = _load(full, procs, 0, t1) - own
    p = round(min(max((target - own) / copy_load, 0.0), 1.0), 3)
    window = [j for j in _copy(w, p, np.random.default_rng(draw + 1), shift) if j.submit < t1]
    return window, p


def _replay(jobs, procs, draw, alpha, policy="conservative", estimates="exact", fraction=0.1, slots_actual=False):
    from gridmarket.scenarios.harnesses.pricing_replay import pricing_replay

    if slots_actual:  # the same draw as pricing_replay's; those jobs ask for their actual runtime
        kept = [j for j in jobs if j.procs <= procs]
        n = round(fraction * len(kept))
        chosen = set(np.random.default_rng(draw).choice(len(kept), size=n, replace=False).tolist())
        jobs = [replace(j, estimate=j.runtime) if i in chosen and j.estimate != j.runtime else j
                for i, j in enumerate(kept)]
    r = pricing_replay(jobs, procs=procs, policy=policy, alpha=alpha, seed=draw, estimates=estimates,
                       fraction=fraction, plan_without=_plan_without)
    return r


def _utilisation(r, procs, t1):
    """Busy processor-seconds inside [0, t1) of best-effort jobs and reserved jobs over procs * t1."""
    j, s = r.jobs, r.reservations
    busy = float((j["procs"] * (np.minimum(j["end"], t1) - np.minimum(j["start"], t1))).sum())
    end = s["start"] + s["runtime"]
    busy += float((s["procs"] * (np.minimum(end, t1) - np.minimum(s["start"], t1))).sum())
    return busy / (procs * t1)


def _fmt(vals, d=2):
    from gridmarket.scenarios.intervals import interval

    s = interval(vals, low=0.0)
    return f"{s.mean:.{d}f} [{s.low:.{d}f}, {s.high:.{d}f}]"


def _dec(xs):
    return all(x > y for x, y in zip(xs, xs[1:]))


def _inc(xs):
    return all(x < y for x, y in zip(xs, xs[1:]))


# ----------------------------------------------------------------------------- load (Figs. 25, 26, 23 text)
_METHODS = {"copy a week later (reproduction)": 7 * _D, "copy a week earlier": -7 * _D}


def load_one(site: str, seed: int, policy: str = "conservative") -> dict:
    w, jobs, procs, draw = _setup(site, seed)
    t1 = 30 * _D
    own = _load(jobs, procs, 0, t1)
    out = {"own": own}

    def sweep(window):
        res = {a: _replay(window, procs, draw, a, policy) for a in _ALPHAS}
        s = {a: r.summary for a, r in res.items()}
        return {"load": _load(window, procs, 0, t1), "load_0_7": _load(window, procs, 0, 7 * _D),
                "load_7_30": _load(window, procs, 7 * _D, t1), "util": _utilisation(res[0.0], procs, t1),
                "price": {a: s[a]["mean_price_su"] for a in _ALPHAS},
                "ratio": {a: s[a]["mean_reservation_wait_h"] / s[a]["mean_best_effort_wait_h"] for a in _ALPHAS},
                "be": {a: s[a]["mean_best_effort_wait_h"] for a in _ALPHAS}}

    out["original"] = sweep(jobs)
    for mname, shift in _METHODS.items():
        for tname, targets in (("+20/+40 % of ours", (1.2 * own, 1.4 * own)), ("thesis's", _THESIS_RAISED[site])):
            levels = []
            for target in targets:
                window, p = _raised(w, jobs, procs, draw, target, shift)
                levels.append(dict(sweep(window), p=p))
            out[mname, tname] = levels
        if site == "ctc":  # CTC at SDSC's own offered load (Fig. 29's text: equal utilisation)
            sd_w, sd_jobs, sd_procs, _ = _setup("sdsc", seed)
            target = _load(sd_jobs, sd_procs, 0, t1)
            window, p = _raised(w, jobs, procs, draw, target, shift)
            out[mname, "at SDSC's load"] = dict(load=_load(window, procs, 0, t1), p=p,
                                                price0=_replay(window, procs, draw, 0.0, policy).summary["mean_price_su"])
    return out


def load_report(runs: dict, seeds: list[int]) -> None:
    n = len(seeds)
    for site in _SITES:
        rs = [runs[site, s] for s in seeds]
        o = [r["original"] for r in rs]
        print(f"\n## {site.upper()}: original window: offered load {_fmt([x['load'] for x in o], 3)} "
              f"(days 0-7 {_fmt([x['load_0_7'] for x in o], 3)}, 7-30 {_fmt([x['load_7_30'] for x in o], 3)}), "
              f"utilisation at alpha 0 {_fmt([x['util'] for x in o], 3)}")
        print("| copy | target | level | p | offered load | days 0-7 | days 7-30 | utilisation (a=0) | price a=0 (SU) "
              "| highest price (SU) | res/BE a=0.75 | res/BE a=1 |")
        print("|---|---|---|---|---|---|---|---|---|---|---|---|")
        for mname in _METHODS:
            for tname in ("+20/+40 % of ours", "thesis's"):
                for i, lev in enumerate(("+20 %", "+40 %")):
                    xs = [r[mname, tname][i] for r in rs]
                    print(f"| {mname} | {tname} | {lev} | {_fmt([x['p'] for x in xs], 3)} | "
                          f"{_fmt([x['load'] for x in xs], 3)} | {_fmt([x['load_0_7'] for x in xs], 3)} | "
                          f"{_fmt([x['load_7_30'] for x in xs], 3)} | {_fmt([x['util'] for x in xs], 3)} | "
                          f"{_fmt([x['price'][0.0] for x in xs], 1)} | "
                          f"{_fmt([max(x['price'].values()) for x in xs], 1)} | "
                          f"{_fmt([x['ratio'][0.75] for x in xs])} | {_fmt([x['ratio'][1.0] for x in xs])} |")
        print(f"\n{site.upper()} k of {n}: Fig. 25 axis = highest price over original/+20/+40 % and alpha <= 200 SU; "
              "Fig. 25 rises = price rises with load at every alpha < 1; Fig. 26 = res/BE wait falls with load")
        print("| copy | target | Fig. 25 axis | Fig. 25 rises (all alpha < 1) | Fig. 26 a=0 | a=0.25 | a=0.5 | a=0.75 "
              "| a=1 | res/BE a=1: original, +20, +40 % |")
        print("|---|---|---:|---:|---:|---:|---:|---:|---:|---|")
        for mname in _METHODS:
            for tname in ("+20/+40 % of ours", "thesis's"):
                axis = rises = 0
                fig26 = {a: 0 for a in _ALPHAS}
                r1 = [[], [], []]
                for r in rs:
                    levels = [r["original"]] + r[mname, tname]
                    axis += max(max(x["price"].values()) for x in levels) <= _FIG25_AXIS_SU
                    rises += all(_inc([x["price"][a] for x in levels]) for a in _ALPHAS[:-1])
                    for a in _ALPHAS:
                        fig26[a] += _dec([x["ratio"][a] for x in levels])
                    for k, x in enumerate(levels):
                        r1[k].append(x["ratio"][1.0])
                print(f"| {mname} | {tname} | {axis}/{n} | {rises}/{n} | "
                      + " | ".join(f"{fig26[a]}/{n}" for a in _ALPHAS)
                      + " | " + ", ".join(_fmt(v) for v in r1) + " |")
    # Fig. 23 text: SDSC prices above CTC at alpha 0
    sd = [runs["sdsc", s]["original"]["price"][0.0] for s in seeds]
    ct = [runs["ctc", s]["original"]["price"][0.0] for s in seeds]
    print(f"\n## SDSC vs CTC at alpha 0 (Fig. 23 text; Fig. 29 text)\nown loads: SDSC "
          f"{_fmt([runs['sdsc', s]['own'] for s in seeds], 3)}, CTC {_fmt([runs['ctc', s]['own'] for s in seeds], 3)}; "
          f"price SDSC {_fmt(sd, 1)}, CTC {_fmt(ct, 1)} SU; SDSC/CTC {_fmt([a / b for a, b in zip(sd, ct)])}; "
          f"SDSC above: {sum(a > b for a, b in zip(sd, ct))}/{n}")
    for mname in _METHODS:
        xs = [runs["ctc", s][mname, "at SDSC's load"] for s in seeds]
        c = [x["price0"] for x in xs]
        print(f"CTC raised to SDSC's load ({mname}; load {_fmt([x['load'] for x in xs], 3)}): price {_fmt(c, 1)} SU; "
              f"SDSC(own)/CTC {_fmt([a / b for a, b in zip(sd, c)])}; SDSC above: {sum(a > b for a, b in zip(sd, c))}/{n}")
    per_seed = ", ".join(f"{s}: {a:.1f}/{b:.1f}" for s, a, b in zip(seeds, sd, ct))
    print(f"per seed SDSC/CTC price a=0 (SU): {per_seed}")


# ----------------------------------------------------------------------------- share (Fig. 27)
_SHARES = (0.1, 0.2, 0.4, 0.6, 0.8, 0.9)


def share_one(site: str, seed: int) -> dict:
    out = {}
    for days in (30, 90):
        w, jobs, procs, draw = _setup(site, seed, days)
        rows = {}
        for f in _SHARES:
            s = _replay(jobs, procs, draw, 0.0, fraction=f).summary
            rows[f] = (s["mean_price_su"], s["mean_best_effort_wait_h"], s["mean_reservation_wait_h"],
                       s["n_reservations"])
        out[days] = dict(rows=rows, load=_load(jobs, procs, 0, days * _D))
    return out


def share_report(runs: dict, seeds: list[int]) -> None:
    n = len(seeds)
    for site in _SITES:
        for days in (30, 90):
            xs = [runs[site, s][days] for s in seeds]
            print(f"\n## {site.upper()}, first {days} days (offered load {_fmt([x['load'] for x in xs], 3)}), alpha 0")
            print("| share | reservations | price (SU) | best-effort wait (h) | reservation wait (h) | "
                  "step from previous share (SU) | step < 0 (k) |")
            print("|---|---:|---|---|---|---|---:|")
            for i, f in enumerate(_SHARES):
                pr = [x["rows"][f][0] for x in xs]
                step = "" if i == 0 else [x["rows"][f][0] - x["rows"][_SHARES[i - 1]][0] for x in xs]
                print(f"| {100 * f:.0f} % | {np.mean([x['rows'][f][3] for x in xs]):.0f} | {_fmt(pr, 1)} | "
                      f"{_fmt([x['rows'][f][1] for x in xs])} | {_fmt([x['rows'][f][2] for x in xs])} | "
                      f"{'' if i == 0 else _fmt(step, 1)} | {'' if i == 0 else f'{sum(v < 0 for v in step)}/{n}'} |")
            seqs = [[x["rows"][f][0] for f in _SHARES] for x in xs]
            mono = sum(_dec(q) for q in seqs)
            low = sum(q[-1] == min(q) for q in seqs)
            ends = sum(q[0] > q[-1] for q in seqs)
            cv = np.mean([np.std([q[i] for q in seqs], ddof=1) / np.mean([q[i] for q in seqs])
                          for i in range(len(_SHARES))])
            print(f"strictly falling (the check): {mono}/{n}; 90 % lowest: {low}/{n}; 10 % above 90 %: {ends}/{n}; "
                  f"seed-to-seed coefficient of variation of a share's price, mean over shares: {cv:.2f}")


# ----------------------------------------------------------------------------- estimates (Figs. 24 axis, 30, 31)
_VARIANTS = {  # name: (policy, estimates, slots sized by actual runtime)
    "CB+actual": ("conservative", "exact", False),
    "AB+actual": ("easy", "exact", False),
    "CB+recorded (reproduction)": ("conservative", "requested", False),
    "CB+recorded best effort, actual slots": ("conservative", "requested", True),
}


def estimates_one(site: str, seed: int) -> dict:
    w, jobs, procs, draw = _setup(site, seed)
    out = {}
    for name, (policy, est, actual_slots) in _VARIANTS.items():
        s = {a: _replay(jobs, procs, draw, a, policy, est, slots_actual=actual_slots).summary for a in _ALPHAS}
        out[name] = {a: (s[a]["mean_price_su"], s[a]["mean_reservation_wait_h"], s[a]["mean_best_effort_wait_h"])
                     for a in _ALPHAS}
    return out


def no_reservations(site: str) -> list[tuple]:
    """Best-effort waits without reservations, exact vs recorded estimates, conservative and EASY, 6 windows."""
    from gridmarket.scenarios.reproductions.singh import _TRACES, _trace

    w, procs = _trace(site, None, "benchmark"), _TRACES[site][1]
    rows = []
    for k in range(6):
        jobs = [j for j in w.jobs if 30 * k * _D <= j.submit < 30 * (k + 1) * _D]
        waits = {(p, e): _replay(jobs, procs, 1, 0.0, p, e, fraction=0.0).summary["mean_best_effort_wait_h"]
                 for p in ("conservative", "easy") for e in ("exact", "requested")}
        rows.append((k, _load(jobs, procs, 30 * k * _D, 30 * (k + 1) * _D), waits))
    return rows


def estimates_report(runs: dict, seeds: list[int], bare: dict) -> None:
    n = len(seeds)
    for site in _SITES:
        rs = [runs[site, s] for s in seeds]
        print(f"\n## {site.upper()}: mean over seeds by alpha 0 / 0.25 / 0.5 / 0.75 / 1")
        print("| variant | price (SU) | reservation wait (h) | best-effort wait (h) |")
        print("|---|---|---|---|")
        for name in _VARIANTS:
            cols = [" / ".join(f"{np.mean([r[name][a][i] for r in rs]):.{1 if i == 0 else 2}f}" for a in _ALPHAS)
                    for i in range(3)]
            print(f"| {name} | " + " | ".join(cols) + " |")
        print(f"\n{site.upper()} k of {n} (the reproduction's checks; 'vs accurate' compares with CB+actual)")
        print("| variant | highest price (SU) | within Fig. 30's 0-50 SU | prices above accurate, a < 1 "
              f"| res waits longer | BE waits longer (mean over alpha) | BE wait, mean over alpha (h) "
              f"| a=1: res > BE | longest wait (h) | within Fig. 24's 0-{_FIG24_AXIS_H[site]:g} h |")
        print("|---|---|---:|---:|---:|---:|---|---:|---|---:|")
        for name in _VARIANTS:
            top = [max(r[name][a][0] for a in _ALPHAS) for r in rs]
            above = sum(all(r[name][a][0] > r["CB+actual"][a][0] for a in _ALPHAS[:-1]) for r in rs)
            mres = [np.mean([r[name][a][1] for a in _ALPHAS]) for r in rs]
            mbe = [np.mean([r[name][a][2] for a in _ALPHAS]) for r in rs]
            acc_res = [np.mean([r["CB+actual"][a][1] for a in _ALPHAS]) for r in rs]
            acc_be = [np.mean([r["CB+actual"][a][2] for a in _ALPHAS]) for r in rs]
            longest = [max(max(r[name][a][1], r[name][a][2]) for a in _ALPHAS) for r in rs]
            a1 = sum(r[name][1.0][1] > r[name][1.0][2] for r in rs)
            print(f"| {name} | {_fmt(top, 1)} | {sum(t <= _FIG30_AXIS_SU for t in top)}/{n} | {above}/{n} | "
                  f"{sum(x > y for x, y in zip(mres, acc_res))}/{n} | {sum(x > y for x, y in zip(mbe, acc_be))}/{n} | "
                  f"{_fmt(mbe)} | {a1}/{n} | {_fmt(longest)} | "
                  f"{sum(t <= _FIG24_AXIS_H[site] for t in longest)}/{n} |")
        print(f"\n{site.upper()} without reservations (all jobs best effort), 30-day windows of the trace: mean "
              "best-effort wait (h)")
        print("| days | offered load | conservative exact | conservative recorded | EASY exact | EASY recorded |")
        print("|---|---:|---:|---:|---:|---:|")
        for k, load, wt in bare[site]:
            print(f"| {30 * k}-{30 * (k + 1)} | {100 * load:.1f} % | {wt['conservative', 'exact']:.2f} | "
                  f"{wt['conservative', 'requested']:.2f} | {wt['easy', 'exact']:.2f} | {wt['easy', 'requested']:.2f} |")
        longer = sum(wt["conservative", "requested"] > wt["conservative", "exact"] for _, _, wt in bare[site])
        print(f"conservative: recorded estimates lengthen the best-effort wait in {longer}/{len(bare[site])} windows")


# ----------------------------------------------------------------------------- fig30 (second pass)
_FIG30 = {  # name: (policy, estimates, slot_estimates, plan_without)
    "CB+actual": ("conservative", "exact", None, "scheduler"),
    "CB+actual, v_q recreated": ("conservative", "exact", None, "recreated"),
    # "(reproduction)": the reproduction before 138b487; since then it counts v_q as "v_q recreated" does
    "CB+recorded (reproduction)": ("conservative", "requested", "exact", "scheduler"),
    "CB+recorded, v_q recreated": ("conservative", "requested", "exact", "recreated"),
    "AB+actual": ("easy", "exact", None, "scheduler"),
    "AB+recorded": ("easy", "requested", "exact", "scheduler"),
}
_FIG30["CB+actual, fresh plan at early ends"] = ("replan", "exact", None, "scheduler")
_FIG30["CB+recorded, fresh plan at early ends"] = ("replan", "requested", "exact", "scheduler")
_FIG30_GROUPS = {"base": ("CB+actual", "CB+recorded (reproduction)"),
                 "replan": ("CB+actual, fresh plan at early ends", "CB+recorded, fresh plan at early ends"),
                 "recreated": ("CB+actual, v_q recreated", "CB+recorded, v_q recreated"),
                 "easy": ("AB+actual", "AB+recorded")}
_fig30_names: tuple = ()
_plan_without = "recreated"  # the load/share/estimates families' v_q (--plan-without)


def _replanning_scheduler(policy: str, procs: int):
    """``make_scheduler`` for the ``replan`` variants: conservative backfilling that plans afresh at early ends.

    Mu'alem and Feitelson's compression moves each queued job to its earliest start no later than its
    planned one; this scheduler instead takes the whole queue out of its plan and plans it again in
    arrival order (a job may move later), as Fig. 22's "Create a schedule of the tasks in Q using pi"
    would at every event. A diagnostic only: it keeps no CB guarantee.
    """
    from gridmarket.scheduling import ConservativeScheduler

    class _Replanning(ConservativeScheduler):
        def compress(self, now: int) -> None:
            profile = self.profile
            profile.advance(now)
            profile.release_jobs(self.queue, self.planned)
            self._first = profile.replan(self.queue, self.planned, now)
            self._plan.load(self.queue, self.planned)

    return _Replanning(procs)


def fig30_one(site: str, seed: int) -> dict:
    from unittest import mock

    import gridmarket.scenarios.harnesses.pricing_replay as harness

    w, jobs, procs, draw = _setup(site, seed)
    out = {}
    for name in _fig30_names:
        policy, est, slot_est, plan = _FIG30[name]
        patch = mock.patch.object(harness, "make_scheduler", _replanning_scheduler) if policy == "replan" \
            else mock.patch.object(harness, "make_scheduler", harness.make_scheduler)
        with patch:
            sums = {a: harness.pricing_replay(
                jobs, procs=procs, policy="conservative" if policy == "replan" else policy, alpha=a, seed=draw,
                estimates=est, slot_estimates=slot_est, plan_without=plan).summary for a in _ALPHAS}
        out[name] = {a: x["mean_price_su"] for a, x in sums.items()}
        out[name, "waits"] = {a: (x["mean_reservation_wait_h"], x["mean_best_effort_wait_h"]) for a, x in sums.items()}
    return out


def fig30_report(runs: dict, seeds: list[int]) -> None:
    n = len(seeds)
    pairs = [("CB+recorded (reproduction)", "CB+actual"), ("CB+recorded, v_q recreated", "CB+actual"),
             ("CB+recorded, v_q recreated", "CB+actual, v_q recreated"),
             ("CB+recorded, fresh plan at early ends", "CB+actual"),
             ("CB+recorded, fresh plan at early ends", "CB+actual, fresh plan at early ends"),
             ("AB+recorded", "AB+actual"),
             ("AB+recorded", "CB+actual")]
    for site in _SITES:
        rs = [runs[site, s] for s in seeds]
        print(f"\n## {site.upper()}: mean price (SU) over seeds by alpha 0 / 0.25 / 0.5 / 0.75 / 1")
        print("| variant | price by alpha | price a=0 | highest price | within Fig. 30's 0-50 SU "
              "| best-effort wait, mean over alpha (h) | reservation wait a=0 / a=1 (h) |")
        print("|---|---|---|---|---:|---|---|")
        for name in _fig30_names:
            by = " / ".join(f"{np.mean([r[name][a] for r in rs]):.1f}" for a in _ALPHAS)
            top = [max(r[name].values()) for r in rs]
            be = [np.mean([r[name, "waits"][a][1] for a in _ALPHAS]) for r in rs]
            res = " / ".join(f"{np.mean([r[name, 'waits'][a][0] for r in rs]):.2f}" for a in (0.0, 1.0))
            print(f"| {name} | {by} | {_fmt([r[name][0.0] for r in rs], 1)} | {_fmt(top, 1)} | "
                  f"{sum(t <= _FIG30_AXIS_SU for t in top)}/{n} | {_fmt(be)} | {res} |")
        print(f"\n{site.upper()}: inaccurate / accurate")
        print("| inaccurate | accurate | price ratio a=0 | per seed | ratio <= 1.5 (k) | higher at every alpha < 1 (k) "
              "| best-effort waits longer, mean over alpha (k) |")
        print("|---|---|---|---|---:|---:|---:|")
        for a_name, b_name in pairs:
            if a_name not in _fig30_names or b_name not in _fig30_names:
                continue
            ratio = [r[a_name][0.0] / r[b_name][0.0] for r in rs]
            above = sum(all(r[a_name][a] > r[b_name][a] for a in _ALPHAS[:-1]) for r in rs)
            be = sum(np.mean([r[a_name, "waits"][a][1] for a in _ALPHAS])
                     > np.mean([r[b_name, "waits"][a][1] for a in _ALPHAS]) for r in rs)
            print(f"| {a_name} | {b_name} | {_fmt(ratio)} | {', '.join(f'{x:.2f}' for x in ratio)} | "
                  f"{sum(x <= 1.5 for x in ratio)}/{n} | {above}/{n} | {be}/{n} |")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--family", choices=("load", "share", "estimates", "fig30"), required=True)
    parser.add_argument("--seeds", default="1..10")
    parser.add_argument("--policy", choices=("conservative", "easy"), default="conservative",
                        help="backfilling of the load family (default conservative: the CB+actual reading)")
    parser.add_argument("--variants", default="base,recreated,easy",
                        help="fig30 family: comma-separated groups of base, recreated, easy, replan (default base,recreated,easy)")
    parser.add_argument("--plan-without", choices=("recreated", "scheduler"), default="recreated",
                        help="load/share/estimates families: v_q from the queue planned afresh (the reproduction's "
                        "since 138b487) or from the scheduler's compressed plan (the sections measured before)")
    args = parser.parse_args(argv)
    seeds = parse_seeds(args.seeds)
    global _fig30_names, _plan_without
    _plan_without = args.plan_without
    groups = args.variants.split(",")
    bad = [g for g in groups if g not in _FIG30_GROUPS]
    if bad:
        parser.error(f"--variants: unknown group(s) {bad}; choose from {sorted(_FIG30_GROUPS)}")
    _fig30_names = tuple(name for g in groups for name in _FIG30_GROUPS[g])
    one = {"load": load_one, "share": share_one, "estimates": estimates_one, "fig30": fig30_one}[args.family]
    t_start = time.perf_counter()
    runs = {}
    for seed in seeds:
        for site in _SITES:
            t0 = time.perf_counter()
            runs[site, seed] = one(site, seed, args.policy) if args.family == "load" else one(site, seed)
            print(f"seed {seed} {site}: {time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)
    print(f"# singh-pricing, family {args.family}, seeds {args.seeds}"
          + (f", {args.policy} backfilling, exact estimates" if args.family == "load" else ""))
    if args.family == "load":
        load_report(runs, seeds)
    elif args.family == "share":
        share_report(runs, seeds)
    elif args.family == "fig30":
        print(f"variants: {', '.join(_fig30_names)}")
        fig30_report(runs, seeds)
    else:
        estimates_report(runs, seeds, {site: no_reservations(site) for site in _SITES})
    print(f"\nwall {time.perf_counter() - t_start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
