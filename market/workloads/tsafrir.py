"""User runtime estimates model of Tsafrir, Etsion & Feitelson (JSSPP 2005).

D. Tsafrir, Y. Etsion and D. G. Feitelson, "Modeling user runtime estimates", in Job
Scheduling Strategies for Parallel Processing (JSSPP 2005), LNCS 3834, pp. 1-35. Users pick a
few round "modal" estimates (5, 15, 30 min, 1, 2, 4, ... h and the system's maximum, which is
the most popular); the model draws the histogram of estimate values for a given number of
jobs and maximum estimate, then hands the estimates to jobs so that every estimate is at least
the job's runtime.

This module ports Dan Tsafrir's reference implementation of the model, ``est_model.cc`` and
``est_model.hh`` ("implementing the model described in JSSPP'05"). The copy read came from a
public-code index that did not name its repository; its interface (``EstParams_t``,
``est_gen_dist``, ``est_assign``) is the one the GitHub package ``renatolfc/lublinworkload``
wraps in ``parallelworkloads/_tsafrir05.pxd``. Its default parameters are used, without
user-supplied bins. Times are integer seconds.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

from gridmarket.errors import InvalidInput, MarketError
from gridmarket.job import Job
from gridmarket.workloads.workload import Workload

__all__ = ["tsafrir_distribution", "tsafrir_estimates"]

_MIN = 60
_HOUR = 60 * _MIN
#: Estimates in the head of the distribution (used by 85-90% of the jobs).
_TOP = 20
#: Popularity rank of the i-th shortest head estimate (row 0: the maximum) in the four logs
#: the model was fitted to (columns: SDSC-106, CTC, KTH-4h, BLUE). ``TIMRNK_TO_POPRNK``.
_TIMRNK_TO_POPRNK = (
    (3, 1, 1, 1),
    (1, 3, 4, 6),
    (4, 4, 10, 5),
    (17, 2, 14, 3),
    (13, 12, 20, 7),
    (7, 9, 2, 2),
    (8, 8, 3, 18),
    (18, 18, 7, 19),
    (2, 6, 12, 4),
    (6, 7, 6, 11),
    (16, 11, 19, 20),
    (10, 20, 5, 9),
    (5, 16, 18, 10),
    (15, 5, 16, 14),
    (14, 14, 9, 13),
    (19, 13, 17, 16),
    (11, 10, 15, 15),
    (12, 15, 13, 17),
    (9, 17, 8, 8),
    (20, 19, 11, 12),
)
#: The 15 top-20 estimates common to all four logs (``EST_JOINT``).
_EST_JOINT = (
    5 * _MIN, 15 * _MIN, 10 * _MIN, 20 * _MIN, 30 * _MIN,
    1 * _HOUR, 2 * _HOUR, 3 * _HOUR, 4 * _HOUR, 5 * _HOUR, 6 * _HOUR,
    8 * _HOUR, 10 * _HOUR, 12 * _HOUR, 18 * _HOUR,
)  # fmt: skip
#: Round values whose multiples complete the head, largest first (``EST_ROUND``).
_EST_ROUND = (
    200 * _HOUR, 100 * _HOUR, 50 * _HOUR, 10 * _HOUR, 5 * _HOUR,
    2 * _HOUR, 1 * _HOUR, 20 * _MIN, 10 * _MIN, 5 * _MIN,
)  # fmt: skip
#: Number of distinct estimates as a piecewise-linear function of the number of jobs.
_BINNUM_LINEAR = ((0, 0), (20, 10), (200, 20), (1000, 35), (10000, 90), (70000, 340), (250000, 565))
#: Head sizes: percent of jobs of popularity rank x = 2..20 is a * exp(b * x) + c.
_HEAD_A, _HEAD_B, _HEAD_C = 14.0491, -0.177531, 0.462513
#: Percent of jobs using one of the head estimates.
_HEAD_SUM = 89.0
#: Tail sizes: percent of jobs of popularity rank x >= 21 is a * x**b (then normalised).
_TAIL_A, _TAIL_B = 795.6, -2.267
#: Tail times: relative time y = (a - 1) x / (a - x) with a = 1 + p * binnum**q.
_BINTIM_P, _BINTIM_Q = 12.1039, -0.6026
#: Offsets (s) tried in order when a tail estimate collides with an earlier one.
_TAIL_OFFSETS = (0, 30, -30, 20, -20, 10, -10)


def _c_round(x: float) -> int:
    """C ``round``: halves away from zero."""
    return math.floor(x + 0.5) if x >= 0 else -math.floor(-x + 0.5)


def _n_bins(n_jobs: int) -> int:
    """Number of distinct estimates for ``n_jobs`` jobs (``get_binnum``, linear model)."""
    if n_jobs > _BINNUM_LINEAR[-1][0]:
        return _BINNUM_LINEAR[-1][1]
    for (x0, y0), (x1, y1) in zip(_BINNUM_LINEAR, _BINNUM_LINEAR[1:]):
        if n_jobs <= x1:
            return y0 + _c_round((n_jobs - x0) * (y1 - y0) / (x1 - x0))
    raise MarketError(f"no bin count for {n_jobs} jobs")  # unreachable


def _head_times(max_estimate: int) -> list[int]:
    """Up to 20 head estimates: the maximum first, then the rest ascending (``gen_head_bintim``)."""
    times = [max_estimate] + [e for e in _EST_JOINT if e < max_estimate]
    missing = _TOP - len(times)
    for mul in _EST_ROUND:
        if missing <= 0:
            break
        start = (max_estimate // mul) * mul
        est = start
        while est > 0 and missing > 0:
            if est not in times:
                times.append(est)
                missing -= 1
            est -= mul
    return [times[0]] + sorted(times[1:])


def _head_sizes(n_top: int) -> list[float]:
    """Percent of jobs of popularity ranks 1..n_top, descending (``gen_head_binsiz``)."""
    sizes = [_HEAD_A * math.exp(_HEAD_B * rank) + _HEAD_C for rank in range(2, n_top + 1)]
    return sorted([_HEAD_SUM - sum(sizes), *sizes], reverse=True)


def _popularity_ranks(n_top: int, rng: np.random.Generator) -> list[int]:
    """Popularity rank of each head estimate in time order (``gen_head_timrnk_poprnk_map``).

    The maximum is the most popular; the i-th shortest estimate takes the most popular rank
    that the four fitted logs force by position i ("bound"), else the smaller of two random
    picks from the ranks the logs show at positions <= i.
    """
    bound: dict[int, int] = {}
    for ttr in range(_TOP - 1, -1, -1):
        for rank in _TIMRNK_TO_POPRNK[ttr]:
            bound.setdefault(rank, ttr)
    ranks: list[int] = []
    chosen: set[int] = set()
    pool: list[int] = []
    for ttr in range(n_top):
        pool.extend(r for r in _TIMRNK_TO_POPRNK[ttr] if r not in chosen and r <= n_top)
        rank = -1
        if ttr == 0:
            rank = 1
        else:
            for candidate in range(1, n_top + 1):
                if bound[candidate] <= ttr and candidate not in chosen:
                    rank = candidate
                    break
        if rank == -1 and pool:
            for _ in range(2):  # FAVOR_SMALL
                pick = pool[int(rng.integers(len(pool)))]
                if rank == -1 or pick < rank:
                    rank = pick
        if rank == -1:  # fewer than 20 head estimates only: take the best rank left
            rank = min(set(range(1, n_top + 1)) - chosen)
        ranks.append(rank)
        chosen.add(rank)
        pool = [r for r in pool if r != rank]
    return ranks


def _tail(
    max_estimate: int, n_bins: int, head: dict[int, float], rng: np.random.Generator
) -> dict[int, float]:
    """Tail estimates (s) -> percent of jobs (``gen_tail_map``); ``n_bins`` counts all bins."""
    n_tail = n_bins - len(head)
    if n_tail <= 0:
        return {}
    a = 1.0 + _BINTIM_P * n_bins**_BINTIM_Q
    times: list[int] = []
    taken: set[int] = set()
    for i in range(1, n_tail + 1):
        x = i / n_tail
        y = (a - 1.0) * x / (a - x)
        sec = _c_round(y * max_estimate / 60.0) * 60
        for offset in _TAIL_OFFSETS:
            s = sec + offset
            if s not in taken and s not in head and 0 < s < max_estimate:
                times.append(s)
                taken.add(s)
                break
    sizes = [_TAIL_A * float(rank) ** _TAIL_B for rank in range(_TOP + 1, _TOP + 1 + len(times))]
    scale = (100.0 - _HEAD_SUM) / sum(sizes) if sizes else 0.0
    sizes = sorted((s * scale for s in sizes), reverse=True)
    times.sort()
    # the C code shuffles both lists and pairs them; one random permutation is the same pairing
    return {times[int(i)]: size for i, size in zip(rng.permutation(len(times)), sizes)}


def _equalize(counts: dict[int, int], n_jobs: int) -> dict[int, int]:
    """Make the job counts add up to ``n_jobs`` (``adjust_njobs``, without user bins).

    Rounding percents to jobs leaves a difference, taken from (or given to) the bins in order
    of size, largest first (ties: shorter estimate first), by successively cruder rules:
    proportionally, one job each, down to one job, down to zero.
    """
    counts = dict(counts)
    total = sum(counts.values())
    diff, sign = abs(n_jobs - total), (1 if n_jobs > total else -1)
    if diff == 0:
        return counts
    nonuser = total
    attempt = 0
    while diff != 0:
        f = diff / nonuser
        for time in sorted(counts, key=lambda t: (-counts[t], t)):
            njobs = counts[time]
            if njobs == 0:
                continue
            adjust = (math.ceil(f * njobs), 1, njobs - 1, njobs)[min(attempt, 3)]
            if sign < 0:
                adjust = min(adjust, njobs)
                if adjust == njobs and attempt < 3:
                    adjust -= 1
            adjust = min(adjust, diff)
            counts[time] += sign * adjust
            diff -= adjust
            if diff == 0:
                break
        attempt += 1
    return counts


def tsafrir_distribution(
    n_jobs: int, *, max_estimate: int, rng: np.random.Generator
) -> dict[int, int]:
    """Histogram of user estimates for ``n_jobs`` jobs (``est_gen_dist``).

    Parameters
    ----------
    n_jobs : int
        Number of estimates to produce, >= 1.
    max_estimate : int
        The system's maximum estimate in seconds, >= 3600 (the most popular estimate).
    rng : numpy.random.Generator
        Source of randomness for the mapping of head estimates to popularities and of tail
        estimates to sizes.

    Returns
    -------
    dict of int to int
        Estimate (s) -> number of jobs, ascending by estimate; the counts add up to
        ``n_jobs``. Bins rounded down to zero jobs are kept with count 0.

    Raises
    ------
    InvalidInput
        If ``n_jobs < 1`` or ``max_estimate < 3600``.

    Notes
    -----
    Number of distinct estimates K: piecewise linear in ``n_jobs`` through (20, 10), (200,
    20), (1000, 35), (10^4, 90), (7*10^4, 340), (2.5*10^5, 565), and 565 beyond. The 20 head
    estimates are ``max_estimate`` and the values of 5, 10, 15, 20, 30 min, 1, 2, 3, 4, 5, 6,
    8, 10, 12, 18 h below it, completed with multiples of 200, 100, 50, 10, 5, 2, 1 h, 20,
    10, 5 min counting down from the maximum. Head popularity rank x = 2..20 gets
    ``14.0491 exp(-0.177531 x) + 0.462513`` percent of jobs, rank 1 (the maximum) the rest of
    89%. The K - 20 tail estimates lie at ``max_estimate (a-1) x / (a-x)`` for x = i/(K-20),
    ``a = 1 + 12.1039 K**-0.6026``, on whole minutes, and share 11% as ``795.6 x**-2.267``
    over ranks x = 21, 22, ... Percents become job counts rounded half away from zero (at
    least 1), then equalised to ``n_jobs``.

    Departures from ``est_model.cc``: ties in bin size are broken by estimate (the C code's
    ``std::sort`` leaves them unspecified); random shuffles that do not change the
    distribution are left out; with a maximum below about 2 h, which gives fewer than 20 head
    estimates, popularity ranks are drawn among the ranks that exist (the C code reads past
    its arrays there); the tail's ``a`` uses K as the C code does.

    Examples
    --------
    >>> import numpy as np
    >>> dist = tsafrir_distribution(1000, max_estimate=18 * 3600, rng=np.random.default_rng(0))
    >>> sum(dist.values()), max(dist), max(dist, key=dist.get)
    (1000, 64800, 64800)
    """
    if not isinstance(n_jobs, int) or isinstance(n_jobs, bool) or n_jobs < 1:
        raise InvalidInput(f"tsafrir_distribution: n_jobs must be an int >= 1, got {n_jobs!r}")
    _check_max_estimate(max_estimate)
    n_bins = _n_bins(n_jobs)
    head_times = _head_times(max_estimate)
    sizes = _head_sizes(len(head_times))
    ranks = _popularity_ranks(len(head_times), rng)
    head = {t: sizes[r - 1] for t, r in zip(head_times, ranks)}
    percents = {**_tail(max_estimate, n_bins, head, rng), **head}
    counts = {t: max(1, _c_round(p * n_jobs / 100.0)) for t, p in sorted(percents.items())}
    return _equalize(counts, n_jobs)


def _check_max_estimate(max_estimate: int) -> None:
    if not isinstance(max_estimate, int) or isinstance(max_estimate, bool) or max_estimate < _HOUR:
        raise InvalidInput(
            f"max_estimate must be an int >= 3600 s (one hour), got {max_estimate!r}"
        )


def tsafrir_estimates(
    workload_or_jobs: Workload | Iterable[Job],
    *,
    max_estimate: int,
    rng: np.random.Generator,
) -> Workload:
    """Replace every job's estimate with one drawn from the Tsafrir 2005 model.

    Parameters
    ----------
    workload_or_jobs : Workload or iterable of Job
        Jobs whose runtimes are kept and whose estimates are replaced.
    max_estimate : int
        The system's maximum estimate in seconds, >= 3600 and >= every job's runtime.
    rng : numpy.random.Generator
        Source of randomness; the same seed gives the same estimates.

    Returns
    -------
    Workload
        A new workload with the same jobs in the same order, each with ``estimate >=
        runtime``, and the header entry ``gridmarket.estimate_model``. A workload keeps its
        name, ``max_procs`` and ``dropped``; bare jobs are sorted by ``(submit, id)``.

    Raises
    ------
    InvalidInput
        If ``max_estimate`` is invalid, a job's runtime exceeds it, or the model's histogram
        cannot cover the runtimes (too many long jobs for the estimates the model draws).

    Notes
    -----
    Estimates are drawn as a histogram by `tsafrir_distribution` and assigned as in
    ``est_assign``: jobs are taken from the longest runtime down; each takes a uniformly
    random estimate among those still unassigned that are >= its runtime and could not be
    needed by a longer job. Where the reference code truncates runtimes above the maximum
    estimate (with a warning), this function raises: runtimes are facts of the workload, and
    a maximum estimate below them is a wrong argument.

    Complexity: O(n log n) for n jobs.

    Examples
    --------
    >>> import numpy as np
    >>> jobs = [Job(i, submit=i, procs=1, runtime=7 * i, estimate=1) for i in range(1, 301)]
    >>> w = tsafrir_estimates(jobs, max_estimate=18 * 3600, rng=np.random.default_rng(0))
    >>> all(j.estimate >= j.runtime for j in w.jobs)
    True
    >>> [j.runtime for j in w.jobs] == [j.runtime for j in jobs]
    True
    """
    _check_max_estimate(max_estimate)
    if not isinstance(rng, np.random.Generator):
        raise InvalidInput(f"tsafrir_estimates: rng must be a numpy.random.Generator, got {rng!r}")
    if isinstance(workload_or_jobs, Workload):
        workload = workload_or_jobs
    else:
        jobs_in = sorted(workload_or_jobs, key=lambda j: (j.submit, j.id))
        workload = Workload(tuple(jobs_in))
    jobs = workload.jobs
    header = dict(workload.header)
    header["gridmarket.estimate_model"] = f"tsafrir05 (max_estimate={max_estimate} s)"
    n = len(jobs)
    if n == 0:
        return Workload((), workload.max_procs, workload.name, dict(workload.dropped), header)
    longest = max(jobs, key=lambda j: j.runtime)
    if longest.runtime > max_estimate:
        raise InvalidInput(
            f"job {longest.id} runs {longest.runtime} s, longer than max_estimate "
            f"{max_estimate} s; choose a max_estimate >= every runtime"
        )
    dist = tsafrir_distribution(n, max_estimate=max_estimate, rng=rng)
    estimates = sorted((t for t, count in dist.items() for _ in range(count)), reverse=True)
    runtimes = [j.runtime for j in jobs]
    order = sorted(range(n), key=lambda i: -runtimes[i])  # stable: ties keep workload order
    short = next((k for k in range(n) if runtimes[order[k]] > estimates[k]), None)
    if short is not None:
        raise InvalidInput(
            f"the estimate model cannot cover the runtimes: the {short + 1} longest jobs run "
            f">= {runtimes[order[short]]} s but the model drew fewer than {short + 1} estimates "
            f"that long for max_estimate {max_estimate} s; choose a larger max_estimate"
        )
    assigned = [0] * n
    draws = rng.random(n)
    hi = 0
    for j in range(n):
        runtime = runtimes[order[j]]
        while hi < n - 1 and runtime <= estimates[hi + 1]:
            hi += 1
        k = j + int(draws[j] * (hi - j + 1))
        assigned[order[j]] = estimates[k]
        estimates[k], estimates[j] = estimates[j], estimates[k]
    new_jobs = tuple(
        Job(j.id, j.submit, j.procs, j.runtime, est, j.user, j.group, j.site, j.power_watts,
            j.data_bytes)
        for j, est in zip(jobs, assigned)
    )  # fmt: skip
    return Workload(new_jobs, workload.max_procs, workload.name, dict(workload.dropped), header)
