"""First-come first-served: start queue heads in arrival order while they fit.

Times are integer seconds from simulation start. A head that does not fit
blocks everyone behind it (no backfilling). Reservations are honoured: a job
fits only if its processors are free for its whole estimate.
"""

from __future__ import annotations

from market.job import Job
from market.scheduling.base import LocalScheduler

__all__ = ["FCFSScheduler"]


class FCFSScheduler(LocalScheduler):
    """Strict FCFS on one machine.

    Examples
    --------
    >>> s = FCFSScheduler(4)
    >>> for job in (Job(1, 0, 3, 10, 10), Job(2, 0, 2, 5, 5), Job(3, 0, 1, 5, 5)):
    ...     s.submit(job, 0)
    >>> [j.id for j in s.schedule(0)]  # job 2 does not fit, so job 3 waits too
    [1]
    """

    name = "fcfs"

    def schedule(self, now: int) -> list[Job]:
        self._advance(now)
        queue, started = self.queue, []
        min_free = self.profile.min_free
        while queue and min_free(now, queue[0].estimate) >= queue[0].procs:
            job = queue.pop(0)
            self._start(job, now)
            started.append(job)
        return started
