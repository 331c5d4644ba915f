"""The job record shared by workloads, schedulers and metrics.

Times are integer seconds from the start of the simulation (or of the trace).
``runtime`` is the actual run time; ``estimate`` is the user's requested run
time, which schedulers plan with (Singh 2008, ch. 3; Mu'alem & Feitelson 2001).
"""

from __future__ import annotations

from dataclasses import dataclass

from market.errors import InvalidInput

__all__ = ["Job"]


@dataclass(frozen=True, slots=True)
class Job:
    """One rigid parallel job.

    Parameters
    ----------
    id : int
        Job number, unique within a workload.
    submit : int
        Submit time in seconds, >= 0.
    procs : int
        Processors the job needs for its whole run, >= 1.
    runtime : int
        Actual run time in seconds, >= 1.
    estimate : int
        Requested run time in seconds, >= 1. A job whose ``runtime`` exceeds
        its ``estimate`` is killed at its estimate.
    user, group : int
        Owner ids as in SWF fields 12-13 (-1 when unknown).
    site : str or None
        Origin site (Grid Workloads Archive ``OrigSiteID``), if any.
    power_watts : float or None
        Electric power drawn while running, if known.
    data_bytes : int or None
        Input data the job must move before it starts, if known.

    Examples
    --------
    >>> Job(1, submit=0, procs=4, runtime=3600, estimate=7200).work
    14400
    """

    id: int
    submit: int
    procs: int
    runtime: int
    estimate: int
    user: int = -1
    group: int = -1
    site: str | None = None
    power_watts: float | None = None
    data_bytes: int | None = None

    def __post_init__(self) -> None:
        for name in ("id", "submit", "procs", "runtime", "estimate"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool):
                raise InvalidInput(f"job {self.id!r}: {name} must be an int, got {value!r}")
        if self.submit < 0:
            raise InvalidInput(f"job {self.id}: submit must be >= 0, got {self.submit}")
        if self.procs < 1:
            raise InvalidInput(f"job {self.id}: procs must be >= 1, got {self.procs}")
        if self.runtime < 1:
            raise InvalidInput(f"job {self.id}: runtime must be >= 1 s, got {self.runtime}")
        if self.estimate < 1:
            raise InvalidInput(f"job {self.id}: estimate must be >= 1 s, got {self.estimate}")

    @property
    def work(self) -> int:
        """Processor-seconds the job would use if it ran to completion."""
        return self.procs * self.runtime

    @property
    def effective_runtime(self) -> int:
        """Seconds the job actually occupies its processors: killed at its estimate."""
        return min(self.runtime, self.estimate)
