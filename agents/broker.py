"""A broker: provisions workflows and advance reservations for users, then runs them on what it bought.

Singh 2008 gives the methods; the broker only moves messages and calls them:

* ``best-effort`` -- no market: a workflow's tasks go to the user's home queue
  just in time, each when its parents have ended (ch. 4.7, the baseline of
  Fig. 13); a reservation request is a job submitted at the wanted start.
* ``moga`` -- each provider *advertises* its free slots (ch. 3: the plan's
  non-delaying slots at the base rate); MOGA searches the Pareto set of
  plans (ch. 4.5, Fig. 11), eq. (15) picks one by α, and every task's
  placement is reserved on its provider. A reservation request is met from
  the advertised slots when they cover its window.
* ``greedy`` -- providers *quote* by externality (ch. 5, Fig. 22, form 19)
  and the broker takes task by task the best quote by α (ch. 7, Fig. 51),
  reserving it. A reservation request is priced by form (17) and bought.
* ``var`` -- a reservation request becomes a virtual advance reservation
  (ch. 6, Fig. 33): a job submitted early by the queue-wait prediction, asking
  for the gap too. The QBETS bounds learn from each site's started jobs, after
  ``history`` past jobs replayed on it (``market.prediction.past_jobs``);
  without them every bound is 0 and each VAR job is submitted at once.
  Workflows run best effort.
* ``combined`` -- Fig. 45: buy the priced reservation *and* submit the VAR
  job; when the VAR job starts, keep whichever costs less (the other is
  cancelled: the reservation with penalty ``p·f``, eq. 23; the VAR job ends at
  once); a VAR job not started by the wanted start is withdrawn from the queue
  then. Both hold capacity on the same machine until the choice, so the VAR
  job competes with its own reservation (the thesis simulated the two
  separately). Workflows run best effort. A plain ``var`` job that misses its
  start stays queued and runs late: it is the user's job.

* ``first-price``, ``vickrey``, ``english``, ``dutch`` -- a job market (issue 17): users hand the
  broker every job; providers auction slots of their plans every cycle with the externality quote
  as reserve and the broker bids by the format's textbook rule (:mod:`agents.trading`). Jobs that
  win nothing go to their home queue (best effort); workflows run just in time and reservation
  requests are submitted at their wanted start, as under ``best-effort``.
* ``double`` -- the same job market as a continuous double auction among ZIP traders every
  cycle: providers ask from their slots' reserves, the broker bids from the jobs' values.
  ``double-gd``: the same among Gjerstad-Dickhaut traders.
* ``negotiate`` -- the same job market by bilateral alternating offers over price and start with
  each provider in turn, as each job arrives.
* ``dbc`` -- the same job market by a deadline-and-budget-constrained (Nimrod-G) broker over every
  provider's quoted starts, as each job arrives.
* ``sla`` -- the same job market by service-level agreements: providers sign start windows their
  plans can honour, the broker takes the cheapest, and each is settled after the run with penalties.

A task placed in a reservation runs exactly as planned (the reservation
holds its processors over ``[start, end)``; every local policy honours it), so
the broker records its start and end itself. A reservation request's job
reserves its estimate; when it ends sooner the rest of the window returns to
the provider (``ResourceProvider.end_reservation``), as a VAR job's would.
Planning happens at the request's submit time ``t`` on each provider's state
after every event before ``t``.

Times are integer seconds from simulation start; prices SU (processor-hours at
``c`` = ``market.pricing.BASE_RATE`` per processor-hour, plus ``f``).
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Hashable, Mapping
from dataclasses import dataclass, replace

import mesa
import networkx as nx
from mesa.time import Priority

from agents.messages import Cancel, Query, Reserve, Submit
from agents.trading import (AUCTION_METHODS, JOB_MARKETS, DBCDesk, DoubleAuctionDesk, NegotiationDesk, SLADesk,
                            SlotAuctionDesk)
from market.errors import Infeasible, InvalidInput
from market.job import Job
from market.prediction.wait_replay import past_jobs, simulated_waits
from market.pricing import BASE_RATE, SECONDS_PER_HOUR
from market.provisioning import (
    AdvertisedSlot,
    PlanEvaluator,
    PlanQuoteProvider,
    WaitPredictor,
    combine_var_and_reservation,
    moga,
    plan_var,
    provision_greedy,
)
from market.reservation import Reservation
from market.workflows.dag import Network, runtime_on

__all__ = ["BROKER_METHODS", "Broker", "ReservationRequest", "WorkflowRequest"]

BROKER_METHODS = ("best-effort", "moga", "greedy", "var", "combined", *JOB_MARKETS)


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


def _base_cost(procs: int, seconds: int) -> float:
    return procs * seconds * BASE_RATE / SECONDS_PER_HOUR


class Broker(mesa.Agent):
    """Receives ``Submit`` messages carrying workflow and reservation requests; provisions and runs them.

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
    last_front, last_choice
        The last MOGA Pareto set as ``(allocation cost SU, makespan s)`` and the
        index of the plan eq. (15) chose.
    """

    name = "broker"

    def __init__(self, model: mesa.Model, method: str, *, alpha: float = 0.5, penalty: float = 0.1,
                 population: int = 50, generations: int = 10, history: int = 0, network: Network | None = None,
                 first_id: int = 1, valuations=None, cycle: int = 600) -> None:
        super().__init__(model)
        if method not in BROKER_METHODS:
            raise InvalidInput(f"broker method must be one of {BROKER_METHODS}, got {method!r}")
        self.method = method
        self.alpha = alpha
        self.penalty = penalty
        self.population = population
        self.generations = generations
        self.network = network
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
        self._predictors: dict[str, WaitPredictor] = {}
        self.desk = None  # a job market's trading desk (agents.trading)
        if method in AUCTION_METHODS:
            self.desk = SlotAuctionDesk(self, method, dict(valuations or {}), cycle)
        elif method in ("double", "double-gd"):
            self.desk = DoubleAuctionDesk(self, dict(valuations or {}), cycle,
                                          strategy="gd" if method == "double-gd" else "zip")
        elif method == "negotiate":
            self.desk = NegotiationDesk(self, dict(valuations or {}), cycle)
        elif method == "dbc":
            self.desk = DBCDesk(self, dict(valuations or {}), cycle)
        elif method == "sla":
            self.desk = SLADesk(self, dict(valuations or {}), cycle)
        if method in ("var", "combined"):
            providers = list(model.providers.values())
            # child streams of the model's seed: the model's own stream is not advanced
            streams = model.rng.spawn(len(providers)) if history else [None] * len(providers)
            for p, rng in zip(providers, streams, strict=True):
                predictor = self._predictors[p.name] = WaitPredictor()
                if history:
                    # QBETS bounds come from the site's past waits; an empty history bounds nothing
                    # and plan_var would submit every request as early as it may (ch. 6.1)
                    past = past_jobs(history, procs=p.procs, rng=rng)
                    for job, wait in simulated_waits(past, procs=p.procs, policy=p.policy):
                        predictor.observe(job.procs, job.estimate, wait)
                p.start_observers.append(lambda job, t, pr=predictor: pr.observe(job.procs, job.estimate,
                                                                               t - job.submit))

    # ------------------------------------------------------------------ intake
    @property
    def buys_jobs(self) -> bool:
        """Whether users hand this broker their jobs too (a job market, :mod:`agents.trading`)."""
        return self.desk is not None

    def receive(self, message) -> None:
        """Take a workflow or reservation request from a user (or any job, in a job market)."""
        request = message.payload
        if self.desk is not None and isinstance(message, Submit) and isinstance(request, Job):
            self.desk.take(request)
            return
        if not isinstance(message, Submit) or not isinstance(request, (WorkflowRequest, ReservationRequest)):
            raise InvalidInput(f"broker: cannot handle {message.kind!r} carrying {request!r}")
        if isinstance(request, WorkflowRequest):
            self._workflow(request)
        else:
            self._reservation(request)

    def _new_id(self) -> int:
        self._next_id += 1
        return self._next_id - 1

    def _providers(self):
        return list(self.model.providers.values())

    def _home(self, site: str, procs: int):
        providers = self.model.providers
        home = providers.get(site)
        if home is not None and home.procs >= procs:
            return home
        fits = sorted((p for p in providers.values() if p.procs >= procs), key=lambda p: (p.procs, p.name))
        if not fits:
            raise InvalidInput(f"a task of {procs} processors fits no provider")
        return fits[0]

    # ------------------------------------------------------------------ workflows
    def _workflow(self, wf: WorkflowRequest) -> None:
        self.workflows[wf.id] = {"submit": wf.submit, "finish": None, "provisioned": False, "cost": 0.0}
        planned = None
        if self.method == "moga":
            planned = self._plan_moga(wf)
        elif self.method == "greedy":
            planned = self._plan_greedy(wf)
        if planned is None:
            self._run_just_in_time(wf)
            return
        placements, costs = planned
        self._hold(wf, placements, costs)

    def _plan_moga(self, wf: WorkflowRequest):
        now = wf.submit
        slots, capacity = [], {}
        for p in self._providers():
            reply = self.model.send(Query(self.name, p.name, now, "advertise"))
            capacity[p.name] = p.procs
            slots += [AdvertisedSlot(p.name, s.start, s.procs, s.duration, s.divisible, s.extensible,
                                     s.unit_cost, s.fixed_cost) for s in reply.payload]
        if not slots:
            return None
        evaluator = PlanEvaluator(wf.graph, slots, network=self.network, release=now, capacity=capacity)
        result = moga(evaluator, population=self.population, generations=self.generations, rng=self.model.rng)
        if not len(result.front):
            return None
        chosen = result.front.select(self.alpha)
        self.last_front = [(p.allocation_cost, p.makespan) for p in result.front.plans]
        self.last_choice = next(i for i, p in enumerate(result.front.plans) if p is chosen)
        schedule = evaluator.schedule_indices(chosen.slots)
        placements = [pl for pl in schedule.placements.values() if pl.resource is not None]
        # the plan's AC (eq. 4) shared between its tasks by processor-seconds
        work = sum(pl.procs * (pl.end - pl.start) for pl in placements) or 1
        costs = {pl.task: schedule.allocation_cost * pl.procs * (pl.end - pl.start) / work for pl in placements}
        for pl in placements:
            self.model.providers[pl.resource].price_log.append((now, costs[pl.task], "paid"))
        return placements, costs

    def _plan_greedy(self, wf: WorkflowRequest):
        now = wf.submit
        quoting = []
        for p in self._providers():
            reply = self.model.send(Query(self.name, p.name, now, "plan"))
            quoting.append(_LoggedQuotes(PlanQuoteProvider(p.name, reply.payload), p.price_log, now))
        try:
            plan = provision_greedy(wf.graph, quoting, alpha=self.alpha, release=now, network=self.network)
        except Infeasible:
            return None
        for q in quoting:  # the plan came with the first query and quote: every further query is a pair
            self.model.message_counts["query"] += max(0, q.n_queries - 1)
            self.model.message_counts["quote"] += max(0, q.n_queries - 1)
        placements = [pl for pl in plan.placements.values() if pl.resource is not None]
        for pl in placements:
            self.model.providers[pl.resource].price_log.append((now, plan.prices[pl.task], "paid"))
        return placements, dict(plan.prices)

    def _hold(self, wf: WorkflowRequest, placements, costs) -> None:
        """Reserve every placement on its provider and record the task as run there."""
        info = self.workflows[wf.id]
        info["provisioned"] = True
        for pl in placements:
            job_id = self._new_id()
            reservation = Reservation(f"wf{wf.id}-{pl.task}", pl.start, pl.procs, pl.end - pl.start)
            self.model.send(Reserve(self.name, pl.resource, wf.submit, reservation))
            runtime = pl.end - pl.start
            self.rows.append(_row(job_id, pl.resource, wf.submit, pl.start, pl.end, pl.procs, runtime, wf.user,
                                  costs[pl.task], "task", wf.id))
            info["cost"] += costs[pl.task]
        info["finish"] = max(pl.end for pl in placements) if placements else wf.submit

    def _run_just_in_time(self, wf: WorkflowRequest) -> None:
        """Best effort (ch. 4.7): submit each task to its home queue when its parents' data is there.

        A task too wide for the home provider goes to the smallest that fits;
        data crossing providers takes ``network`` time (ch. 4.9).
        """
        g = wf.graph
        state = {"left": {t: g.in_degree(t) for t in g}, "finish": wf.submit, "open": len(g)}
        ready: dict[Hashable, int] = {}  # task -> when its last parent's data arrives (s)
        site_of: dict[Hashable, str | None] = {}
        info = self.workflows[wf.id]

        def place(task: Hashable) -> tuple[str | None, int]:
            runtime = g.nodes[task]["runtime"]
            if not any(runtime.values() if isinstance(runtime, Mapping) else (runtime,)):
                return None, 0  # a virtual task (entry/exit, ch. 4.1) runs nowhere and moves no data
            procs = g.nodes[task]["procs"]
            name = self._home(wf.site, procs).name
            runtime = runtime_on(g, task, name)
            if runtime is None:
                raise InvalidInput(f"workflow {wf.id}: task {task!r} ({procs} processors) goes to {name!r}, "
                                   f"where it has no runtime")
            return name, runtime

        def release(task: Hashable, now: int) -> None:
            name, runtime = site_of[task], runtimes[task]
            if name is None:  # a virtual task ends as it starts
                done(task, now)
                return
            procs = g.nodes[task]["procs"]
            home = self.model.providers[name]
            job = Job(self._new_id(), now, procs, runtime, runtime, user=wf.user, site=home.name)
            self.kinds[job.id] = "task"
            self.task_of[job.id] = wf.id
            home.watch(job.id, on_end=lambda _id, t: done(task, t))
            self.model.send(Submit(self.name, home.name, now, job))

        def done(task: Hashable, t: int) -> None:
            state["finish"] = max(state["finish"], t)
            state["open"] -= 1
            if state["open"] == 0:
                info["finish"] = state["finish"]
            for child in g.successors(task):
                arrive = t
                if self.network is not None and site_of[task] is not None and site_of[child] is not None:
                    arrive += self.network.transfer(g.edges[task, child].get("data_bytes", 0), site_of[task],
                                                    site_of[child])
                ready[child] = max(ready.get(child, arrive), arrive)
                state["left"][child] -= 1
                if state["left"][child] == 0:
                    at = max(ready[child], int(self.model.time))
                    if at > self.model.time:
                        self._later(at, lambda c=child, a=at: release(c, a))
                    else:
                        release(child, at)

        runtimes: dict[Hashable, int] = {}
        for task in g:
            site_of[task], runtimes[task] = place(task)
        for task in [t for t in g if g.in_degree(t) == 0]:
            release(task, wf.submit)

    # ------------------------------------------------------------------ reservations
    def _reservation(self, req: ReservationRequest) -> None:
        job, start = req.job, req.start
        home = self._home(job.site, job.procs)
        self.kinds[job.id] = "reservation"
        if self.method == "moga":
            if self._reserve_advertised(req, home):
                return
        elif self.method in ("greedy", "combined"):
            plan = self.model.send(Query(self.name, home.name, job.submit, "plan")).payload
            f = plan.price(start, job.procs, job.estimate).fixed_cost
            if f < math.inf:
                home.price_log.append((job.submit, _base_cost(job.procs, job.estimate) + f, "quote"))
            if self.method == "greedy" or f == 0:  # combined with f = 0: the reservation alone (Fig. 45)
                if f < math.inf:
                    self._reserve_at(req, home, f)
                    return
            elif f < math.inf:  # combined: buy the reservation and race a VAR job against it
                self._virtual(req, home, combined=(self._reserve_at(req, home, f, record=False), f))
                return
            else:  # combined, reservation refused: VAR is the only chance
                self._virtual(req, home)
                return
        elif self.method == "var":
            self._virtual(req, home)
            return
        # no reservation: the job is submitted at the wanted start and takes its chance
        self.outcomes[job.id] = {"success": False, "normalized_cost": 0.0, "used": "best-effort"}
        home.watch(job.id, on_start=lambda _id, t: self._settle(job.id, t <= start))
        self._submit_at(replace(job, submit=start, site=home.name), home)

    def _reserve_advertised(self, req: ReservationRequest, home) -> bool:
        """Meet the request from advertised slots covering its window (ch. 3), at the base rate."""
        job, start = req.job, req.start
        slots = self.model.send(Query(self.name, home.name, job.submit, "advertise")).payload
        g = nx.DiGraph()
        g.add_node("r", procs=job.procs, runtime=job.estimate)
        ads = [AdvertisedSlot(home.name, s.start, s.procs, s.duration, s.divisible, s.extensible, s.unit_cost,
                              s.fixed_cost) for s in slots]
        if not ads:
            return False
        schedule = PlanEvaluator(g, ads, release=start, capacity={home.name: home.procs}).schedule([1] * len(ads))
        pl = schedule.placements.get("r")
        if not schedule.feasible or pl is None or pl.start != start:
            return False
        self._reserve_at(req, home, schedule.allocation_cost - _base_cost(job.procs, job.estimate))
        return True

    def _reserve_at(self, req: ReservationRequest, home, f: float, *, record: bool = True) -> Reservation:
        """Buy ``[start, start + estimate)`` on ``home`` at ``n·D·c + f``; the job runs in it."""
        job, start = req.job, req.start
        reservation = Reservation(f"ar{job.id}", start, job.procs, job.estimate)
        self.model.send(Reserve(self.name, home.name, job.submit, reservation))
        cost = _base_cost(job.procs, job.estimate) + f
        home.price_log.append((job.submit, cost, "paid"))
        if record:
            self._record_reserved(req, home, cost)
            self.outcomes[job.id] = {"success": True, "normalized_cost": f / _base_cost(job.procs, job.estimate),
                                     "used": "reservation"}
        return reservation

    def _record_reserved(self, req: ReservationRequest, home, cost: float) -> None:
        """The request's job runs in its reservation ``ar<id>``, which ends with it."""
        job, start = req.job, req.start
        run = min(job.runtime, job.estimate)
        self.rows.append(_row(job.id, home.name, job.submit, start, start + run, job.procs, job.runtime,
                              job.user, cost, "reservation", None, estimate=job.estimate))
        if run < job.estimate:  # the rest of the window would hold idle processors: give it back
            self._later(max(start + run, int(self.model.time)), lambda: home.end_reservation(f"ar{job.id}"))

    def _virtual(self, req: ReservationRequest, home, combined: tuple[Reservation, float] | None = None) -> None:
        """Fig. 33: submit a job early enough to start by the wanted start; with ``combined``, Fig. 45."""
        job, start = req.job, req.start
        now = job.submit
        plan = plan_var(self._predictors[home.name], procs=job.procs, duration=job.estimate, start=start, now=now)
        gap = start - plan.submit
        var_job = replace(job, submit=plan.submit, runtime=min(job.runtime, job.estimate) + gap,
                          estimate=job.estimate + gap, site=home.name)
        base = _base_cost(job.procs, job.estimate)

        def started(_id: int, t: int) -> None:
            on_time = t <= start
            if combined is None:
                extra = _base_cost(job.procs, start - t) if on_time else 0.0
                self.outcomes[job.id] = {"success": on_time, "normalized_cost": extra / base, "used": "var"}
                return
            reservation, f = combined
            c = combine_var_and_reservation(procs=job.procs, duration=job.estimate, start=start, price=f,
                                            penalty_factor=self.penalty, var_start=t if on_time else None)
            if c.used == "var":  # keep the VAR job; give the reservation back with the penalty
                self.model.send(Cancel(self.name, home.name, t, (reservation.id, self.penalty * f)))
                self.costs[job.id] = _base_cost(job.procs, start - t) + base + self.penalty * f
            else:  # keep the reservation; the VAR job ends as it starts
                home.kill(job.id)
                self.kinds[job.id] = "cancelled"
                self._record_reserved(req, home, base + f)
            self.outcomes[job.id] = {"success": c.success, "normalized_cost": c.normalized_cost, "used": c.used}

        home.watch(job.id, on_start=started)
        self._submit_at(var_job, home)
        if combined is not None:
            self._later(start + 1, lambda: self._give_up(req, home, combined))

    def _give_up(self, req: ReservationRequest, home, combined: tuple[Reservation, float]) -> None:
        """After S with the VAR job not started: withdraw it and use the reservation (Fig. 45)."""
        job = req.job
        if job.id in home.machine.start:
            return  # its start was settled by Fig. 45 already
        home.cancel(job.id)
        self.kinds[job.id] = "cancelled"
        f = combined[1]
        self._record_reserved(req, home, _base_cost(job.procs, job.estimate) + f)
        c = combine_var_and_reservation(procs=job.procs, duration=job.estimate, start=req.start, price=f,
                                        penalty_factor=self.penalty, var_start=None)
        self.outcomes[job.id] = {"success": c.success, "normalized_cost": c.normalized_cost, "used": c.used}

    def _submit_at(self, job: Job, home) -> None:
        if job.submit > self.model.time:
            self._later(job.submit, lambda: self.model.send(Submit(self.name, home.name, job.submit, job)))
        else:
            self.model.send(Submit(self.name, home.name, job.submit, job))

    def _later(self, t: int, action) -> None:
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


class _LoggedQuotes:
    """A quoting provider that logs the cheapest quote of every query in the provider's price log."""

    def __init__(self, inner: PlanQuoteProvider, log: list, now: int) -> None:
        self.inner, self.log, self.now = inner, log, now
        self.name = inner.name
        self.n_queries = 0

    @property
    def procs(self) -> int:
        return self.inner.procs

    def quotes(self, procs: int, duration: int, earliest: int):
        self.n_queries += 1
        answers = self.inner.quotes(procs, duration, earliest)
        if answers:
            self.log.append((self.now, min(q.price for q in answers), "quote"))
        return answers

    def reserve(self, start: int, procs: int, duration: int):
        return self.inner.reserve(start, procs, duration)


def _row(job_id, site, submit, start, end, procs, runtime, user, cost, kind, workflow, *, estimate=None) -> dict:
    return {"job_id": job_id, "site": site, "submit": submit, "start": start, "end": end, "procs": procs,
            "runtime": runtime, "estimate": runtime if estimate is None else estimate, "wait": start - submit,
            "user": user, "outcome": "completed", "cost": cost, "kind": kind, "workflow": workflow}
