"""Event-driven simulation of one two-tier machine under KEASY, REASY or MEASY (Liu et al. 2012, secs. 2-3).

Times are integer seconds from the start of the workload; progress is in dedicated seconds.

Why events and not time slices: the paper's progress model (sec. 3.2) is stated per time slice,
but within a slice nothing changes unless a placement does, so the progress of a slice is its
length times a rate that is constant between placement changes. The engine therefore keeps, per
running job, ``(progress, time, rate)`` and recomputes a rate only when a placement on one of the
job's processors changes (:meth:`gridmarket.twotier.vm.TwoTierMachine.refresh_rates`); a job's end
is predicted from its rate and pushed on a heap, and an end computed from an outdated rate is
skipped (a version counter). The cost per event is the scheduling pass, not the number of
slices elapsed, and the result is exactly the limit of the time-sliced model as the slice goes
to zero (with an end rounded up to the next whole second).

Two implementations of the engine give the same records to the last bit: the compiled
``market/twotier/_cengine.pyx`` (the default where it was built; ``GRIDMARKET_KERNEL`` chooses, as
for the scheduling kernel, :mod:`gridmarket.kernel`) and the pure-Python reference over
:class:`~gridmarket.twotier.vm.TwoTierMachine` and :class:`~gridmarket.twotier.policies.TwoTierPolicy`
(:func:`reference_run_events`), which also runs a policy object of a subclass of
``TwoTierPolicy`` (its own ``schedule``). ``tests/market/twotier/test_engine_twins.py`` checks
the two against each other.

Per event time ``t``: every completion at ``t`` (a job whose progress reached its work), then
every arrival at ``t`` in id order, then ONE scheduling pass (the same-timestamp rule of
:mod:`gridmarket.simulation`), then the new rates. A MEASY migration freezes the job for the
migration cost; the engine wakes it (recomputes its rate) when the cost has elapsed, without a
scheduling pass.
"""

from __future__ import annotations

import heapq
import math
import warnings
from collections.abc import Iterable, Mapping
from dataclasses import replace
from itertools import chain
from typing import TYPE_CHECKING

import numpy as np

from gridmarket.errors import InvalidInput, MarketError
from gridmarket.job import Job
from gridmarket.kernel import compiled_module
from gridmarket.metrics import summarize
from gridmarket.simulation_result import SimulationResult
from gridmarket.twotier.metrics import paper_metrics
from gridmarket.twotier.policies import EASY_ONE_TIER, TWO_TIER_POLICIES, TwoTierPolicy
from gridmarket.twotier.progress import (
    BETA_MULTI_MEAN,
    BETA_MULTI_SD,
    BG_MODELS,
    DEFAULT_BG_MODEL,
    USAGE_THRESHOLD,
    JobTraits,
    check_usage,
    draw_traits,
)
from gridmarket.twotier.vm import Run, TwoTierMachine
from gridmarket.workloads.workload import Workload

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["DEFAULT_MIGRATION_COST", "TWO_TIER_POLICIES", "reference_run_events", "simulate_twotier"]

#: The paper's default MEASY migration cost, seconds (sec. 3).
DEFAULT_MIGRATION_COST = 20

_END, _WAKE = 0, 1
_compiled = compiled_module("gridmarket.twotier._cengine")
_EPS = 1e-6  # progress tolerance against float drift, dedicated seconds


def _policy(policy: str | TwoTierPolicy) -> TwoTierPolicy:
    if isinstance(policy, TwoTierPolicy):
        return policy
    if policy == EASY_ONE_TIER.name:
        return EASY_ONE_TIER
    return TWO_TIER_POLICIES.resolve(policy)


def _jobs_of(workload: Workload | Iterable[Job], procs: int | None) -> tuple[str, list[Job], dict, int]:
    if isinstance(workload, Workload):
        name, jobs_in, dropped = workload.name or "workload", list(workload.jobs), dict(workload.dropped)
        procs = procs if procs is not None else workload.max_procs
    else:
        name, jobs_in, dropped = "workload", list(workload), {}
    if procs is None:
        raise InvalidInput(f"{name}: no machine size: pass procs (the workload declares none)")
    if not isinstance(procs, int) or isinstance(procs, bool) or procs < 1:
        raise InvalidInput(f"procs must be a positive int, got {procs!r}")
    if not jobs_in:
        raise InvalidInput(f"{name}: the workload has no jobs")
    last = None
    for job in jobs_in:
        key = (job.submit, job.id)
        if last is not None and key < last:
            raise InvalidInput(f"{name}: job {job.id} submits at {job.submit}, before job {last[1]} at {last[0]}")
        last = key
    if len({job.id for job in jobs_in}) != len(jobs_in):
        seen: set[int] = set()
        twice = next(job.id for job in jobs_in if job.id in seen or seen.add(job.id))  # type: ignore[func-returns-value]  # add is falsy: records and goes on
        raise InvalidInput(f"{name}: job id {twice} appears twice")
    kept = [j for j in jobs_in if j.procs <= procs]
    if len(kept) != len(jobs_in):
        reason = f"needs more than the machine's {procs} processors"
        dropped[reason] = len(jobs_in) - len(kept)
        warnings.warn(f"{name}: dropped {len(jobs_in) - len(kept)} job(s) that {reason}", stacklevel=3)
    if not kept:
        raise InvalidInput(f"{name}: no job fits on {procs} processors")
    return name, kept, dropped, procs


