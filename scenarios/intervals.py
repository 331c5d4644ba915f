"""Confidence intervals of a metric over seeds, inside the metric's range.

Two 95 % intervals of the mean over seeds, chosen by the range of the metric
(:mod:`gridmarket.vocabulary`, ``Metric.low``):

- a metric bounded below (waits, costs, slowdowns, shares: nearly all) gets the bootstrap
  percentile interval (:data:`BOOTSTRAP`): the 2.5th and 97.5th percentiles of the means of
  :data:`RESAMPLES` resamples of the seeds' values, drawn with a fixed seed (:data:`BOOTSTRAP_SEED`)
  so a report is reproducible. A resample's mean lies between the smallest and the largest value, so
  the interval never leaves the metric's range; with few seeds it is narrower than the t interval
  (it undercovers: Efron & Tibshirani 1993, ch. 13), which the method's name says.
- a metric unbounded below (a surplus, a net revenue) keeps the Student-t interval (:data:`STUDENT_T`,
  :func:`ci95`).

Used by the results folder (:mod:`gridmarket.scenarios.results`), the sweep's table and plots
(:mod:`gridmarket.plots`, drawn from the tables) and the reproductions' several-seed reports; unitless (a metric's
values keep their units).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["BOOTSTRAP", "BOOTSTRAP_SEED", "RESAMPLES", "STUDENT_T", "Interval", "bootstrap95", "ci95", "interval",
           "interval_of"]

STUDENT_T = "Student t"
"""The name of :func:`ci95`'s method, as outputs print it."""

RESAMPLES = 9999
"""Bootstrap resamples of the seeds per interval."""

BOOTSTRAP_SEED = 0
"""Seed of the bootstrap's resampling: the same values always give the same interval."""

BOOTSTRAP = "bootstrap percentile"
"""The name of :func:`bootstrap95`'s method, as outputs print it."""


@dataclass(frozen=True, slots=True)
class Interval:
    """A mean over seeds and its 95 % interval ``[low, high]`` (NaN with fewer than two values), by ``method``."""

    mean: float
    low: float
    high: float
    n: int
    method: str


def _finite(values: Sequence[float]) -> list[float]:
    return [float(v) for v in values if v is not None and not math.isnan(v)]


def ci95(values: Sequence[float]) -> tuple[float, float, float]:
    """``(mean, low, high)`` of ``values``: the Student-t 95 % interval of the mean over seeds.

    NaN values are left out; with one value the interval is ``(nan, nan)``;
    with all values equal it is that value. The interval can leave a metric's range
    (a wait's can go below 0): :func:`interval_of` uses it only for unbounded metrics.

    >>> ci95([1.0, 2.0, 3.0])  # t(0.975, 2) = 4.3027, s = 1
    (2.0, -0.48413771175033027, 4.48413771175033)
    >>> ci95([5.0])
    (5.0, nan, nan)
    """
    xs = _finite(values)
    if not xs:
        return math.nan, math.nan, math.nan
    m = sum(xs) / len(xs)
    if len(xs) == 1:
        return m, math.nan, math.nan
    from scipy.special import stdtrit

    s = math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1))
    half = float(stdtrit(len(xs) - 1, 0.975)) * s / math.sqrt(len(xs))
    return m, m - half, m + half


def bootstrap95(values: Sequence[float]) -> tuple[float, float, float]:
    """``(mean, low, high)`` of ``values``: the bootstrap percentile 95 % interval of the mean over seeds.

    The means of :data:`RESAMPLES` resamples (with replacement, as many as the values; a generator
    seeded with :data:`BOOTSTRAP_SEED`) and their 2.5th and 97.5th percentiles (the percentile method of
    ``scipy.stats.bootstrap``, done here in one numpy draw: scipy's takes 16 ms a call, a sweep's table
    makes thousands). NaN values are left out; with one value the interval is ``(nan, nan)``; with
    all values equal it is that value. ``low`` and ``high`` lie within ``[min(values), max(values)]``.

    >>> m, lo, hi = bootstrap95([0.0, 0.0, 0.0, 100.0])
    >>> m, lo >= 0.0, hi <= 100.0
    (25.0, True, True)
    """
    xs = _finite(values)
    if not xs:
        return math.nan, math.nan, math.nan
    m = sum(xs) / len(xs)
    if len(xs) == 1:
        return m, math.nan, math.nan
    if min(xs) == max(xs):
        return m, xs[0], xs[0]
    import numpy as np

    data = np.asarray(xs)
    picks = np.random.default_rng(BOOTSTRAP_SEED).integers(0, len(data), size=(RESAMPLES, len(data)))
    low, high = np.percentile(data[picks].mean(axis=1), [2.5, 97.5])
    return m, float(low), float(high)


def interval(values: Sequence[float], *, low: float | None) -> Interval:
    """The 95 % interval over seeds of a figure whose lowest possible value is ``low`` (None: unbounded).

    Bounded: :func:`bootstrap95`, which stays within the values and so within the range; unbounded:
    :func:`ci95`.

    >>> interval([0, 0, 0, 100], low=0.0).low, interval([0, 0, 0, 100], low=None).low < 0
    (0.0, True)
    """
    bounded = low is not None
    m, lo, hi = (bootstrap95 if bounded else ci95)(values)
    return Interval(m, lo, hi, len(_finite(values)), BOOTSTRAP if bounded else STUDENT_T)


def interval_of(metric: str, values: Sequence[float]) -> Interval:
    """The 95 % interval over seeds of the metric called ``metric``, by the method its range calls for.

    A metric of :mod:`gridmarket.vocabulary` with a lowest value (``Metric.low`` not None) gets
    :func:`bootstrap95`; one unbounded below, or a name outside the vocabulary, :func:`ci95`.

    >>> interval_of("mean_wait", [0, 0, 0, 100]).low >= 0
    True
    >>> interval_of("users_surplus", [1.0, 2.0, 3.0]).method == STUDENT_T
    True
    """
    from gridmarket.vocabulary import is_metric
    from gridmarket.vocabulary import metric as lookup

    return interval(values, low=lookup(metric).low if is_metric(metric) else None)
