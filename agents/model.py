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

from gridmarket.agents.broker import Broker, WorkflowRequest
from gridmarket.agents.messages import Message
from gridmarket.agents.metascheduler import Metascheduler, MetaschedulerSpec
from gridmarket.agents.provider import ResourceProvider
from gridmarket.agents.registry import resolve_provider_agent, resolve_user_agent
from gridmarket.agents.strategies import resolve_strategy
from gridmarket.agents.twotier_provider import TwoTierProvider
from gridmarket.agents.user import User
from gridmarket.energy.electricity_cost import electricity_costs
from gridmarket.energy.prices import HourlyPrices
from gridmarket.errors import InvalidInput
from gridmarket.metrics import summarize
from gridmarket.pricing import BASE_RATE, SECONDS_PER_HOUR, check_policy
from gridmarket.scheduling import resolve_machine_policy
from gridmarket.valuation import draw_valuations
from gridmarket.workflows.dag import Network
from gridmarket.workloads.workload import Workload

__all__ = ["BrokerSpec", "MarketModel", "ProviderSpec", "RunResult", "check_market"]


@dataclass(frozen=True, slots=True)
class ProviderSpec:
    """A provider to build: its name, processors, local policy, hourly electricity prices, power and pricing rule.

    ``pricing``: the rule that sets the fixed cost ``f`` of its quotes and sales
    (:mod:`gridmarket.pricing.rules`; default ``"externality"``, Singh ch. 5). ``overbooking``: the
    factor (>= 1) by which it signs service-level agreements beyond its processors (``sla`` model,
    :func:`gridmarket.sla.overbooked_state`; 1 signs only what its plan can honour). ``sells``: how it
    sells to a DBC broker (``"quote"``, ``"post"`` or ``"auction"``; :mod:`gridmarket.agents.trading`).
    ``agent``: its class, a registered name (``"provider"``) or a plug-in ``"package.module:Name"``
    subclassing :class:`gridmarket.agents.ResourceProvider` (:func:`gridmarket.agents.registry.resolve_provider_agent`);
    ``"provider"`` with a two-tier ``policy`` (``keasy``, ``reasy``, ``measy``) builds an
    :class:`gridmarket.agents.twotier_provider.TwoTierProvider`.
    """

    name: str
    procs: int
    policy: str = "easy"
    prices: HourlyPrices | None = None
    watts_per_proc: float = 0.0
    pricing: str = "externality"
    overbooking: float = 1.0
    sells: str = "quote"
    agent: str = "provider"


@dataclass(frozen=True, slots=True)
class BrokerSpec:
    """How the broker provisions: ``method``, α, penalty p, MOGA size.

    ``method``: a broker strategy, registered (:data:`gridmarket.agents.strategies.BROKER_STRATEGIES`) or a
    plug-in ``"package.module:Name"`` (:func:`gridmarket.agents.strategies.resolve_strategy`).

    ``history``: past jobs per provider that train a ``var``/``combined``
    broker's queue-wait bounds before the market opens (0 = start empty).
    ``cycle``: seconds between a job market's trading rounds (``gridmarket.agents.trading``).
    """

    method: str = "best-effort"
    alpha: float = 0.5
    penalty: float = 0.1
    population: int = 50
    generations: int = 10
    history: int = 0
    cycle: int = 600

    def __post_init__(self) -> None:
        try:
            resolve_strategy(self.method)
        except InvalidInput as err:
            raise InvalidInput(f"broker method: {err}") from None
        if not 0 <= self.alpha <= 1:
            raise InvalidInput(f"broker alpha must be in [0, 1], got {self.alpha!r}")
        if not 0 <= self.penalty <= 1:
            raise InvalidInput(f"broker penalty must be in [0, 1], got {self.penalty!r}")
        for name, low in (("population", 2), ("generations", 0), ("history", 0), ("cycle", 1)):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < low:
                raise InvalidInput(f"broker {name} must be an int >= {low}, got {value!r}")


@dataclass(frozen=True)
class RunResult:
    """Per-job records of all sites, a summary per site and overall, message counts.

    ``records`` keep each job's original ``submit``; jobs placed by the
    metascheduler also carry ``dispatch`` (the cycle that sent them; equal to
    ``submit`` for direct submissions) and ``routed`` = True. ``rounds`` counts
    the negotiation's rounds (query-answer exchanges, auction rounds, shouts).
    """

    records: pd.DataFrame
    summaries: dict[str, dict]
    messages: dict[str, int]
    workflows: pd.DataFrame | None = None
    reservations: pd.DataFrame | None = None
    rounds: int = 0
    slas: pd.DataFrame | None = None  # the sla model's settled contracts, one per row (gridmarket.agents.trading.SLA_COLUMNS)


