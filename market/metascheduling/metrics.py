"""Per-system time series of a grid run: power drawn and instantaneous load (Murali & Vadhiyar, secs. 4.6, 5.5).

Instantaneous load at ``t`` (sec. 4.6): the core-hours of the jobs queued and
running at a system, divided by its cores, i.e. hours of backlog. Queued jobs
count their estimate; running jobs the rest of their estimate. Power is the
hourly mean of the watts of the running jobs. Times are integer seconds; the
series are indexed by hour ``k`` (seconds ``[3600 k, 3600 (k + 1))``).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from gridmarket.errors import InvalidInput

__all__ = ["instantaneous_load", "power_over_time"]

_HOUR = 3600


def _check(records: pd.DataFrame, columns: tuple[str, ...]) -> None:
    missing = [c for c in columns if c not in records.columns]
    if missing:
        raise InvalidInput(f"records lack column(s) {missing}")


def power_over_time(records: pd.DataFrame) -> pd.DataFrame:
    """Mean watts drawn in each hour, one column per system.

    >>> rec = pd.DataFrame({"system": ["A", "A"], "start": [0, 1800], "end": [3600, 5400],
    ...                     "power_watts": [100.0, 200.0]})
    >>> power_over_time(rec)["A"].tolist()
    [200.0, 100.0]
    """
    _check(records, ("system", "start", "end", "power_watts"))
    if records.empty:
        return pd.DataFrame()
    n_hours = int(np.ceil(records["end"].max() / _HOUR))
    edges = np.arange(n_hours + 1) * _HOUR
    out = {}
    for system, rows in records.groupby("system"):
        energy = np.zeros(n_hours)  # watt-seconds per hour
        for start, end, watts in zip(rows["start"], rows["end"], rows["power_watts"]):
            h0, h1 = start // _HOUR, (end - 1) // _HOUR if end > start else start // _HOUR
            lo = np.maximum(edges[h0:h1 + 1], start)
            hi = np.minimum(edges[h0 + 1:h1 + 2], end)
            energy[h0:h1 + 1] += watts * np.maximum(hi - lo, 0)
        out[system] = energy / _HOUR
    return pd.DataFrame(out, index=pd.RangeIndex(n_hours, name="hour"))


def instantaneous_load(records: pd.DataFrame, cores: Mapping[str, int], *, step: int = _HOUR) -> pd.DataFrame:
    """Hours of backlog (queued + running estimated core-hours / cores) every ``step`` seconds, per system.

    >>> rec = pd.DataFrame({"system": ["A", "A"], "dispatch": [0, 0], "start": [0, 7200],
    ...                     "end": [3600, 9000], "procs": [2, 2], "estimate": [7200, 3600]})
    >>> instantaneous_load(rec, {"A": 4})["A"].tolist()[:3]
    [1.5, 0.5, 0.5]
    """
    _check(records, ("system", "dispatch", "start", "end", "procs", "estimate"))
    unknown = sorted(set(records["system"]) - set(cores))
    if unknown:
        raise InvalidInput(f"no core count for system(s) {unknown}")
    if records.empty:
        return pd.DataFrame()
    times = np.arange(0, int(records["end"].max()) + 1, step)
    out = {}
    for system, rows in records.groupby("system"):
        d, s, e = rows["dispatch"].to_numpy(), rows["start"].to_numpy(), rows["end"].to_numpy()
        p, est = rows["procs"].to_numpy(), rows["estimate"].to_numpy()
        t = times[:, None]
        queued = (d <= t) & (t < s)
        running = (s <= t) & (t < e)
        work = np.where(queued, p * est, 0) + np.where(running, p * np.maximum(s + est - t, 0), 0)
        out[system] = work.sum(axis=1) / cores[system] / _HOUR
    return pd.DataFrame(out, index=pd.Index(times, name="time"))
