"""Hourly electricity price series: real day-ahead CSVs, synthetic, fixed and TWOPRICE.

Murali & Vadhiyar, sec. 4.4 (day-ahead hourly prices per system, fixed
industrial prices where no market exists) and sec. 5 (the TWOPRICE baseline:
on-peak 12:00-24:00, off-peak otherwise, priced at the 90th and 10th
percentiles of the period's day-ahead prices).

Prices are ``price_per_mwh`` (currency per MWh) for each hour. Hour ``k`` of a
series covers simulation seconds ``[3600 k, 3600 (k + 1))``: simulation time 0
is hour 0. `align_to_utc` cuts a local-time market series so that hour 0 is a
given UTC instant for a site ``utc_offset_hours`` away from UTC.
"""

from __future__ import annotations

import csv
import io
import warnings
from dataclasses import dataclass, field
from os import PathLike

import numpy as np
import pandas as pd

from gridmarket.decoding import read_text
from gridmarket.errors import InvalidInput
from gridmarket.limits import LIMITS

__all__ = [
    "HourlyPrices",
    "align_to_utc",
    "continue_by_repeating",
    "fixed_prices",
    "read_prices",
    "synthetic_prices",
    "two_price",
]

_HOUR = 3600
_TIMESTAMP_FORMAT = "%Y-%m-%dT%H:%M:%S"


