"""Synthetic grid workload: a Lublin-Feitelson stream per system with Tsafrir estimates (Murali & Vadhiyar, sec. 4.3.1).

Each system gets its own Lublin-Feitelson workload (sizes up to its cores or its maximum job size),
arriving at ``jobs_per_hour`` (3.22 per system per hour in the paper, matching
TeraGrid), with run times stretched by one factor per system so that its
offered load is ``offered_load`` (the paper tuned the models to Hart's
TeraGrid statistics; this is our single knob for it), capped at the system's
wall-time limit. Estimates follow Tsafrir's model with the wall-time limit as
maximum estimate. The streams are merged in submit order, each job annotated
with its origin system (``Job.site``) and renumbered 1..n. Times are integer seconds.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import replace

import numpy as np

from gridmarket.energy.systems import GridSystem
from gridmarket.errors import InvalidInput
from gridmarket.job import Job
from gridmarket.workloads import lublin_workload, tsafrir_estimates

__all__ = ["grid_workload"]

_HOUR = 3600


def grid_workload(
    systems: Sequence[GridSystem],
    *,
    days: float,
    rng: np.random.Generator,
    jobs_per_hour: float = 3.22,
    offered_load: float = 0.7,
    start: int = 0,
    mean_runtime: float | None = None,
    min_runtime: int = 0,
    sizes_to_load: bool = False,
    max_procs: Mapping[str, int] | None = None,
) -> tuple[Job, ...]:
    """Jobs submitted over ``days`` at every system, merged in submit order.

    Parameters
    ----------
    systems : sequence of GridSystem
    days : float
        Length of the submission period.
    rng : numpy.random.Generator
        Used for every system in turn (Lublin, then Tsafrir).
    jobs_per_hour : float
        Arrival rate per system.
    offered_load : float
        Target offered load per system (work / (cores x period)), in (0, 1.5].
    start : int
        Seconds added to every submit time (e.g. a warm-up for price history).
    mean_runtime : float, optional
        Seconds. When given, run times are scaled so that the jobs kept have
        this mean (capped at each system's wall-time limit) instead of
        reaching ``offered_load``, and ``jobs_per_hour`` is the arrival rate
        of the jobs kept (Murali & Vadhiyar sec. 4.3.1: 8.8 h mean, 3.22
        arrivals per hour per system, jobs under 30 minutes not modelled).
        The offered load is then whatever these give.
    min_runtime : int
        Seconds; with ``mean_runtime``, jobs shorter than this are left out of the jobs
        returned. Their estimates are drawn first, for the stream as generated (short jobs
        included): Tsafrir's model is fitted to whole logs, most of whose jobs are short, and the
        paper generated its traces with the models before leaving the short jobs out. Drawn for
        the long jobs alone, the model's histogram cannot cover 8.8 h runs under 24-72 h limits.
    sizes_to_load : bool
        With ``mean_runtime``: also scale each system's job sizes (processors,
        at least 1, at most the system's cores) so that the work offered
        reaches ``offered_load`` -- run times keep their calibrated mean and
        the job sizes carry the load (a grid whose load the paper implies but
        whose job sizes it does not give). The floor of one processor a job
        bounds how low the load can go; callers should report the load measured.
    max_procs : mapping of str to int, optional
        System name -> the largest job it is offered: the machine size given
        to the Lublin-Feitelson model, whose job sizes run up to it. Default:
        the system's cores. Murali & Vadhiyar's simulator has such a maximum
        job size per site (``max_req``), below the site's cores.

    Returns
    -------
    tuple of Job
        Sorted by ``(submit, id)``, ids 1..n, ``site`` = origin system name,
        ``runtime <= estimate <= max_walltime`` of the origin. When the Tsafrir
        model cannot cover a system's run times (too few jobs for its
        histogram), that system's estimates are its wall-time limit, with a warning.

    Examples
    --------
    >>> from gridmarket.energy import xsede_systems
    >>> jobs = grid_workload(xsede_systems()[:2], days=2, rng=np.random.default_rng(0))
    >>> sorted({j.site for j in jobs}), all(j.runtime <= j.estimate for j in jobs)
    (['Blacklight', 'Darter'], True)
    """
    if not days > 0:
        raise InvalidInput(f"days must be > 0, got {days!r}")
    if not 0 < offered_load <= 1.5:
        raise InvalidInput(f"offered_load must be in (0, 1.5], got {offered_load!r}")
    if not jobs_per_hour > 0:
        raise InvalidInput(f"jobs_per_hour must be > 0, got {jobs_per_hour!r}")
    horizon = int(days * 24 * _HOUR)
    merged: list[Job] = []
    if mean_runtime is not None and not mean_runtime > 0:
        raise InvalidInput(f"mean_runtime must be > 0 seconds, got {mean_runtime!r}")
    if not min_runtime >= 0:
        raise InvalidInput(f"min_runtime must be >= 0 seconds, got {min_runtime!r}")
    if sizes_to_load and mean_runtime is None:
        raise InvalidInput("sizes_to_load scales job sizes around a calibrated mean_runtime; give mean_runtime")
    caps = {s.name: s.cores for s in systems}
    for name, cap in (max_procs or {}).items():
        if name not in caps:
            raise InvalidInput(f"max_procs names unknown system {name!r}; systems are {sorted(caps)}")
        if isinstance(cap, bool) or not isinstance(cap, (int, np.integer)) or not 1 <= cap <= caps[name]:
            raise InvalidInput(f"max_procs[{name!r}] must be an int in [1, {caps[name]}] (its cores), got {cap!r}")
        caps[name] = int(cap)
    for system in systems:
        if mean_runtime is not None:
            generated, jobs = _calibrated_jobs(system, horizon, jobs_per_hour, mean_runtime, min_runtime, rng,
                                               procs=caps[system.name])
            # the estimates are drawn for the workload as generated, short jobs included, which are then left
            # out (sec. 4.3.1: the models generate the trace; jobs under 30 minutes are not simulated)
            estimate = {j.id: j.estimate for j in _with_estimates(system, generated, rng)}
            jobs = [replace(j, estimate=estimate[j.id]) for j in jobs]
            if sizes_to_load and jobs:
                work = sum(j.procs * j.runtime for j in jobs)
                factor = offered_load * system.cores * horizon / work
                jobs = [replace(j, procs=int(min(max(round(j.procs * factor), 1), system.cores))) for j in jobs]
            merged.extend(jobs)
            continue
        n = int(jobs_per_hour * days * 24 * 1.2) + 20
        w = lublin_workload(n, procs=caps[system.name], rng=rng)
        submits = np.array([j.submit for j in w.jobs], dtype=float)
        span = max(submits[-1] - submits[0], 1.0)
        stretch = (n - 1) / (jobs_per_hour * span / _HOUR)  # seconds per original second
        submits = np.rint((submits - submits[0]) * stretch).astype(np.int64)
        keep = submits < horizon
        jobs = [replace(j, submit=int(s)) for j, s, k in zip(w.jobs, submits, keep) if k]
        if not jobs:
            continue
        areas = np.array([j.procs * j.runtime for j in jobs], dtype=float)
        factor = offered_load * system.cores * horizon / areas.sum()
        runtimes = np.minimum(np.maximum(np.rint(np.array([j.runtime for j in jobs]) * factor), 1), system.max_walltime)
        jobs = [replace(j, runtime=int(r), estimate=int(r), site=system.name) for j, r in zip(jobs, runtimes)]
        merged.extend(_with_estimates(system, jobs, rng))
    merged.sort(key=lambda j: (j.submit, j.site, j.id))
    return tuple(replace(j, id=i, submit=j.submit + start) for i, j in enumerate(merged, 1))


def _with_estimates(system: GridSystem, jobs: list[Job], rng: np.random.Generator) -> list[Job]:
    """Tsafrir estimates (sec. 4.3.1), at most the system's wall-time limit."""
    max_estimate = max(system.max_walltime, _HOUR)
    try:
        jobs = list(tsafrir_estimates(jobs, max_estimate=max_estimate, rng=rng).jobs)
    except InvalidInput as err:
        # too few jobs for the model's histogram: use the wall-time limit, as a batch system
        # assumes for a job without an estimate (sec. 1 of the paper)
        warnings.warn(f"{system.name}: Tsafrir estimates unavailable ({err}); using the wall-time limit",
                      stacklevel=3)
        jobs = [replace(j, estimate=system.max_walltime) for j in jobs]
    return [replace(j, estimate=min(j.estimate, system.max_walltime)) for j in jobs]


