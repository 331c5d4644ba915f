"""Export per-job records in Batsim's ``jobs.csv`` format, so evalys can read them.

Columns follow Batsim's output documentation (``docs/output-jobs.rst``):
``job_id, workload_name, submission_time, requested_number_of_resources,
requested_time, success, final_state, starting_time, execution_time,
finish_time, waiting_time, turnaround_time, stretch, allocated_resources,
consumed_energy, metadata``. Times in seconds.

Our schedulers count processors and do not name them; ``allocated_resources``
is filled after the fact by giving each starting job the lowest-numbered free
processors (the "take first resources" rule of Batsim's own SWF converter),
sweeping events in time order with ends before starts at equal times. Since a
valid schedule never has more than ``procs`` busy, this always succeeds, and
the interval set is written the way Batsim writes it (``"0-3 8 10-11"``).
"""

from __future__ import annotations

import heapq

import numpy as np
import pandas as pd

from gridmarket.errors import InvalidInput

__all__ = ["assign_processors", "to_batsim_jobs"]


def _interval_string(ids: list[int]) -> str:
    parts, lo = [], ids[0]
    prev = lo
    for x in ids[1:]:
        if x != prev + 1:
            parts.append(f"{lo}-{prev}" if prev > lo else str(lo))
            lo = x
        prev = x
    parts.append(f"{lo}-{prev}" if prev > lo else str(lo))
    return " ".join(parts)


def assign_processors(records: pd.DataFrame, procs: int) -> list[str]:
    """Interval-set strings of the processors each job ran on (row order of ``records``).

    Raises ``InvalidInput`` if the records ever need more than ``procs`` processors.

    >>> df = pd.DataFrame({"start": [0, 0, 5], "end": [10, 5, 8], "procs": [2, 1, 2]})
    >>> assign_processors(df, 4)
    ['0-1', '2', '2-3']
    """
    start = records["start"].to_numpy()
    end = records["end"].to_numpy()
    need = records["procs"].to_numpy()
    # ends (kind 0) before starts (kind 1) at equal times
    order = np.lexsort((np.r_[np.ones(len(start)), np.zeros(len(end))], np.r_[start, end]))
    n = len(start)
    free = list(range(procs))  # a heap: lowest ids first
    held: list[list[int] | None] = [None] * n
    out = [""] * n
    for k in order:
        if k >= n:  # an end
            for p in held[k - n] or ():
                heapq.heappush(free, p)
            continue
        if need[k] > len(free):
            raise InvalidInput(
                f"row {k}: {need[k]} processors needed at t={start[k]} but only {len(free)} free"
            )
        ids = sorted(heapq.heappop(free) for _ in range(need[k]))
        held[k] = ids
        out[k] = _interval_string(ids)
    return out


def to_batsim_jobs(records: pd.DataFrame, procs: int, workload_name: str = "w0",
                   watts_per_proc: float | None = None) -> pd.DataFrame:
    """Batsim ``jobs.csv`` frame of our per-job records.

    ``success`` is 1 for jobs that completed and 0 for jobs killed at their
    estimate (``final_state`` ``COMPLETED_SUCCESSFULLY`` or
    ``COMPLETED_WALLTIME_REACHED``). ``consumed_energy`` is in joules, as
    Batsim writes it: ``procs x watts_per_proc x execution_time`` (the busy
    power of the job's processors over its run; idle power is not
    attributed to jobs) where the machine's power is given, else -1, as
    Batsim writes when energy is off.

    >>> df = pd.DataFrame({"job_id": [1], "submit": [0], "start": [10], "end": [70], "procs": [4],
    ...                    "estimate": [100], "outcome": ["completed"]})
    >>> to_batsim_jobs(df, 8, watts_per_proc=20.0)[["waiting_time", "allocated_resources", "consumed_energy"]]
       waiting_time allocated_resources  consumed_energy
    0            10                 0-3           4800.0
    """
    if watts_per_proc is not None and not watts_per_proc >= 0:
        raise InvalidInput(f"watts_per_proc must be >= 0, got {watts_per_proc!r}")
    killed = records["outcome"].eq("killed") if "outcome" in records else pd.Series(False, index=records.index)
    execution = records["end"] - records["start"]
    turnaround = records["end"] - records["submit"]
    return pd.DataFrame(
        {
            "job_id": records["job_id"],
            "workload_name": workload_name,
            "submission_time": records["submit"],
            "requested_number_of_resources": records["procs"],
            "requested_time": records["estimate"],
            "success": (~killed).astype(int),
            "final_state": np.where(killed, "COMPLETED_WALLTIME_REACHED", "COMPLETED_SUCCESSFULLY"),
            "starting_time": records["start"],
            "execution_time": execution,
            "finish_time": records["end"],
            "waiting_time": records["start"] - records["submit"],
            "turnaround_time": turnaround,
            "stretch": turnaround / execution.clip(lower=1),
            "allocated_resources": assign_processors(records, procs),
            "consumed_energy": -1 if watts_per_proc is None else records["procs"] * float(watts_per_proc) * execution,
            "metadata": "",
        }
    )
