"""Day-ahead electricity price forecasts with a seasonal ARIMA (Murali & Vadhiyar, sec. 3.2, sec. 5.1.2).

Prices of the current day are known from the day-ahead market; hours past
midnight are forecast by SARIMA with a 24-hour season and unit AR and MA
orders, fitted on the previous three days (sec. 4.3.2). Prices are
``price_per_mwh``; times are integer seconds from simulation start, hour ``k``
covering ``[3600 k, 3600 (k + 1))``.
"""

from __future__ import annotations

import contextlib
import warnings
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from gridmarket.energy.prices import HourlyPrices
from gridmarket.errors import InvalidInput

__all__ = [
    "Forecaster",
    "PriceOutlook",
    "SarimaForecaster",
    "forecast_errors",
    "mean_absolute_percentage_error",
]

_HOUR = 3600
_DAY_HOURS = 24


def mean_absolute_percentage_error(actual: np.ndarray, predicted: np.ndarray, *, floor: float = 1.0) -> float:
    """MAPE in percent: mean of ``|pred - act| / max(|act|, floor)`` x 100.

    The ``floor`` (``price_per_mwh``) keeps hours priced near zero, which real
    markets have, from dominating the mean; hours at or above it are exact MAPE.

    >>> mean_absolute_percentage_error(np.array([10.0, 20.0]), np.array([11.0, 18.0]))
    10.0
    """
    actual, predicted = np.asarray(actual, float), np.asarray(predicted, float)
    if actual.shape != predicted.shape or actual.size == 0:
        raise InvalidInput(f"actual {actual.shape} and predicted {predicted.shape} must be equal, non-empty")
    return float(np.mean(np.abs(predicted - actual) / np.maximum(np.abs(actual), floor)) * 100.0)


class Forecaster(Protocol):
    """What :class:`PriceOutlook` asks of a forecaster: the next ``horizon`` hourly prices after ``history``."""

    def forecast(self, history: np.ndarray, horizon: int) -> np.ndarray: ...