def check_market(providers: Sequence[ProviderSpec], broker: str = "best-effort") -> dict[str, type[ResourceProvider]]:
    """Each provider's agent class, once every plug-in of the market is checked; ``InvalidInput`` otherwise.

    What :class:`MarketModel` checks before it builds an agent, callable before any model runs (``compare``
    checks every model of a scenario first): the providers' agent classes resolve (a plug-in keeps the
    contract of :class:`ResourceProvider`), the broker strategy ``broker`` resolves, and a strategy that
    reads priced plans (``needs_plans``) is given providers that can price: no two-tier provider, and a
    policy pricing can run forward (:func:`gridmarket.pricing.check_policy`).
    """
    classes: dict[str, type[ResourceProvider]] = {}
    for p in providers:
        try:
            classes[p.name] = resolve_provider_agent(p.agent)
        except InvalidInput as err:
            raise InvalidInput(f"provider {p.name!r}: {err}") from None
        if classes[p.name] is ResourceProvider and not isinstance(resolve_machine_policy(p.policy), type):
            classes[p.name] = TwoTierProvider  # a two-tier policy's record: a two-tier machine, no plan
    if resolve_strategy(broker).needs_plans:  # it reads each provider's priced plan
        for p in providers:
            if issubclass(classes[p.name], TwoTierProvider):
                raise InvalidInput(f"provider {p.name!r}: a {broker} broker needs advertised or quoted "
                                   f"slots, which a two-tier provider ({p.policy}) cannot give: it keeps no "
                                   "plan (a job's progress rate changes with every placement)")
            try:
                check_policy(p.policy)
            except InvalidInput as err:
                raise InvalidInput(f"provider {p.name!r}: a {broker} broker needs advertised or quoted "
                                   f"slots, which policy {p.policy!r} cannot give ({err})") from None
    return classes