@dataclass(frozen=True, slots=True, eq=False)
class HourlyPrices:
    """Electricity prices for consecutive hours; hour 0 starts at simulation time 0.

    Parameters
    ----------
    prices : array_like of float
        ``price_per_mwh`` of each hour; finite (negative prices are real and kept).
    zone, currency : str
        Market zone and currency, e.g. ``"PJM_COMED"``, ``"USD"``.
    start : numpy.datetime64 or None
        Local wall-clock time of hour 0, when known (sets the hour of day).

    Examples
    --------
    >>> p = HourlyPrices([10.0, 20.0, 30.0])
    >>> p.n_hours, p.price_at(3599), p.price_at(3600)
    (3, 10.0, 20.0)
    >>> p.integral(1800, 5400)  # price-hours over [0.5 h, 1.5 h)
    15.0
    """

    prices: np.ndarray
    zone: str = ""
    currency: str = ""
    start: np.datetime64 | None = None
    _cum: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        prices = np.array(self.prices, dtype=float, copy=True)
        if prices.ndim != 1 or prices.size == 0:
            raise InvalidInput(f"prices must be a non-empty 1-D sequence, got shape {prices.shape}")
        bad = np.flatnonzero(~np.isfinite(prices))
        if bad.size:
            raise InvalidInput(
                f"price series {self.zone!r}: hour {int(bad[0])} is {prices[bad[0]]!r} "
                f"({bad.size} non-finite hour(s))"
            )
        prices.flags.writeable = False
        cum = np.concatenate([[0.0], np.cumsum(prices)])
        cum.flags.writeable = False
        start = None if self.start is None else np.datetime64(self.start, "h")
        object.__setattr__(self, "prices", prices)
        object.__setattr__(self, "_cum", cum)
        object.__setattr__(self, "start", start)

    @property
    def n_hours(self) -> int:
        """Number of hours covered."""
        return int(self.prices.size)

    @property
    def end_time(self) -> int:
        """First simulation second not covered."""
        return self.n_hours * _HOUR

    @property
    def hour_of_day0(self) -> int:
        """Local hour of day (0-23) of hour 0; 0 when ``start`` is unknown."""
        if self.start is None:
            return 0
        return int((self.start - self.start.astype("datetime64[D]")) / np.timedelta64(1, "h"))

    def hours_of_day(self) -> np.ndarray:
        """Local hour of day of every hour of the series."""
        return (self.hour_of_day0 + np.arange(self.n_hours)) % 24

    def _check_time(self, t: np.ndarray | int) -> None:
        t = np.asarray(t)
        if t.size and (t.min() < 0 or t.max() > self.end_time):
            worst = int(t.min()) if t.min() < 0 else int(t.max())
            raise InvalidInput(
                f"price series {self.zone!r} covers seconds [0, {self.end_time}] "
                f"({self.n_hours} h); asked for second {worst}"
            )

    def price_at(self, t: int) -> float:
        """``price_per_mwh`` in force at simulation second ``t``."""
        self._check_time(t)
        return float(self.prices[min(int(t) // _HOUR, self.n_hours - 1)])

    def integral(self, t0: np.ndarray | int, t1: np.ndarray | int) -> np.ndarray | float:
        """Price-hours over ``[t0, t1)``: the integral of the hourly step price, in price x hours.

        Vectorised over arrays of ``t0``, ``t1`` (seconds, ``0 <= t0 <= t1 <= end_time``).
        """
        t0a, t1a = np.asarray(t0, dtype=np.int64), np.asarray(t1, dtype=np.int64)
        self._check_time(t0a)
        self._check_time(t1a)
        result = self._cumulative(t1a) - self._cumulative(t0a)
        return float(result) if result.ndim == 0 else result

    def _cumulative(self, t: np.ndarray) -> np.ndarray:
        h = np.minimum(t // _HOUR, self.n_hours - 1)
        return self._cum[h] + (t - h * _HOUR) / _HOUR * self.prices[h]

    def window(self, first_hour: int, n_hours: int | None = None) -> HourlyPrices:
        """Hours ``first_hour .. first_hour + n_hours - 1`` as a new series (hour 0 = ``first_hour``)."""
        stop = self.n_hours if n_hours is None else first_hour + n_hours
        if not 0 <= first_hour < stop <= self.n_hours:
            raise InvalidInput(
                f"price series {self.zone!r} has {self.n_hours} h; cannot take hours "
                f"[{first_hour}, {stop})"
            )
        start = None if self.start is None else self.start + np.timedelta64(first_hour, "h")
        return HourlyPrices(self.prices[first_hour:stop], self.zone, self.currency, start)


_COMPRESSED = (".gz", ".bz2", ".zip", ".xz", ".zst")  # pandas reads these by their suffix


def _price_frame(path: str | PathLike[str]) -> pd.DataFrame:
    """The CSV at ``path`` as a frame: plain files decoded by :mod:`gridmarket.decoding`, a column named twice refused."""
    try:
        if str(path).lower().endswith(_COMPRESSED):
            return pd.read_csv(path)
        text = read_text(path, "price CSV")
        header = next(csv.reader(text.splitlines()[:1]), [])
        repeated = sorted({c.strip() for c in header if [h.strip() for h in header].count(c.strip()) > 1})
        if repeated:  # pandas would rename the second one and read only the first
            raise InvalidInput(f"{path}:1: column {repeated[0]!r} appears twice in the header")
        return pd.read_csv(io.StringIO(text))
    except (OSError, pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as err:
        raise InvalidInput(f"{path}: cannot read price CSV: {' '.join(str(err).split())}") from None  # pandas ends lines


def read_prices(
    path: str | PathLike[str],
    *,
    start: str | None = None,
    end: str | None = None,
    on_irregular: str = "raise",
) -> HourlyPrices:
    """Read an hourly day-ahead price CSV (``timestamp,price[,zone,currency]``).

    Parameters
    ----------
    path : path-like
        CSV with a ``timestamp`` column (local wall clock, ``YYYY-MM-DDTHH:MM:SS``)
        and a ``price`` column (currency per MWh), as in the registered ``prices/`` files
        (:mod:`gridmarket.datasets`).
    start, end : str, optional
        Keep hours with ``start <= timestamp < end`` (ISO dates or date-times).
    on_irregular : {"raise", "regularize"}
        What to do with DST artefacts: a repeated hour (autumn) or a missing
        hour (spring). ``"raise"`` raises `InvalidInput` naming the line;
        ``"regularize"`` averages repeated hours, fills missing hours by linear
        interpolation and warns with the counts.

    Returns
    -------
    HourlyPrices
        ``zone`` and ``currency`` from the first kept row when the columns exist;
        ``start`` is the first kept timestamp.

    Raises
    ------
    InvalidInput
        Missing columns, unparsable timestamps or prices, NaN prices, rows out
        of time order, irregular hours under ``"raise"``, nothing in ``[start, end)``.

    Notes
    -----
    The shared series were regularised upstream (24 rows a day); real-world
    files often are not, hence the explicit choice. Complexity O(n).
    """
    if on_irregular not in ("raise", "regularize"):
        raise InvalidInput(f"on_irregular must be 'raise' or 'regularize', got {on_irregular!r}")
    frame = _price_frame(path)
    missing = [c for c in ("timestamp", "price") if c not in frame.columns]
    if missing:
        raise InvalidInput(f"{path}: missing column(s) {missing}; have {list(frame.columns)}")
    stamps = pd.to_datetime(frame["timestamp"], format=_TIMESTAMP_FORMAT, errors="coerce")
    if stamps.isna().any():
        k = int(np.flatnonzero(stamps.isna().to_numpy())[0])
        raise InvalidInput(f"{path}, line {k + 2}: bad timestamp {frame['timestamp'].iloc[k]!r}")
    price = pd.to_numeric(frame["price"], errors="coerce")
    if price.isna().any():
        k = int(np.flatnonzero(price.isna().to_numpy())[0])
        raise InvalidInput(f"{path}, line {k + 2}: price {frame['price'].iloc[k]!r} is not a number")
    limit = LIMITS["price per MWh"]  # costs are watts x hours x price: they must stay finite
    beyond = ~np.isfinite(price.to_numpy()) | (price.to_numpy() < limit.low) | (price.to_numpy() > limit.high)
    if beyond.any():
        k = int(np.flatnonzero(beyond)[0])
        raise InvalidInput(f"{path}, line {k + 2}: price {frame['price'].iloc[k]!r} is outside [{limit.low!r}, "
                           f"{limit.high!r}] {limit.unit} ({limit.reason})")
    keep = np.ones(len(frame), bool)
    if start is not None:
        keep &= (stamps >= pd.Timestamp(start)).to_numpy()
    if end is not None:
        keep &= (stamps < pd.Timestamp(end)).to_numpy()
    rows = np.flatnonzero(keep)
    if rows.size == 0:
        raise InvalidInput(f"{path}: no hours in [{start}, {end})")
    stamps, price = stamps.iloc[rows], price.iloc[rows]
    step = np.diff(stamps.to_numpy()).astype("timedelta64[s]").astype(np.int64)
    back = np.flatnonzero(step < 0)
    if back.size:
        k = int(rows[back[0] + 1])
        raise InvalidInput(f"{path}, line {k + 2}: timestamp {stamps.iloc[back[0] + 1]} goes back in time")
    if (step % _HOUR).any():
        k = int(rows[np.flatnonzero(step % _HOUR)[0] + 1])
        raise InvalidInput(f"{path}, line {k + 2}: timestamp is not on the hour grid")
    repeated, gaps = np.flatnonzero(step == 0), np.flatnonzero(step > _HOUR)
    if repeated.size or gaps.size:
        if on_irregular == "raise":
            kind, idx = ("repeated hour", repeated[0]) if (repeated.size and (not gaps.size or repeated[0] < gaps[0])) else ("missing hour(s) before", gaps[0])
            k = int(rows[idx + 1])
            raise InvalidInput(
                f"{path}, line {k + 2}: {kind} {stamps.iloc[idx + 1]} ({repeated.size} repeated, "
                f"{gaps.size} gap(s)); pass on_irregular='regularize' to average and interpolate"
            )
        series = pd.Series(price.to_numpy(), index=stamps.to_numpy()).groupby(level=0).mean()
        full = pd.date_range(series.index[0], series.index[-1], freq="h")
        n_missing = len(full) - len(series)
        series = series.reindex(full).interpolate(method="linear")
        warnings.warn(
            f"{path}: averaged {repeated.size} repeated hour(s), interpolated {n_missing} missing hour(s)",
            stacklevel=2,
        )
        values, first = series.to_numpy(), series.index[0]
    else:
        values, first = price.to_numpy(dtype=float), stamps.iloc[0]
    zone = str(frame["zone"].iloc[rows[0]]) if "zone" in frame.columns else ""
    currency = str(frame["currency"].iloc[rows[0]]) if "currency" in frame.columns else ""
    return HourlyPrices(values, zone, currency, np.datetime64(first, "h"))


def align_to_utc(series: HourlyPrices, epoch_utc: str, utc_offset_hours: int, n_hours: int | None = None) -> HourlyPrices:
    """Cut a local-time series so that its hour 0 is the UTC instant ``epoch_utc``.

    Parameters
    ----------
    series : HourlyPrices
        With ``start`` known (local wall clock of its hour 0).
    epoch_utc : str
        ISO date-time of simulation time 0, in UTC.
    utc_offset_hours : int
        Site's local time minus UTC (standard time; DST is not modelled).
    n_hours : int, optional
        Hours to keep (default: all that remain).

    Examples
    --------
    >>> s = HourlyPrices(np.arange(48.0), start=np.datetime64("2014-06-01T00", "h"))
    >>> a = align_to_utc(s, "2014-06-01T12", -5)  # 12:00 UTC is 07:00 local
    >>> a.prices[0], a.hour_of_day0
    (np.float64(7.0), 7)
    """
    if series.start is None:
        raise InvalidInput(f"price series {series.zone!r} has no start time to align")
    local0 = np.datetime64(epoch_utc, "h") + np.timedelta64(utc_offset_hours, "h")
    first = int((local0 - series.start) / np.timedelta64(1, "h"))
    if first < 0:
        raise InvalidInput(
            f"price series {series.zone!r} starts at {series.start}, after local time {local0} "
            f"of the UTC epoch {epoch_utc}"
        )
    return series.window(first, n_hours)


WEEKS_52_HOURS = 52 * 7 * 24
"""8,736 hours: the "last full year" :func:`continue_by_repeating` repeats by default (52 whole weeks)."""


def continue_by_repeating(series: HourlyPrices, n_hours: int, *, period_hours: int = WEEKS_52_HOURS) -> HourlyPrices:
    """``series`` continued to ``n_hours`` hours by repeating its last ``period_hours`` hours, hour for hour.

    A stated modelling choice for prices past the end of the data, e.g. a
    simulation whose queues outlast a real market series: hour ``n + k`` of
    the result (``n = series.n_hours``, ``k >= 0``) is hour
    ``n - period_hours + k % period_hours`` of ``series``. The default period
    is 52 whole weeks (8,736 h), so the repeated hours keep their local hour
    of day and weekday; the season drifts by one day a repetition. The first
    ``n`` hours are ``series``' own (the same floats), so prices and
    integrals over them do not change.

    Parameters
    ----------
    series : HourlyPrices
        At least ``period_hours`` long.
    n_hours : int
        Length of the result, >= ``series.n_hours``.
    period_hours : int
        Hours repeated (>= 1).

    Raises
    ------
    InvalidInput
        ``series`` shorter than ``period_hours``, ``n_hours`` below its length, or a bad period.

    Examples
    --------
    >>> p = continue_by_repeating(HourlyPrices([1.0, 2.0, 3.0, 4.0, 5.0]), 8, period_hours=2)
    >>> p.prices.tolist()
    [1.0, 2.0, 3.0, 4.0, 5.0, 4.0, 5.0, 4.0]
    """
    if isinstance(period_hours, bool) or not isinstance(period_hours, int) or period_hours < 1:
        raise InvalidInput(f"period_hours must be an int >= 1, got {period_hours!r}")
    n = series.n_hours
    if isinstance(n_hours, bool) or not isinstance(n_hours, int) or n_hours < n:
        raise InvalidInput(f"n_hours must be an int >= the series' {n} h, got {n_hours!r}")
    if n < period_hours:
        raise InvalidInput(f"price series {series.zone!r} has {n} h, fewer than the {period_hours} h to repeat")
    extra = n_hours - n
    tail = series.prices[n - period_hours:]
    values = np.concatenate([series.prices, np.resize(tail, extra)]) if extra else series.prices
    return HourlyPrices(values, series.zone, series.currency, series.start)


def fixed_prices(price_per_mwh: float, n_hours: int, *, zone: str = "fixed", currency: str = "") -> HourlyPrices:
    """A flat tariff: the same ``price_per_mwh`` every hour (sec. 4.4, regions without a market).

    >>> fixed_prices(70.0, 3).prices.tolist()
    [70.0, 70.0, 70.0]
    """
    if not isinstance(n_hours, int) or n_hours < 1:
        raise InvalidInput(f"n_hours must be an int >= 1, got {n_hours!r}")
    return HourlyPrices(np.full(n_hours, float(price_per_mwh)), zone, currency)


def synthetic_prices(
    n_days: int,
    *,
    rng: np.random.Generator,
    mean: float = 40.0,
    daily_amplitude: float = 0.35,
    weekly_amplitude: float = 0.08,
    level_volatility: float = 0.06,
    noise: float = 0.06,
    noise_persistence: float = 0.7,
    start_hour_of_day: int = 0,
    zone: str = "synthetic",
    currency: str = "",
) -> HourlyPrices:
    """A seeded day-ahead-like hourly series: daily double-peak profile, weekly dip, drifting level.

    Parameters
    ----------
    n_days : int
        Days to generate (24 hours each), >= 1.
    rng : numpy.random.Generator
    mean : float
        Long-run mean ``price_per_mwh``.
    daily_amplitude : float
        Relative swing of the daily profile (morning and evening peaks, night trough).
    weekly_amplitude : float
        Relative dip on the two weekend days.
    level_volatility : float
        Standard deviation of the day-to-day log change of the daily level (mean-reverting).
    noise, noise_persistence : float
        Hourly multiplicative AR(1) noise: standard deviation and lag-1 coefficient.
    start_hour_of_day : int
        Local hour of day of hour 0.

    Returns
    -------
    HourlyPrices
        Strictly positive prices; the same seed gives the same series.

    Examples
    --------
    >>> p = synthetic_prices(7, rng=np.random.default_rng(1))
    >>> p.n_hours, bool(p.prices.min() > 0)
    (168, True)
    >>> day = p.prices[:24 * 7].reshape(7, 24).mean(axis=0)
    >>> bool(day[19] > day[3])  # evening peak above the night trough
    True
    """
    if not isinstance(n_days, int) or n_days < 1:
        raise InvalidInput(f"n_days must be an int >= 1, got {n_days!r}")
    if not isinstance(rng, np.random.Generator):
        raise InvalidInput(f"rng must be a numpy.random.Generator, got {rng!r}")
    if not mean > 0:
        raise InvalidInput(f"mean must be > 0, got {mean!r}")
    n = 24 * n_days
    hod = (start_hour_of_day + np.arange(n)) % 24
    profile = 0.55 * np.exp(-(((hod - 9.0) / 2.5) ** 2)) + np.exp(-(((hod - 19.0) / 2.8) ** 2))
    profile = (profile - profile.mean()) / max(np.abs(profile - profile.mean()).max(), 1e-12)
    day = (start_hour_of_day + np.arange(n)) // 24
    weekend = np.isin(day % 7, (5, 6))
    log_level = np.zeros(int(day[-1]) + 1)
    for d in range(1, log_level.size):  # mean-reverting daily level
        log_level[d] = 0.8 * log_level[d - 1] + rng.normal(0.0, level_volatility)
    eps = rng.normal(0.0, noise, size=n)
    ar = np.empty(n)
    ar[0] = eps[0]
    for k in range(1, n):
        ar[k] = noise_persistence * ar[k - 1] + eps[k]
    prices = mean * np.exp(log_level[day] + daily_amplitude * profile - weekly_amplitude * weekend + ar)
    return HourlyPrices(prices, zone, currency, np.datetime64("2000-01-03T00", "h") + np.timedelta64(int(start_hour_of_day), "h"))


def two_price(
    series: HourlyPrices,
    *,
    on_peak: tuple[int, int] = (12, 24),
    off_percentile: float = 10.0,
    on_percentile: float = 90.0,
) -> HourlyPrices:
    """The TWOPRICE view of a series: one on-peak and one off-peak price per day.

    Parameters
    ----------
    series : HourlyPrices
        Day-ahead prices of the simulation period.
    on_peak : (int, int)
        Local hours ``[first, last)`` that are on-peak; default 12:00-24:00.
    off_percentile, on_percentile : float
        Percentiles of the period's prices used as the off- and on-peak price.

    Returns
    -------
    HourlyPrices
        Same length, zone and start; every on-peak hour priced at the
        ``on_percentile`` and every other hour at the ``off_percentile``.

    Notes
    -----
    Murali & Vadhiyar, sec. 5: "considering the on-peak hours as 12pm to
    midnight and calculating the off-peak and on-peak prices as the 10th and
    90th percentile of the day-ahead market prices for the simulation period".

    Examples
    --------
    >>> p = HourlyPrices(np.arange(24.0))
    >>> tp = two_price(p)
    >>> [round(float(x), 2) for x in (tp.prices[0], tp.prices[11], tp.prices[12], tp.prices[23])]
    [2.3, 2.3, 20.7, 20.7]
    """
    first, last = on_peak
    if not 0 <= first < last <= 24:
        raise InvalidInput(f"on_peak must be (first, last) with 0 <= first < last <= 24, got {on_peak!r}")
    low, high = np.percentile(series.prices, [off_percentile, on_percentile])
    hod = series.hours_of_day()
    values = np.where((hod >= first) & (hod < last), high, low)
    return HourlyPrices(values, series.zone, series.currency, series.start)
