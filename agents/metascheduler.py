"""A grid metascheduler agent: every cycle it clears the pending grid jobs across providers.

Murali & Vadhiyar, sec. 3: for each pending job and each provider that can
run it, the agent predicts the wait (a ``gridmarket.prediction.QueueWaitPredictor``
per provider, fed by that provider's started jobs), the response (wait +
estimate since submission) and the electricity cost of running then (the
provider's hourly prices, eq. 7); it then clears the cycle with
``gridmarket.clearing.clear_mcmf`` on the eq. (4)-(6) combined cost with capacity
MaxQ, or with ``gridmarket.clearing.stable_match`` (jobs ranking providers by
response, providers ranking jobs by electricity cost), and sends one
``Dispatch`` per assigned job. Jobs left over wait for the next cycle.

Times are integer seconds from simulation start; prices ``price_per_mwh``.
The metascheduler sees the actual hourly prices (perfect day-ahead
knowledge) or, with ``price_forecasts = "sarima"``, Murali & Vadhiyar's
SARIMA outlooks (``gridmarket.prediction.PriceOutlook``; :class:`MetaschedulerSpec`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import mesa
import numpy as np
from mesa.time import Priority

from gridmarket.agents.messages import Dispatch, Message, Submit
from gridmarket.clearing import CycleCosts, check_result, resolve_clearing
from gridmarket.energy.electricity_cost import WH_PER_MWH
from gridmarket.errors import InvalidInput
from gridmarket.job import Job
from gridmarket.prediction.queue_wait import queue_features

__all__ = ["CLEARINGS", "PRICE_FORECASTS", "Metascheduler", "MetaschedulerSpec"]

CLEARINGS = ("mcmf", "stable")
"""The built-in clearings; any name :func:`gridmarket.clearing.resolve_clearing` knows is accepted (plug-ins too)."""

PRICE_FORECASTS = ("actual", "sarima")
"""What the metascheduler plans electricity costs with (``MetaschedulerSpec.price_forecasts``)."""


@dataclass(frozen=True, slots=True)
class MetaschedulerSpec:
    """How the metascheduler clears: ``clearing``, ``w_t`` (%), ``maxq``, ``cycle`` (s).

    ``clearing``: ``mcmf``, ``stable``, another registered clearing method or a plug-in
    ``"package.module:function"`` (:mod:`gridmarket.clearing.methods`).

    ``history``: past jobs replayed on each provider to train its wait
    predictor before the market opens (``ResourceProvider.warm_waits``); 0 =
    the predictors start empty.

    ``price_forecasts``: ``"actual"`` (the electricity cost of a placement is
    computed from the real prices, perfect foresight) or ``"sarima"`` (Murali
    & Vadhiyar sec. 3.2: the day-ahead prices published up to the next local
    midnight, then SARIMA forecasts fitted on the previous three days,
    :class:`gridmarket.prediction.PriceOutlook`; before three days of prices
    exist, the last published day repeated). The jobs still pay the real
    prices.
    """

    clearing: str = "mcmf"
    w_t: float = 25.0
    maxq: int | None = 2
    cycle: int = 600
    history: int = 0
    price_forecasts: str = "actual"

    def __post_init__(self) -> None:
        resolve_clearing(self.clearing)  # an unknown name or a plug-in that cannot be imported fails here
        if not 0 <= self.w_t <= 100:
            raise InvalidInput(f"metascheduler w_t must be in [0, 100], got {self.w_t!r}")
        if self.maxq is not None and (not isinstance(self.maxq, int) or self.maxq < 1):
            raise InvalidInput(f"metascheduler maxq must be an int >= 1 or None, got {self.maxq!r}")
        if not isinstance(self.cycle, int) or self.cycle < 1:
            raise InvalidInput(f"metascheduler cycle must be an int >= 1 s, got {self.cycle!r}")
        if isinstance(self.history, bool) or not isinstance(self.history, int) or self.history < 0:
            raise InvalidInput(f"metascheduler history must be an int >= 0 jobs, got {self.history!r}")
        if self.price_forecasts not in PRICE_FORECASTS:
            raise InvalidInput(f"metascheduler price_forecasts must be one of {PRICE_FORECASTS}, "
                               f"got {self.price_forecasts!r}")


class Metascheduler(mesa.Agent):
    """Receives ``Submit`` messages of grid jobs; dispatches them every ``spec.cycle`` seconds."""

    name = "metascheduler"

    def __init__(self, model: mesa.Model, spec: MetaschedulerSpec) -> None:
        super().__init__(model)
        self.spec = spec
        self.pending: list[Job] = []
        self.n_cycles = 0
        self.predicted_wait: dict[int, float] = {}
        self.dispatch_log: list[tuple[int, str, int]] = []  # (cycle time s, site, jobs dispatched)
        providers = list(model.providers.values())
        for provider in providers:
            provider.track_waits()
        if spec.history:
            # child streams of the model's seed: the model's own stream is not advanced
            for provider, rng in zip(providers, model.rng.spawn(len(providers)), strict=True):
                provider.warm_waits(spec.history, rng)
        self._next_cycle: int | None = None
        self._outlooks = {}
        if spec.price_forecasts == "sarima":
            from gridmarket.prediction.price_forecast import PriceOutlook

            self._outlooks = {p.name: PriceOutlook(p.prices) for p in providers if p.prices is not None}

    def price_view(self, provider, now: int):
        """The prices the metascheduler plans with for ``provider`` at ``now`` (``spec.price_forecasts``)."""
        outlook = self._outlooks.get(provider.name)
        if outlook is None:
            return provider.prices
        known = outlook.known_until(now)
        if known >= outlook.train_days * 24:
            return outlook.view(now)
        from gridmarket.energy.prices import HourlyPrices

        actual = provider.prices
        last_day = actual.prices[max(0, known - 24):known]
        later = np.resize(last_day, outlook.horizon_days * 24) if len(last_day) else np.zeros(0)
        return HourlyPrices(np.concatenate([actual.prices[:known], later]), actual.zone, actual.currency,
                            actual.start)

    def receive(self, message: Message) -> None:
        """Queue a grid job until the next cycle."""
        if not isinstance(message, Submit) or not isinstance(message.payload, Job):
            raise InvalidInput(f"metascheduler: cannot handle {message.kind!r} carrying {message.payload!r}")
        job = message.payload
        if not any(p.procs >= job.procs for p in self.model.providers.values()):
            raise InvalidInput(f"job {job.id} needs {job.procs} processors; no provider has that many")
        self.pending.append(job)
        if self._next_cycle is None:
            # cycles fall on multiples of the cycle length, after the submission
            t = (job.submit // self.spec.cycle + 1) * self.spec.cycle
            self._next_cycle = t
            self.model.schedule_event(self.clear, at=t, priority=Priority.HIGH)

    def clear(self) -> None:
        """One cycle: predict, clear, dispatch; sleep until the next cycle if jobs remain."""
        now = int(self.model.time)
        self._next_cycle = None
        self.n_cycles += 1
        providers = list(self.model.providers.values())
        for p in providers:
            p.catch_up(now - 1)
        ready = [j for j in self.pending if j.submit < now]
        if ready:
            assignment, waits = self._clear(ready, providers, now)
            by_id = {j.id: j for j in ready}
            for site in sorted(set(assignment.values())):
                self.dispatch_log.append((now, site, sum(1 for s in assignment.values() if s == site)))
            for job_id in sorted(assignment):
                name = assignment[job_id]
                self.predicted_wait[job_id] = waits[job_id]
                self.model.send(Dispatch(self.name, name, now, replace(by_id[job_id], submit=now, site=name)))
            self.pending = [j for j in self.pending if j.id not in assignment]
        if self.pending:
            self._next_cycle = now + self.spec.cycle
            self.model.schedule_event(self.clear, at=self._next_cycle, priority=Priority.HIGH)

    def _clear(self, ready: list[Job], providers: list, now: int) -> tuple[dict[int, str], dict[int, float]]:
        m, n = len(ready), len(providers)
        response = np.full((m, n), np.nan)
        energy = np.full((m, n), np.nan)
        waits = np.full((m, n), np.nan)
        submits = np.array([j.submit for j in ready])
        for col, p in enumerate(providers):
            rows = [r for r, j in enumerate(ready) if j.procs <= p.procs]
            if not rows:
                continue
            feats = np.array([queue_features(ready[r].procs, ready[r].estimate, p.machine.scheduler, now)
                              for r in rows])
            wait = np.rint(p.wait_predictor.predict_many(feats))
            est = np.array([ready[r].estimate for r in rows])
            start = now + wait
            end = np.minimum(start + est, p.prices.end_time)
            start = np.minimum(start, end)
            watts = np.array([ready[r].procs * p.watts_per_proc for r in rows])
            response[rows, col] = end - submits[rows]
            prices = self.price_view(p, now)  # with forecasts: hours past the forecast's horizon are not priced
            e_end = np.minimum(end, prices.end_time)
            e_start = np.minimum(start, e_end)
            energy[rows, col] = watts * prices.integral(e_start.astype(np.int64), e_end.astype(np.int64)) / WH_PER_MWH
            waits[rows, col] = wait
        ids = [j.id for j in ready]
        names = [p.name for p in providers]
        caps = [self.spec.maxq] * n
        costs = CycleCosts(ids, names, response, energy, caps, self.spec.w_t)
        result = check_result(resolve_clearing(self.spec.clearing)(costs), costs, self.spec.clearing)
        col_of = {name: c for c, name in enumerate(names)}
        row_of = {j: r for r, j in enumerate(ids)}
        predicted = {j: float(waits[row_of[j], col_of[s]]) for j, s in result.assignment.items()}
        return dict(result.assignment), predicted