@dataclass(frozen=True)
class SarimaForecaster:
    """SARIMA(p,d,q)x(P,D,Q,24) fitted with statsmodels on a short history.

    Parameters
    ----------
    order : (int, int, int), default (1, 0, 1)
    seasonal_order : (int, int, int, int), default (1, 1, 1, 24)
        Unit AR and MA terms, seasonal and non-seasonal (sec. 3.2); one
        seasonal difference removes the daily level (our choice: the paper
        does not state the differencing orders).
    maxiter : int, default 50
        Optimizer iterations of the likelihood fit.

    Notes
    -----
    The model is fitted with ``simple_differencing=True`` (the seasonal
    difference is taken before the Kalman filter, halving the state) and
    without a parameter covariance (``cov_type="none"``), and run with one BLAS
    thread: this makes one fit on 72 hours take about a second instead of ten
    on a 2-core machine, with the same forecasts. If the optimiser fails the
    forecaster falls back to the seasonal naive forecast (yesterday's prices)
    and warns. A fit depends only on the history and the settings, so its
    forecast is kept (up to ``_KEPT_FITS`` of them, process-wide): systems
    that pay the same market price in the same time zone (26 of the
    NorduGrid runs' 50 share two series) fit each day once, not once each.

    Examples
    --------
    >>> t = np.arange(96)
    >>> history = 40 + 10 * np.sin(2 * np.pi * t / 24)
    >>> f = SarimaForecaster().forecast(history[:72], 24)
    >>> bool(np.max(np.abs(f - history[72:])) < 1.0)
    True
    """

    order: tuple = (1, 0, 1)
    seasonal_order: tuple = (1, 1, 1, 24)
    maxiter: int = 50

    def forecast(self, history: np.ndarray, horizon: int) -> np.ndarray:
        """Forecast ``horizon`` hours following ``history`` (hourly prices, oldest first)."""
        history = np.asarray(history, dtype=float)
        season = int(self.seasonal_order[3])
        if history.ndim != 1 or history.size < 2 * season + 2:
            raise InvalidInput(f"SARIMA needs at least {2 * season + 2} hours of history, got {history.size}")
        if not np.isfinite(history).all():
            raise InvalidInput("price history contains NaN or infinite values")
        if horizon < 1:
            raise InvalidInput(f"horizon must be >= 1 h, got {horizon}")
        if np.ptp(history) == 0:
            return np.full(horizon, history[-1])
        key = (tuple(self.order), tuple(self.seasonal_order), self.maxiter, horizon, history.tobytes())
        if key in _FITS:
            kept = _FITS[key]
        else:
            kept = self._fit(history, horizon)
            if len(_FITS) >= _KEPT_FITS:
                _FITS.pop(next(iter(_FITS)))  # the oldest
            _FITS[key] = kept
        if kept is None:
            warnings.warn("SARIMA fit failed; using the seasonal naive forecast", RuntimeWarning, stacklevel=2)
            return np.resize(history[-season:], horizon)
        return kept.copy()

    def _fit(self, history: np.ndarray, horizon: int) -> np.ndarray | None:
        """The forecast of one fit, or None where the optimiser failed."""
        from statsmodels.tsa.statespace.sarimax import SARIMAX

        season = int(self.seasonal_order[3])
        d, big_d = int(self.order[1]), int(self.seasonal_order[1])
        with _one_blas_thread(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                model = SARIMAX(history, order=self.order, seasonal_order=self.seasonal_order, simple_differencing=True)
                fitted = model.fit(disp=False, cov_type="none", maxiter=self.maxiter)
                diffed = np.asarray(fitted.forecast(horizon), dtype=float)
                ok = bool(np.isfinite(diffed).all())
            except (np.linalg.LinAlgError, ValueError):
                ok = False
        if not ok:
            return None
        return _integrate(history, diffed, d, big_d, season)


_KEPT_FITS = 20_000  # forecasts kept (a 96-hour one is under 1 kB)
_FITS: dict[tuple, np.ndarray | None] = {}


def _integrate(history: np.ndarray, diffed: np.ndarray, d: int, big_d: int, season: int) -> np.ndarray:
    """Undo ``d`` simple and ``big_d`` seasonal differences of a forecast (simple differencing)."""
    levels = [history]
    for _ in range(d):
        levels.append(np.diff(levels[-1]))
    for _ in range(big_d):
        levels.append(levels[-1][season:] - levels[-1][:-season])
    out = diffed
    for _ in range(big_d):  # x[n + k] = y[k] + x[n + k - season]
        levels.pop()
        ext = np.concatenate([levels[-1][-season:], np.empty(out.size)])
        for k in range(out.size):
            ext[season + k] = out[k] + ext[k]
        out = ext[season:]
    for _ in range(d):  # x[n + k] = y[k] + x[n + k - 1]
        levels.pop()
        out = levels[-1][-1] + np.cumsum(out)
    return out


@contextlib.contextmanager
def _one_blas_thread():
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - threadpoolctl comes with scikit-learn
        yield
        return
    with threadpool_limits(limits=1):
        yield


@dataclass
class PriceOutlook:
    """What a metascheduler knows of one system's prices at time ``now``.

    Hours up to the end of the current local day are the day-ahead market's
    (known); later hours are forecast from the previous ``train_days`` days
    (sec. 3.2). Forecasts are cached per known horizon (one fit per day), so
    several runs over the same period share them.

    Parameters
    ----------
    actual : HourlyPrices
        The real series (hour 0 = simulation time 0).
    forecaster : object with ``forecast(history, horizon)``, optional
        Default `SarimaForecaster`. None: perfect foresight (actual prices).
    train_days : int, default 3
    horizon_days : int, default 4
        Days forecast past the known horizon in one fit (jobs up to three days plus waits).

    Examples
    --------
    >>> from gridmarket.energy import synthetic_prices
    >>> actual = synthetic_prices(8, rng=np.random.default_rng(0))
    >>> outlook = PriceOutlook(actual, forecaster=None)
    >>> outlook.view(5 * 86400).prices[:3].tolist() == actual.prices[:3].tolist()
    True
    """

    actual: HourlyPrices
    forecaster: Forecaster | None = field(default_factory=SarimaForecaster)
    train_days: int = 3
    horizon_days: int = 4
    _cache: dict = field(default_factory=dict, repr=False)

    def known_until(self, now: int) -> int:
        """First hour index not published at ``now``: the next local midnight."""
        hour = now // _HOUR
        local = self.actual.hour_of_day0 + hour
        return min(hour + (_DAY_HOURS - local % _DAY_HOURS), self.actual.n_hours)

    def view(self, now: int) -> HourlyPrices:
        """Known prices up to the next midnight, then forecasts for ``horizon_days`` days."""
        known = self.known_until(now)
        cached = self._cache.get(known)
        if cached is None and self.forecaster is None:
            cached = self.actual.window(0, min(known + self.horizon_days * _DAY_HOURS, self.actual.n_hours))
            self._cache[known] = cached
        elif cached is None:
            train = self.train_days * _DAY_HOURS
            if known < train:
                raise InvalidInput(
                    f"price outlook at second {now} needs {self.train_days} days of history; "
                    f"the series has {known} h before the known horizon"
                )
            predicted = self.forecaster.forecast(  # type: ignore[union-attr]  # None: the branch above
                self.actual.prices[known - train:known], self.horizon_days * _DAY_HOURS)
            cached = HourlyPrices(
                np.concatenate([self.actual.prices[:known], predicted]),
                self.actual.zone, self.actual.currency, self.actual.start,
            )
            self._cache[known] = cached
        return cached


def forecast_errors(
    series: HourlyPrices,
    *,
    forecaster: Forecaster | None = None,
    train_days: int = 3,
    n_days: int = 7,
    first_day: int | None = None,
    floor: float = 1.0,
) -> dict:
    """Rolling day-ahead forecast error on a real series (sec. 5.1.2).

    For each of ``n_days`` consecutive days, fit on the previous ``train_days``
    days and forecast the day's 24 hours.

    Returns
    -------
    dict
        ``mape`` (mean over days, percent), ``daily_mape`` (list), ``naive_mape``
        (yesterday's prices as the forecast, the usual reference), ``days``.

    Raises
    ------
    InvalidInput
        The series is too short.
    """
    model = forecaster or SarimaForecaster()
    first = train_days if first_day is None else first_day
    if first < train_days or (first + n_days) * _DAY_HOURS > series.n_hours:
        raise InvalidInput(
            f"series of {series.n_hours} h cannot give {n_days} days after day {first} "
            f"with {train_days} training days"
        )
    daily, naive = [], []
    for day in range(first, first + n_days):
        lo = day * _DAY_HOURS
        actual = series.prices[lo:lo + _DAY_HOURS]
        predicted = model.forecast(series.prices[lo - train_days * _DAY_HOURS:lo], _DAY_HOURS)
        daily.append(mean_absolute_percentage_error(actual, predicted, floor=floor))
        naive.append(mean_absolute_percentage_error(actual, series.prices[lo - _DAY_HOURS:lo], floor=floor))
    return {"mape": float(np.mean(daily)), "daily_mape": daily, "naive_mape": float(np.mean(naive)), "days": n_days}
