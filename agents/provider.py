"""A resource provider: one machine running a local batch policy, as a Mesa agent.

Times are integer seconds from simulation start. The arithmetic lives in
``market``: the agent owns a :class:`market.simulation.MachineSimulation` and
wakes it through the model's event list. Submissions at one instant are
gathered and handled by one wake-up at low priority, so the machine keeps the
same-timestamp rule (ends, then arrivals, then one pass).
"""

from __future__ import annotations

import mesa
import pandas as pd
from mesa.time import Priority

from market.errors import InvalidInput
from market.job import Job
from market.scheduling import make_scheduler
from market.simulation import MachineSimulation, job_records

from agents.messages import Dispatch, Message, Submit

__all__ = ["ResourceProvider"]


class ResourceProvider(mesa.Agent):
    """One site: ``procs`` processors under ``policy``.

    Attributes
    ----------
    name : str
        Site name, used as the receiver of messages.
    machine : MachineSimulation
        The machine's own event loop (ends, arrivals, passes).
    """

    def __init__(self, model: mesa.Model, name: str, procs: int, policy: str = "easy") -> None:
        super().__init__(model)
        self.name = name
        self.procs = procs
        self.policy = policy
        self.machine = MachineSimulation(make_scheduler(policy, procs))
        self._wake_at: int | None = None
        self._event = None

    # ------------------------------------------------------------- messages
    def receive(self, message: Message) -> None:
        """Handle a message addressed to this provider."""
        if isinstance(message, (Submit, Dispatch)):
            job = message.payload
            if not isinstance(job, Job):
                raise InvalidInput(f"{self.name}: {message.kind} carries {job!r}, not a Job")
            self.machine.submit(job)
            self._schedule_wake(job.submit)
        else:
            raise InvalidInput(f"{self.name}: cannot handle a {message.kind!r} message")

    # ------------------------------------------------------------- state
    @property
    def queue(self) -> list[Job]:
        """Jobs waiting: in the local queue, or submitted and not yet seen by a pass."""
        m = self.machine
        return list(m.scheduler.queue) + m.jobs[m._next :]

    @property
    def busy(self) -> int:
        """Processors running jobs now."""
        return self.procs - self.machine.scheduler.n_free

    def records(self) -> pd.DataFrame:
        """Per-job records of the jobs that ended so far, with this site's name."""
        done = [j for j in self.machine.jobs if j.id in self.machine.end]
        frame = job_records(done, self.machine.start, self.machine.end)
        frame.insert(1, "site", self.name)
        return frame

    # ------------------------------------------------------------- time
    def _schedule_wake(self, t: int) -> None:
        if self._wake_at is not None and self._wake_at <= t:
            return
        if self._event is not None:
            self._event.cancel()
        self._wake_at = t
        self._event = self.model.schedule_event(self.wake, at=t, priority=Priority.LOW)

    def wake(self) -> None:
        """Run the machine up to now, then sleep until its next event."""
        now = int(self.model.time)
        self._wake_at = self._event = None
        self.machine.run_until(now)
        nxt = self.machine.next_time()
        if nxt is not None:
            self._schedule_wake(nxt)
