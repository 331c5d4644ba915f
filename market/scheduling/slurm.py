"""PSP inside SLURM: the multifactor job priority with a PSP factor, served by SLURM's backfill pass.

Rocchetti, Iturriaga & Nesmachnow (seed ``rocchetti-penalty-scheduling-policy.txt``, Sec. 2.2 and
Algorithm 1) put PSP "in the Multifactor implementation of SLURM Scheduler Priority Plugin API":
``computeNewPriority`` re-ranks every pending job periodically and on job submission and
completion, and SLURM's scheduler serves the ranked queue. :class:`SlurmPSPScheduler` is that
reading, beside the strict class order of :class:`gridmarket.scheduling.psp.PSPScheduler`.

Priority (SLURM's ``priority/multifactor``, https://slurm.schedmd.com/priority_multifactor.html)::

    priority = w_psp * (class - 1) / 4 + w_age * min(age / max_age, 1) + w_size * procs / machine

``class`` is the user's Table 1 accuracy class (1..5, :mod:`gridmarket.scheduling.psp`), ``age`` the
seconds the job has waited. The paper gives no weights. The defaults are the example weights of
SLURM's multifactor page with PSP's factor in place of fair share (which PSP replaces as the
per-user factor): fair share 10000 -> ``w_psp`` 10000, age 1000, job size 1000, ``PriorityMaxAge``
7 days (SLURM's default), ``PriorityFavorSmall=NO`` (larger jobs get the larger size factor).
With them a week's wait is worth a tenth of the class range: one class step is 2500.

The pass (SLURM's ``sched/backfill``, run here at every event, where SLURM runs it every
``bf_interval``): pending jobs in priority order (ties: submit time, id) are planned one by one at
their earliest start in a profile of the running jobs (to their estimates), the advance
reservations, and the jobs planned before them in this pass; a job whose start is now starts, the
others keep their planned processors for the rest of the pass only. Nothing is kept between
passes: every pass re-plans from the new priorities. At most ``bf_max_job_test`` jobs are planned
per pass (100 here; SLURM's default was 100 before release 20.02 and is 500 since; the paper
(traces to March 2015) predates that change);
later jobs wait for the next pass. Before it, SLURM's main scheduler starts jobs in priority order
until the first that does not fit now; the backfill pass plans from that job on.

Times are integer seconds from simulation start.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from gridmarket.errors import InvalidInput
from gridmarket.job import Job
from gridmarket.scheduling.base import LocalScheduler
from gridmarket.scheduling.psp import (
    DEFAULT_ACCURACY,
    WINDOW,
    FrozenAccuracies,
    UserAccuracies,
    accuracy_planning_state,
    read_accuracy_planning_state,
)

__all__ = ["SLURM_WEIGHTS", "SlurmPSPScheduler", "SlurmWeights"]


@dataclass(frozen=True, slots=True)
class SlurmWeights:
    """Weights of the multifactor priority (SLURM's ``PriorityWeight*``) and ``PriorityMaxAge``.

    Parameters
    ----------
    psp : float
        Weight of the PSP factor ``(class - 1) / 4``.
    age : float
        Weight of the age factor ``min(age / max_age, 1)``.
    size : float
        Weight of the job-size factor ``procs / machine procs``.
    max_age : int
        Seconds of waiting at which the age factor reaches 1 (SLURM default: 7 days).
    """

    psp: float = 10000.0
    age: float = 1000.0
    size: float = 1000.0
    max_age: int = 7 * 86400

    def __post_init__(self) -> None:
        for name in ("psp", "age", "size"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0:
                raise InvalidInput(f"SlurmWeights: {name} must be a number >= 0, got {value!r}")
        if isinstance(self.max_age, bool) or not isinstance(self.max_age, int) or self.max_age < 1:
            raise InvalidInput(f"SlurmWeights: max_age must be an int >= 1 s, got {self.max_age!r}")


#: SLURM's documented example weights with PSP in fair share's place (module notes).
SLURM_WEIGHTS = SlurmWeights()


class SlurmPSPScheduler(LocalScheduler):
    """PSP as a factor of SLURM's multifactor priority, with SLURM's backfill pass (module notes).

    Parameters
    ----------
    procs : int
        Processors of the machine.
    weights : SlurmWeights
        Priority weights (default :data:`SLURM_WEIGHTS`).
    bf_max_job_test : int
        Pending jobs planned per pass (SLURM's ``bf_max_job_test``).
    window, default_accuracy
        As :class:`gridmarket.scheduling.psp.PSPScheduler`.

    Examples
    --------
    Two processors. User 2's job 1 asks for 100 s and runs 10, so user 2 falls to class 1.
    Jobs 3 (user 2) and 4 (user 1, class 5) then both need the whole machine: job 4 ranks
    first although it came later, as under strict PSP.

    >>> s = SlurmPSPScheduler(2)
    >>> j1, j2 = Job(1, 0, 1, 10, 100, user=2), Job(2, 0, 1, 50, 50, user=1)
    >>> s.submit(j1, 0); s.submit(j2, 0); [j.id for j in s.schedule(0)]
    [1, 2]
    >>> s.finish(j1, 10); s.submit(Job(3, 20, 2, 10, 10, user=2), 20); s.schedule(20)
    []
    >>> s.submit(Job(4, 30, 2, 10, 10, user=1), 30); s.schedule(30)
    []
    >>> round(s.priority(s.queue[1], 30)), round(s.priority(s.queue[0], 30))
    (11000, 1000)
    >>> s.finish(j2, 50); [j.id for j in s.schedule(50)]
    [4]

    After a week of waiting a class-1 job gains 1000 (the age weight), less than one class
    step (2500): age alone does not lift it over a class-2 job submitted now.
    """

    name = "psp-slurm"

    def __init__(self, procs: int, *, weights: SlurmWeights = SLURM_WEIGHTS, bf_max_job_test: int = 100,
                 window: int = WINDOW, default_accuracy: float = DEFAULT_ACCURACY) -> None:
        super().__init__(procs)
        if not isinstance(weights, SlurmWeights):
            raise InvalidInput(f"weights must be a SlurmWeights, got {weights!r}")
        if isinstance(bf_max_job_test, bool) or not isinstance(bf_max_job_test, int) or bf_max_job_test < 1:
            raise InvalidInput(f"bf_max_job_test must be an int >= 1, got {bf_max_job_test!r}")
        self.weights = weights
        self.bf_max_job_test = bf_max_job_test
        self.accuracies = UserAccuracies(window=window, default_accuracy=default_accuracy)
        self._next_start: int | None = None  # earliest start after now in the last pass's plan

    @property
    def priorities(self) -> dict[int, int]:
        """Current Table 1 class (1..5) of every user seen so far."""
        return self.accuracies.classes

    def priority(self, job: Job, now: int) -> float:
        """Multifactor priority of queued ``job`` at ``now`` (module notes)."""
        w = self.weights
        age = min(max(now - job.submit, 0) / w.max_age, 1.0)
        return (w.psp * (self.accuracies.cls(job.user) - 1) / 4 + w.age * age
                + w.size * job.procs / self.procs)

    def planning_state(self) -> dict:
        """Users' accuracies (as :meth:`PSPScheduler.planning_state`), the weights and ``bf_max_job_test``."""
        state = accuracy_planning_state(self.accuracies, self.accuracies.default_accuracy)
        state["weights"] = asdict(self.weights)
        state["bf_max_job_test"] = self.bf_max_job_test
        return state

    @classmethod
    def for_planning(cls, procs: int, planning_state: Mapping | None) -> SlurmPSPScheduler:
        """A scheduler with the weights of ``planning_state`` whose users keep its accuracies (PSP's plan view).

        Examples
        --------
        >>> live = SlurmPSPScheduler(4, weights=SlurmWeights(psp=500.0), bf_max_job_test=7)
        >>> plan = SlurmPSPScheduler.for_planning(4, live.planning_state())
        >>> plan.weights == live.weights, plan.bf_max_job_test
        (True, 7)
        """
        accuracies, default = read_accuracy_planning_state(planning_state, cls.name, ("weights", "bf_max_job_test"))
        kwargs: dict[str, Any] = {}
        if planning_state is not None:
            where = f"policy_state of {cls.name}"
            if "weights" in planning_state:
                weights = planning_state["weights"]
                if not isinstance(weights, Mapping):
                    raise InvalidInput(f"{where}: weights must be an object, got {type(weights).__name__}")
                try:
                    kwargs["weights"] = SlurmWeights(**weights)
                except TypeError:
                    raise InvalidInput(f"{where}: weights takes psp, age, size and max_age, got "
                                       f"{', '.join(map(str, weights))}") from None
            if "bf_max_job_test" in planning_state:
                kwargs["bf_max_job_test"] = planning_state["bf_max_job_test"]
        sched = cls(procs, default_accuracy=default, **kwargs)
        sched.accuracies = FrozenAccuracies(accuracies, default_accuracy=default)
        return sched

    def submit(self, job: Job, now: int) -> None:
        if job.user < 0:
            raise InvalidInput(
                f"missing users for PSP: job {job.id} has user {job.user}; "
                "PSP ranks jobs by their user's estimate accuracy"
            )
        super().submit(job, now)
        self.accuracies.cls(job.user)

    def finish(self, job: Job, now: int) -> None:
        super().finish(job, now)
        self.accuracies.record(job)

    def schedule(self, now: int) -> list[Job]:
        self.advance_to(now)
        self._next_start = None
        if not self.queue:
            return []
        key = {job.id: (-self.priority(job, now), job.submit, job.id) for job in self.queue}
        ranked = sorted(self.queue, key=lambda job: key[job.id])
        plan = self.profile.copy()
        started: list[Job] = []
        k = 0  # main scheduler: priority order while the job fits now
        while k < len(ranked) and plan.min_free(now, ranked[k].estimate) >= ranked[k].procs:
            job = ranked[k]
            plan.reserve(now, job.estimate, job.procs)
            self.start_job(job, now)
            started.append(job)
            k += 1
        for job in ranked[k:k + self.bf_max_job_test]:  # backfill: plan each, start those due now
            start = plan.earliest_start(job.procs, job.estimate, now)
            plan.reserve(start, job.estimate, job.procs)
            if start == now:
                self.start_job(job, now)
                started.append(job)
            elif self._next_start is None or start < self._next_start:
                self._next_start = start
        if started:
            gone = {job.id for job in started}
            self.queue = [job for job in self.queue if job.id not in gone]
        return started

    def wakeup(self, now: int) -> int | None:
        """First planned start after ``now`` in the last pass (an advance reservation may end then)."""
        return self._next_start
