"""Provisioning methods by name: how a workflow is planned over a set of priced slots (Singh 2008, ch. 4, 7).

A provisioning method answers one :class:`ProvisioningProblem` (a workflow, the slots on offer,
the trade-off factor α) with a :class:`ProvisioningResult` (where and when each task runs and what
is bought at what price): ``method(problem, *, rng) -> ProvisioningResult``. Two are registered:

* ``"moga"`` -- the multi-objective GA searches the Pareto set of slot subsets (ch. 4.5) and eq. 15
  picks the plan of α (ch. 4.6); every slot a task uses is bought by Table 1's rules;
* ``"greedy"`` -- HEFT task by task on the slots' free capacity (ch. 7.1, Fig. 51), each task
  reserved at the best-effort price ``n d`` SU (``c = 1``, ``f = 0``: the slots delay nobody).

A method of your own is registered with :func:`register_provisioning` or named
``"package.module:function"`` wherever a provisioning method is taken (``gridmarket provision
--method``; ``docs/extending.md``). Whatever a method returns is checked
(:func:`check_provisioning`) before it is reported. Times are integer seconds from simulation start;
prices and costs are SU (processor-hours).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field

import networkx as nx
import numpy as np

from gridmarket.errors import Infeasible, InvalidInput
from gridmarket.plugins import FunctionContract, Registry
from gridmarket.pricing.slot import Slot
from gridmarket.provisioning.greedy import provision_greedy
from gridmarket.provisioning.moga import moga
from gridmarket.provisioning.pareto import ParetoSet
from gridmarket.provisioning.quotes import FreeCapacityProvider
from gridmarket.provisioning.schedule import Placement, PlanEvaluator
from gridmarket.scheduling.profile import block_steps, step_at
from gridmarket.scheduling.slots import FreeSlot
from gridmarket.workflows.dag import Network, runtime_on, validate_workflow

__all__ = ["PROVISIONING_METHODS", "ProvisioningMethod", "ProvisioningProblem", "ProvisioningResult",
           "check_provisioning", "register_provisioning", "resolve_provisioning"]


@dataclass(frozen=True, slots=True)
class ProvisioningProblem:
    """What a provisioning method is asked: plan ``workflow`` over ``slots`` by trade-off ``alpha``.

    Attributes
    ----------
    workflow : networkx.DiGraph
        Tasks with ``procs`` and ``runtime`` (seconds, or seconds by resource name); edges may carry
        ``data_bytes`` (:mod:`gridmarket.workflows.dag`).
    slots : tuple of Slot
        The slots on offer, Singh's ``<s, n, d, c, f, b, e>`` (eqs. 1-2), from every resource. Their
        sum at an instant is a resource's free capacity; an extensible slot's runs on past its end.
    capacity : mapping of resource to int
        Processors of each resource's machine, where known (empty: the slots tell).
    release : int
        Earliest start of any task, seconds.
    network : Network or None
        Data transfers between resources (ch. 4.9); None: free.
    alpha : float
        Trade-off factor in [0, 1]: 1 minimises cost only, 0 makespan only (eq. 15, Fig. 51).
    population, generations : int
        Search budget of a genetic method (MOGA: members per generation, >= 2, and generations after
        the first, >= 0; 100 and 10 in ch. 4.7). Methods without a search ignore them.

    Examples
    --------
    >>> g = nx.DiGraph(); g.add_node("t", procs=1, runtime=3600)
    >>> p = ProvisioningProblem(g, (Slot(0, 1, math.inf, divisible=True, extensible=True, resource="m"),), alpha=2.0)
    Traceback (most recent call last):
    ...
    gridmarket.errors.InvalidInput: provisioning: alpha must be in [0, 1], got 2.0
    """

    workflow: nx.DiGraph
    slots: tuple[Slot, ...]
    capacity: Mapping[Hashable, int] = field(default_factory=dict)
    release: int = 0
    network: Network | None = None
    alpha: float = 0.5
    population: int = 100
    generations: int = 10

    def __post_init__(self) -> None:
        validate_workflow(self.workflow)
        if not self.slots:
            raise InvalidInput("provisioning: the slot set is empty: there is nothing to provision")
        for i, s in enumerate(self.slots):
            if not isinstance(s, Slot):
                raise InvalidInput(f"provisioning: slots[{i}] is a {type(s).__name__}, not a gridmarket.pricing.Slot")
        if isinstance(self.alpha, bool) or not isinstance(self.alpha, (int, float)) or not 0 <= self.alpha <= 1:
            raise InvalidInput(f"provisioning: alpha must be in [0, 1], got {self.alpha!r}")
        if isinstance(self.release, bool) or not isinstance(self.release, int) or self.release < 0:
            raise InvalidInput(f"provisioning: release must be an int >= 0 seconds, got {self.release!r}")
        for name, value, low in (("population", self.population, 2), ("generations", self.generations, 0)):
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise InvalidInput(f"provisioning: {name} must be an int >= {low}, got {value!r}")

    @property
    def resources(self) -> list[Hashable]:
        """The resources of the slot set, in order of first appearance."""
        return list(dict.fromkeys(s.resource for s in self.slots))


@dataclass(frozen=True, slots=True)
class ProvisioningResult:
    """A provisioning method's answer: where each task runs and what was bought.

    Attributes
    ----------
    placements : dict
        Task -> :class:`~gridmarket.provisioning.schedule.Placement` for every task of the workflow
        (``resource`` None, ``start == end`` for a virtual, zero-runtime one).
    charges : dict
        What was bought -> its price, SU (e.g. ``"slot 3 (east)"`` for a slot bought by Table 1's
        rules, or a task for a reservation bought per task). Their sum is the allocation cost (eq. 4).
    front : ParetoSet or None
        The Pareto set the plan was chosen from, if the method searched one.
    n_evaluations : int
        Plans evaluated or quotes asked for (0: not counted).
    """

    placements: dict[Hashable, Placement]
    charges: dict[Hashable, float]
    front: ParetoSet | None = None
    n_evaluations: int = 0

    @property
    def allocation_cost(self) -> float:
        """Sum of the charges, SU (eq. 4)."""
        return math.fsum(self.charges.values())

    def finish(self, release: int = 0) -> int:
        """Last end of a task, seconds (``release`` if there is none)."""
        return max((p.end for p in self.placements.values()), default=release)


ProvisioningMethod = Callable[..., ProvisioningResult]


def _moga(problem: ProvisioningProblem, *, rng: np.random.Generator) -> ProvisioningResult:
    """MOGA over the slot set (ch. 4.5), the plan of α by eq. 15; Infeasible when no plan fits."""
    evaluator = PlanEvaluator(problem.workflow, problem.slots, network=problem.network, release=problem.release,
                              capacity=problem.capacity or None)
    result = moga(evaluator, population=problem.population, generations=problem.generations, rng=rng)
    if not len(result.front):
        full = evaluator.schedule([1] * evaluator.n_slots)
        raise Infeasible(full.reason or "no feasible plan found")
    schedule = evaluator.schedule_indices(result.front.select(problem.alpha).slots)
    charges: dict[Hashable, float] = {f"slot {i} ({problem.slots[i].resource})": schedule.slot_costs[i]
                                      for i in schedule.bought}
    return ProvisioningResult(schedule.placements, charges, result.front, result.n_evaluations)


def _greedy(problem: ProvisioningProblem, *, rng: np.random.Generator) -> ProvisioningResult:
    """Greedy HEFT on the slots' free capacity (Fig. 51): each task at the best-effort price ``n d`` SU."""
    plan = provision_greedy(problem.workflow, _free_capacity(problem), alpha=problem.alpha,
                            release=problem.release, network=problem.network)
    return ProvisioningResult(plan.placements, dict(plan.prices), None, plan.n_queries)


