"""Electricity cost of a job's execution, eq. (7), and the service unit cost (SUC).

Murali & Vadhiyar, sec. 4.6, eq. (7): ``e(J_i, S_j) = sum_t P_ij * Delta *
phi_Sj(t)`` over the hours of execution, with ``P_ij`` the job's power in
watts, ``Delta`` = 1 h the day-ahead market period and ``phi`` the hourly
price. Sec. 5.5 defines SUC = average price x power per core, the cost of one
core-hour. Times are integer seconds; prices ``price_per_mwh``; costs in the
price series' currency.
"""

from __future__ import annotations

import numpy as np

from gridmarket.energy.prices import HourlyPrices
from gridmarket.energy.systems import GridSystem
from gridmarket.errors import InvalidInput

__all__ = ["WH_PER_MWH", "electricity_cost", "electricity_costs", "service_unit_cost"]

WH_PER_MWH = 1_000_000.0
"""Watt-hours in one megawatt-hour: converts watts x hours x price_per_mwh to currency."""


def electricity_cost(watts: float, start: int, end: int, prices: HourlyPrices) -> float:
    """Cost of drawing ``watts`` over ``[start, end)`` under hourly ``prices`` (eq. 7).

    Parameters
    ----------
    watts : float
        Power of the job, >= 0.
    start, end : int
        Seconds of simulation time, ``0 <= start <= end <= prices.end_time``.
    prices : HourlyPrices

    Returns
    -------
    float
        ``watts / 1e6 * sum_h overlap_hours(h) * price(h)`` in the series' currency.

    Notes
    -----
    Eq. (7) sums whole hours; a job that starts or ends inside an hour is
    charged for the fraction of that hour it runs (the exact integral of the
    step price), so cost is additive over any split of the run. Complexity O(1)
    through the series' cumulative sums.

    Examples
    --------
    1 kW for 1.5 h across a 10 -> 30 price step: 1 kWh at 10 + 0.5 kWh at 30 per MWh.

    >>> electricity_cost(1000.0, 0, 5400, HourlyPrices([10.0, 30.0]))
    0.025
    """
    if not watts >= 0:
        raise InvalidInput(f"watts must be >= 0, got {watts!r}")
    if end < start:
        raise InvalidInput(f"execution ends at {end}, before it starts at {start}")
    return float(watts) * float(prices.integral(int(start), int(end))) / WH_PER_MWH


def electricity_costs(watts: np.ndarray, start: np.ndarray, end: np.ndarray, prices: HourlyPrices) -> np.ndarray:
    """Vectorised `electricity_cost` for many executions under one price series.

    >>> electricity_costs(np.array([1000.0, 2000.0]), np.array([0, 0]), np.array([3600, 3600]),
    ...                   HourlyPrices([10.0, 30.0])).tolist()
    [0.01, 0.02]
    """
    watts, start, end = np.asarray(watts, float), np.asarray(start), np.asarray(end)
    if watts.size and (watts.min() < 0 or np.isnan(watts).any()):
        raise InvalidInput("watts must be >= 0 and not NaN")
    if (end < start).any():
        k = int(np.flatnonzero(end < start)[0])
        raise InvalidInput(f"execution {k} ends at {end[k]}, before it starts at {start[k]}")
    return watts * prices.integral(start, end) / WH_PER_MWH


def service_unit_cost(system: GridSystem, prices: HourlyPrices) -> float:
    """SUC: mean price x power per core, the electricity cost of one core-hour (sec. 5.5).

    >>> from gridmarket.energy.systems import GridSystem
    >>> s = GridSystem("s", 8, 3600, watts_per_core=50.0, gflops_per_core=10.0)
    >>> service_unit_cost(s, HourlyPrices([20.0, 40.0]))
    0.0015
    """
    return float(np.mean(prices.prices)) * system.watts_per_core / WH_PER_MWH
