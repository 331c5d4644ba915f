"""Workflow provisioning experiments (Singh 2008, ch. 4, 6, 7); the ``provision`` command is `gridmarket.scenarios.commands.provision`.

Composes the mechanisms of :mod:`gridmarket.provisioning` on providers replaying
real traces: a provider is a machine simulation of a workload (SWF trace)
under the slot scheduler with exact estimates (the thesis's setting, ch. 3.1
and 4.7); at a submission time its free slots are advertised (48 h ahead, or
the end of its plan + 5 min), MOGA finds the Pareto set and eq. 15 picks a
plan, or greedy provisioning queries it; the same workflow then runs best
effort just in time on a fresh replay of the same provider, from the same
instant. VAR requests run on a replay too. This module holds no algorithm.

Run ids read ``singh-{method}-{site}-a{alpha}-seed{seed}``; every row records its seed.

Times are seconds; costs are SU.
"""

from __future__ import annotations

import math
import time
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, replace
from typing import cast

import networkx as nx
import numpy as np

from gridmarket.errors import InvalidInput
from gridmarket.job import Job
from gridmarket.pricing import Slot
from gridmarket.provisioning import (
    SECONDS_PER_HOUR,
    FreeCapacityProvider,
    PlanEvaluator,
    PlanQuoteProvider,
    StartFeed,
    WaitPredictor,
    advertise,
    combine_var_and_reservation,
    moga,
    provision_greedy,
    run_best_effort,
    run_var,
    summarize_reservations,
)
from gridmarket.scheduling import SlotScheduler, make_scheduler
from gridmarket.simulation import MachineSimulation
from gridmarket.workflows import Network

__all__ = [
    "ADVERTISE_AHEAD",
    "Provider",
    "compare_greedy",
    "compare_moga",
    "reservation_schemes",
    "run_id",
    "var_requests",
]

ADVERTISE_AHEAD = 48 * 3600  # ch. 3.1: slots are advertised 48 h ahead or to the plan's end + 5 min
PLAN_END_MARGIN = 300


def run_id(method: str, site: str, alpha: float, seed: int) -> str:
    """``singh-moga-sdsc-a0.5-seed3``."""
    return f"singh-{method}-{site}-a{alpha:g}-seed{seed}"


class Provider:
    """A site replaying its workload: builds a fresh simulation advanced to any instant.

    Parameters
    ----------
    name : str
        Site name (task runtimes and transfers are looked up by it).
    procs : int
        Machine size.
    jobs : sequence of Job
        The background workload, sorted by submit time.
    estimates : {"exact", "requested"}
        ``"exact"`` makes every estimate the actual runtime (ch. 4.7:
        best-effort tasks request their actual runtime); ``"requested"``
        keeps the trace's requested walltimes, so the scheduler plans (and
        prices) on them while jobs run their actual runtimes (ch. 6.2: a live
        queue's snapshot shows requested walltimes).
    """

    def __init__(self, name: str, procs: int, jobs: Sequence[Job], *, estimates: str = "exact") -> None:
        if estimates not in ("exact", "requested"):
            raise InvalidInput(f"estimates must be 'exact' or 'requested', got {estimates!r}")
        self.name = name
        self.procs = procs
        self.estimates = estimates
        if estimates == "exact":
            jobs = [j if j.estimate == j.runtime else replace(j, estimate=j.runtime) for j in jobs]
        self.jobs = [j for j in jobs if j.procs <= procs]

    def at(self, t: int, policy: str = "slots") -> MachineSimulation:
        """A fresh simulation of the workload under ``policy``, every event up to ``t`` applied."""
        sim = MachineSimulation(make_scheduler(policy, self.procs), list(self.jobs))
        sim.run_until(t)
        return sim

    def advertised(self, t: int) -> list[Slot]:
        """The slots the provider advertises at ``t`` (c = 1, f = 0)."""
        sched = cast(SlotScheduler, self.at(t).scheduler)  # policy "slots"
        until = max(t + ADVERTISE_AHEAD, sched.plan_end + PLAN_END_MARGIN)
        return advertise(self.name, sched.free_slots(t, until=until))

    def quoting(self, t: int, pricing: str = "adaptive"):
        """A form-(19) quoting provider over the plan at ``t``.

        ``pricing="adaptive"``: externality prices of ch. 5 (``gridmarket.pricing.ProviderPlan``
        over a conservative-backfilling plan); ``"free"``: only starts that
        delay nobody, at ``f = 0`` (:class:`FreeCapacityProvider`).
        """
        if pricing == "free":
            sched = cast(SlotScheduler, self.at(t).scheduler)  # policy "slots"
            return FreeCapacityProvider(self.name, self.procs, sched.free_slots(t), now=t)
        if pricing != "adaptive":
            raise InvalidInput(f"pricing must be 'adaptive' or 'free', got {pricing!r}")
        sim = self.at(t, "conservative")
        return PlanQuoteProvider(self.name, fig22_plan(sim.scheduler, t))


