"""A broker: provisions workflows and advance reservations for users, then runs them on what it bought.

Singh 2008 gives the methods; the broker runs one *strategy* (:mod:`gridmarket.agents.strategies`), chosen by
name, and only moves messages and keeps records for it:

* ``best-effort`` -- no market: a workflow's tasks go just in time, each when
  its parents have ended, to the provider with the fewest tasks running and
  queued (ch. 4.7 and 4.9, the baseline of Figs. 13 and 19;
  :class:`gridmarket.provisioning.JustInTime`); a reservation request is a job
  submitted at the wanted start.
* ``moga``, ``greedy`` -- advertisement + MOGA and adaptive pricing + greedy HEFT
  (ch. 3-5, 7; :mod:`gridmarket.agents.provisioning`).
* ``var``, ``combined`` -- virtual advance reservations, alone or raced against a priced
  reservation (ch. 6, Figs. 33, 45; :mod:`gridmarket.agents.reservations`).
* ``first-price``, ``vickrey``, ``english``, ``dutch``, ``double``, ``double-gd``, ``negotiate``,
  ``dbc``, ``sla`` -- job markets: users hand the broker every job and its trading desk
  buys slots for them (:mod:`gridmarket.agents.trading`); jobs that win nothing go to their home queue (best
  effort); workflows run just in time and reservation requests are submitted at their wanted start,
  as under ``best-effort``.
* ``"package.module:Name"`` -- a strategy written outside gridmarket (a
  :class:`gridmarket.agents.strategies.BrokerStrategy` subclass; ``docs/extending.md``).

A task placed in a reservation runs exactly as planned (the reservation
holds its processors over ``[start, end)``; every local policy honours it), so
the broker records its start and end itself. A reservation request's job
reserves its estimate; when it ends sooner the rest of the window returns to
the provider (``ResourceProvider.end_reservation``), as a VAR job's would.
Planning happens at the request's submit time ``t`` on each provider's state
after every event before ``t``. A strategy's workflow plan is checked before
anything is reserved (:meth:`Broker.check_plan`).

Times are integer seconds from simulation start; prices SU (processor-hours at
``c`` = ``gridmarket.pricing.BASE_RATE`` per processor-hour, plus ``f``).
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Hashable, Mapping
from dataclasses import dataclass, replace

import mesa
import networkx as nx
from mesa.time import Priority

import gridmarket.agents.provisioning  # noqa: F401  (registers moga, greedy)
import gridmarket.agents.reservations  # noqa: F401  (registers var, combined)
import gridmarket.agents.trading  # noqa: F401  (registers the job markets)
from gridmarket.agents.messages import Query, Quote, Reserve, Submit
from gridmarket.agents.strategies import BROKER_STRATEGIES, WorkflowPlan, base_cost, resolve_strategy
from gridmarket.errors import InvalidInput
from gridmarket.job import Job
from gridmarket.provisioning import JustInTime, PlanQuoteProvider, Submission
from gridmarket.reservation import Reservation
from gridmarket.workflows.dag import Network, runtime_on

__all__ = ["BROKER_METHODS", "Broker", "ReservationRequest", "WorkflowRequest"]

BROKER_METHODS = tuple(BROKER_STRATEGIES)
"""The built-in broker strategies' names (:data:`gridmarket.agents.strategies.BROKER_STRATEGIES` is the live registry)."""


@dataclass(frozen=True)
class WorkflowRequest:
    """A user's workflow: ``graph`` (tasks with ``procs`` and ``runtime``) submitted at ``submit`` s."""

    id: int
    submit: int
    user: int
    site: str
    graph: nx.DiGraph


@dataclass(frozen=True)
class ReservationRequest:
    """``job.procs`` processors for ``job.estimate`` s from ``start`` at ``job.site``, asked at ``job.submit``."""

    job: Job
    start: int

    def __post_init__(self) -> None:
        if self.start < self.job.submit:
            raise InvalidInput(f"job {self.job.id}: a reservation cannot start ({self.start}) before it is "
                               f"asked ({self.job.submit})")


