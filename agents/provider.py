"""A resource provider: one machine running a local batch policy, as a Mesa agent.

Times are integer seconds from simulation start. The arithmetic lives in
``market``: the agent owns a :class:`gridmarket.simulation.MachineSimulation` and
wakes it through the model's event list. Submissions at one instant are
gathered and handled by one wake-up at low priority, so the machine keeps the
same-timestamp rule (ends, then arrivals, then one pass).
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import islice

import mesa
import numpy as np
import pandas as pd
from mesa.time import Priority

from gridmarket.agents.messages import Advertise, Cancel, Dispatch, Message, Query, Quote, Reserve, Submit
from gridmarket.energy.electricity_cost import electricity_costs
from gridmarket.energy.prices import HourlyPrices
from gridmarket.errors import InvalidInput
from gridmarket.job import Job
from gridmarket.prediction.queue_wait import QueueWaitPredictor, queue_features
from gridmarket.prediction.wait_replay import warm_predictor
from gridmarket.pricing import ProviderPlan, resolve_pricing
from gridmarket.pricing.state import ProviderState, state_from_scheduler
from gridmarket.provisioning.dbc import DBC_SELLERS
from gridmarket.reservation import Reservation
from gridmarket.scheduling import make_scheduler
from gridmarket.scheduling.profile import AvailabilityProfile
from gridmarket.scheduling.state import scheduler_base_profile
from gridmarket.simulation import MachineSimulation, job_records
from gridmarket.sla import book_capacity

__all__ = ["PRICE_KINDS", "ResourceProvider"]


PRICE_KINDS = ("quote", "paid", "penalty", "sla-penalty")
"""What a price of a provider's log is: a quote it gave, a price paid for its slot, a cancellation penalty it was
paid, an SLA penalty it owes (SU)."""


class ResourceProvider(mesa.Agent):
    """One site: ``procs`` processors under ``policy``, pricing its slots by ``pricing`` (:mod:`gridmarket.pricing.rules`).

    ``overbooking`` (>= 1): the factor by which it signs service-level agreements beyond its
    processors (:func:`gridmarket.sla.overbooked_state`; 1, the default, signs only what its plan can
    honour). ``sells``: how it sells to a DBC broker (the ``dbc`` model): ``"quote"`` (priced
    starts, the default), ``"post"`` (advertised slots at posted prices) or ``"auction"`` (a
    second-price auction of the job's slot, its quote the reserve).

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
        pricing: str = "externality",
        overbooking: float = 1.0,
        sells: str = "quote",
    ) -> None:
        super().__init__(model)
        resolve_pricing(pricing)  # an unknown rule or a plug-in that cannot be imported fails here
        book_capacity(procs, overbooking)  # a factor below 1 fails here
        if sells not in DBC_SELLERS:
            raise InvalidInput(f"{name}: sells must be one of {', '.join(DBC_SELLERS)}, got {sells!r}")
        self.name = name
        self.procs = procs
        self.policy = policy
        self.prices = prices
        self.watts_per_proc = watts_per_proc
        self.pricing = pricing
        self.overbooking = overbooking
        self.sells = sells
        self.machine = MachineSimulation(make_scheduler(policy, procs))
        self.wait_predictor: QueueWaitPredictor | None = None
        self._features: dict[int, tuple] = {}  # job id -> (queue features, submit)
        self._wake_at: int | None = None
        self._event = None
        self.price_log: list[tuple[int, float, str]] = []  # (time s, SU, one of PRICE_KINDS): log_price adds to it
        self.start_observers: list = []  # fn(job, start) for every job this provider starts
        self._on_start: dict[int, Callable[[int, int], None]] = {}  # job id -> fn(job_id, t), called once
        self._on_end: dict[int, Callable[[int, int], None]] = {}
        self._by_id: dict[int, Job] = {}
        self._seen_starts = 0
        self._base: tuple[int, AvailabilityProfile] | None = None  # (scheduler version, base profile) for earliest_start

    def track_waits(self, predictor: QueueWaitPredictor | None = None) -> None:
        """Feed ``predictor`` (default a fresh one) with every job this provider starts from now on.

        The features are the queue state when the job arrives (Murali & Vadhiyar, sec. 3.1).
        """
        self.wait_predictor = predictor if predictor is not None else QueueWaitPredictor()

    def warm_waits(self, n_jobs: int, rng: np.random.Generator) -> None:
        """Train the wait predictor on ``n_jobs`` past jobs of this machine first (``warm_predictor``)."""
        if self.wait_predictor is None:
            raise InvalidInput(f"{self.name}: no wait predictor to warm (call track_waits first)")
        warm_predictor(self.wait_predictor, n_jobs, procs=self.procs, policy=self.policy, rng=rng)

    def watch(self, job_id: int, *, on_start=None, on_end=None) -> None:
        """Call ``on_start(job_id, t)`` / ``on_end(job_id, t)`` once when the job starts / ends (t in s)."""
        if on_start is not None:
            self._on_start[job_id] = on_start
        if on_end is not None:
            self._on_end[job_id] = on_end

    # ------------------------------------------------------------- messages
    def receive(self, message: Message) -> Message | None:
        """Handle a message addressed to this provider; a query is answered with the reply message.

        ``Submit``/``Dispatch`` carry a Job; ``Query`` carries ``"advertise"``
        (answered by an ``Advertise`` of the plan's free slots, ch. 3) or
        ``"plan"`` (answered by a ``Quote`` carrying the priced plan, ch. 5);
        ``Reserve`` carries a :class:`~gridmarket.reservation.Reservation` placed
        in the machine's plan; ``Cancel`` carries ``(reservation id, penalty SU)``.
        """
        if isinstance(message, (Submit, Dispatch)):
            job = message.payload
            if not isinstance(job, Job):
                raise InvalidInput(f"{self.name}: {message.kind} carries {job!r}, not a Job")
            if self.wait_predictor is not None:
                self.catch_up(job.submit - 1)
                feats = queue_features(job.procs, job.estimate, self.machine.scheduler, job.submit)
                self._features[job.id] = (feats, job.submit)
            self.machine.submit(job)
            self._by_id[job.id] = job
            self._schedule_wake(job.submit)
            return None
        if isinstance(message, Query):
            now = message.time
            plan = self.plan(now)
            if message.payload == "advertise":
                return Advertise(self.name, message.sender, now, plan.advertise())
            if message.payload == "plan":
                return Quote(self.name, message.sender, now, plan)
            raise InvalidInput(f"{self.name}: a query asks for 'advertise' or 'plan', got {message.payload!r}")
        if isinstance(message, Reserve):
            reservation = message.payload
            if not isinstance(reservation, Reservation):
                raise InvalidInput(f"{self.name}: reserve carries {reservation!r}, not a Reservation")
            self._advance(message.time)
            self.machine.add_reservation(reservation)
            self._schedule_wake(self.machine.next_time())
            return None
        if isinstance(message, Cancel):
            reservation_id, penalty = message.payload
            if message.time > self.machine.now:
                self.catch_up(message.time)
            self.machine.scheduler.withdraw_reservation(reservation_id, self.machine.now)
            self.machine.wake_at(self.machine.now)
            self.log_price(message.time, float(penalty), "penalty")
            self._schedule_wake(self.machine.now)
            return None
        raise InvalidInput(f"{self.name}: cannot handle a {message.kind!r} message")

    def log_price(self, time: int, su: float, kind: str) -> None:
        """Add a price to :attr:`price_log`: ``su`` SU at ``time`` s, of ``kind`` (:data:`PRICE_KINDS`).

        What brokers and desks call for the prices they quote, pay and charge here, so the log has one writer.
        """
        if kind not in PRICE_KINDS:
            raise InvalidInput(f"{self.name}: price kind must be one of {', '.join(PRICE_KINDS)}, got {kind!r}")
        self.price_log.append((time, su, kind))

    def plan(self, now: int) -> ProviderPlan:
        """The machine's priced plan at ``now`` (what a ``"plan"`` query answers), without a message."""
        self._advance(now)
        return ProviderPlan.from_scheduler(self.machine.scheduler, now, pricing=self.pricing)

    def state(self, now: int) -> ProviderState:
        """The machine's running jobs, queue and reservations at ``now`` (unpriced: cheaper than :meth:`plan`)."""
        self._advance(now)
        return state_from_scheduler(self.machine.scheduler, now)

    def earliest_start(self, procs: int, duration: int, now: int) -> int | None:
        """The earliest start (s, >= ``now``) at which running jobs (to their estimates) and reservations leave
        ``procs`` processors free for ``duration`` s; None when the machine is smaller.

        The first start any plan of this machine can sell at ``now`` (queued jobs only add a price,
        Singh 2008 ch. 5): the bound a broker ranks providers by before asking for their plans. Read
        from the scheduler's running jobs and reservations (:func:`gridmarket.scheduling.state.scheduler_base_profile`),
        without building a plan.
        """
        if procs > self.procs:
            return None
        self._advance(now)
        scheduler = self.machine.scheduler
        if self._base is None or self._base[0] != scheduler.version:
            # unchanged running jobs and reservations give the same profile from any later instant
            self._base = (scheduler.version, scheduler_base_profile(scheduler, now))
        return self._base[1].earliest_start(procs, duration, now)

    def place(self, reservation: Reservation) -> None:
        """Hold ``reservation`` on the machine from now on (the provider's own act; a ``Reserve`` message does
        the same for a broker)."""
        self._advance(int(self.model.time))
        self.machine.add_reservation(reservation)
        self._schedule_wake(self.machine.next_time())

    def end_reservation(self, reservation_id: str) -> None:
        """The job a reservation was bought for has ended early: the rest of the window returns now.

        A reservation bought for one job (Singh ch. 5-6: n processors for the
        requested D) ends with it, as a job's planned processors return when
        it ends before its estimate; queued jobs move up as after a
        cancellation. The price paid does not change.
        """
        now = int(self.model.time)
        if now > self.machine.now:
            self.catch_up(now)
        self.machine.scheduler.withdraw_reservation(reservation_id, self.machine.now)
        self.machine.wake_at(self.machine.now)
        self._schedule_wake(self.machine.now)

    def cancel(self, job_id: int) -> None:
        """Withdraw job ``job_id`` before it starts (a broker giving up a VAR job at S, Fig. 45)."""
        self._advance(int(self.model.time))
        self._on_start.pop(job_id, None)
        self._on_end.pop(job_id, None)
        self.machine.cancel(job_id)
        self._schedule_wake(self.machine.now)

    def kill(self, job_id: int) -> None:
        """End running job ``job_id`` now (a broker cancelling a VAR job as it starts, Fig. 45)."""
        self.machine.kill(job_id)
        self._schedule_wake(self.machine.now)

    # ------------------------------------------------------------- state
    @property
    def queue(self) -> list[Job]:
        """Jobs waiting: in the local queue, or submitted and not yet seen by a pass."""
        m = self.machine
        return list(m.scheduler.queue) + m.upcoming

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

    def _advance(self, t: int) -> None:
        """Apply every machine event before ``t``; the machine's clock then reads ``t``."""
        if t > self.machine.now:
            self.machine.advance(t)
            self._observe()

    # ------------------------------------------------------------- time
    def _schedule_wake(self, t: int | None) -> None:
        if t is None:
            return
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
        m = self.machine
        if self.start_observers or self._on_start:
            starts = m.start
            if len(starts) > self._seen_starts:
                # the newest entries, from the end: O(new) rather than a copy of every start so far
                new = list(islice(reversed(starts.items()), len(starts) - self._seen_starts))[::-1]
                self._seen_starts = len(starts)
                for job_id, t in new:
                    job = self._by_id.get(job_id)
                    if job is not None:
                        for fn in self.start_observers:
                            fn(job, t)
                    fn = self._on_start.pop(job_id, None)
                    if fn is not None:
                        fn(job_id, t)
        if self._on_end:
            for job_id in [j for j in self._on_end if j in m.end]:
                fn = self._on_end.pop(job_id, None)  # a callback may have observed it already
                if fn is not None:
                    fn(job_id, m.end[job_id])
        if not self._features:
            return
        start = self.machine.start
        for job_id in [j for j in self._features if j in start]:
            feats, submit = self._features.pop(job_id)
            self.wait_predictor.observe(feats, start[job_id] - submit)  # type: ignore[union-attr]  # features: a predictor
