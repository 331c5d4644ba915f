"""Transformations of workloads: load scaling, trace duplication, exact estimates, truncation.

Each function returns a new `Workload` and leaves its argument untouched. Times are integer
seconds.
"""

from __future__ import annotations

import heapq
import math

import numpy as np

from gridmarket.errors import InvalidInput
from gridmarket.job import Job
from gridmarket.workloads.workload import Workload

__all__ = [
    "scale_interarrival",
    "scale_load",
    "duplicate_trace",
    "exact_estimates",
    "truncate",
    "ONE_WEEK",
]

#: Seconds in a week: the shift of the second copy in `duplicate_trace`.
ONE_WEEK = 7 * 86400


def _with_jobs(workload: Workload, jobs: tuple[Job, ...], note: tuple[str, str] | None) -> Workload:
    header = dict(workload.header)
    if note is not None:
        header[note[0]] = note[1]
    return Workload(jobs, workload.max_procs, workload.name, dict(workload.dropped), header)


def _positive_number(name: str, value: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise InvalidInput(f"{name} must be a finite number > 0, got {value!r}")
    if value <= 0:
        raise InvalidInput(f"{name} must be > 0, got {value!r}")
    return float(value)


def scale_interarrival(workload: Workload, factor: float) -> Workload:
    """Multiply every inter-arrival gap by ``factor`` (< 1 raises the load, > 1 lowers it).

    Parameters
    ----------
    workload : Workload
        Jobs to rescale in time; sizes, runtimes and estimates are kept.
    factor : float
        Positive, finite.

    Returns
    -------
    Workload
        The first job keeps its submit time s0; job i submits at
        ``s0 + round(factor * (s_i - s0))``, rounding halves up. The header records the factor
        under ``gridmarket.interarrival_factor`` (multiplied into any earlier one).

    Raises
    ------
    InvalidInput
        If ``factor`` is not a positive finite number.

    Notes
    -----
    Rounding the offsets from the first job rather than each gap keeps every new gap within
    1 s of ``factor`` times the old one and the span within 0.5 s of ``factor`` times the old
    span, and never reorders jobs: the map from old to new submit times is non-decreasing.
    Jobs that land on the same second are ordered by id, as every workload is.

    Examples
    --------
    >>> w = Workload(tuple(Job(i, submit=s, procs=1, runtime=10, estimate=10)
    ...                    for i, s in enumerate([0, 10, 15, 40], 1)))
    >>> [j.submit for j in scale_interarrival(w, 0.5).jobs]
    [0, 5, 8, 20]
    >>> [j.submit for j in scale_load(w, 2.0).jobs]
    [0, 5, 8, 20]
    """
    factor = _positive_number("factor", factor)
    jobs = workload.jobs
    if not jobs:
        return _with_jobs(workload, jobs, None)
    first = jobs[0].submit
    scaled = [
        Job(j.id, first + math.floor(factor * (j.submit - first) + 0.5), j.procs, j.runtime,
            j.estimate, j.user, j.group, j.site, j.power_watts, j.data_bytes)
        for j in jobs
    ]  # fmt: skip
    scaled.sort(key=lambda j: (j.submit, j.id))
    previous = float(workload.header.get("gridmarket.interarrival_factor", "1"))
    return _with_jobs(
        workload, tuple(scaled), ("gridmarket.interarrival_factor", repr(previous * factor))
    )


def scale_load(workload: Workload, load_factor: float) -> Workload:
    """Raise the offered load ``load_factor`` times: `scale_interarrival` by ``1/load_factor``.

    Parameters
    ----------
    workload : Workload
    load_factor : float
        Positive, finite; 1.2 packs the same jobs into 1/1.2 of the time.

    Returns
    -------
    Workload

    Raises
    ------
    InvalidInput
        If ``load_factor`` is not a positive finite number.
    """
    return scale_interarrival(workload, 1.0 / _positive_number("load_factor", load_factor))


def duplicate_trace(
    workload: Workload,
    *,
    p: float,
    shift: int = ONE_WEEK,
    rng: np.random.Generator,
    ahead: bool = False,
) -> Workload:
    """Raise utilisation by adding a shifted copy of the trace, each copied job with probability p.

    Parameters
    ----------
    workload : Workload
        The original trace; all its jobs are kept at their recorded submit times.
    p : float
        Probability, in [0, 1], that each job of the copy is admitted.
    shift : int, default one week (604800 s)
        Seconds between the start of the original and of the copy, >= 0.
    rng : numpy.random.Generator
        One uniform draw per job decides admission; the same seed gives the same workload.
    ahead : bool, default False
        Which copy starts first. False: the copy starts ``shift`` seconds *after* the
        original (a job submitted at t is copied to t + shift). True: the copy starts
        ``shift`` seconds *before* it (t - shift), so the copy of the trace's second week
        lands on its first; copies that would come before the trace's first submission are
        dropped (they draw their admission all the same, so ``rng`` is consumed alike).
        Over a whole trace the two differ only at its ends; inside a window at the trace's
        start, ahead=True adds copies from the window's first second, ahead=False none
        before ``shift``.

    Returns
    -------
    Workload
        The original jobs plus the admitted copies, sorted by ``(submit, id)``. A copy keeps
        every field but ``id`` (shifted by ``max id - min id + 1``, so ids stay unique) and
        ``submit`` (plus ``shift``, or minus it when ``ahead``). The header records
        ``gridmarket.duplicate`` (``p``, ``shift``, ``ahead=True`` when set, and the number of
        copies). When no copy is admitted (always for ``p=0``)
        the original workload is returned unchanged.

    Raises
    ------
    InvalidInput
        If ``p`` is outside [0, 1], ``shift`` is not an int >= 0, ``ahead`` is not a bool,
        or ``rng`` is not a Generator.

    Notes
    -----
    Singh (2008), ch. 4, sec. 4.7 "Impact of resource load", pp. 61-62 (Fig. 16): "we made
    two copies of the workload trace, with a week's difference between their start time,
    using a method adopted in [53]" (Sabin et al., HPDC-14, 2005); "all tasks in the first
    trace were submitted to the resource as per their recorded submission time, the tasks in
    the second trace was submitted to the resource only with a certain probability.
    Increasing this probability allowed us to increase the load while not changing the task
    characteristics". Sec. 4.8, p. 64, raises the CTC load from 63% to 76% and 88% this way.
    The thesis does not say which copy starts first; ``ahead`` names the two readings.

    Examples
    --------
    >>> import numpy as np
    >>> w = Workload(tuple(Job(i, submit=100 * i, procs=1, runtime=10, estimate=10)
    ...                    for i in range(1, 4)))
    >>> d = duplicate_trace(w, p=1.0, rng=np.random.default_rng(0))
    >>> [(j.id, j.submit) for j in d.jobs]
    [(1, 100), (2, 200), (3, 300), (4, 604900), (5, 605000), (6, 605100)]
    >>> duplicate_trace(w, p=0.0, rng=np.random.default_rng(0)) == w
    True
    >>> w2 = Workload((Job(1, submit=0, procs=1, runtime=10, estimate=10),
    ...                Job(2, submit=ONE_WEEK + 50, procs=1, runtime=10, estimate=10)))
    >>> [(j.id, j.submit) for j in duplicate_trace(w2, p=1.0, ahead=True, rng=np.random.default_rng(0)).jobs]
    [(1, 0), (4, 50), (2, 604850)]
    """
    if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0.0 <= p <= 1.0:
        raise InvalidInput(f"duplicate_trace: p must be a probability in [0, 1], got {p!r}")
    if not isinstance(shift, int) or isinstance(shift, bool) or shift < 0:
        raise InvalidInput(f"duplicate_trace: shift must be an int >= 0 seconds, got {shift!r}")
    if not isinstance(ahead, bool):
        raise InvalidInput(f"duplicate_trace: ahead must be a bool, got {ahead!r}")
    if not isinstance(rng, np.random.Generator):
        raise InvalidInput(f"duplicate_trace: rng must be a numpy.random.Generator, got {rng!r}")
    jobs = workload.jobs
    admitted = rng.random(len(jobs)) < p
    if not admitted.any():
        return workload
    ids = [j.id for j in jobs]
    offset = max(ids) - min(ids) + 1
    delta = -shift if ahead else shift
    first = jobs[0].submit
    copies = [
        Job(j.id + offset, j.submit + delta, j.procs, j.runtime, j.estimate, j.user, j.group,
            j.site, j.power_watts, j.data_bytes)
        for j, take in zip(jobs, admitted.tolist()) if take and j.submit + delta >= first
    ]  # fmt: skip
    if not copies:
        return workload
    merged = tuple(heapq.merge(jobs, copies, key=lambda j: (j.submit, j.id)))
    note = f"p={p!r} shift={shift}{' ahead=True' if ahead else ''} copies={len(copies)}"
    return _with_jobs(workload, merged, ("gridmarket.duplicate", note))


def exact_estimates(workload: Workload) -> Workload:
    """Set every job's estimate to its runtime (perfectly accurate users).

    Parameters
    ----------
    workload : Workload

    Returns
    -------
    Workload
        Same jobs with ``estimate = runtime``; header ``gridmarket.estimate_model = exact``.

    Examples
    --------
    >>> w = Workload((Job(1, submit=0, procs=2, runtime=50, estimate=3600),))
    >>> exact_estimates(w).jobs[0].estimate
    50
    """
    jobs = tuple(
        Job(j.id, j.submit, j.procs, j.runtime, j.runtime, j.user, j.group, j.site,
            j.power_watts, j.data_bytes)
        for j in workload.jobs
    )  # fmt: skip
    return _with_jobs(workload, jobs, ("gridmarket.estimate_model", "exact"))


def truncate(workload: Workload, n_jobs: int) -> Workload:
    """Keep the first ``n_jobs`` jobs in submit order.

    Parameters
    ----------
    workload : Workload
    n_jobs : int
        Number of jobs to keep, >= 0; a workload with fewer jobs is returned whole.

    Returns
    -------
    Workload
        The first ``n_jobs`` jobs, with the workload's other fields.

    Raises
    ------
    InvalidInput
        If ``n_jobs`` is not an int >= 0.

    Examples
    --------
    >>> w = Workload(tuple(Job(i, submit=i, procs=1, runtime=1, estimate=1) for i in range(5)))
    >>> [j.id for j in truncate(w, 2).jobs]
    [0, 1]
    """
    if not isinstance(n_jobs, int) or isinstance(n_jobs, bool) or n_jobs < 0:
        raise InvalidInput(f"truncate: n_jobs must be an int >= 0, got {n_jobs!r}")
    if n_jobs >= len(workload.jobs):
        return workload
    return _with_jobs(workload, workload.jobs[:n_jobs], None)
