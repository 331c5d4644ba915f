"""A batch policy whose next job is picked from outside: how a chooser (a learning agent) drives a real policy.

Times are integer seconds from simulation start.

:func:`picking` turns a policy class (the *base*: FCFS, EASY backfilling, a plug-in that re-plans
from its queue at every pass) into one whose queue order is decided one job at a time by whoever
sets :attr:`PickedMixin.picked` between the steps of :class:`~gridmarket.scheduling.MachineSimulation`
(the queue-picking environment of :mod:`gridmarket.rl`, as RLScheduler and SchedGym pick jobs; here the
pass, the event step and the capacity check stay the simulator's own). A pass then does one of:

- nothing is picked: nothing starts (the chooser is asked after the step; "wait" is to pick nothing);
- the picked job fits now (beside the running jobs and the reservations held): it starts, alone,
  through the base's own pass over a queue holding only it, and the pick is cleared;
- the picked job does not fit: it becomes the queue's head and the base's pass runs as usual, so a
  backfilling base backfills the rest of the queue around the head's reservation (EASY: Lifka 1995)
  and FCFS starts nothing. The pick stays until the job starts.

Picking the queue head every time is the base policy itself: the head rule gives FCFS's and EASY's
starts job for job on the CTC-SP2 sample (``tests/rl/test_queuepick.py``).
"""

from __future__ import annotations

from gridmarket.errors import InvalidInput
from gridmarket.job import Job
from gridmarket.scheduling.base import LocalScheduler

__all__ = ["PickedMixin", "picking"]


class PickedMixin(LocalScheduler):
    """The pass of a picked policy (see the module): mixed in before the base class by :func:`picking`.

    Attributes
    ----------
    picked : Job or None
        The queued job to start next, set from outside between two steps; cleared when it starts.
    ended : list of (Job, int)
        Jobs that ended, with their end time (seconds), in order; the reader empties it.
    """

    def __init__(self, procs: int) -> None:
        super().__init__(procs)
        self.picked: Job | None = None
        self.ended: list[tuple[Job, int]] = []

    def finish(self, job: Job, now: int) -> None:
        super().finish(job, now)
        self.ended.append((job, now))

    def fits_now(self, job: Job, now: int) -> bool:
        """Whether ``job`` can start at ``now``: its processors free now and, when a reservation is ahead, for its estimate."""
        if job.procs > self.n_free:
            return False
        if self.reservations and any(r.end > now for r in self.reservations.values()):
            return self.profile.min_free(now, job.estimate) >= job.procs
        return True

    def schedule(self, now: int) -> list[Job]:
        job = self.picked
        if job is None:
            self.advance_to(now)
            return []
        queue = self.queue
        if not queue or queue[0] is not job:  # else the pick is the head already
            at = next((i for i, queued in enumerate(queue) if queued is job), None)
            if at is None:
                raise InvalidInput(f"picked job {job.id} is not in the queue")
            del queue[at]
            queue.insert(0, job)
        if self.fits_now(job, now):
            alone = self.queue = [job]  # the base's own pass starts it (its bookkeeping kept) and no other job
            try:
                started = super().schedule(now)
            finally:
                self.queue = queue
                if not alone:  # started: out of the queue
                    del queue[0]
        else:
            started = super().schedule(now)
        if any(s is job for s in started):
            self.picked = None
        return started


_PICKED: dict[type[LocalScheduler], type[PickedMixin]] = {}


def picking(base: type[LocalScheduler]) -> type[PickedMixin]:
    """The policy ``base`` with its next job picked from outside (see the module); one class per base.

    Raises ``InvalidInput`` for a base that plans its whole queue (conservative backfilling, the slot
    scheduler): there the order is the plan, which a pick would have to rebuild.

    Examples
    --------
    Four processors; job 1 runs on three of them. Job 2 (four processors) is picked: it cannot start,
    so EASY backfills job 3 around its reservation at 100. Then job 4 is picked when job 2 has started.

    >>> from gridmarket.scheduling import EASYScheduler, MachineSimulation
    >>> s = picking(EASYScheduler)(4)
    >>> sim = MachineSimulation(s, [Job(1, 0, 3, 100, 100), Job(2, 1, 4, 10, 10), Job(3, 1, 1, 50, 50),
    ...                             Job(4, 1, 1, 5, 5)])
    >>> steps = sim.steps()
    >>> next(steps), [j.id for j in s.queue]  # job 1 arrived; nothing picked yet
    (0, [1])
    >>> s.picked = s.queue[0]; sim.wake_at(sim.now); next(steps), sim.start
    (0, {1: 0})
    >>> next(steps), [j.id for j in s.queue]
    (1, [2, 3, 4])
    >>> s.picked = s.queue[0]; sim.wake_at(sim.now); next(steps), sim.start
    (1, {1: 0, 3: 1})
    """
    if base.planner.plans_whole_queue:
        raise InvalidInput(f"policy {base.name or base.__name__!r} plans its whole queue: its order cannot be picked")
    cls = _PICKED.get(base)
    if cls is None:
        name = f"{base.name or base.__name__}-picked"
        cls = _PICKED[base] = type(f"Picked{base.__name__}", (PickedMixin, base), {"name": name, "__module__": __name__})
    return cls
