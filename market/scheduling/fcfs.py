"""First-come first-served: start queue heads in arrival order while they fit.

Times are integer seconds from simulation start. A head that does not fit
blocks everyone behind it (no backfilling). Reservations are honoured: a job
fits only if its processors are free for its whole estimate.
"""

from __future__ import annotations

from gridmarket.job import Job
from gridmarket.scheduling.base import LocalScheduler

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
        self.advance_to(now)
        queue, started = self.queue, []
        if now >= self._reserved_until:  # no reservation ahead: counting suffices
            self._stale = True
            k = 0
            while k < len(queue) and queue[k].procs <= self.n_free:
                self.start_job(queue[k], now)
                k += 1
        else:
            min_free = self.profile.min_free
            k = 0
            while k < len(queue) and min_free(now, queue[k].estimate) >= queue[k].procs:
                self.start_job(queue[k], now)
                k += 1
        started = queue[:k]
        del queue[:k]
        return started
