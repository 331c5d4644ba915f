"""Jann et al. 1997 workload model: hyper-Erlang distributions of common order per size range.

J. Jann, P. Pattnaik, H. Franke, F. Wang, J. Skovira and J. Riordan, "Modeling of workload in
MPPs", Job Scheduling Strategies for Parallel Processing (JSSPP 1997), LNCS 1291, pp. 95-116.
As the Parallel Workloads Archive's page on the model (``workload/m_jann97``) describes it: the
model is a statistical model of the workload of the 322-node batch partition of the Cornell
Theory Center IBM SP2 from June 25 to September 12, 1996 (17,440 jobs); the range of degrees of
parallelism is divided into sub-ranges by powers of two, and for each range the inter-arrival
times and the service times (runtimes) are each modelled by a *hyper-Erlang distribution of
common order* whose first three moments match the observed ones. Such a distribution has four
parameters: the order ``n`` of both Erlang branches, the probability ``p`` of the first branch and
the two branches' rates. "Most [ranges] required only a single stage, but some required as many
as 7."

Provenance of the numbers. The paper's parameter tables were not available to this project, so
:data:`JANN97_CTC` re-derives them by the model's own method from the model's own data:
:func:`fit_jann97` applied to the jobs of the Parallel Workloads Archive's cleaned CTC SP2 log
(``traces/CTC-SP2-1996-3.1-cln.swf.gz`` of :mod:`gridmarket.datasets`) submitted before 1996-09-12 00:00
US/Eastern (17,534 jobs; the log starts on June 26) with the ten power-of-two ranges 1, 2,
3-4, ..., 257-512. The test suite re-fits the table from the log when the log is present. The
generated workload's mean parallelism (about 10.7) and share of serial jobs (about 41.5 %) agree
with what Liu et al. 2012 (sec. 3.1, Table 1) report for their Jann workload (10.5; 40.8 %).

Within a range the model fixes no size distribution; this module draws sizes from the range's
observed size frequencies in the same period (stored with the table). Runtimes are rounded to
whole seconds (at least 1) and capped at the log's 18-hour limit, ``max_runtime``. Arrivals:
each range is an independent renewal process with its own inter-arrival distribution, and the
workload is their superposition, cut at ``n_jobs`` jobs.

Times are integer seconds from the start of the generated workload.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from gridmarket.errors import InvalidInput
from gridmarket.job import Job
from gridmarket.workloads.workload import Workload

__all__ = [
    "JANN97_CTC",
    "JANN97_MAX_RUNTIME",
    "JANN97_RANGES",
    "HyperErlang",
    "Jann97Range",
    "fit_hyper_erlang",
    "fit_jann97",
    "jann97_workload",
]

#: Power-of-two size ranges of the CTC model (inclusive bounds).
JANN97_RANGES = (
    (1, 1), (2, 2), (3, 4), (5, 8), (9, 16), (17, 32), (33, 64), (65, 128), (129, 256), (257, 512),
)  # fmt: skip
#: Longest runtime of the CTC log's batch queues, seconds (18 hours); generated runtimes are capped here.
JANN97_MAX_RUNTIME = 18 * 3600
_MAX_ORDER = 100


@dataclass(frozen=True, slots=True)
class HyperErlang:
    """Hyper-Erlang distribution of common order: with probability ``p`` an Erlang(``order``,
    ``rate1``), else an Erlang(``order``, ``rate2``). Rates per second.

    Examples
    --------
    >>> h = HyperErlang(order=2, p=0.5, rate1=1.0, rate2=0.5)
    >>> h.moments()
    (3.0, 15.0, 108.0)
    """

    order: int
    p: float
    rate1: float
    rate2: float

    def __post_init__(self) -> None:
        if not isinstance(self.order, int) or self.order < 1:
            raise InvalidInput(f"hyper-Erlang order must be an int >= 1, got {self.order!r}")
        if not 0.0 <= self.p <= 1.0:
            raise InvalidInput(f"hyper-Erlang p must be in [0, 1], got {self.p!r}")
        if not (self.rate1 > 0 and self.rate2 > 0):
            raise InvalidInput(f"hyper-Erlang rates must be > 0, got {self.rate1!r}, {self.rate2!r}")

    def moments(self) -> tuple[float, float, float]:
        """First three raw moments."""
        n = self.order
        c = (n, n * (n + 1), n * (n + 1) * (n + 2))
        a, b = 1.0 / self.rate1, 1.0 / self.rate2
        m1, m2, m3 = (c[k] * (self.p * a ** (k + 1) + (1 - self.p) * b ** (k + 1)) for k in range(3))
        return m1, m2, m3

    def sample(self, size: int, *, rng: np.random.Generator) -> np.ndarray:
        """``size`` draws (seconds, floats)."""
        first = rng.random(size) < self.p
        scale = np.where(first, 1.0 / self.rate1, 1.0 / self.rate2)
        return rng.gamma(self.order, 1.0, size) * scale


def fit_hyper_erlang(m1: float, m2: float, m3: float, *, max_order: int = _MAX_ORDER) -> HyperErlang:
    """The hyper-Erlang distribution of lowest common order matching three raw moments.

    Parameters
    ----------
    m1, m2, m3 : float
        E[X], E[X^2], E[X^3] of a positive random variable.
    max_order : int
        Largest order tried.

    Returns
    -------
    HyperErlang
        For order ``n`` the normalised moments ``mu_k = m_k / (n (n+1) ... (n+k-1))`` are those
        of a two-point distribution on the branch means ``a = 1/rate1``, ``b = 1/rate2`` with
        weights ``p, 1-p``; ``a, b`` are the roots of ``x^2 - s x + q`` with
        ``s = (mu3 - mu1 mu2) / (mu2 - mu1^2)`` and ``q = s mu1 - mu2``. The lowest order with
        real positive roots and ``p`` in [0, 1] is returned (Jann et al. 1997's criterion: the
        fewest stages that reach the moments). When the data's squared coefficient of variation
        is at most ``1/max_order``, or no order fits the third moment, the two-moment fit of the
        lowest order that matches the first two moments is returned: a single Erlang branch
        (``p = 1``) when ``cv^2 <= 1``, else a balanced-means hyper-exponential (order 1).

    Raises
    ------
    InvalidInput
        Moments that are not positive or violate ``m2 >= m1^2``.

    Examples
    --------
    >>> h = fit_hyper_erlang(3.0, 15.0, 108.0)
    >>> h.order, round(h.p, 6), round(h.rate1, 6), round(h.rate2, 6)
    (2, 0.5, 1.0, 0.5)
    >>> fit_hyper_erlang(10.0, 200.0, 6000.0).order   # an exponential: one stage
    1
    """
    if not (m1 > 0 and m2 > 0 and m3 > 0) or m2 < m1 * m1 * (1 - 1e-12):
        raise InvalidInput(f"moments must be positive with m2 >= m1^2, got {m1!r}, {m2!r}, {m3!r}")
    for n in range(1, max_order + 1):
        mu1, mu2, mu3 = m1 / n, m2 / (n * (n + 1)), m3 / (n * (n + 1) * (n + 2))
        var = mu2 - mu1 * mu1
        if abs(var) <= 1e-9 * mu1 * mu1:
            if abs(mu3 - mu1**3) <= 1e-9 * mu1**3:  # exactly an Erlang of order n
                return HyperErlang(n, 1.0, 1.0 / mu1, 1.0 / mu1)
            continue
        if var < 0:
            continue
        s = (mu3 - mu1 * mu2) / var
        q = s * mu1 - mu2
        disc = s * s - 4 * q
        if disc < 0:
            continue
        root = math.sqrt(disc)
        a, b = (s - root) / 2, (s + root) / 2
        if a <= 0 or b <= 0 or b == a:
            continue
        p = (b - mu1) / (b - a)
        if -1e-12 <= p <= 1 + 1e-12:
            return HyperErlang(n, min(1.0, max(0.0, p)), 1.0 / a, 1.0 / b)
    cv2 = m2 / (m1 * m1) - 1
    if cv2 <= 1:
        n = max(1, min(max_order, round(1 / cv2) if cv2 > 0 else max_order))
        return HyperErlang(n, 1.0, n / m1, n / m1)
    p = 0.5 * (1 + math.sqrt((cv2 - 1) / (cv2 + 1)))  # balanced means
    return HyperErlang(1, p, 2 * p / m1, 2 * (1 - p) / m1)


@dataclass(frozen=True, slots=True)
class Jann97Range:
    """One size range of the model.

    Parameters
    ----------
    lo, hi : int
        Inclusive size bounds.
    interarrival, runtime : HyperErlang
        Inter-arrival time (between jobs of this range) and runtime distributions, seconds.
    sizes : tuple of (int, int)
        Observed (size, count) pairs within the range: the within-range size distribution.
    """

    lo: int
    hi: int
    interarrival: HyperErlang
    runtime: HyperErlang
    sizes: tuple[tuple[int, int], ...]


def _moments(x: np.ndarray | Sequence[float]) -> tuple[float, float, float]:
    x = np.asarray(x, dtype=float)
    return float(x.mean()), float((x**2).mean()), float((x**3).mean())


def fit_jann97(
    jobs: Sequence[Job], *, ranges: Sequence[tuple[int, int]] = JANN97_RANGES, max_order: int = _MAX_ORDER
) -> tuple[Jann97Range, ...]:
    """Fit the model to a log: per size range, hyper-Erlang inter-arrival and runtime distributions.

    Parameters
    ----------
    jobs : sequence of Job
        The observed jobs, sorted by submit time.
    ranges : sequence of (int, int)
        Inclusive size ranges; ranges with fewer than two jobs are left out.

    Returns
    -------
    tuple of Jann97Range

    Notes
    -----
    Inter-arrival times are the gaps between consecutive submissions of jobs of the same range
    (zero gaps included; a zero-mean range falls back to 1 s); runtimes are the jobs' runtimes.
    Each is fitted by :func:`fit_hyper_erlang` on its first three sample moments.

    Examples
    --------
    >>> jobs = [Job(i, 10 * i + (i % 3), 1 + i % 2, 50 + 7 * i, 999) for i in range(40)]
    >>> [(r.lo, r.hi, sum(c for _, c in r.sizes)) for r in fit_jann97(jobs)]
    [(1, 1, 20), (2, 2, 20)]
    """
    out = []
    for lo, hi in ranges:
        sel = [j for j in jobs if lo <= j.procs <= hi]
        if len(sel) < 2:
            continue
        gaps = np.diff(np.array([j.submit for j in sel], dtype=float))
        if not gaps.any():  # every job of the range submitted at once
            gaps = np.ones_like(gaps)
        ia = fit_hyper_erlang(*_moments(gaps), max_order=max_order)
        rt = fit_hyper_erlang(*_moments([j.runtime for j in sel]), max_order=max_order)
        counts: dict[int, int] = {}
        for j in sel:
            counts[j.procs] = counts.get(j.procs, 0) + 1
        out.append(Jann97Range(lo, hi, ia, rt, tuple(sorted(counts.items()))))
    return tuple(out)


# Fitted by fit_jann97 to CTC-SP2-1996-3.1-cln jobs submitted before 1996-09-12 00:00 US/Eastern
# (see the module header; tests/market/workloads/test_jann97.py re-derives it from the log).
# fmt: off
JANN97_CTC: tuple[Jann97Range, ...] = (
    Jann97Range(1, 1,
                HyperErlang(1, 0.9305767805354925, 0.0023136058839916883, 0.00014785106894179772),
                HyperErlang(4, 0.6092278840114834, 0.006838431545755066, 0.00011876644434853249),
                ((1, 7284),)),
    Jann97Range(2, 2,
                HyperErlang(1, 0.9045834339307536, 0.000890987395029565, 3.609255630032396e-05),
                HyperErlang(8, 0.6895245520311911, 0.039662390020759566, 0.00017576767747810875),
                ((2, 1711),)),
    Jann97Range(3, 4,
                HyperErlang(1, 0.8701307862342136, 0.001342426938867336, 6.20816231272577e-05),
                HyperErlang(5, 0.7911416118630832, 0.03461135839263078, 0.00014248518439460075),
                ((3, 370), (4, 1946))),
    Jann97Range(5, 8,
                HyperErlang(1, 0.781914073095649, 0.001663684490881574, 7.159664214289135e-05),
                HyperErlang(2, 0.7763919478526616, 0.003053739303363836, 9.538578723191831e-05),
                ((5, 453), (6, 228), (7, 20), (8, 1094))),
    Jann97Range(9, 16,
                HyperErlang(1, 0.8934452619490653, 0.00071115542889181, 6.691484455251644e-05),
                HyperErlang(3, 0.6815664036505967, 0.02741741702213967, 0.00011256799131925771),
                ((9, 134), (10, 395), (11, 37), (12, 186), (14, 10), (15, 62), (16, 1409))),
    Jann97Range(17, 32,
                HyperErlang(1, 0.8762575422802227, 0.0003807012860903334, 3.365800155176088e-05),
                HyperErlang(3, 0.681184124357897, 0.021018148419358406, 0.00010494059837387975),
                ((17, 61), (18, 103), (19, 3), (20, 112), (21, 32), (22, 1), (24, 66), (25, 37), (26, 48), (27, 3), (30, 6), (31, 1), (32, 617))),
    Jann97Range(33, 64,
                HyperErlang(1, 0.5561266422164435, 0.0016087903786837494, 5.5364251486156356e-05),
                HyperErlang(3, 0.5823133097598377, 0.009813220978653097, 0.0001008524028882478),
                ((33, 145), (34, 54), (36, 5), (37, 14), (40, 14), (41, 18), (42, 1), (48, 19), (49, 1), (50, 23), (51, 2), (54, 3), (60, 5), (64, 458))),
    Jann97Range(65, 128,
                HyperErlang(2, 0.49593876087948285, 0.0005117311849406303, 3.33250171789175e-05),
                HyperErlang(5, 0.6810531988319863, 0.14243485121992208, 0.00012183559033273455),
                ((65, 15), (66, 4), (67, 3), (69, 1), (70, 2), (71, 3), (78, 2), (81, 3), (94, 1), (96, 13), (97, 2), (100, 4), (101, 2), (114, 6), (120, 5), (127, 6), (128, 125))),
    Jann97Range(129, 256,
                HyperErlang(2, 0.8296743314679658, 0.0003039401372601585, 5.779210072854513e-06),
                HyperErlang(1, 0.6470780320510012, 0.008297643347463857, 0.00029292438378179873),
                ((129, 52), (130, 2), (150, 3), (161, 1), (175, 1), (180, 1), (184, 2), (192, 6), (200, 9), (250, 1), (256, 20))),
    Jann97Range(257, 512,
                HyperErlang(1, 0.8465095061296064, 1.8160194842266333e-05, 1.6680345350454924e-06),
                HyperErlang(6, 0.7852990552276538, 0.0327758858099882, 0.00014389118449805938),
                ((257, 1), (258, 1), (264, 1), (290, 1), (300, 8), (306, 25), (308, 1), (320, 9), (322, 1))),
)
# fmt: on


def jann97_workload(
    n_jobs: int,
    *,
    rng: np.random.Generator,
    procs: int = 322,
    model: Sequence[Jann97Range] | None = None,
    max_runtime: int = JANN97_MAX_RUNTIME,
) -> Workload:
    """Generate ``n_jobs`` jobs of the Jann et al. 1997 model.

    Parameters
    ----------
    n_jobs : int
        Number of jobs, >= 1.
    rng : numpy.random.Generator
        Source of every draw; the same seed gives the same workload.
    procs : int
        Machine size: sizes above it are clipped to it (the CTC batch partition had 322 nodes).
    model : sequence of Jann97Range, optional
        Fitted ranges; default :data:`JANN97_CTC`.
    max_runtime : int
        Runtimes are capped here, seconds.

    Returns
    -------
    Workload
        Jobs sorted by ``(submit, id)`` with ids 1..n, estimate = runtime (apply
        :func:`gridmarket.workloads.tsafrir_estimates` for user estimates), ``max_procs = procs``.

    Raises
    ------
    InvalidInput
        ``n_jobs < 1``, ``procs < 1``, ``max_runtime < 1``, an empty model.

    Examples
    --------
    >>> w = jann97_workload(200, rng=np.random.default_rng(1))
    >>> len(w), w.max_procs, all(1 <= j.procs <= 322 for j in w.jobs)
    (200, 322, True)
    """
    if not isinstance(n_jobs, int) or isinstance(n_jobs, bool) or n_jobs < 1:
        raise InvalidInput(f"jann97_workload: n_jobs must be an int >= 1, got {n_jobs!r}")
    if not isinstance(procs, int) or procs < 1:
        raise InvalidInput(f"jann97_workload: procs must be an int >= 1, got {procs!r}")
    if not isinstance(max_runtime, int) or max_runtime < 1:
        raise InvalidInput(f"jann97_workload: max_runtime must be an int >= 1 s, got {max_runtime!r}")
    ranges = tuple(model) if model is not None else JANN97_CTC
    if not ranges:
        raise InvalidInput("jann97_workload: the model has no size range")
    # Each range generates n_jobs arrivals (enough: the superposition is cut at n_jobs).
    streams = []
    for k, r in enumerate(ranges):
        arrivals = np.cumsum(r.interarrival.sample(n_jobs, rng=rng))
        runtimes = r.runtime.sample(n_jobs, rng=rng)
        sizes = np.array([s for s, _ in r.sizes])
        weights = np.array([c for _, c in r.sizes], dtype=float)
        chosen = rng.choice(sizes, size=n_jobs, p=weights / weights.sum())
        streams.append((arrivals, np.full(n_jobs, k), runtimes, chosen))
    arrivals = np.concatenate([s[0] for s in streams])
    order = np.argsort(arrivals, kind="stable")[:n_jobs]
    runtimes = np.concatenate([s[2] for s in streams])[order]
    sizes = np.concatenate([s[3] for s in streams])[order]
    submits = np.floor(arrivals[order]).astype(np.int64)
    jobs = []
    for i in range(n_jobs):
        runtime = int(min(max_runtime, max(1, round(float(runtimes[i])))))
        size = int(min(procs, sizes[i]))
        jobs.append(Job(i + 1, int(submits[i]), size, runtime, runtime))
    header = {"gridmarket.model": f"jann97 (CTC SP2 1996 fit, {len(ranges)} ranges)"}
    return Workload(tuple(jobs), max_procs=procs, name="jann97", header=header)
