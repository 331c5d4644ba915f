"""The trading desk: the broker strategy of a job market, which buys users' jobs slots instead of queueing them.

A desk gathers the users' jobs and trades them every ``cycle`` seconds (:class:`TradingDesk`) or as each
arrives (:class:`PerJobDesk`); a won slot becomes a reservation on its provider, recorded by the broker
(:meth:`gridmarket.agents.broker.Broker.record_run`) at the price paid (the provider's
:meth:`~gridmarket.agents.provider.ResourceProvider.log_price`); a job that wins nothing goes to its home
queue (best effort). The markets themselves are in the sibling modules; :mod:`gridmarket.agents.trading`
describes them all. Times are integer seconds from simulation start; prices SU.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from gridmarket.agents.messages import Reserve, Submit
from gridmarket.agents.strategies import BrokerStrategy
from gridmarket.errors import InvalidInput
from gridmarket.job import Job
from gridmarket.reservation import Reservation
from gridmarket.valuation import Valuation

__all__ = ["PerJobDesk", "TradingDesk", "outcome"]


class TradingDesk(BrokerStrategy):
    """A job market's broker strategy: gathers users' jobs and runs :meth:`trade` every ``cycle`` s; records sales.

    Subclass it (or :class:`PerJobDesk`) for a market of your own and override :meth:`trade`; it may
    use :meth:`plans` (every provider's priced plan), :meth:`hold` (buy a slot for a job) and
    :meth:`fallback` (send a job to its home queue). ``valuations`` (job id -> :class:`Valuation`)
    and ``cycle`` (s) are the broker's; ``n_won`` and ``n_fallback`` count the jobs sold and not.
    """

    buys_jobs = True

    def __init__(self, broker) -> None:
        super().__init__(broker)
        cycle = broker.cycle
        if isinstance(cycle, bool) or not isinstance(cycle, int) or cycle < 1:
            raise InvalidInput(f"broker cycle must be an int >= 1 s, got {cycle!r}")
        self.valuations: dict[int, Valuation] = broker.valuations
        self.cycle = cycle
        self.pending: list[Job] = []
        self._due: int | None = None
        self.n_won = 0
        self.n_fallback = 0

    def take(self, job: Job) -> None:
        """A user's job: it waits for the next cycle's market."""
        if job.id not in self.valuations:
            raise InvalidInput(f"broker: job {job.id} has no valuation")
        self.pending.append(job)
        now = int(self.model.time)
        due = -(-now // self.cycle) * self.cycle
        if self._due is None or self._due < now:
            self._due = due
            self.broker.later(due, self._run)

    def _run(self) -> None:
        self._due = None
        jobs, self.pending = self.pending, []
        if jobs:
            self.trade(jobs, int(self.model.time))

    def plans(self, now: int) -> dict:
        """Every provider's priced plan (:class:`gridmarket.pricing.ProviderPlan`) at ``now``, by name: one query each."""
        b = self.broker
        return {p.name: b.query(p.name, now, "plan") for p in b.providers()}

    def hold(self, job: Job, site: str, start: int, price: float, now: int) -> None:
        """Reserve ``[start, start + estimate)`` on ``site`` for ``job`` at ``price`` SU; the job runs in it."""
        b = self.broker
        provider = self.model.providers[site]
        rid = f"auction-{job.id}"
        self.model.send(Reserve(b.name, site, now, Reservation(rid, start, job.procs, job.estimate)))
        provider.log_price(now, price, "paid")
        run = min(job.runtime, job.estimate)
        b.record_run(job.id, site, job.submit, start, start + run, job.procs, job.runtime, job.user, price, "job", None,
                     estimate=job.estimate, outcome=outcome(job))
        if run < job.estimate:  # the rest of the window returns when the job ends
            b.later(max(start + run, now), lambda: provider.end_reservation(rid))
        self.n_won += 1

    def fallback(self, job: Job, now: int) -> None:
        """No slot won: the job goes to its home queue now (best effort)."""
        b = self.broker
        home = b.home(job.site, job.procs)
        self.model.send(Submit(b.name, home.name, now, replace(job, submit=now, site=home.name)))
        self.n_fallback += 1

    def conclude(self, jobs: list[Job], sales: Iterable, unsold: Iterable[int], now: int) -> None:
        """A round's outcome: :meth:`hold` each sale's slot (``request``, ``provider``, ``start``, ``price``), and
        :meth:`fallback` the jobs of ``unsold`` (ids), both among ``jobs``."""
        by_id = {j.id: j for j in jobs}
        for sale in sales:
            self.hold(by_id[sale.request], sale.provider, sale.start, sale.price, now)
        for job_id in unsold:
            self.fallback(by_id[job_id], now)

    def trade(self, jobs: list[Job], now: int) -> None:
        """Trade ``jobs`` at ``now``: :meth:`hold` a slot for each job sold, :meth:`fallback` the others."""
        raise NotImplementedError(f"{type(self).__name__} must define trade(jobs, now)")


class PerJobDesk(TradingDesk):
    """A desk that trades each job as it arrives, not once a cycle."""

    def take(self, job: Job) -> None:
        if job.id not in self.valuations:
            raise InvalidInput(f"broker: job {job.id} has no valuation")
        self.trade([job], int(self.model.time))

    def home_first(self, job: Job) -> list:
        """The providers to try for ``job``: its home site first, then the others in the broker's order."""
        home = self.model.providers.get(job.site)
        return ([home] if home is not None else []) + [p for p in self.broker.providers() if p is not home]


def outcome(job: Job) -> str:
    """A job that runs past its estimate is killed there (as on every machine here); else it completes."""
    return "killed" if job.runtime > job.estimate else "completed"
