"""Confidence intervals of a metric over seeds: the Student-t 95 % interval of the mean.

Used by the results folder (:mod:`gridmarket.scenarios.results`), its plots
(:mod:`gridmarket.scenarios.plots`) and the reproductions' several-seed reports; unitless (a
metric's values keep their units).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

__all__ = ["ci95"]


def ci95(values: Sequence[float]) -> tuple[float, float, float]:
    """``(mean, low, high)`` of ``values``: the Student-t 95 % interval of the mean over seeds.

    NaN values are left out; with one value the interval is ``(nan, nan)``;
    with all values equal it is that value.

    >>> ci95([1.0, 2.0, 3.0])  # t(0.975, 2) = 4.3027, s = 1
    (2.0, -0.48413771175033027, 4.48413771175033)
    >>> ci95([5.0])
    (5.0, nan, nan)
    """
    xs = [float(v) for v in values if v is not None and not math.isnan(v)]
    if not xs:
        return math.nan, math.nan, math.nan
    m = sum(xs) / len(xs)
    if len(xs) == 1:
        return m, math.nan, math.nan
    from scipy.special import stdtrit

    s = math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1))
    half = float(stdtrit(len(xs) - 1, 0.975)) * s / math.sqrt(len(xs))
    return m, m - half, m + half
