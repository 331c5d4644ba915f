"""Trace replay with priced reservations: the experiment of Singh 2008, ch. 5.3, on a whole trace.

A trace is replayed on one provider running a local policy. A seeded random
fraction of its jobs (default 10 %) become reservation requests: at its
submit time each asks for its processors for its estimate with query form
(18), gets every candidate start with its adaptive price (Fig. 22), picks one
by eq. (20) with trade-off ``alpha`` and reserves it; the job then runs in
its reservation; when it ends before its estimate the rest of the
reservation goes back to the plan (``--hold`` keeps it). The other jobs are
best-effort jobs of the local queue. The thesis stopped at the first 30 days
of its traces because pricing every candidate start was too slow; this
replays the whole trace (see ``benchmarks/bench_pricing.py``).

A reservation whose job ends early is released with the scheduler's
``withdraw_reservation`` and a pass at that instant (``MachineSimulation.wake_at``).

This module only composes :mod:`gridmarket.simulation` and :mod:`gridmarket.pricing`.
Run it as ``python -P -m gridmarket.scenarios.harnesses.pricing_replay --trace FILE.swf.gz`` (``--help``
for options). Times are seconds; prices are SU (processor-hours).
"""

from __future__ import annotations

import argparse
import heapq
import sys
import time
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import pandas as pd

from gridmarket.csvout import write_csv
from gridmarket.errors import InvalidInput, MarketError
from gridmarket.job import Job
from gridmarket.pricing import (
    ExternalityPricer,
    check_policy,
    choose_flexible,
    pricing_planner,
    state_from_scheduler,
)
from gridmarket.reservation import Reservation
from gridmarket.scenarios.options import bounded, checked
from gridmarket.scheduling import make_scheduler
from gridmarket.simulation import ESTIMATES, MachineSimulation

__all__ = ["DEFAULT_FRACTION", "PLANS_WITHOUT", "ReplayResult", "main", "pricing_replay", "run_id"]

DEFAULT_FRACTION = 0.1
"""Share of the jobs turned into reservations: "we randomly selected ten percent of the jobs" (ch. 5.3)."""


PLANS_WITHOUT = ("recreated", "scheduler")
"""What a price is counted from (``plan_without`` of :func:`pricing_replay`): Fig. 22's fresh plan or the scheduler's."""


@dataclass(frozen=True)
class ReplayResult:
    """What one priced replay produced.

    Attributes
    ----------
    jobs : pandas.DataFrame
        Best-effort jobs: ``job_id, submit, start, end, procs, estimate, wait``.
    reservations : pandas.DataFrame
        Reservation requests: ``job_id, submit, procs, duration, start, wait, price, n_quotes, alpha``
        (``price`` is ``f`` in SU; ``n_quotes`` the length of the form-18 list).
    summary : dict
        Means of the above and the run's settings (``run_id``, ``seed`` ...).
    """

    jobs: pd.DataFrame
    reservations: pd.DataFrame
    summary: dict = field(default_factory=dict)


def run_id(policy: str, alpha: float | None, seed: int) -> str:
    """Readable id of a run: ``singh-pricing-conservative-a0.5-seed3`` (``arand`` for random alphas)."""
    a = "rand" if alpha is None else f"{alpha:g}"
    return f"singh-pricing-{policy}-a{a}-seed{seed}"