def _free_capacity(problem: ProvisioningProblem) -> list[FreeCapacityProvider]:
    """One form-19 quoting provider per resource, over the free capacity its slots describe."""
    by_site: dict[Hashable, list[FreeSlot]] = {}
    for s in problem.slots:
        # the edge slots reach the end of the plan: endless for a quoting provider
        duration = math.inf if s.extensible else s.duration
        by_site.setdefault(s.resource, []).append(FreeSlot(s.start, s.procs, duration, s.divisible, s.extensible))
    out = []
    for site, free in by_site.items():
        procs = problem.capacity.get(site, sum(f.procs for f in free if f.duration == math.inf))
        out.append(FreeCapacityProvider(site, procs, free, now=problem.release))
    return out


PROVISIONING_METHODS: Registry[ProvisioningMethod] = Registry(
    "provisioning method", FunctionContract(("problem",), keywords=("rng",)), {"moga": _moga, "greedy": _greedy})
"""Registered provisioning methods by name (the live table; :func:`register_provisioning` adds to it)."""


def register_provisioning(name: str, method: ProvisioningMethod | None = None):
    """Register ``method`` under ``name`` (also a decorator: ``@register_provisioning("exhaustive")``).

    Raises ``InvalidInput`` for a name taken already, a name with a colon (those are plug-in
    names) or a method that cannot be called as ``method(problem, rng=...)``.
    """
    return PROVISIONING_METHODS.register(name, method)