class MarketModel(mesa.Model):
    """Providers selling capacity to users that replay a workload.

    Parameters
    ----------
    providers : sequence of ProviderSpec
    workload : Workload
        Jobs to replay; one ``User`` per distinct ``job.user``.
    route : str
        How users pick a provider for a best-effort job (see ``gridmarket.agents.user.ROUTES``).
    metascheduler : MetaschedulerSpec, optional
        Add a grid metascheduler; users route each job to it with probability ``grid_fraction``.
    grid_fraction : float
        f_g, used only with a metascheduler.
    collect_every : int
        Seconds between DataCollector samples (queue length, busy processors).
    valuations : mapping of int to gridmarket.valuation.Valuation, optional
        What each job is worth by when (SU; the users' surplus and a job market's bids).
        A job market without them draws them from the model's rng (``gridmarket.valuation``).
    network : gridmarket.workflows.Network, optional
        Transfer times of workflow data between providers (Singh ch. 4.9);
        none: transfers are free.
    user_agent : str or type
        The users' class: ``"user"`` (:class:`gridmarket.agents.User`) or a plug-in ``"package.module:Name"``
        subclassing it (:func:`gridmarket.agents.registry.resolve_user_agent`).
    rng : int or numpy Generator
        Seeds Mesa's ``model.rng``; the same seed gives the same run.

    Examples
    --------
    >>> from gridmarket.job import Job
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
        workflows: Sequence[WorkflowRequest] = (),
        reservations: dict[int, int] | None = None,
        broker: BrokerSpec | None = None,
        network: Network | None = None,
        valuations=None,
        user_agent: str | type[User] = "user",
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
        user_class = resolve_user_agent(user_agent)  # a bad name fails before any agent is built
        spec = broker if broker is not None else BrokerSpec()
        classes = check_market(providers, spec.method)
        self.providers: dict[str, ResourceProvider] = {
            p.name: classes[p.name](self, p.name, p.procs, p.policy, prices=p.prices, watts_per_proc=p.watts_per_proc,
                                    pricing=p.pricing, overbooking=p.overbooking, sells=p.sells)
            for p in providers
        }
        if Metascheduler.name in self.providers:
            raise InvalidInput(f"{Metascheduler.name!r} is reserved; rename that provider")
        self.metascheduler = Metascheduler(self, metascheduler) if metascheduler is not None else None
        self.workload = workload
        self.message_counts: Counter[str] = Counter()
        self.negotiation_rounds = 0  # query-answer exchanges, auction rounds, double-auction shouts
        self.round_robin_turn = 0
        self.reservation_starts: dict[int, int] = dict(reservations or {})
        unknown = set(self.reservation_starts) - {j.id for j in workload.jobs}
        if unknown:
            raise InvalidInput(f"reservations name jobs not in the workload: {sorted(unknown)[:5]}")
        self.broker = None
        if workflows or self.reservation_starts or broker is not None:
            strategy = resolve_strategy(spec.method)
            first = 1 + max((j.id for j in workload.jobs), default=0)
            if valuations is None and strategy.buys_jobs:
                valuations = draw_valuations(((j.id, j.submit, j.procs * j.estimate * BASE_RATE / SECONDS_PER_HOUR,
                                               j.estimate) for j in workload.jobs), rng=self.rng.spawn(1)[0])
            self.broker = Broker(self, spec.method, alpha=spec.alpha, penalty=spec.penalty,
                                 population=spec.population, generations=spec.generations, history=spec.history,
                                 network=network, first_id=first, valuations=valuations, cycle=spec.cycle)
        self.brokers = {} if self.broker is None else {self.broker.name: self.broker}
        by_user: dict[int, list] = {}
        for job in workload.jobs:
            by_user.setdefault(job.user, []).append(job)
        for wf in workflows:
            by_user.setdefault(wf.user, []).append(wf)
        for items in by_user.values():
            items.sort(key=lambda x: x.submit)  # stable: workload order within a second
        fraction = grid_fraction if metascheduler is not None else 0.0
        self.users = [user_class(self, f"user{u}", jobs, route, grid_fraction=fraction)
                      for u, jobs in sorted(by_user.items())]
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

    def send(self, message: Message) -> Message | None:
        """Count ``message``, deliver it to its receiver and return the receiver's reply, if any (counted too)."""
        self.post(message, rounds=int(message.kind == "query"))  # an ask and its answer: one round of negotiation
        if self.metascheduler is not None and message.receiver == self.metascheduler.name:
            self.metascheduler.receive(message)
            return None
        if self.broker is not None and message.receiver == self.broker.name:
            self.broker.receive(message)
            return None
        try:
            receiver = self.providers[message.receiver]
        except KeyError:
            raise InvalidInput(f"message to unknown agent {message.receiver!r}") from None
        reply = receiver.receive(message)
        if reply is not None:  # a provider answering a query
            self.post(reply)
        return reply

    def post(self, message: Message, *, copies: int = 1, rounds: int = 0) -> None:
        """Count ``copies`` of ``message`` and ``rounds`` negotiation rounds, delivering nothing: the one place counts change.

        For messages exchanged inside a mechanism of ``gridmarket`` (an auction's bids, a double
        auction's shouts, a bargaining's offers: :mod:`gridmarket.agents.messages`), which reports how
        many it exchanged; :meth:`send` counts the messages it delivers here too.
        """
        if isinstance(copies, bool) or not isinstance(copies, int) or copies < 0:
            raise InvalidInput(f"post: copies must be an int >= 0, got {copies!r}")
        if copies:
            self.message_counts[message.kind] += copies
        self.negotiation_rounds += rounds

    def _pending(self) -> bool:
        for p in self.providers.values():
            m = p.machine
            if m.next_time() is not None or m.scheduler.queue:
                return True
        if self.metascheduler is not None and self.metascheduler.pending:
            return True
        if self.broker is not None and any(w["finish"] is None for w in self.broker.workflows.values()):
            return True
        if self.broker is not None and self.broker.strategy.pending:
            return True
        return any(u._next < len(u.jobs) for u in self.users)

    def run(self, until: int | None = None, *, progress=None) -> RunResult:
        """Run to ``until`` seconds (or until every job has ended); return the records.

        ``progress``, if given, is called with the simulated time (s) after
        every six simulated hours (for a progress bar).
        """
        horizon = 6 * 3600
        while self._pending() and (until is None or self.time < until):
            target = self.time + horizon if until is None else min(until, self.time + horizon)
            self.run_until(target)
            if progress is not None:
                progress(int(self.time))
        self._sampler.stop()
        frames = [p.records() for p in self.providers.values()]
        records = pd.concat(frames, ignore_index=True)
        records["cost"] = records["procs"] * (records["end"] - records["start"]) * BASE_RATE / SECONDS_PER_HOUR
        records["kind"] = "job"
        records["workflow"] = pd.array([pd.NA] * len(records), dtype="Int64")
        workflows = reservations = None
        if self.broker is not None:
            records, workflows, reservations = self._broker_records(records)
        if self.broker is not None and self.broker.desk is not None:  # a fallback job keeps the user's submit
            mine = records["kind"] == "job"
            records.loc[mine, "submit"] = records.loc[mine, "job_id"].map(self.submitted).fillna(
                records.loc[mine, "submit"]).astype("int64")
            records["wait"] = records["start"] - records["submit"]
        if self.metascheduler is not None:
            records["dispatch"] = records["submit"]
            records["submit"] = records["job_id"].map(self.submitted).fillna(records["submit"]).astype("int64")
            records["wait"] = records["start"] - records["submit"]
            records["routed"] = records["job_id"].isin(self.metascheduler.predicted_wait)
        # a user's job keeps the user's own submit time, whenever its user agent sent it (a plug-in user may
        # hold jobs back: docs/extending.md's off-peak users); the same time for gridmarket's own users
        mine = records["kind"] == "job"
        records.loc[mine, "submit"] = records.loc[mine, "job_id"].map(self.submitted).fillna(
            records.loc[mine, "submit"]).astype("int64")
        records["wait"] = records["start"] - records["submit"]
        slas = None
        if self.broker is not None and hasattr(self.broker.desk, "settle"):  # SLAs paid after penalties
            records, slas = self.broker.desk.settle(records)  # type: ignore[union-attr]  # hasattr: a desk
        records = records.sort_values(["submit", "job_id"], ignore_index=True)
        summaries = {
            name: summarize(records[records["site"] == name], p.procs)
            for name, p in self.providers.items()
            if p.machine.end
        }
        if len(records):
            summaries["all"] = summarize(records, sum(p.procs for p in self.providers.values()))
        return RunResult(records, summaries, dict(self.message_counts), workflows, reservations,
                         self.negotiation_rounds, slas)

    def _broker_records(self, records: pd.DataFrame):
        """Merge the broker's reserved runs into the machine records; tables of workflows and reservations."""
        b = self.broker
        assert b is not None  # called only for a run with a broker
        kinds = b.kinds
        records["kind"] = records["job_id"].map(lambda j: kinds.get(j, "job"))
        records["workflow"] = records["job_id"].map(b.task_of).astype("Int64")
        for job_id, cost in b.costs.items():
            records.loc[records["job_id"] == job_id, "cost"] = cost
        records = records[records["kind"] != "cancelled"]  # a VAR job that ended as it started (Fig. 45)
        if b.rows:
            rows = pd.DataFrame(b.rows)
            rows["workflow"] = rows["workflow"].astype("Int64")
            if "electricity_cost" in records:
                rows["electricity_cost"] = 0.0
                for site, p in self.providers.items():
                    at = rows["site"] == site
                    if at.any() and p.prices is not None:
                        watts = rows.loc[at, "procs"].to_numpy() * float(p.watts_per_proc)
                        rows.loc[at, "electricity_cost"] = electricity_costs(
                            watts, rows.loc[at, "start"].to_numpy(), rows.loc[at, "end"].to_numpy(), p.prices)
            records = pd.concat([records, rows[records.columns]], ignore_index=True)
        workflows = pd.DataFrame(
            [{"workflow": k, **v, "makespan": v["finish"] - v["submit"]} for k, v in sorted(b.workflows.items())],
            columns=["workflow", "submit", "finish", "provisioned", "cost", "makespan"])
        if len(workflows):  # just-in-time workflows pay their tasks' base-rate cost
            paid = records.groupby("workflow")["cost"].sum()
            jit = ~workflows["provisioned"].astype(bool)
            workflows.loc[jit, "cost"] = workflows.loc[jit, "workflow"].map(paid).fillna(0.0).to_numpy()
        reservations = pd.DataFrame(
            [{"job_id": k, "start_wanted": self.reservation_starts[k], **v} for k, v in sorted(b.outcomes.items())],
            columns=["job_id", "start_wanted", "success", "normalized_cost", "used"])
        return records, workflows, reservations