def pricing_replay(
    jobs: list[Job] | tuple[Job, ...],
    *,
    procs: int,
    policy: str = "conservative",
    fraction: float = DEFAULT_FRACTION,
    alpha: float | None = 0.5,
    seed: int = 1,
    estimates: str = "requested",
    decisions: Mapping[int, int] | None = None,
    release: bool = True,
    slot_estimates: str | None = None,
    plan_without: str = "recreated",
) -> ReplayResult:
    """Replay ``jobs`` on ``procs`` processors with a fraction of them as priced reservations.

    Parameters
    ----------
    jobs : sequence of Job
        Sorted by ``(submit, id)``; jobs wider than the machine are dropped (with a warning).
    procs : int
        Machine size.
    policy : str
        Local policy of the provider, also the one pricing plans with
        (``conservative``, ``slots``, ``easy``, ``fcfs``).
    fraction : float
        Share of jobs drawn (without replacement, seeded) as reservation requests.
    alpha : float or None
        Users' trade-off in eq. (20); None draws one per request, uniform on [0, 1]
        (the thesis's policy comparison, Fig. 29).
    seed : int
        Seeds ``numpy.random.default_rng`` for the draw of requests and alphas.
    estimates : {"requested", "exact"}
        Plan with the trace's estimates or with the actual runtimes.
    slot_estimates : {None, "requested", "exact"}
        What the reservation requests ask for: None, the same as ``estimates``;
        ``"exact"``, each request asks for (and reserves) its job's actual runtime
        while the best-effort jobs keep ``estimates``. Singh ch. 5.3's inaccurate-estimate
        runs (Figs. 30-31) change only the best-effort jobs: "Till now, we have assumed
        that the tasks executing using the best effort service request their actual
        running time ... We performed experiments using the requested runtime estimates
        of the tasks in the best effort workload". The draw of requests is the same
        whatever this is.
    plan_without : {"recreated", "scheduler"}
        The plan without the slot (``v_q`` of Fig. 22) that a price is counted
        from. ``"recreated"`` (the default): Fig. 22 step 1 as
        written, "Create a schedule of the tasks in Q using pi", the queue
        planned afresh from the state, so both plans come from the same
        planning. ``"scheduler"`` (a diagnostic; what the replay did before, and
        what a live provider's ``ProviderPlan.from_scheduler`` still does): the
        provider's current plan, for conservative backfilling its planned starts
        as kept since arrival (compressed at early ends), while the plan with the
        slot is the queue re-planned in arrival order around it. They agree while no job ends
        before its estimate; with the trace's estimates a compressed plan is not
        the fresh one, and under ``"scheduler"`` a slot that moves any job is also
        charged the jobs a fresh plan would place later than the compressed plan.
        Only the accounting changes: the simulated scheduler keeps its own plan.
        For policies run forward (EASY, FCFS) both are the same.
    decisions : mapping of int to int, optional
        Start of each request by job id, from an earlier run
        (``result.reservations``): the requests are placed there without
        pricing (same draw, same simulation), which times the simulation
        apart from the pricing.
    release : bool
        A reserved job that ends before its estimate gives the rest of its
        reservation back to the plan (a slot is a task with a fixed start,
        ch. 5.3), as a best-effort job gives back the rest of its planned
        time. If False the reservation is held to its end, which with
        requested estimates wastes the capacity users over-asked for.

    Returns
    -------
    ReplayResult

    Examples
    --------
    >>> jobs = [Job(i, 10 * i, 2, 100, 100) for i in range(8)]
    >>> r = pricing_replay(jobs, procs=4, fraction=0.25, seed=2)
    >>> len(r.reservations), len(r.jobs), r.summary["run_id"]
    (2, 6, 'singh-pricing-conservative-a0.5-seed2')
    """
    _check_settings(policy, fraction, alpha, estimates, slot_estimates, plan_without)
    if estimates == "exact":
        jobs = [j if j.estimate == j.runtime else replace(j, estimate=j.runtime) for j in jobs]
    kept = [j for j in jobs if j.procs <= procs]
    if len(kept) < len(jobs):
        warnings.warn(f"dropped {len(jobs) - len(kept)} job(s) wider than the machine's {procs} processors",
                      stacklevel=2)
    if not kept:
        raise InvalidInput("no jobs to replay")
    requests, best_effort, alphas = _draw_requests(kept, fraction, alpha, seed, slot_estimates)
    sim, rows = _replay(requests, alphas, best_effort, procs=procs, policy=policy, decisions=decisions,
                        release=release, plan_without=plan_without)
    table = _best_effort_table(sim, best_effort)
    res = pd.DataFrame(rows, columns=["job_id", "submit", "procs", "duration", "start", "wait", "price",
                                      "n_quotes", "alpha", "runtime"])
    n = len(best_effort)
    summary = {
        "run_id": run_id(policy, alpha, seed),
        "policy": policy,
        "procs": procs,
        "seed": seed,
        "alpha": alpha,
        "fraction": fraction,
        "estimates": estimates,
        "slot_estimates": slot_estimates or estimates,
        "plan_without": plan_without,
        "n_jobs": len(kept),
        "n_reservations": len(res),
        "mean_price_su": float(res["price"].mean()) if len(res) else 0.0,
        "mean_reservation_wait_h": float(res["wait"].mean() / 3600) if len(res) else 0.0,
        "mean_best_effort_wait_h": float(table["wait"].mean() / 3600) if n else 0.0,
        "mean_quotes": float(res["n_quotes"].mean()) if len(res) else 0.0,
    }
    return ReplayResult(table, res, summary)


