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

from agents.messages import Dispatch, Message, Submit
from market.energy.electricity_cost import electricity_costs
from market.energy.prices import HourlyPrices
from market.errors import InvalidInput
from market.job import Job
from market.prediction.queue_wait import QueueWaitPredictor, queue_features
from market.scheduling import make_scheduler
from market.simulation import MachineSimulation, job_records

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

    def __init__(
        self,
        model: mesa.Model,
        name: str,
        procs: int,
        policy: str = "easy",
        *,
        prices: HourlyPrices | None = None,
        watts_per_proc: float = 0.0,
    ) -> None:
        super().__init__(model)
        self.name = name
        self.procs = procs
        self.policy = policy
        self.prices = prices
        self.watts_per_proc = watts_per_proc
        self.machine = MachineSimulation(make_scheduler(policy, procs))
        self.wait_predictor: QueueWaitPredictor | None = None
        self._features: dict[int, tuple] = {}  # job id -> (queue features, submit)
        self._wake_at: int | None = None
        self._event = None

    def track_waits(self, predictor: QueueWaitPredictor | None = None) -> None:
        """Feed ``predictor`` (default a fresh one) with every job this provider starts from now on.

        The features are the queue state when the job arrives (Murali & Vadhiyar, sec. 3.1).
        """
        self.wait_predictor = predictor if predictor is not None else QueueWaitPredictor()

    # ------------------------------------------------------------- messages
    def receive(self, message: Message) -> None:
        """Handle a message addressed to this provider."""
        if isinstance(message, (Submit, Dispatch)):
            job = message.payload
            if not isinstance(job, Job):
                raise InvalidInput(f"{self.name}: {message.kind} carries {job!r}, not a Job")
            if self.wait_predictor is not None:
                self.catch_up(job.submit - 1)
                feats = queue_features(job.procs, job.estimate, self.machine.scheduler, job.submit)
                self._features[job.id] = (feats, job.submit)
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
        """Per-job records of the jobs that ended so far, with this site's name.

        With a price series, ``electricity_cost`` is each job's eq. (7) cost:
        ``procs x watts_per_proc`` over ``[start, end)`` at the hourly prices.
        """
        done = [j for j in self.machine.jobs if j.id in self.machine.end]
        frame = job_records(done, self.machine.start, self.machine.end)
        frame.insert(1, "site", self.name)
        if self.prices is not None and len(frame):
            if int(frame["end"].max()) > self.prices.end_time:
                raise InvalidInput(f"{self.name}: a job ends at {int(frame['end'].max())} s, past the price "
                                   f"series ({self.prices.end_time} s)")
            watts = frame["procs"].to_numpy() * float(self.watts_per_proc)
            frame["electricity_cost"] = electricity_costs(watts, frame["start"].to_numpy(), frame["end"].to_numpy(),
                                                          self.prices)
        return frame

    def catch_up(self, t: int) -> None:
        """Apply every machine event up to ``t`` now (a metascheduler reading queue state)."""
        if t >= self.machine.now:
            self.machine.run_until(t)
            self._observe()

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
        self._observe()
        nxt = self.machine.next_time()
        if nxt is not None:
            self._schedule_wake(nxt)

    def _observe(self) -> None:
        if not self._features:
            return
        start = self.machine.start
        for job_id in [j for j in self._features if j in start]:
            feats, submit = self._features.pop(job_id)
            self.wait_predictor.observe(feats, start[job_id] - submit)