def _calibrated_jobs(system: GridSystem, horizon: int, jobs_per_hour: float, mean_runtime: float,
                     min_runtime: int, rng: np.random.Generator, *, procs: int) -> tuple[list[Job], list[Job]]:
    """Lublin jobs (machine size ``procs``) on ``system`` scaled to ``mean_runtime`` over those kept (>= ``min_runtime``), arriving at
    ``jobs_per_hour`` over ``horizon`` seconds (Murali & Vadhiyar sec. 4.3.1's calibration).

    Returns ``(generated, kept)``: the Lublin stream as generated up to the last job kept, run times scaled
    (short jobs included, submit times Lublin's), and the jobs kept with their submit times stretched to
    the rate. Ids are the stream's, so a job of ``kept`` is found in ``generated`` by id."""
    wanted = max(int(round(jobs_per_hour * horizon / _HOUR)), 1)
    n = 2 * wanted + 20
    while True:
        w = lublin_workload(n, procs=procs, rng=rng)
        raw = np.array([j.runtime for j in w.jobs], dtype=float)
        cap = float(system.max_walltime)

        def kept_mean(f: float) -> tuple[float, np.ndarray]:
            r = np.minimum(np.rint(raw * f), cap)  # noqa: B023 - this iteration's raw and cap
            keep = r >= min_runtime
            return (float(r[keep].mean()) if keep.any() else 0.0), keep

        lo, hi = 1e-6, 1e6  # the kept mean rises with the scale factor: bisect on it (in log space)
        for _ in range(100):
            mid = (lo * hi) ** 0.5
            if kept_mean(mid)[0] < mean_runtime:
                lo = mid
            else:
                hi = mid
        factor = hi
        _, keep = kept_mean(factor)
        if keep.sum() >= wanted or n > 50 * wanted:
            break
        n *= 2

    def scaled(j: Job, **changes) -> Job:
        runtime = int(min(max(round(j.runtime * factor), 1), cap))
        return replace(j, runtime=runtime, estimate=runtime, site=system.name, **changes)

    picked = np.flatnonzero(keep)[:wanted]  # stream positions of the jobs kept
    chosen = [w.jobs[i] for i in picked]
    submits = np.array([j.submit for j in chosen], dtype=float)
    span = max(submits[-1] - submits[0], 1.0)
    stretch = (len(chosen) - 1) / (jobs_per_hour * span / _HOUR) if len(chosen) > 1 else 0.0
    submits = np.rint((submits - submits[0]) * stretch).astype(np.int64)
    kept = [scaled(j, submit=int(t)) for j, t in zip(chosen, submits) if t < horizon]
    end = picked[len(kept) - 1] + 1 if kept else 0  # the submits rise, so ``kept`` is a prefix of ``chosen``
    return [scaled(j) for j in w.jobs[:end]], kept
