"""A workload: an ordered list of jobs plus what its source said about the machine.

Times are integer seconds from the start of the workload.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from gridmarket.errors import InvalidInput
from gridmarket.job import Job

__all__ = ["Workload"]


@dataclass(frozen=True, slots=True)
class Workload:
    """Jobs in submit order (ties by id) with the facts of their source.

    Parameters
    ----------
    jobs : tuple of Job
        Sorted by ``(submit, id)``; ids unique.
    max_procs : int or None
        Machine size the source declares (SWF ``MaxProcs``, else ``MaxNodes``).
    name : str
        Where the workload came from (file name or model name).
    dropped : Mapping[str, int]
        Jobs the reader or generator left out, counted by reason. Never silent.
    header : Mapping[str, str]
        Header comments of the source (SWF ``; Key: value`` lines).
    """

    jobs: tuple[Job, ...]
    max_procs: int | None = None
    name: str = ""
    dropped: Mapping[str, int] = field(default_factory=dict)
    header: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        seen: set[int] = set()
        last = (-1, -1)
        for job in self.jobs:
            if job.id in seen:
                raise InvalidInput(f"workload {self.name!r}: job id {job.id} appears twice")
            seen.add(job.id)
            key = (job.submit, job.id)
            if key < last:
                raise InvalidInput(
                    f"workload {self.name!r}: job {job.id} (submit {job.submit}) is out of "
                    f"submit order after job {last[1]} (submit {last[0]})"
                )
            last = key
        if self.max_procs is not None and self.max_procs < 1:
            raise InvalidInput(f"workload {self.name!r}: max_procs must be >= 1, got {self.max_procs}")

    def __len__(self) -> int:
        return len(self.jobs)

    @property
    def n_dropped(self) -> int:
        """Total number of jobs left out, over all reasons."""
        return sum(self.dropped.values())