def resolve_provisioning(name: str) -> ProvisioningMethod:
    """The provisioning method called ``name``: a registered one, or a plug-in ``"package.module:function"``.

    >>> resolve_provisioning("greedy").__name__
    '_greedy'
    >>> resolve_provisioning("mgoa")
    Traceback (most recent call last):
    ...
    gridmarket.errors.InvalidInput: unknown provisioning method 'mgoa' (did you mean 'moga'?); known: greedy, moga, or a plug-in 'package.module:Name'
    """
    return PROVISIONING_METHODS.resolve(name)


def check_provisioning(result: object, problem: ProvisioningProblem, name: str) -> ProvisioningResult:
    """``result`` if it is a plan of ``problem`` the slots can hold; else ``InvalidInput`` naming method ``name``.

    Valid: a :class:`ProvisioningResult` placing every task once -- on a resource of the slot set
    that runs it, for exactly its runtime there, on its processors, not before the release nor
    before a parent's end plus the transfer of their data (virtual tasks: no resource, no
    duration) -- such that on every resource the tasks running at any instant hold no more
    processors than its slots have free then (an extensible slot's free capacity runs on past its
    end; Singh 2008, Table 1) nor than its machine (``capacity``); with finite charges >= 0 SU.

    Notes
    -----
    Whether each charge is the right price for what was bought is the method's business: slots
    may be bought whole or in part (Table 1) or as per-task reservations. O(T log T + S) for T
    tasks and S slots.

    Examples
    --------
    >>> g = nx.DiGraph(); g.add_node("t", procs=2, runtime=3600)
    >>> p = ProvisioningProblem(g, (Slot(0, 1, 7200, divisible=True, resource="m"),))
    >>> check_provisioning(ProvisioningResult({"t": Placement("t", "m", 0, 3600, 2)}, {}), p, "mine")
    Traceback (most recent call last):
    ...
    gridmarket.errors.InvalidInput: provisioning method 'mine': 2 processors of 'm' in use at 0, over the 1 its slots have free then
    """
    where = f"provisioning method {name!r}"
    if not isinstance(result, ProvisioningResult):
        raise InvalidInput(f"{where} returned {type(result).__name__}, not a ProvisioningResult")
    workflow, placements = problem.workflow, result.placements
    if not isinstance(placements, Mapping):
        raise InvalidInput(f"{where}: placements must map each task to a Placement")
    extra = [t for t in placements if t not in workflow]
    if extra:
        raise InvalidInput(f"{where} placed {extra[0]!r}, which is not a task of the workflow")
    resources = problem.resources
    for t in nx.topological_sort(workflow):
        p = placements.get(t)
        if not isinstance(p, Placement) or p.task != t:
            raise InvalidInput(f"{where} gave task {t!r} no placement" if p is None
                               else f"{where}: the placement of task {t!r} is not a Placement of it ({p!r})")
        _check_placement(where, problem, t, p, placements, resources)
    for resource in resources:
        _check_capacity(where, problem, resource, [p for p in placements.values() if p.resource == resource])
    for key, price in result.charges.items():
        if isinstance(price, bool) or not isinstance(price, (int, float)) or not 0 <= price < math.inf:
            raise InvalidInput(f"{where} charged {price!r} SU for {key!r}; a price is a finite number >= 0")
    return result


