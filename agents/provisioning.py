"""The provisioning broker strategies ``moga`` and ``greedy`` (Singh 2008, ch. 3-5 and 7).

* ``moga`` -- each provider *advertises* its free slots (ch. 3: the plan's non-delaying slots at
  the base rate); MOGA searches the Pareto set of plans (ch. 4.5, Fig. 11), eq. (15) picks one by
  α, and every task's placement is reserved on its provider. A reservation request is met from the
  advertised slots when they cover its window.
* ``greedy`` -- providers *quote* by externality (ch. 5, Fig. 22, form 19) and the broker takes task
  by task the best quote by α (ch. 7, Fig. 51), reserving it. A reservation request is priced by
  form (17) at its home provider and bought.

Times are integer seconds from simulation start; prices SU.
"""

from __future__ import annotations

import math

import networkx as nx

from gridmarket.agents.strategies import BrokerStrategy, WorkflowPlan, base_cost, register_strategy
from gridmarket.errors import Infeasible
from gridmarket.provisioning import PlanEvaluator, advertise, moga, provision_greedy

__all__ = ["GreedyStrategy", "MOGAStrategy", "quote_reservation"]


def quote_reservation(broker, request, home) -> float:
    """``f`` (SU) of reservation ``request``'s slot at provider ``home`` (form 17; inf if refused).

    Asks ``home`` for its plan at the request's submit time; a finite quote goes to ``home``'s price log.
    """
    job = request.job
    f = broker.query(home.name, job.submit, "plan").price(request.start, job.procs, job.estimate).fixed_cost
    if f < math.inf:
        home.log_price(job.submit, base_cost(job.procs, job.estimate) + f, "quote")
    return f


class MOGAStrategy(BrokerStrategy):
    """Advertisement + MOGA: buy advertised slots for a workflow by MOGA and eq. (15) (module notes)."""

    name = "moga"
    needs_plans = True

    def plan_workflow(self, wf) -> WorkflowPlan | None:
        b, now = self.broker, wf.submit
        slots, capacity = [], {}
        for p in b.providers():
            capacity[p.name] = p.procs
            slots += advertise(p.name, b.query(p.name, now, "advertise"))
        if not slots:
            return None
        evaluator = PlanEvaluator(wf.graph, slots, network=b.network, release=now, capacity=capacity)
        result = moga(evaluator, population=b.population, generations=b.generations, rng=self.model.rng)
        if not len(result.front):
            return None
        chosen = result.front.select(b.alpha)
        b.last_front = [(p.allocation_cost, p.makespan) for p in result.front.plans]
        b.last_choice = next(i for i, p in enumerate(result.front.plans) if p is chosen)
        schedule = evaluator.schedule_indices(chosen.slots)
        placements = [pl for pl in schedule.placements.values() if pl.resource is not None]
        # the plan's AC (eq. 4) shared between its tasks by processor-seconds
        work = sum(pl.procs * (pl.end - pl.start) for pl in placements) or 1
        return WorkflowPlan(placements, {pl.task: schedule.allocation_cost * pl.procs * (pl.end - pl.start) / work
                                         for pl in placements})

    def reserve(self, request, home) -> bool:
        """Meet the request from advertised slots covering its window (ch. 3), at the base rate."""
        b, job, start = self.broker, request.job, request.start
        slots = b.query(home.name, job.submit, "advertise")
        g: nx.DiGraph = nx.DiGraph()
        g.add_node("r", procs=job.procs, runtime=job.estimate)
        ads = advertise(home.name, slots)
        if not ads:
            return False
        schedule = PlanEvaluator(g, ads, release=start, capacity={home.name: home.procs}).schedule([1] * len(ads))
        pl = schedule.placements.get("r")
        if not schedule.feasible or pl is None or pl.start != start:
            return False
        b.reserve_at(request, home, schedule.allocation_cost - base_cost(job.procs, job.estimate))
        return True


class GreedyStrategy(BrokerStrategy):
    """Adaptive pricing + greedy HEFT: each task's best quote by α (ch. 7, Fig. 51); reservations priced by form 17."""

    name = "greedy"
    needs_plans = True

    def plan_workflow(self, wf) -> WorkflowPlan | None:
        b = self.broker
        try:
            plan = provision_greedy(wf.graph, b.quoting(wf.submit), alpha=b.alpha, release=wf.submit,
                                    network=b.network)
        except Infeasible:
            return None
        return WorkflowPlan([pl for pl in plan.placements.values() if pl.resource is not None], plan.prices)

    def reserve(self, request, home) -> bool:
        f = quote_reservation(self.broker, request, home)
        if f == math.inf:
            return False
        self.broker.reserve_at(request, home, f)
        return True


register_strategy(MOGAStrategy)
register_strategy(GreedyStrategy)
