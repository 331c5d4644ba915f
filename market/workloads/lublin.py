"""Lublin-Feitelson workload model of rigid parallel jobs (Lublin & Feitelson, JPDC 63(11), 2003).

U. Lublin and D. G. Feitelson, "The workload on parallel supercomputers: modeling the
characteristics of rigid jobs", Journal of Parallel and Distributed Computing 63(11):1105-1122,
2003. This module follows the model's reference C implementation, ``m_lublin99.c`` by Uri
Lublin and Dror Feitelson, distributed by the Parallel Workloads Archive
(http://www.cs.huji.ac.il/labs/parallel/workload/m_lublin99/m_lublin99.c); the copy read is
``lublinworkload/m_lublin99.c`` in the GitHub repository ``renatolfc/lublinworkload`` (commit
12ab200c4ac507fb73b1500bde93a00771e34312). Every parameter below is that file's ``#define``
with ``INCLUDE_JOBS_TYPE 1`` (separate batch and interactive classes) and ``START 0``.

Times are integer seconds from the start of the generated workload (midnight of day 0).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from gridmarket.errors import InvalidInput, MarketError
from gridmarket.job import Job
from gridmarket.workloads.workload import Workload

__all__ = [
    "Lublin99Params",
    "LUBLIN99_BATCH",
    "LUBLIN99_INTERACTIVE",
    "LUBLIN99_WHOLE",
    "LUBLIN99_REFERENCE_PROCS",
    "LUBLIN99_MAX_RUNTIME",
    "lublin_workload",
]


@dataclass(frozen=True, slots=True)
class Lublin99Params:
    """Parameters of one job class of the model, named as in ``m_lublin99.c``.

    Parameters
    ----------
    serial_prob, pow2_prob : float
        Probability that a job is serial; that it is parallel with a power-of-two size.
    ulow, umed, uhi, uprob : float
        Two-stage uniform distribution of log2(size) of parallel jobs: uniform on
        ``[ulow, umed]`` with probability ``uprob``, else on ``[umed, uhi]``.
    a1, b1, a2, b2 : float
        Shape and scale of the two gamma distributions of the hyper-gamma distribution of
        ln(runtime in seconds).
    pa, pb : float
        Probability of the first gamma: ``p = pa * size + pb``, clipped to [0, 1].
    aarr, barr : float
        Shape and scale of the gamma distribution of ln(inter-arrival time) at peak hours;
        the shape used is ``aarr * arar``.
    anum, bnum : float
        Shape and scale of the gamma distribution that weighs the 48 half-hour buckets of the
        day (the daily cycle).
    arar : float
        Ratio converting the peak-hour shape ``aarr`` to all hours of the day.
    """

    serial_prob: float
    pow2_prob: float
    ulow: float
    umed: float
    uhi: float
    uprob: float
    a1: float
    b1: float
    a2: float
    b2: float
    pa: float
    pb: float
    aarr: float
    barr: float
    anum: float
    bnum: float
    arar: float


#: Batch jobs: ``*_BATCH`` constants of ``m_lublin99.c``.
LUBLIN99_BATCH = Lublin99Params(
    serial_prob=0.2927, pow2_prob=0.6686, ulow=1.2, umed=5.0, uhi=7.0, uprob=0.875,
    a1=6.57, b1=0.823, a2=639.1, b2=0.0156, pa=-0.003, pb=0.6986,
    aarr=6.0415, barr=0.8531, anum=6.1271, bnum=5.2740, arar=1.0519,
)  # fmt: skip
#: Interactive jobs: ``*_ACTIVE`` constants of ``m_lublin99.c``.
LUBLIN99_INTERACTIVE = Lublin99Params(
    serial_prob=0.1541, pow2_prob=0.625, ulow=1.0, umed=3.0, uhi=5.5, uprob=0.705,
    a1=3.8351, b1=0.6605, a2=7.073, b2=0.6856, pa=-0.0118, pb=0.9156,
    aarr=6.5510, barr=0.6621, anum=8.9186, bnum=3.6680, arar=0.9797,
)  # fmt: skip
#: Whole-sample jobs (no batch/interactive split): the typeless constants of ``m_lublin99.c``,
#: used when its ``INCLUDE_JOBS_TYPE`` is 0.
LUBLIN99_WHOLE = Lublin99Params(
    serial_prob=0.244, pow2_prob=0.576, ulow=0.8, umed=4.5, uhi=7.0, uprob=0.86,
    a1=4.2, b1=0.94, a2=312.0, b2=0.03, pa=-0.0054, pb=0.78,
    aarr=10.2303, barr=0.4871, anum=8.1737, bnum=3.9631, arar=1.0225,
)  # fmt: skip
#: Machine size the reference parameters describe (``UHI_BATCH = 7``: 2**7 processors).
LUBLIN99_REFERENCE_PROCS = 128
#: Longest runtime the model generates: ln(runtime) <= ``TOO_MUCH_TIME`` = 12 (about 45 h).
LUBLIN99_MAX_RUNTIME = int(math.exp(12))

_INTERACTIVE, _BATCH = 0, 1  # ``ACTIVE`` and ``BATCH`` array indices of the C code
_MAX_LOG_RUNTIME = 12.0  # TOO_MUCH_TIME
_MAX_LOG_INTERARRIVAL = 13.0  # TOO_MUCH_ARRIVE_TIME
_BUCKETS = 48  # half hours
_SECONDS_IN_BUCKET = 86400 // _BUCKETS
_CYCLIC_DAY_START = 11
_ITER_MAX = 1000
_EPS = 1e-10
#: Maximum estimate used with ``estimates="tsafrir"``: 48 h, the first round value above
#: `LUBLIN99_MAX_RUNTIME`, so every job gets an estimate >= its runtime.
_TSAFRIR_MAX_ESTIMATE = 48 * 3600


# ----------------------------------------------------------------------------------------------
# Daily cycle: gamma cdf (Numerical Recipes gser/gcf, as in the C code) and bucket weights
# ----------------------------------------------------------------------------------------------


def _gamma_series(x: float, a: float) -> float:
    total = monom = 1.0 / a
    aa = a
    for _ in range(_ITER_MAX):
        aa += 1.0
        monom *= x / aa
        total += monom
        if monom < total * _EPS:
            return total * math.exp(-x + a * math.log(x) - math.lgamma(a))
    raise MarketError(f"gamma cdf series did not converge at x={x}, a={a}")


def _gamma_fraction(x: float, a: float) -> float:
    gold = 0.0
    a0, a1, b0, b1, fac = 1.0, x, 0.0, 1.0, 1.0
    for i in range(1, _ITER_MAX + 1):
        ana = i - a
        a0 = (a1 + a0 * ana) * fac
        b0 = (b1 + b0 * ana) * fac
        anf = i * fac
        a1 = x * a0 + anf * a1
        b1 = x * b0 + anf * b1
        if a1 != 0.0:
            fac = 1.0 / a1
            g = b1 * fac
            if abs((g - gold) / g) < _EPS:
                return g * math.exp(-x + a * math.log(x) - math.lgamma(a))
            gold = g
    raise MarketError(f"gamma cdf continued fraction did not converge at x={x}, a={a}")


def _gamma_cdf(x: float, alpha: float, beta: float) -> float:
    """P(X <= x) for X ~ gamma(shape ``alpha``, scale ``beta``), as ``gamcdf`` in the C code."""
    x /= beta
    if x < alpha + 1.0:
        return _gamma_series(x, alpha)
    return 1.0 - _gamma_fraction(x, alpha)


def _bucket_weights(params: Lublin99Params) -> list[float]:
    """Relative arrival rate of each half hour of the day, mean 1 (``arrive_init``).

    Bucket ``i`` of the shifted day ``CYCLIC_DAY_START .. 48 + CYCLIC_DAY_START - 1`` weighs
    ``cdf(i + 0.5) - cdf(i - 0.5)`` of gamma(anum, bnum) and lands in half hour ``(i - 1) % 48``.
    """
    weights = [0.0] * _BUCKETS
    for i in range(_CYCLIC_DAY_START, _BUCKETS + _CYCLIC_DAY_START):
        weights[(i - 1) % _BUCKETS] = _gamma_cdf(i + 0.5, params.anum, params.bnum) - _gamma_cdf(
            i - 0.5, params.anum, params.bnum
        )
    mean = sum(weights) / _BUCKETS
    return [w / mean for w in weights]


class _Arrivals:
    """The arrival process of one job class (``calc_next_arrive``): next time, bucket, points."""

    __slots__ = ("weights", "shape", "scale", "bucket", "points", "reminder", "time")

    def __init__(self, params: Lublin99Params) -> None:
        self.weights = _bucket_weights(params)
        self.shape = params.aarr * params.arar
        self.scale = params.barr
        self.bucket = 0  # START = 0: midnight
        self.points = 0.0
        self.reminder = 0.0
        self.time = 0

    def advance(self, rng: np.random.Generator) -> None:
        """Draw the class's next arrival time.

        A gamma draw g gives exp(g) seconds' worth of "points" at peak rate; each half-hour
        bucket costs its weight in points, so the clock runs fast through quiet hours and
        arrivals crowd into busy ones.
        """
        while True:
            gam = rng.gamma(self.shape, self.scale)
            if gam <= _MAX_LOG_INTERARRIVAL:
                break
        weights = self.weights
        bucket = self.bucket
        points = self.points + math.exp(gam) / _SECONDS_IN_BUCKET
        next_arrive = 0.0
        while points > weights[bucket]:
            points -= weights[bucket]
            bucket = (bucket + 1) % _BUCKETS
            next_arrive += _SECONDS_IN_BUCKET
        new_reminder = points / weights[bucket]
        next_arrive += _SECONDS_IN_BUCKET * (new_reminder - self.reminder)
        self.reminder = new_reminder
        self.points = points
        self.bucket = bucket
        # C: `unsigned long += double`, i.e. truncation of the sum
        self.time = int(self.time + next_arrive)


# ----------------------------------------------------------------------------------------------
# Sizes and runtimes
# ----------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Sizes:
    """Size parameters of one class fitted to a machine of ``procs`` processors."""

    serial_prob: float
    pow2_prob: float
    ulow: float
    umed: float
    uhi: float
    uprob: float

    @classmethod
    def for_machine(cls, params: Lublin99Params, procs: int) -> _Sizes:
        shift = math.log2(procs) - math.log2(LUBLIN99_REFERENCE_PROCS)
        uhi = max(params.uhi + shift, 0.0)  # log2(size) >= 0: every job has a processor
        ulow = min(params.ulow, uhi)
        umed = min(max(params.umed + shift, ulow), uhi)
        return cls(params.serial_prob, params.pow2_prob, ulow, umed, uhi, params.uprob)


def _size(sizes: _Sizes, rng: np.random.Generator) -> int:
    """``calc_number_of_nodes``: serial, power of two, or 2**two-stage-uniform, rounded."""
    u = rng.random()
    if u <= sizes.serial_prob:
        return 1
    if rng.random() <= sizes.uprob:
        low, high = sizes.ulow, sizes.umed
    else:
        low, high = sizes.umed, sizes.uhi
    par = rng.random() * (high - low) + low
    if u <= sizes.serial_prob + sizes.pow2_prob:
        par = math.floor(par + 0.5)
    return math.floor(2.0**par + 0.5)


def _runtime(params: Lublin99Params, nodes: int, rng: np.random.Generator) -> int:
    """``time_from_nodes``: exp of a hyper-gamma draw whose mixing depends on the size."""
    p = min(max(params.pa * nodes + params.pb, 0.0), 1.0)
    while True:
        hg = rng.gamma(params.a1, params.b1) if rng.random() <= p else rng.gamma(params.a2, params.b2)
        if hg <= _MAX_LOG_RUNTIME:
            return int(math.exp(hg))


def _generate(
    n_jobs: int, procs: int, rng: np.random.Generator, *, job_types: bool = True
) -> tuple[list[int], list[int], list[int], list[int], int]:
    """Submit times, sizes, runtimes and classes (0 interactive, 1 batch) of ``n_jobs`` jobs,
    plus the number of sizes capped at ``procs``.

    With ``job_types=False`` every job is of class 0 and uses `LUBLIN99_WHOLE`.
    """
    params = (LUBLIN99_INTERACTIVE, LUBLIN99_BATCH) if job_types else (LUBLIN99_WHOLE, LUBLIN99_WHOLE)
    sizes = tuple(_Sizes.for_machine(p, procs) for p in params)
    arrivals = (_Arrivals(params[_INTERACTIVE]), _Arrivals(params[_BATCH]))
    arrivals[_BATCH].advance(rng)  # the C code's arrive_init order
    arrivals[_INTERACTIVE].advance(rng)
    submits, nodes_list, runtimes, kinds = [], [], [], []
    n_capped = 0
    for _ in range(n_jobs):
        kind = _BATCH if job_types and arrivals[_BATCH].time < arrivals[_INTERACTIVE].time else _INTERACTIVE
        submits.append(arrivals[kind].time)
        arrivals[kind].advance(rng)
        nodes = _size(sizes[kind], rng)
        if nodes > procs:
            nodes = procs
            n_capped += 1
        nodes_list.append(nodes)
        runtimes.append(_runtime(params[kind], nodes, rng))
        kinds.append(kind)
    return submits, nodes_list, runtimes, kinds, n_capped


def lublin_workload(
    n_jobs: int,
    *,
    procs: int = 256,
    rng: np.random.Generator,
    estimates: str | None = None,
    job_types: bool = True,
) -> Workload:
    """Generate ``n_jobs`` rigid jobs from the Lublin-Feitelson 2003 model.

    Parameters
    ----------
    n_jobs : int
        Number of jobs, >= 1.
    procs : int, default 256
        Machine size. Job sizes follow the reference parameters shifted to this machine (see
        Notes) and are capped at ``procs``.
    rng : numpy.random.Generator
        Source of randomness; the same seed gives the same workload.
    estimates : {None, "exact", "tsafrir"}, default None
        ``None`` or ``"exact"``: every estimate equals the runtime (the model has no
        estimates). ``"tsafrir"``: estimates from `gridmarket.workloads.tsafrir.tsafrir_estimates`
        with a 48 h maximum estimate, drawn from ``rng`` after the jobs.
    job_types : bool, default True
        ``True``: batch and interactive jobs, each class with its own parameters
        (``INCLUDE_JOBS_TYPE 1`` in the C code, its default). ``False``: one class with the
        model's "whole sample" parameters `LUBLIN99_WHOLE` (``INCLUDE_JOBS_TYPE 0``), as in
        the sample logs generated with the C code such as ``lublin_256.swf``.

    Returns
    -------
    Workload
        Jobs with ids 1..n in submit order, ``max_procs = procs``, named
        ``"lublin99-<procs>"``. The header counts the jobs of each class
        (``gridmarket.n_batch``, ``gridmarket.n_interactive``; `Job` has no class field) and
        the sizes capped at ``procs`` (``gridmarket.sizes_capped``).

    Raises
    ------
    InvalidInput
        If ``n_jobs`` or ``procs`` is not a positive int, ``rng`` is not a Generator, or
        ``estimates`` is not one of the values above.

    Notes
    -----
    The model, as coded in ``m_lublin99.c`` (parameters: `LUBLIN99_BATCH`,
    `LUBLIN99_INTERACTIVE`, or `LUBLIN99_WHOLE`):

    * Arrivals. Each class has its own arrival process. ln(inter-arrival seconds at peak
      rate) ~ gamma(aarr * arar, barr), redrawn above 13; the day's 48 half-hour buckets are
      weighted by gamma(anum, bnum) over a day shifted to start at bucket 11, and the
      inter-arrival time is stretched through light buckets. The next job is of the class
      whose next arrival is earlier (interactive on ties). The workload starts at midnight.
    * Sizes. Serial with probability ``serial_prob``; otherwise log2(size) is two-stage
      uniform on ``[ulow, umed]`` (probability ``uprob``) or ``[umed, uhi]``, rounded to an
      integer (a power-of-two size) with probability ``pow2_prob``; size =
      round(2**log2size).
    * Runtimes. ln(runtime seconds) is hyper-gamma: gamma(a1, b1) with probability
      ``p = pa * size + pb`` (clipped to [0, 1]), else gamma(a2, b2); redrawn above 12.
      Note that the reference code makes ``p`` linear in the size itself, not in log2(size);
      we follow the code.

    Machine size: the reference parameters describe a 128-processor machine
    (``UHI_BATCH = 7``). For other sizes, ``uhi`` and ``umed`` of both classes are shifted by
    log2(procs / 128), keeping their distances from the top as the C code's comments advise
    (``UMed`` 1.5-3.5 below ``UHi``); ``ulow`` stays. On machines of a few processors
    ``0 <= ulow <= umed <= uhi`` is enforced, so every size is at least 1. With
    ``procs=128`` the reference values are used as they are. Sizes above ``procs`` (possible
    when ``procs`` is not a power of two) are capped and counted.

    Random variates come from ``rng`` (numpy's gamma and uniform generators) instead of the C
    code's ``drand48`` and Jain's gamma method: the distributions are the same, the numbers
    are not. Runtimes and arrival times are truncated to whole seconds as in the C code.
    With ``job_types=False`` and ``procs=256`` the sizes, runtimes and inter-arrival times
    agree (two-sample Kolmogorov-Smirnov) with ``lublin_256.swf``, a 10,000-job log that the C
    code generated (the tests check this).

    Complexity: O(n_jobs) with a few random draws per job.

    Examples
    --------
    >>> import numpy as np
    >>> w = lublin_workload(200, procs=64, rng=np.random.default_rng(7))
    >>> len(w), w.max_procs, w.name
    (200, 64, 'lublin99-64')
    >>> all(1 <= j.procs <= 64 and j.estimate == j.runtime for j in w.jobs)
    True
    >>> w == lublin_workload(200, procs=64, rng=np.random.default_rng(7))
    True
    """
    for name, value in (("n_jobs", n_jobs), ("procs", procs)):
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise InvalidInput(f"lublin_workload: {name} must be an int >= 1, got {value!r}")
    if not isinstance(rng, np.random.Generator):
        raise InvalidInput(f"lublin_workload: rng must be a numpy.random.Generator, got {rng!r}")
    if not isinstance(job_types, bool):
        raise InvalidInput(f"lublin_workload: job_types must be a bool, got {job_types!r}")
    if estimates not in (None, "exact", "tsafrir"):
        raise InvalidInput(
            f"lublin_workload: estimates must be None, 'exact' or 'tsafrir', got {estimates!r}"
        )
    submits, nodes, runtimes, kinds, n_capped = _generate(n_jobs, procs, rng, job_types=job_types)
    jobs = tuple(
        Job(i, submit, size, runtime, runtime)
        for i, (submit, size, runtime) in enumerate(zip(submits, nodes, runtimes), 1)
    )
    n_batch = sum(kinds)
    workload = Workload(
        jobs,
        max_procs=procs,
        name=f"lublin99-{procs}",
        header={
            "Acknowledge": "Uri Lublin, Hebrew University (model); gridmarket (port)",
            "MaxRuntime": str(LUBLIN99_MAX_RUNTIME),
            "gridmarket.model": "lublin99 (m_lublin99.c parameters"
            + ("" if job_types else ", whole sample")
            + ")",
            "gridmarket.n_batch": str(n_batch),
            "gridmarket.n_interactive": str(n_jobs - n_batch),
            "gridmarket.sizes_capped": str(n_capped),
        },
    )
    if estimates == "tsafrir":
        from gridmarket.workloads.tsafrir import tsafrir_estimates

        workload = tsafrir_estimates(workload, max_estimate=_TSAFRIR_MAX_ESTIMATE, rng=rng)
    return workload