class Broker(mesa.Agent):
    """Receives ``Submit`` messages carrying workflow and reservation requests; provisions and runs them.

    ``method`` names the strategy (:func:`gridmarket.agents.strategies.resolve_strategy`: a registered name or a
    plug-in ``"package.module:Name"``); ``strategy`` is the running one, ``desk`` the same object when
    it buys users' jobs (a job market), else None.

    Attributes
    ----------
    rows : list of dict
        One per task or request the broker ran itself in a reservation
        (the per-job record columns plus ``cost``).
    workflows : dict
        Workflow id -> ``{"submit", "finish", "provisioned", "cost"}``.
    outcomes : dict
        Reservation job id -> ``{"success", "normalized_cost", "used"}``
        (ch. 6.3: extra cost over the base charge n·D).
    costs : dict
        Machine job id -> SU charged, when not the base rate.
    kinds : dict
        Job id -> ``"task"``, ``"reservation"`` or ``"cancelled"``.
    last_front, last_choice
        The last MOGA Pareto set as ``(allocation cost SU, makespan s)`` and the
        index of the plan eq. (15) chose.
    """

    name = "broker"

    def __init__(self, model: mesa.Model, method: str, *, alpha: float = 0.5, penalty: float = 0.1,
                 population: int = 50, generations: int = 10, history: int = 0, network: Network | None = None,
                 first_id: int = 1, valuations=None, cycle: int = 600) -> None:
        super().__init__(model)
        try:
            cls = resolve_strategy(method)
        except InvalidInput as err:
            raise InvalidInput(f"broker method: {err}") from None
        self.method = method
        self.alpha = alpha
        self.penalty = penalty
        self.population = population
        self.generations = generations
        self.history = history
        self.network = network
        self.valuations = dict(valuations or {})
        self.cycle = cycle
        self.rows: list[dict] = []
        self.workflows: dict[int, dict] = {}
        self.outcomes: dict[int, dict] = {}
        self.costs: dict[int, float] = {}  # machine job id -> SU charged, when not the base rate
        self.kinds: dict[int, str] = {}  # job id -> "task" | "reservation" | "cancelled"
        self.task_of: dict[int, int] = {}  # machine job id of a just-in-time task -> workflow id
        self.last_front: list[tuple[float, int]] = []
        self.last_choice: int | None = None
        self._next_id = first_id
        self._agenda: list = []  # (time s, seq, action) run by _due
        self._seq = 0
        self.strategy = cls(self)
        self.desk = self.strategy if cls.buys_jobs else None  # a job market's trading desk (gridmarket.agents.trading)

    # ------------------------------------------------------------------ intake
    @property
    def buys_jobs(self) -> bool:
        """Whether users hand this broker their jobs too (a job market, :mod:`gridmarket.agents.trading`)."""
        return self.strategy.buys_jobs

    def receive(self, message) -> None:
        """Take a workflow or reservation request from a user (or any job, in a job market)."""
        request = message.payload
        if self.buys_jobs and isinstance(message, Submit) and isinstance(request, Job):
            self.strategy.take(request)
            return
        if not isinstance(message, Submit) or not isinstance(request, (WorkflowRequest, ReservationRequest)):
            raise InvalidInput(f"broker: cannot handle {message.kind!r} carrying {request!r}")
        if isinstance(request, WorkflowRequest):
            self._workflow(request)
        else:
            self._reservation(request)

    # ------------------------------------------------------------------ services for strategies
    def new_id(self) -> int:
        """A fresh job id for a job the broker submits itself (a workflow task)."""
        self._next_id += 1
        return self._next_id - 1

    def providers(self) -> list:
        """The market's providers (:class:`gridmarket.agents.provider.ResourceProvider`), in the market's order."""
        return list(self.model.providers.values())

    def home(self, site: str | None, procs: int):
        """Provider ``site`` if it has ``procs`` processors, else the smallest that has (ties by name)."""
        providers = self.model.providers
        home = providers.get(site)
        if home is not None and home.procs >= procs:
            return home
        fits = sorted((p for p in providers.values() if p.procs >= procs), key=lambda p: (p.procs, p.name))
        if not fits:
            raise InvalidInput(f"a task of {procs} processors fits no provider")
        return fits[0]

    def query(self, provider: str, now: int, form: str):
        """Ask ``provider`` at ``now`` s for its ``"plan"`` (a :class:`gridmarket.pricing.ProviderPlan`, to price and
        reserve slots on) or its ``"advertise"``-d free slots (a list of :class:`gridmarket.pricing.Slot`, ch. 3).

        One query and its answer are counted as messages and as a negotiation round.
        """
        return self.model.send(Query(self.name, provider, now, form)).payload

    def quoting(self, now: int) -> list:
        """Every provider answering form-19 queries over its plan at ``now`` (for ``provision_greedy``).

        Each asks its provider for the plan at once; every later query is counted as one more query
        and quote, and its cheapest answer goes to the provider's price log.
        """
        return [_LoggedQuotes(PlanQuoteProvider(p.name, self.query(p.name, now, "plan")), p, self, now)
                for p in self.providers()]

    def check_plan(self, wf: WorkflowRequest, plan: object) -> WorkflowPlan:
        """``plan`` if it is a :class:`WorkflowPlan` that can be reserved for ``wf``; else ``InvalidInput`` naming
        the strategy.

        Every task that runs is placed once, on a known provider with enough processors, no earlier
        than ``wf.submit``, for at least its runtime there, at a finite price >= 0 SU.
        """
        label = self.method if isinstance(self.method, str) else getattr(self.method, "__qualname__", self.method)
        who = f"broker strategy {label!r}, workflow {wf.id}"
        if not isinstance(plan, WorkflowPlan):
            raise InvalidInput(f"{who}: plan_workflow returned {type(plan).__name__}, not a WorkflowPlan or None")
        g, seen = wf.graph, set()
        for pl in plan.placements:
            if pl.task not in g or pl.task in seen:
                raise InvalidInput(f"{who}: task {pl.task!r} is {'placed twice' if pl.task in seen else 'not in it'}")
            seen.add(pl.task)
            p = self.model.providers.get(pl.resource)
            if p is None:
                raise InvalidInput(f"{who}: task {pl.task!r} placed on unknown provider {pl.resource!r}")
            runtime = runtime_on(g, pl.task, pl.resource)
            if not (pl.start >= wf.submit and runtime is not None and pl.end - pl.start >= runtime
                    and 1 <= pl.procs <= p.procs):
                raise InvalidInput(f"{who}: task {pl.task!r} cannot run in [{pl.start}, {pl.end}) on {pl.procs} of "
                                   f"{pl.resource!r}'s {p.procs} processors (runtime {runtime}, submitted {wf.submit})")
            price = plan.prices.get(pl.task)
            if not (isinstance(price, (int, float)) and 0 <= price < math.inf):
                raise InvalidInput(f"{who}: task {pl.task!r} has price {price!r}, not a finite number >= 0 SU")
        missing = [t for t in g if t not in seen and _runs(g, t)]
        if missing:
            raise InvalidInput(f"{who}: task {missing[0]!r} is not placed ({len(missing)} task(s) missing)")
        return plan

    # ------------------------------------------------------------------ workflows
    def _workflow(self, wf: WorkflowRequest) -> None:
        self.workflows[wf.id] = {"submit": wf.submit, "finish": None, "provisioned": False, "cost": 0.0}
        plan = self.strategy.plan_workflow(wf)
        if plan is None:
            self._run_just_in_time(wf)
            return
        self._hold(wf, self.check_plan(wf, plan))

    def _hold(self, wf: WorkflowRequest, plan: WorkflowPlan) -> None:
        """Reserve every placement on its provider and record the task as run there."""
        for pl in plan.placements:
            self.model.providers[pl.resource].log_price(wf.submit, plan.prices[pl.task], "paid")
        info = self.workflows[wf.id]
        info["provisioned"] = True
        for pl in plan.placements:
            job_id = self.new_id()
            reservation = Reservation(f"wf{wf.id}-{pl.task}", pl.start, pl.procs, pl.end - pl.start)
            self.model.send(Reserve(self.name, pl.resource, wf.submit, reservation))  # type: ignore[arg-type]  # provisioned: a provider
            runtime = pl.end - pl.start
            self.record_run(job_id, pl.resource, wf.submit, pl.start, pl.end, pl.procs, runtime, wf.user,
                            plan.prices[pl.task], "task", wf.id)
            info["cost"] += plan.prices[pl.task]
        info["finish"] = max(pl.end for pl in plan.placements) if plan.placements else wf.submit

    def _run_just_in_time(self, wf: WorkflowRequest) -> None:
        """Best effort (ch. 4.7, 4.9): each task, once ready, to the queue :class:`JustInTime` picks.

        The sites are the market's providers, the user's home first (it wins a tie); a provider's load
        is its jobs queued and running as it reports them (``queue``, ``machine.scheduler.running``).
        Data crossing providers takes ``network`` time.
        """
        providers = self.model.providers
        home = providers.get(wf.site)
        order = ([home] if home is not None else []) + [p for p in providers.values() if p is not home]
        try:
            jit = JustInTime(wf.graph, {p.name: p.procs for p in order}, release=wf.submit, network=self.network)
        except InvalidInput as err:
            raise InvalidInput(f"workflow {wf.id}: {err}") from None
        info = self.workflows[wf.id]

        def load(name: str) -> int:  # the provider's jobs queued and running, but this workflow's own tasks
            p = providers[name]
            return (sum(1 for j in p.queue if self.task_of.get(j.id) != wf.id)
                    + sum(1 for jid in p.machine.scheduler.running if self.task_of.get(jid) != wf.id))

        def hand_over(submissions: list[Submission]) -> None:
            for sub in submissions:
                if sub.at > self.model.time:
                    self.later(sub.at, lambda s=sub: release(s))
                else:
                    release(sub)
            if jit.done:  # a workflow that ends in virtual tasks ends with its last real one
                info["finish"] = jit.last_finish

        def release(sub: Submission) -> None:
            provider = providers[sub.site]
            job = Job(self.new_id(), sub.at, sub.procs, sub.runtime, sub.runtime, user=wf.user, site=provider.name)
            self.kinds[job.id] = "task"
            self.task_of[job.id] = wf.id
            provider.watch(job.id, on_end=lambda _id, t, task=sub.task: ended(task, t))
            self.model.send(Submit(self.name, provider.name, sub.at, job))

        def ended(task: Hashable, t: int) -> None:
            # children are submitted no earlier than the broker's clock (a provider may report an end late)
            hand_over(jit.finished([(task, t)], max(t, int(self.model.time)), load))

        hand_over(jit.start(load))

    # ------------------------------------------------------------------ reservations
    def _reservation(self, req: ReservationRequest) -> None:
        job, start = req.job, req.start
        home = self.home(job.site, job.procs)
        self.kinds[job.id] = "reservation"
        if self.strategy.reserve(req, home):
            return
        # no reservation: the job is submitted at the wanted start and takes its chance
        self.outcomes[job.id] = {"success": False, "normalized_cost": 0.0, "used": "best-effort"}
        home.watch(job.id, on_start=lambda _id, t: self._settle(job.id, t <= start))
        self.submit_at(replace(job, submit=start, site=home.name), home)

    def reserve_at(self, req: ReservationRequest, provider, f: float, *, record: bool = True) -> Reservation:
        """Buy ``[start, start + estimate)`` of ``req`` on ``provider`` at ``n·D·c + f`` SU; the job runs in it.

        ``record=False`` holds the reservation without recording the job as run in it (the
        ``combined`` race decides later, :meth:`record_reserved`).
        """
        job, start = req.job, req.start
        reservation = Reservation(f"ar{job.id}", start, job.procs, job.estimate)
        self.model.send(Reserve(self.name, provider.name, job.submit, reservation))
        cost = base_cost(job.procs, job.estimate) + f
        provider.log_price(job.submit, cost, "paid")
        if record:
            self.record_reserved(req, provider, cost)
            self.outcomes[job.id] = {"success": True, "normalized_cost": f / base_cost(job.procs, job.estimate),
                                     "used": "reservation"}
        return reservation

    def record_run(self, job_id: int, site: Hashable | None, submit: int, start: int, end: int, procs: int, runtime: int,
                   user: int, cost: float, kind: str, workflow: int | None, *, estimate: int | None = None,
                   outcome: str = "completed") -> dict:
        """Record a job, task or reservation the broker ran in a reservation on ``site``: one row of :attr:`rows`.

        Times s, ``cost`` SU; ``estimate`` defaults to ``runtime``. Returns the row, which a desk may
        change later only through :meth:`amend_run` and :meth:`drop_run` (the rows have this one writer).
        """
        row = {"job_id": job_id, "site": site, "submit": submit, "start": start, "end": end, "procs": procs,
               "runtime": runtime, "estimate": runtime if estimate is None else estimate, "wait": start - submit,
               "user": user, "outcome": outcome, "cost": cost, "kind": kind, "workflow": workflow}
        self.rows.append(row)
        return row

    def amend_run(self, row: dict, *, end: int, outcome: str) -> None:
        """A recorded run ended otherwise than recorded: at ``end`` s, with ``outcome`` (e.g. ``"killed"``)."""
        row["end"], row["outcome"] = end, outcome

    def drop_run(self, row: dict) -> None:
        """A recorded run will not happen there (its reservation was moved off the machine): forget its row."""
        self.rows.remove(row)

    def record_reserved(self, req: ReservationRequest, provider, cost: float) -> None:
        """The request's job runs in its reservation ``ar<id>`` on ``provider`` at ``cost`` SU, which ends with it."""
        job, start = req.job, req.start
        run = min(job.runtime, job.estimate)
        self.record_run(job.id, provider.name, job.submit, start, start + run, job.procs, job.runtime, job.user, cost,
                        "reservation", None, estimate=job.estimate)
        if run < job.estimate:  # the rest of the window would hold idle processors: give it back
            self.later(max(start + run, int(self.model.time)), lambda: provider.end_reservation(f"ar{job.id}"))

    def submit_at(self, job: Job, provider) -> None:
        """Submit ``job`` to ``provider`` at ``job.submit`` (now, or later by the agenda)."""
        if job.submit > self.model.time:
            self.later(job.submit, lambda: self.model.send(Submit(self.name, provider.name, job.submit, job)))
        else:
            self.model.send(Submit(self.name, provider.name, job.submit, job))

    def later(self, t: int, action) -> None:
        """Run ``action()`` at ``t`` s (Mesa keeps only weak references to callbacks: the broker holds them)."""
        self._seq += 1
        heapq.heappush(self._agenda, (t, self._seq, action))
        self.model.schedule_event(self._due, at=t, priority=Priority.HIGH)

    def _due(self) -> None:
        now = self.model.time
        while self._agenda and self._agenda[0][0] <= now:
            heapq.heappop(self._agenda)[2]()

    def _settle(self, job_id: int, success: bool) -> None:
        self.outcomes[job_id]["success"] = success