def simulate_twotier(
    workload: Workload | Iterable[Job],
    *,
    procs: int | None = None,
    policy: str | TwoTierPolicy = "measy",
    rng: np.random.Generator,
    usage: str | Mapping[int, object] = "paper",
    usage_known: bool = True,
    migration_cost: int = DEFAULT_MIGRATION_COST,
    estimates: str = "requested",
    bg_model: str = DEFAULT_BG_MODEL,
    beta_multi_mean: float = BETA_MULTI_MEAN,
    beta_multi_sd: float = BETA_MULTI_SD,
    threshold: float = USAGE_THRESHOLD,
    traits: Mapping[int, JobTraits] | None = None,
    validate: bool = False,
) -> SimulationResult:
    """Run ``workload`` on a two-tier machine of ``procs`` processors under KEASY, REASY or MEASY.

    Parameters
    ----------
    workload : Workload or iterable of Job
        Jobs sorted by ``(submit, id)``; jobs wider than the machine are dropped (with a warning).
    procs : int, optional
        Machine size; defaults to the workload's ``max_procs``.
    policy : {"keasy", "reasy", "measy"} or TwoTierPolicy
        The scheduling algorithm (sec. 2.2, 2.3.1, 2.3.2).
    rng : numpy.random.Generator
        Draws every job's process usages, bg efficiency ``beta`` and fg ``loss``
        (:func:`gridmarket.twotier.progress.draw_traits`), in workload order: the same seed gives
        every policy the same jobs.
    usage : "paper", "full" or mapping
        Process CPU usages: sec. 3.1's model, all 100 % (sec. 3.5.2), or per job id (a number,
        a sequence per process, or None for "unknown to the scheduler").
    usage_known : bool
        False: the scheduler has no usage information (sec. 3.5.1).
    migration_cost : int
        Seconds a MEASY migration freezes the job (default 20, sec. 3).
    estimates : {"requested", "exact"}
        Plan with the jobs' estimates or their actual runtimes.
    bg_model : {"product", "ratio"}
        Form of the bg progress equation (:func:`gridmarket.twotier.progress.bg_rate`).
    beta_multi_mean, beta_multi_sd : float
        Normal distribution of ``beta`` for multi-process jobs (:mod:`gridmarket.twotier.progress`).
    threshold : float
        fg usage at or above which a bg VM takes no process (0.96, sec. 2.1 (3)).
    traits : mapping of int to JobTraits, optional
        Exact traits for some jobs (hand-checked examples), replacing the drawn ones after
        the draw (so the other jobs' draws do not change).
    validate : bool
        Check the machine's consistency after every pass (slower; for tests); both engines do.

    Returns
    -------
    SimulationResult
        ``records`` has the columns of :func:`gridmarket.simulation.simulate` (``start`` is the
        first start in any tier) plus ``last_start`` (start of the run that completed, after
        any kill), ``fg_start`` (last entry into the fg tier, -1 if the job ended in the bg
        tier), ``finished_in`` (``fg``/``bg``), ``kills``, ``migrations``, ``swaps``,
        ``work`` (dedicated seconds), ``wasted`` (dedicated seconds lost to kills), and the
        job's drawn ``beta``, ``loss`` and ``usage_mean``.
        ``summary`` is :func:`gridmarket.metrics.summarize` plus ``mean_bsld_runtime`` (sec. 3.3,
        :func:`gridmarket.twotier.metrics.paper_metrics`), ``kills``, ``migrations``, ``swaps``,
        ``migrations_per_job``, ``finished_in_bg`` and the run's settings.

    Raises
    ------
    InvalidInput
        Unknown policy, usage mode or bg model; a usage outside [0, 1] (naming the job);
        a negative or non-integer migration cost; no machine size; no jobs; jobs out of order;
        a job id given twice.

    Examples
    --------
    Two processors. Job 1 (2 processes, both at 50 % usage) holds both fg VMs for 100 s; job 2
    (1 process) waits, so MEASY runs it in a bg VM, where it advances ``beta * 1.0 * 0.5`` per
    second until job 1 ends and it swaps to the fg tier on its own processor.

    >>> jobs = [Job(1, 0, 2, 100, 100), Job(2, 0, 1, 60, 60)]
    >>> r = simulate_twotier(jobs, procs=2, policy="measy", rng=np.random.default_rng(1),
    ...                      usage={1: 0.5, 2: 1.0})
    >>> r.records[["job_id", "start", "finished_in", "swaps"]].values.tolist()
    [[1, 0, 'fg', 0], [2, 0, 'fg', 1]]
    >>> int(r.records["end"].iloc[1]) < 100 + 60
    True
    """
    pol = _policy(policy)
    if not isinstance(rng, np.random.Generator):
        raise InvalidInput(f"rng must be a numpy.random.Generator, got {rng!r}")
    if isinstance(migration_cost, bool) or not isinstance(migration_cost, (int, np.integer)):
        raise InvalidInput(f"migration_cost must be an int number of seconds, got {migration_cost!r}")
    if migration_cost < 0:
        raise InvalidInput(f"migration_cost must be >= 0 s, got {migration_cost}")
    if bg_model not in BG_MODELS:
        raise InvalidInput(f"bg_model must be one of {BG_MODELS}, got {bg_model!r}")
    if estimates not in ("requested", "exact"):
        raise InvalidInput(f"estimates must be 'requested' or 'exact', got {estimates!r}")
    if not (0.0 <= threshold <= 1.0):
        raise InvalidInput(f"threshold must be in [0, 1], got {threshold!r}")
    name, jobs, dropped, procs = _jobs_of(workload, procs)
    if estimates == "exact":
        jobs = [j if j.estimate == j.runtime else replace(j, estimate=j.runtime) for j in jobs]
    drawn = draw_traits(jobs, rng=rng, usage=usage, usage_known=usage_known,
                        beta_multi_mean=beta_multi_mean, beta_multi_sd=beta_multi_sd)
    if traits:
        by_id = {j.id: j for j in jobs}
        for job_id, given in traits.items():
            if job_id in by_id:
                drawn[job_id] = _check_traits(by_id[job_id], given)
    traits_in_order = [drawn[j.id] for j in jobs]
    # the compiled twin runs Step 3 in every pass; the other reading runs on the reference engine
    if _compiled is not None and type(pol) is TwoTierPolicy and pol.bg_step == "every-event":
        columns = _compiled_run(jobs, traits_in_order, pol, procs, int(migration_cost), bg_model, threshold, validate)
    else:
        columns = reference_run_events(jobs, traits_in_order, pol, procs, int(migration_cost), bg_model, threshold,
                                       validate)
    records = _records(jobs, traits_in_order, columns)
    summary = summarize(records, procs, dropped=dropped)
    summary.update(
        mean_bsld_runtime=paper_metrics(records)["mean_bsld"],
        kills=int(records["kills"].sum()),
        migrations=int(records["migrations"].sum()),
        swaps=int(records["swaps"].sum()),
        migrations_per_job=float(records["migrations"].mean()),
        finished_in_bg=int((records["finished_in"] == "bg").sum()),
        migration_cost=int(migration_cost),
        bg_model=bg_model,
        usage_known=bool(usage_known),
        usage=usage if isinstance(usage, str) else "given",
    )
    return SimulationResult(records=records, summary=summary, procs=procs, policy=pol.name, dropped=dropped)


