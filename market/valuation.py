"""Users' valuations: what completing a job or workflow by a given time is worth.

A utility of completion time with a deadline and linear decay, the form used by value-based batch
and grid schedulers (B. N. Chun, D. E. Culler, "User-centric performance analysis of market-based
cluster batch schedulers", CCGrid 2002: value falls linearly with delay; D. Irwin, L. Grit, J. Chase,
"Balancing risk and reward in a market-based task service", HPDC 2004). Here the value is bounded
below by zero (a late job is worth nothing, not a penalty): the full ``value`` up to the ``deadline``,
then falling linearly to zero over ``grace`` seconds.

Units: times are integer seconds from simulation start; values are SU (processor-hours at the
base rate ``gridmarket.pricing.BASE_RATE``), the unit of prices, so value minus price is a surplus.

:func:`draw_valuations` gives every job (and workflow) of a workload a valuation from one seeded
generator: the value is the request's base-rate cost ``n x estimate x c`` times a factor drawn
uniformly from ``value_factor`` (a user pays at most that many times the base rate), the deadline
is the submit time plus the estimate times a slack drawn from ``slack``, and the grace equals the
time allowed (deadline - submit): a job finishing twice as late as allowed is worth nothing.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from gridmarket.errors import InvalidInput

__all__ = ["VALUE_FACTOR", "SLACK", "Valuation", "draw_valuation", "draw_valuations", "realised_values"]

VALUE_FACTOR = (1.0, 3.0)
"""Default range of value / base-rate cost (SU per SU)."""

SLACK = (1.5, 5.0)
"""Default range of (deadline - submit) / estimate."""


def _number(where: str, value, low: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < low:
        raise InvalidInput(f"{where} must be a finite number >= {low}, got {value!r}")
    return float(value)


@dataclass(frozen=True, slots=True)
class Valuation:
    """``value`` SU for completing by ``deadline`` s, falling linearly to 0 at ``deadline + grace`` s.

    Examples
    --------
    >>> v = Valuation(value=10.0, deadline=100, grace=50)
    >>> v.utility(80), v.utility(125), v.utility(150), v.utility(400)
    (10.0, 5.0, 0.0, 0.0)
    """

    value: float
    deadline: int
    grace: int

    def __post_init__(self) -> None:
        _number("valuation value (SU)", self.value, 0.0)
        for key, low in (("deadline", 0), ("grace", 1)):
            v = getattr(self, key)
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < low:
                raise InvalidInput(f"valuation {key} must be an int >= {low} s, got {v!r}")

    def utility(self, end: float) -> float:
        """Value (SU) of completing at ``end`` s: ``value`` by the deadline, then linear decay to 0."""
        late = end - self.deadline
        if late <= 0:
            return self.value
        return self.value * max(0.0, 1.0 - late / self.grace)


def _check_range(name: str, pair, low: float) -> tuple[float, float]:
    if not isinstance(pair, (tuple, list)) or len(pair) != 2:
        raise InvalidInput(f"{name} must be a pair (low, high), got {pair!r}")
    a, b = _number(f"{name}[0]", pair[0], low), _number(f"{name}[1]", pair[1], low)
    if a > b:
        raise InvalidInput(f"{name} must have low <= high, got {pair!r}")
    return a, b


def draw_valuation(submit: int, work_su: float, span: int, *, rng: np.random.Generator,
                   value_factor: tuple[float, float] = VALUE_FACTOR,
                   slack: tuple[float, float] = SLACK) -> Valuation:
    """One request's valuation: submitted at ``submit`` s, ``work_su`` SU at the base rate, ``span`` s long.

    ``span`` is the job's estimate or the workflow's critical path (seconds). Two draws from ``rng``.

    >>> v = draw_valuation(0, 2.0, 3600, rng=np.random.default_rng(1), value_factor=(2, 2), slack=(3, 3))
    >>> v
    Valuation(value=4.0, deadline=10800, grace=10800)
    """
    lo, hi = _check_range("value_factor", value_factor, 0.0)
    s_lo, s_hi = _check_range("slack", slack, 1.0)
    _number("work_su", work_su, 0.0)
    if isinstance(span, bool) or not isinstance(span, (int, np.integer)) or span < 1:
        raise InvalidInput(f"span must be an int >= 1 s, got {span!r}")
    factor, k = rng.uniform(lo, hi), rng.uniform(s_lo, s_hi)
    allowed = max(1, math.ceil(k * span))
    return Valuation(float(work_su * factor), int(submit) + allowed, allowed)


def draw_valuations(requests: Iterable[tuple[int, int, float, int]], *, rng: np.random.Generator,
                    value_factor: tuple[float, float] = VALUE_FACTOR,
                    slack: tuple[float, float] = SLACK) -> dict[int, Valuation]:
    """Valuations of ``(id, submit s, work SU, span s)`` requests, in order, from one generator.

    >>> vs = draw_valuations([(1, 0, 1.0, 600), (2, 60, 4.0, 3600)], rng=np.random.default_rng(0))
    >>> sorted(vs), all(v.deadline > 0 for v in vs.values())
    ([1, 2], True)
    """
    out = {}
    for key, submit, work, span in requests:
        if key in out:
            raise InvalidInput(f"valuations: request id {key!r} appears twice")
        out[key] = draw_valuation(submit, work, span, rng=rng, value_factor=value_factor, slack=slack)
    return out


def realised_values(ends: Mapping[int, float], valuations: Mapping[int, Valuation]) -> dict[int, float]:
    """Each valued request's utility at its end time (SU); a request that never ended is worth 0.

    >>> realised_values({1: 50}, {1: Valuation(3.0, 100, 10), 2: Valuation(5.0, 100, 10)})
    {1: 3.0, 2: 0.0}
    """
    return {k: (v.utility(ends[k]) if k in ends and ends[k] == ends[k] else 0.0) for k, v in valuations.items()}
