"""Nadir-utopia normalised job/system costs, eqs. (4)-(6) of Murali & Vadhiyar.

Sec. 3.3.1: in each cycle the predicted response times ``T`` and electricity
costs ``E`` of every compatible (job, system) pair are normalised by their
minimum (utopia) and maximum (nadir) over the cycle, ``C_T = (T - Tmin) /
(Tmax - Tmin)`` (eq. 4), ``C_E = (E - Emin) / (Emax - Emin)`` (eq. 5), and
combined as ``C = w_t C_T + (100 - w_t) C_E`` (eq. 6), ``w_t`` in percent.
Response times are seconds; electricity costs are currency.
"""

from __future__ import annotations

import numpy as np

from gridmarket.errors import InvalidInput

__all__ = ["combined_cost", "nadir_utopia"]


def nadir_utopia(values: np.ndarray) -> np.ndarray:
    """Scale finite entries to [0, 1] by the min and max over the finite entries (eqs. 4-5).

    NaN (incompatible) entries stay NaN. When every finite entry is equal the
    spread is zero and all of them map to 0 (no preference either way).

    >>> nadir_utopia(np.array([[10.0, 30.0], [np.nan, 20.0]])).tolist()
    [[0.0, 1.0], [nan, 0.5]]
    """
    values = np.asarray(values, dtype=float)
    finite = np.isfinite(values)
    if not finite.any():
        return np.full(values.shape, np.nan)
    if np.isinf(values).any():
        raise InvalidInput("values must be finite or NaN (incompatible); got an infinity")
    lo, hi = values[finite].min(), values[finite].max()
    if hi == lo:
        return np.where(finite, 0.0, np.nan)
    return (values - lo) / (hi - lo)


def combined_cost(response: np.ndarray, energy: np.ndarray, w_t: float) -> np.ndarray:
    """Eq. (6): ``w_t * C_T + (100 - w_t) * C_E`` with both terms normalised per cycle.

    Parameters
    ----------
    response : array, shape (n_jobs, n_systems)
        Predicted response times (s); NaN where incompatible.
    energy : array, same shape
        Predicted electricity costs; NaN where incompatible (must agree with
        ``response``). May be negative: day-ahead prices go below zero, and
        eq. (5) only shifts and scales.
    w_t : float
        Weight of response time, in percent (0..100).

    Returns
    -------
    numpy.ndarray
        Costs in [0, 100]; NaN where incompatible.

    Raises
    ------
    InvalidInput
        ``w_t`` outside [0, 100], shapes or NaN patterns that disagree, negative response times.

    Examples
    --------
    >>> T = np.array([[100.0, 300.0]]); E = np.array([[2.0, 1.0]])
    >>> combined_cost(T, E, 25).tolist()
    [[75.0, 25.0]]
    """
    if not 0 <= w_t <= 100:
        raise InvalidInput(f"w_t must be in [0, 100] percent, got {w_t!r}")
    response, energy = np.asarray(response, float), np.asarray(energy, float)
    if response.shape != energy.shape:
        raise InvalidInput(f"response {response.shape} and energy {energy.shape} shapes differ")
    if not np.array_equal(np.isnan(response), np.isnan(energy)):
        raise InvalidInput("response and energy disagree on which pairs are incompatible (NaN)")
    if (response[~np.isnan(response)] < 0).any():
        raise InvalidInput("response times must be >= 0")
    return w_t * nadir_utopia(response) + (100.0 - w_t) * nadir_utopia(energy)