def fig22_plan(scheduler, t: int):
    """The priced plan of a replaying provider at ``t``, its queue planned afresh (Singh 2008, Fig. 22 as written).

    Fig. 22 prices a slot from two plans made the same way ("Create a schedule of the tasks in Q using
    pi ... Recreate a schedule"); a live conservative scheduler's own plan is compressed at every early
    end and, with requested estimates, is not the fresh one, so ``ProviderPlan.from_scheduler`` would
    also charge a slot for the jobs a fresh re-plan places later (``gridmarket.scenarios.harnesses.pricing_replay``,
    ``plan_without``). With exact estimates both give the same plan.
    """
    from gridmarket.pricing import ProviderPlan, state_from_scheduler  # the provider market of ch. 5

    return ProviderPlan.from_state(state_from_scheduler(scheduler, t), "conservative")


def compare_moga(
    workflow: nx.DiGraph,
    providers: Sequence[Provider],
    *,
    at: int,
    alphas: Sequence[float] = (0.0, 0.5, 1.0),
    seed: int,
    network: Network | None = None,
    population: int = 100,
    generations: int = 10,
    best_effort_policy: str = "conservative",
) -> list[dict]:
    """MOGA plans over the advertised slots at ``at`` vs best effort from ``at`` (ch. 4.7, Figure 13).

    One row per α (the Pareto set is searched once, ch. 4.6) plus one best-effort row.
    """
    slots = [s for p in providers for s in p.advertised(at)]
    capacity: dict[Hashable, int] = {p.name: p.procs for p in providers}
    evaluator = PlanEvaluator(workflow, slots, network=network, release=at, capacity=capacity)
    started = time.perf_counter()
    result = moga(evaluator, population=population, generations=generations, rng=np.random.default_rng(seed))
    seconds = time.perf_counter() - started
    site = "+".join(p.name for p in providers)
    rows = []
    for alpha in alphas:
        plan = result.front.select(alpha)
        rows.append({
            "run_id": run_id("moga", site, alpha, seed), "method": "moga", "alpha": alpha, "seed": seed, "at": at,
            "makespan": plan.makespan, "allocation_cost": plan.allocation_cost, "n_slots": len(slots),
            "front_size": len(result.front), "n_evaluations": result.n_evaluations, "seconds": seconds,
        })
    rows.append(_best_effort_row(workflow, providers, at, seed, network, best_effort_policy, site))
    return rows


def compare_greedy(
    workflow: nx.DiGraph,
    providers: Sequence[Provider],
    *,
    at: int,
    alphas: Sequence[float] = (0.0, 0.5, 1.0),
    seed: int = 0,
    network: Network | None = None,
    best_effort_policy: str = "conservative",
    pricing: str = "adaptive",
) -> list[dict]:
    """Greedy provisioning over quotes at ``at`` vs best effort from ``at`` (ch. 7.2, Figure 52).

    ``pricing`` chooses the providers' quotes (see :meth:`Provider.quoting`).
    """
    site = "+".join(p.name for p in providers)
    rows = []
    for alpha in alphas:
        quoting = [p.quoting(at, pricing) for p in providers]
        started = time.perf_counter()
        plan = provision_greedy(workflow, quoting, alpha=alpha, release=at, network=network)
        rows.append({
            "run_id": run_id(f"greedy-{pricing}", site, alpha, seed), "method": f"greedy-{pricing}",
            "alpha": alpha, "seed": seed,
            "at": at, "makespan": plan.makespan, "allocation_cost": plan.allocation_cost,
            "n_queries": plan.n_queries, "seconds": time.perf_counter() - started,
        })
    rows.append(_best_effort_row(workflow, providers, at, seed, network, best_effort_policy, site))
    return rows


