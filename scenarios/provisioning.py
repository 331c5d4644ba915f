"""Workflow provisioning experiments and the ``provision`` command (Singh 2008, ch. 4, 6, 7).

Composes the mechanisms of :mod:`market.provisioning` on providers replaying
real traces: a provider is a machine simulation of a workload (SWF trace)
under the slot scheduler with exact estimates (the thesis's setting, ch. 3.1
and 4.7); at a submission time its free slots are advertised (48 h ahead, or
the end of its plan + 5 min), MOGA finds the Pareto set and eq. 15 picks a
plan, or greedy provisioning queries it; the same workflow then runs best
effort just in time on a fresh replay of the same provider, from the same
instant. VAR requests run on a replay too. This module holds no algorithm.

Run ids read ``singh-{method}-{site}-a{alpha}-seed{seed}``; every row records its seed.

Command line (the body of ``gridmarket provision``; ``--method`` takes any provisioning method of
:mod:`market.provisioning.methods`, registered or a plug-in ``"package.module:function"``)::

    python -m scenarios.provisioning --workflow wf.json --slots slots.json --method moga --alpha 0.5 --seed 1

Times are seconds; costs are SU.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import networkx as nx
import numpy as np

from market.errors import Infeasible, InvalidInput, MarketError
from market.job import Job
from market.provisioning import (
    PROVISIONING_METHODS,
    SECONDS_PER_HOUR,
    AdvertisedSlot,
    FreeCapacityProvider,
    PlanEvaluator,
    PlanQuoteProvider,
    ProvisioningProblem,
    StartFeed,
    WaitPredictor,
    advertise,
    check_provisioning,
    combine_var_and_reservation,
    moga,
    provision_greedy,
    resolve_provisioning,
    run_best_effort,
    run_var,
    summarize_reservations,
)
from market.scheduling import make_scheduler
from market.simulation import MachineSimulation
from market.validation import check_keys, read_json
from market.workflows import Network, read_dax, read_workflow_json

__all__ = [
    "ADVERTISE_AHEAD",
    "Provider",
    "add_arguments",
    "compare_greedy",
    "compare_moga",
    "main",
    "reservation_schemes",
    "run",
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

    def advertised(self, t: int) -> list[AdvertisedSlot]:
        """The slots the provider advertises at ``t`` (c = 1, f = 0)."""
        sched = self.at(t).scheduler
        until = max(t + ADVERTISE_AHEAD, sched.plan_end + PLAN_END_MARGIN)
        return advertise(self.name, sched.free_slots(t, until=until))

    def quoting(self, t: int, pricing: str = "adaptive"):
        """A form-(19) quoting provider over the plan at ``t``.

        ``pricing="adaptive"``: externality prices of ch. 5 (``market.pricing.ProviderPlan``
        over a conservative-backfilling plan); ``"free"``: only starts that
        delay nobody, at ``f = 0`` (:class:`FreeCapacityProvider`).
        """
        if pricing == "free":
            sched = self.at(t).scheduler
            return FreeCapacityProvider(self.name, self.procs, sched.free_slots(t), now=t)
        if pricing != "adaptive":
            raise InvalidInput(f"pricing must be 'adaptive' or 'free', got {pricing!r}")
        from market.pricing import ProviderPlan  # the provider market of ch. 5

        sim = self.at(t, "conservative")
        return PlanQuoteProvider(self.name, ProviderPlan.from_scheduler(sim.scheduler, t))


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
    capacity = {p.name: p.procs for p in providers}
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
    from market.pricing import ProviderPlan

    prices = []
    for t, procs, duration, lead in requests:
        sim = provider.at(t, "conservative")
        prices.append(ProviderPlan.from_scheduler(sim.scheduler, t).price(t + lead, procs, duration).fixed_cost)
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


# ----------------------------------------------------------------------------- command line
_SLOTS_KEYS = ("slots", "resources", "release", "network")
_SLOT_KEYS = ("resource", "start", "procs", "duration", "divisible", "extensible", "unit_cost", "fixed_cost")


def _read_slots(path: Path) -> tuple[list[AdvertisedSlot], dict, int, Network | None]:
    doc = read_json(path, "slots")
    if isinstance(doc, list):
        doc = {"slots": doc}
    check_keys(str(path), doc, _SLOTS_KEYS, required=("slots",))
    if not isinstance(doc["slots"], list):
        raise InvalidInput(f"{path}: slots must be a list of slots (got {type(doc['slots']).__name__})")
    slots = []
    for i, s in enumerate(doc["slots"]):
        where = f"{path}: slots[{i}]"
        check_keys(where, s, _SLOT_KEYS, required=("start", "procs"))
        for flag in ("divisible", "extensible"):
            if flag in s and not isinstance(s[flag], bool):
                raise InvalidInput(f"{where}.{flag}: must be true or false (got {s[flag]!r})")
        if "resource" in s and not isinstance(s["resource"], str):
            raise InvalidInput(f"{where}.resource: must be a resource name (got {s['resource']!r})")
        for key, low, what in (("start", 0, "an integer >= 0 seconds"), ("procs", 1, "an integer >= 1")):
            if isinstance(s[key], bool) or not isinstance(s[key], int) or s[key] < low:
                raise InvalidInput(f"{where}.{key}: must be {what} (got {s[key]!r})")
        for key in ("duration", "unit_cost", "fixed_cost"):
            value = s.get(key)
            if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))
                                      or not 0 <= value < math.inf):
                raise InvalidInput(f"{where}.{key}: must be a finite number >= 0 (got {value!r})")
        try:
            duration = s.get("duration")
            slots.append(AdvertisedSlot(
                s.get("resource", "site"), s["start"], s["procs"], math.inf if duration is None else duration,
                s.get("divisible", False), s.get("extensible", duration is None),
                s.get("unit_cost", 1.0), s.get("fixed_cost", 0.0)))
        except (TypeError, AttributeError) as exc:
            raise InvalidInput(f"{where}: is malformed ({exc})") from None
        except MarketError as exc:
            raise InvalidInput(f"{where}: {exc}") from None
    resources = doc.get("resources", {})
    if not isinstance(resources, dict):
        raise InvalidInput(f"{path}: resources must be an object of name -> {{procs}} (got {resources!r})")
    machines = {}
    for name, m in resources.items():
        check_keys(f"{path}: resources.{name}", m, ("procs",), required=("procs",))
        if isinstance(m["procs"], bool) or not isinstance(m["procs"], int) or m["procs"] < 1:
            raise InvalidInput(f"{path}: resources.{name}.procs must be an integer >= 1 (got {m['procs']!r})")
        machines[name] = m["procs"]
    net = doc.get("network")
    if net is not None:
        check_keys(f"{path}: network", net, ("latency", "bytes_per_second"))
        for key, value in net.items():
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0:
                raise InvalidInput(f"{path}: network.{key} must be a number >= 0 (got {value!r})")
    release = doc.get("release", 0)
    if isinstance(release, bool) or not isinstance(release, int) or release < 0:
        raise InvalidInput(f"{path}: release must be an integer >= 0 seconds (got {release!r})")
    network = Network(net.get("latency", 0), net.get("bytes_per_second", math.inf)) if net else None
    return slots, machines, int(doc.get("release", 0)), network


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``provision`` (for the main CLI's subparser)."""
    from scenarios.options import checked

    parser.add_argument("--workflow", required=True,
                        help="workflow: gridmarket JSON {tasks, edges}, WfCommons JSON, or Pegasus DAX (.xml)")
    parser.add_argument("--slots", required=True,
                        help="slots JSON: a list (or {'slots': [...], 'resources': {name: {procs}}, 'release', "
                        "'network': {latency, bytes_per_second}}) of {resource, start, procs, duration "
                        "(null = endless), divisible, extensible, unit_cost, fixed_cost}")
    parser.add_argument("--method", default="moga", type=checked(resolve_provisioning),
                        help=f"provisioning method: {', '.join(PROVISIONING_METHODS)} or a plug-in "
                        "'package.module:function' (docs/extending.md) (default moga)")
    parser.add_argument("--alpha", type=float, default=0.5, help="trade-off factor in [0, 1] (default 0.5)")
    parser.add_argument("--seed", type=int, default=1,
                        help="seed of the method's random draws, e.g. MOGA's (default 1)")
    parser.add_argument("--population", type=int, default=100, help="MOGA: plans per generation (default 100)")
    parser.add_argument("--generations", type=int, default=10, help="MOGA: generations (default 10)")