def _check_traits(job: Job, given: JobTraits) -> JobTraits:
    if not isinstance(given, JobTraits):
        raise InvalidInput(f"job {job.id}: traits must be a JobTraits, got {given!r}")
    usage = check_usage(job.id, given.usage, job.procs)
    if usage is None:
        raise InvalidInput(f"job {job.id}: traits.usage must be given")
    if len(given.seen) != job.procs:
        raise InvalidInput(f"job {job.id}: traits.seen has {len(given.seen)} values for {job.procs} processes")
    seen = tuple(None if u is None else check_usage(job.id, u, 1)[0]  # type: ignore[index]  # u given: a tuple
                 for u in given.seen)
    if not 0.0 <= given.beta <= 1.0:
        raise InvalidInput(f"job {job.id}: traits.beta must be in [0, 1], got {given.beta!r}")
    if not 0.0 <= given.loss < 1.0:
        raise InvalidInput(f"job {job.id}: traits.loss must be in [0, 1), got {given.loss!r}")
    return JobTraits(usage, seen, float(given.beta), float(given.loss))


def _compiled_run(jobs: list[Job], traits: list[JobTraits], policy: TwoTierPolicy, procs: int, migration_cost: int,
                  bg_model: str, threshold: float, validate: bool) -> dict[str, np.ndarray]:
    """The compiled engine (``_cengine.run_events``) on flat per-job and per-process arrays."""
    n = len(jobs)
    sizes = np.fromiter((j.procs for j in jobs), np.int32, n)
    off = np.zeros(n + 1, np.int64)
    np.cumsum(sizes, out=off[1:])
    total = int(off[-1])
    usage = np.fromiter(chain.from_iterable(t.usage for t in traits), np.float64, total)
    if all(t.seen is t.usage for t in traits):  # draw_traits's known usages: the same tuple
        seen = usage + 0.0  # the reference's ``seen or 0.0``: -0.0 becomes 0.0
        unknown = np.zeros(total, np.int8)
    else:
        seen = np.fromiter((s or 0.0 for t in traits for s in t.seen), np.float64, total)
        unknown = np.fromiter((s is None for t in traits for s in t.seen), np.int8, total)
    return _compiled.run_events(  # type: ignore[union-attr]  # called only where the kernel is built
        np.fromiter((j.submit for j in jobs), np.int64, n), np.fromiter((j.estimate for j in jobs), np.int64, n),
        sizes, off, np.fromiter((j.effective_runtime for j in jobs), np.float64, n), usage, seen, unknown,
        np.fromiter((t.beta for t in traits), np.float64, n),
        1.0 - np.fromiter((t.loss for t in traits), np.float64, n),  # fg_rate, elementwise as the reference's
        machine_procs=procs, deploy=policy.deploy, background=policy.background, two_tier=policy.two_tier,
        bg_model=bg_model, threshold=threshold, migration_cost=migration_cost, validate=validate,
    )


