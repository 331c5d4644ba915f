"""Per-job records and their summaries: waits, slowdowns, utilization, load.

Times are integer seconds. Definitions (Feitelson & Rudolph's standard
metrics, as used by every seed): wait = start - submit; response = end -
submit; bounded slowdown = max((wait + run) / max(run, 10 s), 1) with run =
end - start; utilization = delivered processor-seconds / (procs x makespan),
makespan = last end - first submit. Delivered processor-seconds count each
job's procs x min(runtime, estimate) (its useful work, which on a dedicated
machine is exactly (end - start) x procs), so shared-processor policies whose
jobs stretch in time are not counted twice.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from gridmarket.errors import InvalidInput

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["BSLD_BOUND", "bounded_slowdown", "job_bounded_slowdown", "load_over_time", "summarize"]

BSLD_BOUND = 10
"""Seconds below which a job's run time is raised for bounded slowdown."""

_REQUIRED = ("submit", "start", "end", "procs")


def _check(records: pd.DataFrame | Mapping[str, Any]) -> None:
    names = list(records.columns) if hasattr(records, "columns") else list(records)
    missing = [c for c in _REQUIRED if c not in names]
    if missing:
        raise InvalidInput(f"records lack column(s) {missing}; have {names}")


def bounded_slowdown(records: pd.DataFrame, bound: int = BSLD_BOUND) -> pd.Series:
    """max((wait + run) / max(run, bound), 1) per job.

    >>> import pandas as pd
    >>> df = pd.DataFrame({"submit": [0, 0], "start": [0, 95], "end": [5, 100], "procs": [1, 1]})
    >>> bounded_slowdown(df).tolist()
    [1.0, 10.0]
    """
    _check(records)
    return job_bounded_slowdown(records["submit"], records["start"], records["end"], bound)


def job_bounded_slowdown(submit, start, end, bound: int = BSLD_BOUND):
    """max((end - submit) / max(end - start, bound), 1): of one job (ints, seconds) or of arrays of jobs.

    The one definition: :func:`bounded_slowdown` applies it to a record table, a learning
    environment's reward to each job as it ends (:mod:`gridmarket.rl`).

    >>> float(job_bounded_slowdown(0, 95, 100))
    10.0
    """
    if isinstance(end, int) and isinstance(start, int):  # one job: Python's max (numpy's costs ~1 us a call)
        return max((end - submit) / max(end - start, bound), 1.0)
    return np.maximum((end - submit) / np.maximum(end - start, bound), 1.0)


def summarize(records: pd.DataFrame | Mapping[str, Any], procs: int, *,
              dropped: Mapping[str, int] | None = None) -> dict:
    """Summary statistics of one machine's per-job records (a table, or its columns by name).

    Returns
    -------
    dict
        ``jobs, dropped, mean_wait, median_wait, mean_response, mean_bsld,
        max_bsld, utilization, makespan, killed`` (times in seconds) plus
        ``dropped_reasons``.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"submit": [0, 0], "start": [0, 10], "end": [10, 20], "procs": [2, 2]})
    >>> s = summarize(df, procs=4)
    >>> s["utilization"], s["mean_wait"], s["makespan"]
    (0.5, 5.0, 20)
    >>> summarize({name: df[name].to_numpy() for name in df.columns}, procs=4) == s
    True
    """
    _check(records)
    dropped = dict(dropped or {})
    submit, start, end = (np.asarray(records[name]) for name in ("submit", "start", "end"))
    if len(submit) == 0:
        raise InvalidInput("no job records to summarize")
    wait = start - submit
    makespan = int(end.max() - submit.min())
    if "runtime" in records and "estimate" in records:
        # useful processor-seconds: equal to (end - start) x procs on a dedicated
        # machine, and still right when jobs share processors (two-tier VMs)
        held = np.minimum(np.asarray(records["runtime"]), np.asarray(records["estimate"]))
    else:
        held = end - start
    # in float64: exact below 2**53 processor-seconds, and a larger total cannot wrap around to a
    # negative utilisation as an int64 sum would
    delivered = float((held.astype(np.float64) * np.asarray(records["procs"])).sum())
    bsld = job_bounded_slowdown(submit, start, end)
    return {
        "jobs": len(submit),
        "dropped": int(sum(dropped.values())),
        "mean_wait": float(wait.mean()),
        "median_wait": float(np.median(wait)),
        "mean_response": float((end - submit).mean()),
        "mean_bsld": float(bsld.mean()),
        "max_bsld": float(bsld.max()),
        "utilization": delivered / (procs * makespan) if makespan > 0 else 0.0,
        "makespan": makespan,
        "killed": int((np.asarray(records["outcome"]) == "killed").sum()) if "outcome" in records else 0,
        "dropped_reasons": dropped,
    }


def load_over_time(records: pd.DataFrame, procs: int) -> pd.DataFrame:
    """Instantaneous load: busy processors and queued jobs after every event time.

    Returns a frame indexed by time (seconds) with ``busy`` (processors),
    ``load`` (busy / procs) and ``queued`` (jobs submitted and not started),
    each valid from its time until the next row.

    >>> import pandas as pd
    >>> df = pd.DataFrame({"submit": [0, 0], "start": [0, 10], "end": [10, 20], "procs": [2, 2]})
    >>> load_over_time(df, 4).to_dict("list")
    {'busy': [2, 2, 0], 'load': [0.5, 0.5, 0.0], 'queued': [1, 0, 0]}
    """
    import pandas as pd

    _check(records)
    times = np.concatenate([records["start"], records["end"], records["submit"], records["start"]])
    busy_delta = np.concatenate([records["procs"], -records["procs"], np.zeros(2 * len(records), int)])
    queue_delta = np.concatenate(
        [np.zeros(2 * len(records), int), np.ones(len(records), int), -np.ones(len(records), int)]
    )
    frame = pd.DataFrame({"time": times, "busy": busy_delta, "queued": queue_delta})
    steps = frame.groupby("time", sort=True).sum().cumsum()
    steps["load"] = steps["busy"] / procs
    return steps[["busy", "load", "queued"]]