def _check_placement(where: str, problem: ProvisioningProblem, t: Hashable, p: Placement, placements: Mapping,
                     resources: list) -> None:
    """One task's placement on its own and against its parents' (already checked, topological order)."""
    workflow = problem.workflow
    runtimes = [runtime_on(workflow, t, r) for r in resources]
    if all(rt in (0, None) for rt in runtimes) and any(rt == 0 for rt in runtimes):  # virtual
        if p.resource is not None or p.end != p.start:
            raise InvalidInput(f"{where}: virtual task {t!r} (runtime 0) takes no resource and no time, "
                               f"got {p.resource!r} over [{p.start}, {p.end})")
    else:
        if p.resource not in resources:
            raise InvalidInput(f"{where} placed task {t!r} on {p.resource!r}, which has no slot")
        runtime = runtime_on(workflow, t, p.resource)
        if not runtime:
            raise InvalidInput(f"{where} placed task {t!r} on {p.resource!r}, where it cannot run")
        if p.end - p.start != runtime:
            raise InvalidInput(f"{where} gave task {t!r} [{p.start}, {p.end}) on {p.resource!r}; "
                               f"it runs {runtime} s there")
        if p.procs != workflow.nodes[t]["procs"]:
            raise InvalidInput(f"{where} gave task {t!r} {p.procs} processors; it needs {workflow.nodes[t]['procs']}")
    if p.start < problem.release:
        raise InvalidInput(f"{where} starts task {t!r} at {p.start}, before the release at {problem.release}")
    for parent in workflow.predecessors(t):
        q = placements[parent]
        ready = q.end
        if problem.network is not None and q.resource is not None and p.resource is not None:
            ready += problem.network.transfer(workflow.edges[parent, t].get("data_bytes", 0), q.resource, p.resource)
        if p.start < ready:
            raise InvalidInput(f"{where} starts task {t!r} at {p.start}, before its input from {parent!r} "
                               f"is there at {ready}")


def _check_capacity(where: str, problem: ProvisioningProblem, resource: Hashable, placed: list[Placement]) -> None:
    """The tasks on ``resource`` never hold more processors than its slots have free, nor than its machine."""
    machine = problem.capacity.get(resource)
    slots = [s for s in problem.slots if s.resource == resource]
    origin = min([s.start for s in slots] + [p.start for p in placed], default=0)
    free_times, frees = block_steps(((s.start, math.inf if s.extensible else s.end, s.procs) for s in slots),
                                    origin=origin)
    used_times, useds = block_steps(((p.start, p.end, p.procs) for p in placed), origin=origin)
    for t in sorted(set(free_times) | set(used_times)):
        free, used = frees[step_at(free_times, t)], useds[step_at(used_times, t)]
        if used > free:
            raise InvalidInput(f"{where}: {used} processors of {resource!r} in use at {t}, over the {free} its "
                               "slots have free then")
        if machine is not None and used > machine:
            raise InvalidInput(f"{where}: {used} processors of {resource!r} in use at {t}, over its machine's "
                               f"{machine}")