def reference_run_events(jobs: list[Job], traits: list[JobTraits], policy: TwoTierPolicy, procs: int,
                         migration_cost: int, bg_model: str, threshold: float,
                         validate: bool = False) -> dict[str, np.ndarray]:
    """The pure-Python engine over ``TwoTierMachine`` and ``policy.schedule``: per-job result columns.

    ``jobs`` in ``(submit, id)`` order with their ``traits`` in the same order. Returns arrays in
    job order: ``start, end, last_start, fg_start`` (-1: ended in the bg tier), ``kills,
    migrations, swaps`` (int64), ``wasted`` (float64) and ``finished_in`` (int8: 1 fg, 2 bg).
    """
    machine = TwoTierMachine(procs, two_tier=policy.two_tier, bg_model=bg_model, threshold=threshold)
    runs = {j.id: Run(j, t, float(j.effective_runtime)) for j, t in zip(jobs, traits)}
    machine.runs = runs
    _run_events(machine, policy, jobs, runs, migration_cost, validate)
    rs = [runs[j.id] for j in jobs]
    n = len(rs)

    def ints(values):
        return np.fromiter(values, np.int64, n)

    return {
        "start": ints(r.start for r in rs), "end": ints(r.end for r in rs),
        "last_start": ints(r.last_start for r in rs),
        "fg_start": ints(-1 if r.fg_start is None else r.fg_start for r in rs),
        "kills": ints(r.kills for r in rs), "migrations": ints(r.migrations for r in rs),
        "swaps": ints(r.swaps for r in rs), "wasted": np.fromiter((r.wasted for r in rs), float, n),
        "finished_in": np.fromiter((1 if r.finished_in == "fg" else 2 for r in rs), np.int8, n),
    }


def end_events(machine: TwoTierMachine, heap: list, runs: Mapping[int, Run], t: int) -> list[int]:
    """Take every event at ``t`` off ``heap``; return the ids of the jobs that ended (vacated) at ``t``.

    The event step of the reference engine and of `gridmarket.twotier.stepper`: an event outdated by a
    later rate change is dropped; a wake-up (the end of a frozen migration) marks its job for a rate
    refresh; an end whose job has not quite done its work (float drift) marks it too; a real end
    vacates the job's VMs. Events are ``(time, seq, kind, job id, version)``.
    """
    ended = []
    heappop = heapq.heappop
    while heap and heap[0][0] == t:
        _, _, kind, job_id, version = heappop(heap)
        run = runs[job_id]
        if version != run.version or run.tier is None:
            continue  # outdated by a later rate change
        if kind == _WAKE:
            machine.dirty.add(job_id)
            continue
        machine.snapshot(run)
        if run.progress < run.work - _EPS:  # float drift: not done yet
            machine.dirty.add(job_id)
            continue
        run.progress, run.end = run.work, t
        run.finished_in = run.tier
        if run.tier == "bg":
            run.fg_start = None
        machine.vacate(run)
        ended.append(job_id)
    return ended


