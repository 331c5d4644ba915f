"""The reservation broker strategies ``var`` and ``combined`` (Singh 2008, ch. 6).

* ``var`` -- a reservation request becomes a virtual advance reservation (ch. 6, Fig. 33): a job
  submitted early by the queue-wait prediction, asking for the gap too. The QBETS bounds learn from
  each site's started jobs, after ``history`` past jobs replayed on it
  (``gridmarket.prediction.past_jobs``); without them every bound is 0 and each VAR job is submitted at
  once. Workflows run best effort. A VAR job that misses its start stays queued and runs late: it is
  the user's job.
* ``combined`` -- Fig. 45: buy the priced reservation *and* submit the VAR job; when the VAR job
  starts, keep whichever costs less (the other is cancelled: the reservation with penalty ``p·f``,
  eq. 23; the VAR job ends at once); a VAR job not started by the wanted start is withdrawn from the
  queue then. Both hold capacity on the same machine until the choice, so the VAR job competes with
  its own reservation (the thesis simulated the two separately). Workflows run best effort.

Times are integer seconds from simulation start; prices SU.
"""

from __future__ import annotations

import math
from dataclasses import replace

from gridmarket.agents.messages import Cancel
from gridmarket.agents.provisioning import quote_reservation
from gridmarket.agents.strategies import BrokerStrategy, base_cost, register_strategy
from gridmarket.prediction.wait_replay import past_jobs, simulated_waits
from gridmarket.provisioning import WaitPredictor, combine_var_and_reservation, plan_var
from gridmarket.reservation import Reservation

__all__ = ["CombinedStrategy", "VARStrategy"]


class VARStrategy(BrokerStrategy):
    """Virtual advance reservations (Fig. 33); ``predictors``: the QBETS wait predictor of each provider by name."""

    name = "var"

    def __init__(self, broker) -> None:
        super().__init__(broker)
        self.predictors: dict[str, WaitPredictor] = {}
        providers = broker.providers()
        history = broker.history
        # child streams of the model's seed: the model's own stream is not advanced
        streams = self.model.rng.spawn(len(providers)) if history else [None] * len(providers)
        for p, rng in zip(providers, streams, strict=True):
            predictor = self.predictors[p.name] = WaitPredictor()
            if history:
                # QBETS bounds come from the site's past waits; an empty history bounds nothing
                # and plan_var would submit every request as early as it may (ch. 6.1)
                past = past_jobs(history, procs=p.procs, rng=rng)
                for job, wait in simulated_waits(past, procs=p.procs, policy=p.policy):
                    predictor.observe(job.procs, job.estimate, wait)
            p.start_observers.append(lambda job, t, pr=predictor: pr.observe(job.procs, job.estimate,
                                                                           t - job.submit))

    def reserve(self, request, home) -> bool:
        self.virtual(request, home)
        return True

    def virtual(self, request, home, combined: tuple[Reservation, float] | None = None) -> None:
        """Fig. 33: submit a job early enough to start by the wanted start; with ``combined``, Fig. 45."""
        b, job, start = self.broker, request.job, request.start
        now = job.submit
        plan = plan_var(self.predictors[home.name], procs=job.procs, duration=job.estimate, start=start, now=now)
        gap = start - plan.submit
        var_job = replace(job, submit=plan.submit, runtime=min(job.runtime, job.estimate) + gap,
                          estimate=job.estimate + gap, site=home.name)
        base = base_cost(job.procs, job.estimate)

        def started(_id: int, t: int) -> None:
            on_time = t <= start
            if combined is None:
                extra = base_cost(job.procs, start - t) if on_time else 0.0
                b.outcomes[job.id] = {"success": on_time, "normalized_cost": extra / base, "used": "var"}
                return
            reservation, f = combined
            c = combine_var_and_reservation(procs=job.procs, duration=job.estimate, start=start, price=f,
                                            penalty_factor=b.penalty, var_start=t if on_time else None)
            if c.used == "var":  # keep the VAR job; give the reservation back with the penalty
                self.model.send(Cancel(b.name, home.name, t, (reservation.id, b.penalty * f)))
                b.costs[job.id] = base_cost(job.procs, start - t) + base + b.penalty * f
            else:  # keep the reservation; the VAR job ends as it starts
                home.kill(job.id)
                b.kinds[job.id] = "cancelled"
                b.record_reserved(request, home, base + f)
            b.outcomes[job.id] = {"success": c.success, "normalized_cost": c.normalized_cost, "used": c.used}

        home.watch(job.id, on_start=started)
        b.submit_at(var_job, home)
        if combined is not None:
            b.later(start + 1, lambda: self._give_up(request, home, combined))

    def _give_up(self, request, home, combined: tuple[Reservation, float]) -> None:
        """After S with the VAR job not started: withdraw it and use the reservation (Fig. 45)."""
        b, job = self.broker, request.job
        if job.id in home.machine.start:
            return  # its start was settled by Fig. 45 already
        home.cancel(job.id)
        b.kinds[job.id] = "cancelled"
        f = combined[1]
        b.record_reserved(request, home, base_cost(job.procs, job.estimate) + f)
        c = combine_var_and_reservation(procs=job.procs, duration=job.estimate, start=request.start, price=f,
                                        penalty_factor=b.penalty, var_start=None)
        b.outcomes[job.id] = {"success": c.success, "normalized_cost": c.normalized_cost, "used": c.used}


class CombinedStrategy(VARStrategy):
    """The priced reservation raced by a VAR job, the cheaper kept (Fig. 45)."""

    name = "combined"
    needs_plans = True

    def reserve(self, request, home) -> bool:
        f = quote_reservation(self.broker, request, home)
        if f == 0:  # a free slot: the reservation alone (Fig. 45)
            self.broker.reserve_at(request, home, f)
        elif f < math.inf:  # buy the reservation and race a VAR job against it
            self.virtual(request, home, combined=(self.broker.reserve_at(request, home, f, record=False), f))
        else:  # the reservation refused: VAR is the only chance
            self.virtual(request, home)
        return True


register_strategy(VARStrategy)
register_strategy(CombinedStrategy)