def _check_settings(policy: str, fraction: float, alpha: float | None, estimates: str, slot_estimates: str | None,
                    plan_without: str) -> None:
    """``InvalidInput`` for a setting :func:`pricing_replay` cannot run, before any work."""
    check_policy(policy)
    if not 0 <= fraction <= 1:
        raise InvalidInput(f"fraction must be in [0, 1], got {fraction}")
    if alpha is not None and not 0 <= alpha <= 1:
        raise InvalidInput(f"alpha must be in [0, 1], got {alpha}")
    if estimates not in ESTIMATES:
        raise InvalidInput(f"estimates must be one of {ESTIMATES}, got {estimates!r}")
    if slot_estimates is not None and slot_estimates not in ESTIMATES:
        raise InvalidInput(f"slot_estimates must be None or one of {ESTIMATES}, got {slot_estimates!r}")
    if slot_estimates == "requested" and estimates == "exact":
        raise InvalidInput("slot_estimates='requested' needs estimates='requested' (exact estimates replace the "
                           "trace's requested ones)")
    if plan_without not in PLANS_WITHOUT:
        raise InvalidInput(f"plan_without must be one of {PLANS_WITHOUT}, got {plan_without!r}")


def _draw_requests(kept: list[Job], fraction: float, alpha: float | None, seed: int, slot_estimates: str | None):
    """``(requests, best_effort, alphas)``: a seeded share ``fraction`` of ``kept`` reserves, the rest queue.

    The draw depends on ``seed`` and the number of jobs only (never on ``slot_estimates``), so runs that
    differ in what the requests ask for reserve for the same jobs.
    """
    rng = np.random.default_rng(seed)
    n_requests = round(fraction * len(kept))
    chosen = set(rng.choice(len(kept), size=n_requests, replace=False).tolist()) if n_requests else set()
    requests = [j for i, j in enumerate(kept) if i in chosen]
    best_effort = [j for i, j in enumerate(kept) if i not in chosen]
    if slot_estimates == "exact":
        requests = [j if j.estimate == j.runtime else replace(j, estimate=j.runtime) for j in requests]
    alphas = rng.uniform(0, 1, len(requests)) if alpha is None else np.full(len(requests), alpha)
    return requests, best_effort, alphas


def _replay(requests: list[Job], alphas, best_effort: list[Job], *, procs: int, policy: str,
            decisions: Mapping[int, int] | None, release: bool, plan_without: str) -> tuple[MachineSimulation, list]:
    """Run the best-effort jobs on the policy's machine and place each request where it chooses (form 18, eq. 20).

    Returns the finished simulation and one row per request (job id, submit, procs, duration, start, wait,
    price SU, quotes, alpha, runtime).
    """
    scheduler = make_scheduler(policy, procs)
    planner = pricing_planner(scheduler)  # the name is resolved once: every pricer below plans with it
    sim = MachineSimulation(scheduler, best_effort)
    rows = []
    ends: list[tuple[int, str]] = []  # (end of a reserved job that ends early, reservation id)
    over: list[tuple[int, str]] = []  # (end of a reservation, its id)

    def forget_until(t: int) -> None:
        # a reservation that has ended weighs on nothing: drop it, so the scheduler's table stays short
        while over and over[0][0] <= t:
            name = heapq.heappop(over)[1]
            if name in scheduler.reservations:
                scheduler.withdraw_reservation(name, t)

    def release_until(t: int | None) -> None:
        # a reserved job that ends before its estimate hands the rest of its reservation back
        while ends and (t is None or ends[0][0] <= t):
            at, name = heapq.heappop(ends)
            sim.run_until(at)
            scheduler.withdraw_reservation(name, at)
            # the scheduler may now start jobs at `at`: one more pass then
            sim.wake_at(at)
            sim.run_until(at)

    for job, a in zip(requests, alphas):
        now = job.submit
        if release:
            release_until(now)
        sim.run_until(now)
        forget_until(now)
        if decisions is None:
            if plan_without == "recreated":
                pricer = ExternalityPricer(state_from_scheduler(scheduler, now), planner)
            else:
                pricer = ExternalityPricer.from_scheduler(scheduler, now, planner)
            pick, n_quotes = choose_flexible(pricer, job.procs, job.estimate, float(a))
            start, f = pick.start, pick.fixed_cost
        else:
            start, f, n_quotes = decisions[job.id], float("nan"), 0
        sim.add_reservation(Reservation(f"job{job.id}", start, job.procs, job.estimate))
        heapq.heappush(over, (start + job.estimate, f"job{job.id}"))
        if release and job.runtime < job.estimate:
            heapq.heappush(ends, (start + job.runtime, f"job{job.id}"))
        rows.append((job.id, job.submit, job.procs, job.estimate, start, start - job.submit, f, n_quotes, float(a),
                     job.runtime))
    release_until(None)
    sim.run_until(None)
    return sim, rows


