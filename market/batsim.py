"""Export per-job records in Batsim's output formats, so evalys and Batsim's other tools can read them.

Three files, as Batsim writes them (Dutot et al., JSSPP 2016; Batsim's output documentation):
``jobs.csv`` (one row per job), ``machine_states.csv`` (the number of hosts in each state over time)
and ``consumed_energy.csv`` (the platform's energy over time). A Batsim host is one of our processors.

``jobs.csv`` columns follow Batsim's output documentation (``docs/output-jobs.rst``):
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
from os import PathLike
from pathlib import Path

import numpy as np
import pandas as pd

from gridmarket.atomicfile import write_atomic
from gridmarket.errors import InvalidInput

__all__ = ["ENERGY_COLUMNS", "MACHINE_STATE_COLUMNS", "assign_processors", "companion_path", "consumed_energy",
           "machine_states", "to_batsim_jobs", "write_batsim_csv"]

#: ``machine_states.csv`` columns, in the order of Batsim's documentation ("Aggregated machine state trace").
MACHINE_STATE_COLUMNS = ("time", "nb_sleeping", "nb_switching_on", "nb_switching_off", "nb_idle", "nb_computing")

#: ``consumed_energy.csv`` columns, in the order Batsim writes them (its documentation lists ``event_type``
#: last; readers go by name).
ENERGY_COLUMNS = ("time", "energy", "event_type", "wattmin", "epower")


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


def _events(records: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every job start and end as (time, change of busy processors, kind), ends before starts at equal times.

    Kind is ``"e"`` for an end and ``"s"`` for a start, Batsim's ``event_type`` letters.
    """
    start = records["start"].to_numpy(dtype=np.int64)
    end = records["end"].to_numpy(dtype=np.int64)
    need = records["procs"].to_numpy(dtype=np.int64)
    times = np.r_[start, end]
    change = np.r_[need, -need]
    is_start = np.r_[np.ones(len(start), bool), np.zeros(len(end), bool)]
    order = np.lexsort((is_start, times))
    return times[order], change[order], np.where(is_start[order], "s", "e")


def _busy_after(times: np.ndarray, change: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct event times (0 first) and the processors busy just after each."""
    distinct, first = np.unique(times, return_index=True)
    level = np.cumsum(change)
    last = np.r_[first[1:], len(times)] - 1
    busy = level[last] if len(times) else np.empty(0, np.int64)
    if not len(distinct) or distinct[0] > 0:
        distinct, busy = np.r_[0, distinct], np.r_[0, busy]
    return distinct.astype(np.int64), busy.astype(np.int64)


def machine_states(records: pd.DataFrame, procs: int) -> pd.DataFrame:
    """Batsim's ``machine_states.csv`` of per-job records on a machine of ``procs`` processors.

    One row at 0 s and at every instant a job starts or ends, with the processors computing (running a job)
    and idle just after it; a processor is never asleep or switching (gridmarket has no power states), so
    those columns are 0 and every row sums to ``procs``, as evalys checks.

    Raises ``InvalidInput`` if the records ever hold more than ``procs`` processors.

    >>> df = pd.DataFrame({"start": [0, 0, 5], "end": [10, 5, 8], "procs": [2, 1, 2]})
    >>> machine_states(df, 4)[["time", "nb_idle", "nb_computing"]]
       time  nb_idle  nb_computing
    0     0        1             3
    1     5        0             4
    2     8        2             2
    3    10        4             0
    """
    times, change, _ = _events(records)
    instants, busy = _busy_after(times, change)
    if len(busy) and busy.max() > procs:
        at = int(instants[int(np.argmax(busy > procs))])
        raise InvalidInput(f"{int(busy.max())} processors busy at t={at} on a machine of {procs}")
    zeros = np.zeros(len(instants), np.int64)
    return pd.DataFrame(dict(zip(MACHINE_STATE_COLUMNS, (instants, zeros, zeros, zeros, procs - busy, busy),
                                 strict=True)))


def consumed_energy(records: pd.DataFrame, watts_per_proc: float) -> pd.DataFrame:
    """Batsim's ``consumed_energy.csv`` of per-job records whose processors draw ``watts_per_proc`` when busy.

    One row per job start (``event_type`` ``s``) and end (``e``), in time order with ends first at equal
    times, as Batsim writes one per event. ``energy`` is the joules the machine used from 0 s to ``time``:
    ``watts_per_proc`` times the processor-seconds busy (the busy power of
    :func:`to_batsim_jobs`, so the last row's energy is the sum of the jobs' ``consumed_energy``).
    ``epower`` is the mean power in watts since the previous row (since 0 s for the first), NaN (Batsim's
    ``NA``) when no time passed. ``wattmin``, the power of the machine at an epsilon load, is 0: the
    providers' power is the busy power of their processors (Murali & Vadhiyar, sec. 4.5.1: a job's power is
    its cores' share of the HPL power) and an idle processor is given none.

    >>> df = pd.DataFrame({"start": [0, 4], "end": [10, 6], "procs": [2, 1]})
    >>> consumed_energy(df, 10.0)
       time  energy event_type  wattmin  epower
    0     0     0.0          s      0.0     NaN
    1     4    80.0          s      0.0    20.0
    2     6   140.0          e      0.0    30.0
    3    10   220.0          e      0.0    20.0
    """
    if not watts_per_proc >= 0:
        raise InvalidInput(f"watts_per_proc must be >= 0, got {watts_per_proc!r}")
    times, change, kind = _events(records)
    instants, busy = _busy_after(times, change)
    joules = np.r_[0.0, np.cumsum(busy[:-1] * np.diff(instants) * float(watts_per_proc))]
    energy = joules[np.searchsorted(instants, times)]
    elapsed = np.diff(np.r_[0, times])
    gained = np.diff(np.r_[0.0, energy])
    with np.errstate(invalid="ignore", divide="ignore"):
        epower = np.where(elapsed > 0, gained / np.where(elapsed > 0, elapsed, 1), np.nan)
    return pd.DataFrame(dict(zip(ENERGY_COLUMNS, (times, energy, kind, np.zeros(len(times)), epower),
                                 strict=True)))


def companion_path(jobs_path: str | PathLike[str], kind: str) -> Path:
    """Where Batsim's ``kind`` file (``machine_states.csv``, ``consumed_energy.csv``) goes beside a jobs file.

    Batsim names its outputs by a common prefix (``out/`` + ``_jobs.csv``, ``_machine_states.csv``, ...):
    a jobs file whose name ends in ``jobs.csv`` shares its prefix; any other gets ``STEM_KIND``.

    >>> companion_path("out/jobs.csv", "machine_states.csv").as_posix()
    'out/machine_states.csv'
    >>> companion_path("out/run1_jobs.csv", "consumed_energy.csv").as_posix()
    'out/run1_consumed_energy.csv'
    >>> companion_path("out/schedule.csv", "machine_states.csv").as_posix()
    'out/schedule_machine_states.csv'
    """
    path = Path(jobs_path)
    if path.name.endswith("jobs.csv"):
        return path.with_name(path.name.removesuffix("jobs.csv") + kind)
    return path.with_name(f"{path.stem}_{kind}")


def write_batsim_csv(frame: pd.DataFrame, path: str | PathLike[str]) -> None:
    """Write one of this module's frames to ``path`` as Batsim writes its CSV files, whole or not at all.

    Comma-separated with a header and no index; a missing value is ``NA`` (Batsim's ``epower`` when no time
    passed), which pandas, R and evalys read as missing.
    """
    write_atomic(path, frame.to_csv(index=False, na_rep="NA"))