def _best_effort_row(workflow, providers, at, seed, network, policy, site) -> dict:
    sims = {p.name: p.at(at, policy) for p in providers}
    run = run_best_effort(workflow, sims, release=at, network=network)
    return {"run_id": f"singh-besteffort-{site}-{policy}-seed{seed}", "method": "best-effort", "alpha": math.nan,
            "seed": seed, "at": at, "makespan": run.makespan, "allocation_cost": run.allocation_cost}


def var_requests(
    provider: Provider,
    requests: Sequence[tuple[int, int, int, int]],
    *,
    policy: str = "conservative",
    warmup: int = 0,
    min_history: int = 20,
) -> tuple[list, dict]:
    """Run VAR requests ``(at, procs, duration, lead)`` on one replay of ``provider`` (ch. 6.2).

    Each request is planned at ``at`` for a reservation starting ``lead``
    seconds later; the predictor learns from every job the replay starts
    from ``warmup`` on. Requests must be in time order and not overlap.
    Returns the outcomes and their summary (success rate, mean normalised cost).
    """
    sim = provider.at(warmup, policy)
    predictor = WaitPredictor(min_history=min_history)
    feed = StartFeed(sim, predictor)
    next_id = 1 + max((j.id for j in provider.jobs), default=0)
    outcomes = []
    for k, (t, procs, duration, lead) in enumerate(requests):
        if t < sim.now:
            raise InvalidInput(f"request {k} at {t} is before the replay's clock {sim.now}")
        sim.run_until(t)
        feed.update()
        outcomes.append(run_var(sim, predictor, procs=procs, duration=duration, start=t + lead,
                                job_id=next_id + k, feed=feed))
    return outcomes, summarize_reservations(outcomes)


def reservation_schemes(
    provider: Provider,
    requests: Sequence[tuple[int, int, int, int]],
    *,
    penalty_factor: float = 0.1,
    warmup: int = 0,
    min_history: int = 20,
) -> tuple[list[dict], dict[str, dict]]:
    """VAR, adaptive-pricing reservations and the combined scheme on the same requests (ch. 6.2-6.4).

    As in the thesis (ch. 6.4, simulated "using the experimental data
    gathered"): at each request time the adaptive price ``f`` of the
    reservation (form 17 on the conservative plan of that instant) is
    recorded and the VAR job runs on the replay; the combined outcome is
    then decided by Figure 45 from ``f`` and the VAR job's start.
    Returns one row per request and the summary per scheme.
    """
    prices = []
    for t, procs, duration, lead in requests:
        sim = provider.at(t, "conservative")
        prices.append(fig22_plan(sim.scheduler, t).price(t + lead, procs, duration).fixed_cost)
    var_out, _ = var_requests(provider, requests, warmup=warmup, min_history=min_history)
    rows, reserved, combined = [], [], []
    for (t, procs, duration, lead), f, v in zip(requests, prices, var_out):
        c = combine_var_and_reservation(procs=procs, duration=duration, start=t + lead, price=f,
                                        penalty_factor=penalty_factor, var_start=v.job_start)
        ar = _Reserved(f < math.inf, f / (procs * duration / SECONDS_PER_HOUR) if f < math.inf else 0.0)
        reserved.append(ar)
        combined.append(c)
        rows.append({"at": t, "procs": procs, "duration": duration, "lead": lead, "price_f": f,
                     "var_success": v.success, "var_cost": v.normalized_cost, "ar_success": ar.success,
                     "ar_cost": ar.normalized_cost, "combined_used": c.used, "combined_cost": c.normalized_cost})
    summary = {"var": summarize_reservations(var_out), "adaptive": summarize_reservations(reserved),
               "combined": summarize_reservations(combined)}
    return rows, summary


@dataclass(frozen=True)
class _Reserved:
    success: bool
    normalized_cost: float
