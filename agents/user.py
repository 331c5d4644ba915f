"""A user replaying a workload: submits each job at its submit time to a provider.

Times are integer seconds from simulation start. Routing of best-effort jobs
(``route``): ``site`` (the job's origin site), ``round-robin``, ``random``
(the model's rng) or ``least-loaded`` (fewest queued processor-seconds per
processor at submit time). When the model has a metascheduler, each job
goes to it instead with probability ``grid_fraction`` (f_g; one draw from the
model's rng per job, Murali & Vadhiyar sec. 5.6). The user holds one pending
event: the next submit.
"""

from __future__ import annotations

from collections.abc import Sequence

import mesa
from mesa.time import Priority

from gridmarket.agents.broker import ReservationRequest
from gridmarket.agents.messages import Submit
from gridmarket.errors import InvalidInput
from gridmarket.job import Job

__all__ = ["ROUTES", "User"]

ROUTES = ("site", "round-robin", "random", "least-loaded")


class User(mesa.Agent):
    """Submits ``jobs`` (sorted by submit time) to the model's providers.

    ``jobs`` may hold :class:`gridmarket.agents.broker.WorkflowRequest` items too; they
    and the jobs listed in ``model.reservation_starts`` go to the model's broker,
    and so does every job when the broker runs a job market (``Broker.buys_jobs``).
    """

    def __init__(
        self,
        model: mesa.Model,
        name: str,
        jobs: Sequence[Job],
        route: str = "round-robin",
        *,
        grid_fraction: float = 0.0,
    ) -> None:
        super().__init__(model)
        if route not in ROUTES:
            raise InvalidInput(f"user {name!r}: route must be one of {ROUTES}, got {route!r}")
        if not 0 <= grid_fraction <= 1:
            raise InvalidInput(f"user {name!r}: grid_fraction must be in [0, 1], got {grid_fraction!r}")
        self.name = name
        self.grid_fraction = grid_fraction
        self.jobs = list(jobs)
        self.route = route
        self._next = 0
        if self.jobs:
            model.schedule_event(self.submit_due, at=self.jobs[0].submit, priority=Priority.HIGH)

    def _target(self, job: Job) -> str:
        providers = self.model.providers
        if self.route == "site":
            if job.site not in providers:
                raise InvalidInput(f"job {job.id}: origin site {job.site!r} is not a provider")
            return job.site  # type: ignore[return-value]  # in providers: not None
        fitting = [p for p in providers.values() if p.procs >= job.procs]
        if not fitting:
            raise InvalidInput(f"job {job.id} needs {job.procs} processors; no provider has that many")
        if self.route == "round-robin":  # one turn counter for the whole market
            turn = self.model.round_robin_turn
            self.model.round_robin_turn += 1
            return fitting[turn % len(fitting)].name
        if self.route == "random":
            return fitting[int(self.model.rng.integers(len(fitting)))].name
        return min(fitting, key=lambda p: (sum(j.procs * j.estimate for j in p.queue) / p.procs, p.name)).name

    def submit_due(self) -> None:
        """Send every job due now, then sleep until the next one."""
        now = int(self.model.time)
        jobs = self.jobs
        while self._next < len(jobs) and jobs[self._next].submit == now:
            job = jobs[self._next]
            self._next += 1
            broker = self.model.broker
            if not isinstance(job, Job):  # a workflow: the broker provisions and runs it
                self.model.send(Submit(self.name, broker.name, now, job))
                continue
            start = self.model.reservation_starts.get(job.id)
            if start is not None:  # an advance reservation request: through the broker
                self.model.send(Submit(self.name, broker.name, now, ReservationRequest(job, start)))
                continue
            if broker is not None and broker.buys_jobs:  # a job market: the broker trades for a slot
                self.model.send(Submit(self.name, broker.name, now, job))
                continue
            meta = self.model.metascheduler
            if meta is not None and self.grid_fraction > 0 and self.model.rng.random() < self.grid_fraction:
                target = meta.name
            else:
                target = self._target(job)
            self.model.send(Submit(self.name, target, now, job))
        if self._next < len(jobs):
            self.model.schedule_event(self.submit_due, at=jobs[self._next].submit, priority=Priority.HIGH)