def run(args: argparse.Namespace) -> int:
    """Provision the workflow on the slots by ``--method`` and print the plan (and any Pareto set it chose from).

    The method's answer is checked against the slots (:func:`market.provisioning.check_provisioning`)
    before it is printed. Exit status 0 with a plan; 1 with one line "infeasible: ..." when no plan
    fits the slots (a valid question without an answer); 2 for bad input or a method's invalid answer.
    """
    if not 0 <= args.alpha <= 1:
        raise InvalidInput(f"--alpha must be in [0, 1], got {args.alpha}")
    if args.seed < 0:
        raise InvalidInput(f"--seed must be >= 0, got {args.seed}")
    wf_path = Path(args.workflow)
    workflow = read_dax(wf_path) if wf_path.suffix.lower() in (".xml", ".dax") else read_workflow_json(wf_path)
    slots, machines, release, network = _read_slots(Path(args.slots))
    if not slots:
        raise InvalidInput(f"{args.slots}: the slot set is empty")
    for option in ("population", "generations"):
        low = 2 if option == "population" else 0
        if getattr(args, option) < low:
            raise InvalidInput(f"--{option} must be >= {low}, got {getattr(args, option)}")
    problem = ProvisioningProblem(workflow, tuple(slots), machines, release, network, args.alpha,
                                  args.population, args.generations)
    method = resolve_provisioning(args.method)
    try:
        result = method(problem, rng=np.random.default_rng(args.seed))
    except Infeasible as exc:
        print(f"infeasible: {exc}")
        return 1
    result = check_provisioning(result, problem, args.method)
    if result.front is not None:
        chosen = (result.allocation_cost, result.finish(release) - release)
        print(f"{run_id(args.method, 'cli', args.alpha, args.seed)}: {len(result.front)} Pareto plans, "
              f"{result.n_evaluations} plans evaluated")
        print("Pareto set (allocation cost SU, makespan s):")
        marked = False
        for p in result.front.plans:
            mark = ""
            if not marked and p.makespan == chosen[1] and math.isclose(p.allocation_cost, chosen[0], abs_tol=1e-9):
                mark, marked = "  <- chosen", True
            print(f"  {p.allocation_cost:12.3f}  {p.makespan:10}  slots {list(p.slots)}{mark}")
    print("plan (task, resource, start, end):")
    for t, p in result.placements.items():
        if p.resource is not None:
            print(f"  {t}  {p.resource}  {p.start}  {p.end}")
    print("bought: " + ", ".join(f"{key}: {price:.3f} SU" for key, price in result.charges.items()))
    print(f"makespan (s): {result.finish(release) - release}")
    print(f"allocation cost (SU): {result.allocation_cost:.3f}")
    return 0


def main(argv: list[str] | None = None) -> int:
    """``python -m scenarios.provisioning`` (``provision`` options); returns the exit status."""
    parser = argparse.ArgumentParser(prog="gridmarket provision", description=__doc__.splitlines()[0])
    add_arguments(parser)
    args = parser.parse_args(argv)
    try:
        return run(args)
    except (MarketError, OSError) as err:
        print(f"gridmarket provision: error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