def _best_effort_table(sim: MachineSimulation, best_effort: list[Job]) -> pd.DataFrame:
    """One row per best-effort job of the finished ``sim``: id, submit, start, end, procs, estimate, wait (s)."""
    n = len(best_effort)
    starts = np.fromiter((sim.start[j.id] for j in best_effort), np.int64, n)
    submits = np.fromiter((j.submit for j in best_effort), np.int64, n)
    return pd.DataFrame({
        "job_id": np.fromiter((j.id for j in best_effort), np.int64, n),
        "submit": submits,
        "start": starts,
        "end": np.fromiter((sim.end[j.id] for j in best_effort), np.int64, n),
        "procs": np.fromiter((j.procs for j in best_effort), np.int64, n),
        "estimate": np.fromiter((j.estimate for j in best_effort), np.int64, n),
        "wait": starts - submits,
    })


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -P -m gridmarket.scenarios.harnesses.pricing_replay",
        description="Replay a trace on one provider; a seeded fraction of the jobs reserve slots at "
        "adaptive externality prices (Singh 2008, ch. 5.3: query form 18, choice rule 20). Prints the "
        "mean price (SU = processor-hours) and the mean waits of reservations and best-effort jobs.",
    )
    parser.add_argument("--trace", required=True, help="SWF file (.swf, .swf.gz)")
    parser.add_argument("--procs", type=bounded("processors"), help="machine size (default: the trace's MaxProcs)")
    parser.add_argument("--policy", default="conservative", type=checked(check_policy),
                        help="the provider's local policy: conservative, slots, easy, fcfs or a plug-in "
                        "'package.module:Name' (default conservative)")
    parser.add_argument("--fraction", type=bounded("fraction"), default=DEFAULT_FRACTION,
                        help="share of jobs that reserve (default 0.1)")
    parser.add_argument("--alpha", default="0.5",
                        help="users' trade-off of eq. 20 in [0, 1], or 'random' (uniform per request)")
    parser.add_argument("--seed", type=bounded("seed"), default=1, help="seed of the draws (default 1)")
    parser.add_argument("--estimates", default="requested", choices=ESTIMATES,
                        help="plan with requested runtimes or exact ones (default requested)")
    parser.add_argument("--slot-estimates", choices=ESTIMATES,
                        help="what reservation requests ask for (default: as --estimates); 'exact' sizes "
                        "slots by the jobs' actual runtimes while best-effort jobs keep --estimates (ch. 5.3, "
                        "Figs. 30-31)")
    parser.add_argument("--plan-without", default="recreated", choices=PLANS_WITHOUT,
                        help="plan a price is counted from: the queue planned afresh from the state (default; "
                        "Fig. 22 step 1 as written) or the scheduler's current, compressed plan")
    parser.add_argument("--days", type=bounded("days"), help="replay only the jobs submitted in the first N days")
    parser.add_argument("--hold", action="store_true",
                        help="hold a reservation to its end even when its job ends early (default: give the rest back)")
    parser.add_argument("--out", help="directory for jobs.csv and reservations.csv")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit status."""
    from gridmarket.workloads import read_swf

    args = _parser().parse_args(argv)
    try:
        alpha = None if args.alpha == "random" else float(args.alpha)
    except ValueError:
        print(f"pricing_replay: error: --alpha must be a number or 'random', got {args.alpha!r}", file=sys.stderr)
        return 2
    try:
        workload = read_swf(args.trace)
        jobs = list(workload.jobs)
        if args.days is not None:
            jobs = [j for j in jobs if j.submit < args.days * 86400]
        procs = args.procs or workload.max_procs
        if procs is None:
            raise InvalidInput(f"{args.trace}: no machine size: pass --procs")
        t0 = time.perf_counter()
        result = pricing_replay(jobs, procs=procs, policy=args.policy, fraction=args.fraction, alpha=alpha,
                                seed=args.seed, estimates=args.estimates, release=not args.hold,
                                slot_estimates=args.slot_estimates, plan_without=args.plan_without)
        seconds = time.perf_counter() - t0
    except (MarketError, OSError) as err:
        print(f"pricing_replay: error: {err}", file=sys.stderr)
        return 2
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        write_csv(result.jobs, out / "jobs.csv")
        write_csv(result.reservations, out / "reservations.csv")
    for key, value in result.summary.items():
        print(f"{key:<26} {value:.3f}" if isinstance(value, float) else f"{key:<26} {value}")
    print(f"{'replay_seconds':<26} {seconds:.1f}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
