"""The market model: providers and users on Mesa 3.5's event-driven clock.

Times are integer seconds from simulation start (Mesa's ``model.time`` holds
the same numbers). The model owns the rng, the clock, message counts and a
``DataCollector`` sampled every ``collect_every`` seconds. Mechanisms live in
``market``; agents only move messages and call them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import mesa
import pandas as pd
from mesa.time import Schedule

from agents.messages import Message
from agents.metascheduler import Metascheduler, MetaschedulerSpec
from agents.provider import ResourceProvider
from agents.user import User
from market.energy.prices import HourlyPrices
from market.errors import InvalidInput
from market.metrics import summarize
from market.workloads.workload import Workload

__all__ = ["MarketModel", "ProviderSpec", "RunResult"]


@dataclass(frozen=True, slots=True)
class ProviderSpec:
    """A provider to build: its name, processors, local policy, hourly electricity prices and power."""

    name: str
    procs: int
    policy: str = "easy"
    prices: HourlyPrices | None = None
    watts_per_proc: float = 0.0


@dataclass(frozen=True)
class RunResult:
    """Per-job records of all sites, a summary per site and overall, message counts.

    ``records`` keep each job's original ``submit``; jobs placed by the
    metascheduler also carry ``dispatch`` (the cycle that sent them; equal to
    ``submit`` for direct submissions) and ``routed`` = True.
    """

    records: pd.DataFrame
    summaries: dict[str, dict]
    messages: dict[str, int]


class MarketModel(mesa.Model):
    """Providers selling capacity to users that replay a workload.

    Parameters
    ----------
    providers : sequence of ProviderSpec
    workload : Workload
        Jobs to replay; one ``User`` per distinct ``job.user``.
    route : str
        How users pick a provider for a best-effort job (see ``agents.user.ROUTES``).
    metascheduler : MetaschedulerSpec, optional
        Add a grid metascheduler; users route each job to it with probability ``grid_fraction``.
    grid_fraction : float
        f_g, used only with a metascheduler.
    collect_every : int
        Seconds between DataCollector samples (queue length, busy processors).
    rng : int or numpy Generator
        Seeds Mesa's ``model.rng``; the same seed gives the same run.

    Examples
    --------
    >>> from market.job import Job
    >>> w = Workload((Job(1, 0, 2, 10, 10, user=1), Job(2, 0, 2, 10, 10, user=2)), name="tiny")
    >>> m = MarketModel([ProviderSpec("a", 2), ProviderSpec("b", 2)], w, rng=1)
    >>> r = m.run()
    >>> r.records[["job_id", "site", "start"]].values.tolist(), r.messages
    ([[1, 'a', 0], [2, 'b', 0]], {'submit': 2})
    """

    def __init__(
        self,
        providers: Sequence[ProviderSpec],
        workload: Workload,
        *,
        route: str = "round-robin",
        metascheduler: MetaschedulerSpec | None = None,
        grid_fraction: float = 1.0,
        collect_every: int = 3600,
        rng=None,
    ) -> None:
        super().__init__(rng=rng)
        self._default_schedule.stop()  # pure discrete-event time: no 1.0 ticks
        if not providers:
            raise InvalidInput("a market needs at least one provider")
        names = [p.name for p in providers]
        if len(set(names)) != len(names):
            raise InvalidInput(f"provider names must be unique, got {names}")
        if collect_every < 1:
            raise InvalidInput(f"collect_every must be >= 1 s, got {collect_every}")
        self.providers: dict[str, ResourceProvider] = {
            p.name: ResourceProvider(self, p.name, p.procs, p.policy, prices=p.prices, watts_per_proc=p.watts_per_proc)
            for p in providers
        }
        if Metascheduler.name in self.providers:
            raise InvalidInput(f"{Metascheduler.name!r} is reserved; rename that provider")
        self.metascheduler = Metascheduler(self, metascheduler) if metascheduler is not None else None
        self.workload = workload
        self.message_counts: Counter[str] = Counter()
        self.round_robin_turn = 0
        by_user: dict[int, list] = {}
        for job in workload.jobs:
            by_user.setdefault(job.user, []).append(job)
        fraction = grid_fraction if metascheduler is not None else 0.0
        self.users = [User(self, f"user{u}", jobs, route, grid_fraction=fraction) for u, jobs in sorted(by_user.items())]
        self.submitted: dict[int, int] = {j.id: j.submit for j in workload.jobs}
        self.datacollector = mesa.DataCollector(
            model_reporters={
                "queued": lambda m: sum(len(p.machine.scheduler.queue) for p in m.providers.values()),
                "busy": lambda m: sum(p.busy for p in m.providers.values()),
            }
        )
        self._sampler = self.schedule_recurring(self._collect, Schedule(interval=collect_every, start=0))

    def _collect(self) -> None:
        self.datacollector.collect(self)

    def send(self, message: Message) -> None:
        """Count ``message`` and deliver it to its receiver."""
        self.message_counts[message.kind] += 1
        if self.metascheduler is not None and message.receiver == self.metascheduler.name:
            self.metascheduler.receive(message)
            return
        try:
            receiver = self.providers[message.receiver]
        except KeyError:
            raise InvalidInput(f"message to unknown agent {message.receiver!r}") from None
        receiver.receive(message)

    def _pending(self) -> bool:
        for p in self.providers.values():
            m = p.machine
            if m.next_time() is not None or m.scheduler.queue:
                return True
        if self.metascheduler is not None and self.metascheduler.pending:
            return True
        return any(u._next < len(u.jobs) for u in self.users)

    def run(self, until: int | None = None) -> RunResult:
        """Run to ``until`` seconds (or until every job has ended); return the records."""
        horizon = 86400
        while self._pending() and (until is None or self.time < until):
            target = self.time + horizon if until is None else min(until, self.time + horizon)
            self.run_until(target)
        self._sampler.stop()
        frames = [p.records() for p in self.providers.values()]
        records = pd.concat(frames, ignore_index=True)
        if self.metascheduler is not None:
            records["dispatch"] = records["submit"]
            records["submit"] = records["job_id"].map(self.submitted).astype("int64")
            records["wait"] = records["start"] - records["submit"]
            records["routed"] = records["job_id"].isin(self.metascheduler.predicted_wait)
        records = records.sort_values(["submit", "job_id"], ignore_index=True)
        summaries = {
            name: summarize(records[records["site"] == name], p.procs)
            for name, p in self.providers.items()
            if p.machine.end
        }
        if len(records):
            summaries["all"] = summarize(records, sum(p.procs for p in self.providers.values()))
        return RunResult(records, summaries, dict(self.message_counts))