def push_rate_events(machine: TwoTierMachine, heap: list, t: int, seq: int) -> int:
    """Push the next event of every job whose rate changed at ``t``; return the last sequence number.

    A fg job frozen by a migration wakes when the freeze ends; a job progressing at ``rate`` ends at
    the first whole second its remaining work takes (at least ``t + 1``).
    """
    heappush = heapq.heappush
    for run in machine.refresh_rates():
        if run.tier == "fg" and t < run.frozen_until:
            seq += 1
            heappush(heap, (run.frozen_until, seq, _WAKE, run.id, run.version))
        elif run.rate > 0.0:
            left = run.work - run.progress
            end = max(t + 1, math.ceil(t + left / run.rate - 1e-9))
            seq += 1
            heappush(heap, (end, seq, _END, run.id, run.version))
    return seq


def trigger(policy: TwoTierPolicy, runs: Mapping[int, Run], ended: list[int], arrived: bool) -> dict[str, bool]:
    """What set off a pass, for a policy whose Step 3 waits for an arrival or a bg departure (``bg_step``).

    Empty for the every-event reading, which needs none: a policy subclass written against the plain
    ``schedule(machine, queue, migration_cost=...)`` keeps working.
    """
    if getattr(policy, "bg_step", "every-event") == "every-event":
        return {}
    return {"arrived": arrived, "bg_departed": any(runs[j].finished_in == "bg" for j in ended)}


def _run_events(machine: TwoTierMachine, policy: TwoTierPolicy, jobs: list[Job], runs: dict[int, Run],
                migration_cost: int, validate: bool) -> None:
    heap: list[tuple[int, int, int, int, int]] = []  # (time, seq, kind, job id, version)
    seq = 0
    queue: list[Run] = []
    i, n = 0, len(jobs)
    while True:
        t = heap[0][0] if heap else None
        if i < n and (t is None or jobs[i].submit < t):
            t = jobs[i].submit
        if t is None:
            break
        machine.now = t
        ended = end_events(machine, heap, runs, t)
        arrived = False
        while i < n and jobs[i].submit == t:
            queue.append(runs[jobs[i].id])
            i += 1
            arrived = True
        if ended or arrived:
            policy.schedule(machine, queue, migration_cost=migration_cost, **trigger(policy, runs, ended, arrived))
        if validate:
            machine.assert_consistent()
        seq = push_rate_events(machine, heap, t, seq)
    stuck = [r.id for r in runs.values() if r.end is None]
    if stuck:
        raise MarketError(f"two-tier simulation stalled with {len(stuck)} unfinished job(s), e.g. {stuck[:5]}")


def _records(jobs: list[Job], traits: list[JobTraits], columns: Mapping[str, np.ndarray]) -> pd.DataFrame:
    import pandas as pd  # here: running a batch policy loads the two-tier registry, not pandas

    n = len(jobs)

    def ints(values):
        return np.fromiter(values, np.int64, n)

    submit = ints(j.submit for j in jobs)
    start = columns["start"]
    runtime = ints(j.runtime for j in jobs)
    estimate = ints(j.estimate for j in jobs)
    return pd.DataFrame(
        {
            "job_id": ints(j.id for j in jobs),
            "submit": submit,
            "start": start,
            "end": columns["end"],
            "procs": ints(j.procs for j in jobs),
            "runtime": runtime,
            "estimate": estimate,
            "wait": start - submit,
            "user": ints(j.user for j in jobs),
            "outcome": np.where(runtime > estimate, "killed", "completed"),
            "last_start": columns["last_start"],
            "fg_start": columns["fg_start"],
            "finished_in": np.array([None, "fg", "bg"], dtype=object)[columns["finished_in"]],
            "kills": columns["kills"],
            "migrations": columns["migrations"],
            "swaps": columns["swaps"],
            "work": np.fromiter((j.effective_runtime for j in jobs), float, n),
            "beta": np.fromiter((t.beta for t in traits), float, n),
            "loss": np.fromiter((t.loss for t in traits), float, n),
            "usage_mean": np.fromiter((sum(t.usage) / len(t.usage) for t in traits), float, n),
            "wasted": columns["wasted"],
        }
    )