def _runs(g: nx.DiGraph, task: Hashable) -> bool:
    """Whether ``task`` runs somewhere: a virtual (zero-runtime) task does not (ch. 4.1)."""
    runtime = g.nodes[task]["runtime"]
    return any(runtime.values() if isinstance(runtime, Mapping) else (runtime,))


class _LoggedQuotes:
    """A quoting provider that logs the cheapest quote of every query in the provider's price log.

    The first query came with the plan; every later one is counted as a query and a quote.
    """

    def __init__(self, inner: PlanQuoteProvider, provider, broker, now: int) -> None:
        self.inner, self.provider, self.broker, self.now = inner, provider, broker, now
        self.name = inner.name
        self.n_queries = 0

    @property
    def procs(self) -> int:
        return self.inner.procs

    def quotes(self, procs: int, duration: int, earliest: int):
        self.n_queries += 1
        if self.n_queries > 1:  # answered from the plan already sent: counted, not delivered again
            self.broker.model.post(Query(self.broker.name, str(self.name), self.now, "plan"))
            self.broker.model.post(Quote(str(self.name), self.broker.name, self.now))
        answers = self.inner.quotes(procs, duration, earliest)
        if answers:
            self.provider.log_price(self.now, min(q.price for q in answers), "quote")
        return answers

    def reserve(self, start: int, procs: int, duration: int):
        return self.inner.reserve(start, procs, duration)



