"""The bounds of every number gridmarket takes from outside: one table, checked at every boundary.

Each quantity a command-line option, a scenario, sweep or state field, or a trace column can set
has a unit, a lowest and a highest value and the reason for them (:data:`LIMITS`). The validation
layer (:func:`gridmarket.validation.check_number`) checks values against this table; readers and
commands name the field. A field may set its own lowest value (a slot lasts at least 1 s although a
time may be 0; a virtual workflow task holds 0 processors); its highest is always the quantity's.

Two reasons set most upper bounds. The compiled kernels (``market/*/_c*.pyx``) hold times,
processors and processor-seconds in C ``int64`` and use ``2**62`` as "never"
(:data:`KERNEL_INT_LIMIT`); a value past it used to wrap around silently (a quote priced 0 SU, a
negative utilisation) or crash the process. And a request is refused before anything is allocated
when its estimated memory (:data:`BYTES_PER_JOB` per job) exceeds this machine's physical memory
(:func:`gridmarket.validation.check_fits_memory`), instead of growing until the system kills it.

Times are integer seconds from simulation start; ``SECONDS_LIMIT`` is a century (100 Julian
years). Every time taken from outside is at most a century (``"seconds"``); the records a run builds
(jobs, reservations, running jobs, states) keep their instants below ``2**53`` (``"instant"``), as a
run's own clock may pass the century its inputs keep, and their durations within a century.

Examples
--------
>>> LIMITS["seconds"].high
3155760000
>>> LIMITS["processors"].high == 2**24
True
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass

__all__ = [
    "BYTES_PER_JOB",
    "BYTES_PER_PRICE_HOUR",
    "BYTES_PER_USER",
    "KERNEL_INT_LIMIT",
    "LIMITS",
    "Limit",
    "SECONDS_LIMIT",
    "physical_memory",
    "table_markdown",
]

#: Largest integer the compiled kernels may hold: ``2**62``, their "never" (twice it would overflow int64).
KERNEL_INT_LIMIT = 2**62

#: A century of simulated time in seconds (100 Julian years of 365.25 days).
SECONDS_LIMIT = 36525 * 86400

#: Memory one job costs a run, bytes: 4 KiB, five times the 0.73 KiB a 200,000-job Lublin workload
#: measured at its peak under ``simulate`` (the agent market's best-effort run: 0.8 KiB).
BYTES_PER_JOB = 4096

#: Memory one hour of a provider's electricity price series costs, bytes: 128, the 83 a century of
#: synthetic day-ahead prices measured at its peak, with room.
BYTES_PER_PRICE_HOUR = 128

#: Memory one user agent of the market model costs, bytes (a Mesa agent with its queues and history): an
#: estimate set as a job's, not measured.
BYTES_PER_USER = 4096


@dataclass(frozen=True, slots=True)
class Limit:
    """The bounds of one quantity.

    Parameters
    ----------
    quantity : str
        Its name in :data:`LIMITS` (``"seconds"``, ``"processors"``, ...).
    unit : str
        What it counts or measures (``"s"``, ``"processors"``, ``"SU per processor-hour"``).
    low, high : int or float
        Lowest and highest accepted value, inclusive.
    integer : bool
        Whether a value must be an int (else any finite number).
    reason : str
        Why the upper bound is where it is (shown in the documentation's table).
    """

    quantity: str
    unit: str
    low: int | float
    high: int | float
    integer: bool
    reason: str

    def __post_init__(self) -> None:
        if not (math.isfinite(self.low) and math.isfinite(self.high) and self.low <= self.high):
            raise ValueError(f"limit {self.quantity!r}: bounds must be finite with low <= high")


_TABLE = (
    Limit("seconds", "s", 0, SECONDS_LIMIT, True,
          "a century; an instant plus a queue of 10^8 such durations stays below 2^62, the compiled "
          "kernels' int64 'never'"),
    Limit("instant", "s", 0, 2**53, True,
          "a time inside a run (a job's submit, a reservation's start, a state's now): a run's own "
          "instants may pass the century its inputs keep (late submits plus a long queue's waits); "
          "2^53 keeps them exact in float64, and an instant plus 10^8 century-long durations stays "
          "below 2^62"),
    Limit("mean seconds", "s", 1.0, SECONDS_LIMIT / 2, False,
          "the mean of drawn times, each drawn up to twice it: every drawn time stays within a century"),
    Limit("mean processors", "processors", 1.0, 2**23, False,
          "the mean of drawn sizes, each drawn up to twice it: every drawn size stays within the processors bound"),
    Limit("days", "days", 0.0, 36525.0, False, "a century, as times in seconds"),
    Limit("processors", "processors", 1, 2**24, True,
          "above the largest machines built (about 11 M cores); a job's processor-seconds over a "
          "century (5.3e16) fit int64"),
    Limit("jobs", "jobs", 0, 10**8, True,
          "10^8 jobs of a century each still fit the kernels' int64 times; a generated workload must "
          "also fit in memory (4 KiB a job)"),
    Limit("seed", "", 0, 2**63 - 1, True, "result rows keep the seed in an int64 column"),
    Limit("id", "", 0, 2**63 - 1, True, "per-job records keep job numbers in an int64 column"),
    Limit("runs", "runs", 1, 100_000, True,
          "one command's runs (seeds x design points): each writes its own files, and a folder of more "
          "is for several sweeps"),
    Limit("users", "users", 1, 1_000_000, True, "each user is an agent of the market model (4 KiB each)"),
    Limit("workflows", "workflows", 0, 1_000_000, True, "each workflow is a request of the market model"),
    Limit("tasks", "tasks", 1, 100_000, True,
          "tasks of one workflow: MOGA and HEFT keep a row per task and individual"),
    Limit("population", "individuals", 2, 100_000, True,
          "MOGA's population (Singh 2008, ch. 4.5: 100); 1000 times that is a study, not a typo"),
    Limit("generations", "generations", 0, 100_000, True, "MOGA's generations (Singh 2008, ch. 4.5: 10)"),
    Limit("load factor", "x", 0.001, 1000.0, False,
          "divides inter-arrival times: beyond it a workload's submit times leave the century or "
          "collapse to one instant"),
    Limit("fraction", "", 0.0, 1.0, False, "a share of jobs, or a trade-off weight"),
    Limit("percent", "%", 0.0, 100.0, False, "a weight in percent (Murali & Vadhiyar eq. 6)"),
    Limit("unit cost", "SU per processor-hour", 0.0, 1e6, False,
          "a slot's price n d c + f stays finite in float64"),
    Limit("price per MWh", "currency per MWh", -1e6, 1e6, False,
          "far beyond any day-ahead price (European markets cap them at a few thousand EUR/MWh; real ones "
          "go negative, a scenario's own mean may not); energy costs stay finite"),
    Limit("watts", "W per processor", 0.0, 1e6, False, "energy (W x processors x s) stays finite"),
    Limit("clearing cost", "cost units", 0.0, 1e9, False,
          "min-cost flow scales costs by 100 into int64: 10^7 jobs' costs sum below 2^62"),
    Limit("data", "GB", 0.0, 1e9, False, "an exabyte per workflow edge"),
    Limit("bandwidth", "Gb/s", 1e-9, 1e6, False, "transfer times stay within the seconds bound"),
    Limit("overbooking", "x", 1.0, 1000.0, False, "contracts signed per processor"),
    Limit("port", "", 0, 65535, True, "a TCP port"),
    Limit("workers", "processes", 1, 1024, True, "worker processes of one local pool"),
    Limit("timeout", "s", 0.001, 86400.0, False, "a day's wait for the page's server"),
)

#: Every quantity's :class:`Limit`, by name.
LIMITS: dict[str, Limit] = {limit.quantity: limit for limit in _TABLE}


def physical_memory() -> int | None:
    """This machine's physical memory in bytes (``SC_PHYS_PAGES`` x ``SC_PAGE_SIZE``), or None if unknown."""
    try:
        pages, size = os.sysconf("SC_PHYS_PAGES"), os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None
    return pages * size if pages > 0 and size > 0 else None


def table_markdown() -> str:
    """:data:`LIMITS` as a Markdown table (``docs/limits.md`` holds it; a test keeps the two equal).

    >>> print(table_markdown().splitlines()[2])
    | seconds | s | 0 | 3155760000 | int | a century; an instant plus a queue of 10^8 such durations stays below 2^62, \
the compiled kernels' int64 'never' |
    """
    rows = ["| quantity | unit | lowest | highest | kind | why the highest |", "| --- | --- | --- | --- | --- | --- |"]
    for limit in LIMITS.values():
        rows.append(f"| {limit.quantity} | {limit.unit or '-'} | {limit.low!r} | {limit.high!r} | "
                    f"{'int' if limit.integer else 'number'} | {limit.reason} |")
    return "\n".join(rows)
