"""Shortest job first over EASY backfilling: a local policy written outside gridmarket.

Used by docs/extending.md as ``sjf_policy:SJFScheduler`` (with ``docs/examples/plugins`` on
PYTHONPATH). Times are integer seconds, as in every gridmarket scheduler.
"""

from bisect import insort

from gridmarket.scheduling import EASYScheduler


class SJFScheduler(EASYScheduler):
    """EASY backfilling over a queue ordered by requested run time (estimate), shortest first.

    The head of the queue (the shortest waiting job) gets EASY's reservation; later jobs
    backfill in queue order. EASY's pass only removes jobs from the queue, so it stays sorted.
    """

    name = "sjf"

    def submit(self, job, now):
        super().submit(job, now)  # checks the size and appends
        self.queue.pop()
        insort(self.queue, job, key=lambda j: (j.estimate, j.submit, j.id))
