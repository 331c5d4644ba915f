"""Consumable-based task cost model and adapted Condor matchmaking (Ha, Turilli, Merzky & Jha, sec. III).

A *consumable* has a ``type`` and a ``form`` (attribute -> set of admissible
values). A *requirement* is an amount of a consumable, an *instruction* a set
of requirements, a *task* a sequence of instructions. A *capability* is the
rate at which a resource offers a consumable; a *resource* is a set of
capabilities. Eq. (1) aggregates a task's requirements per consumable; eq. (2)
prices a task on a resource as ``K = sum amt / rate``. Algorithms 1-3 decide
viability (SATISFY_REQ, SATISFY_TASK) and pick the resource of highest
affinity (RES_SELECT), e.g. the negative time to completion ``TTC = Tq + Tx``
(sec. IV-B). Rates are consumables per second, so K is in seconds.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from gridmarket.errors import InvalidInput

__all__ = [
    "Capability",
    "Consumable",
    "Requirement",
    "Resource",
    "Task",
    "aggregate",
    "res_select",
    "satisfy_req",
    "satisfy_task",
    "select_resources",
    "task_cost",
    "ttc_affinity",
    "viable_resources",
]


@dataclass(frozen=True)
class Consumable:
    """A unit of work: ``type`` and ``form`` (attribute -> admissible values).

    >>> Consumable("cycle", {"isa": {"x86"}}).form
    (('isa', frozenset({'x86'})),)
    """

    type: str
    form: tuple | Mapping = ()  # stored as sorted (attribute, frozenset) pairs

    def __post_init__(self) -> None:
        form = self.form.items() if isinstance(self.form, Mapping) else self.form
        pairs = tuple(sorted((str(attr), frozenset(cond)) for attr, cond in form))
        if len({attr for attr, _ in pairs}) != len(pairs):
            raise InvalidInput(f"consumable {self.type!r}: a form attribute appears twice")
        object.__setattr__(self, "form", pairs)

    def conditions(self) -> dict[str, frozenset]:
        return dict(self.form)


@dataclass(frozen=True)
class Requirement:
    """``(c, amt)``: a fixed amount > 0 of consumable ``c``."""

    consumable: Consumable
    amount: float

    def __post_init__(self) -> None:
        if not self.amount > 0:
            raise InvalidInput(f"requirement of {self.consumable.type!r}: amount must be > 0, got {self.amount!r}")


@dataclass(frozen=True)
class Capability:
    """``{c, rate}``: consumable ``c`` offered at ``rate`` > 0 per second."""

    consumable: Consumable
    rate: float

    def __post_init__(self) -> None:
        if not self.rate > 0:
            raise InvalidInput(f"capability of {self.consumable.type!r}: rate must be > 0, got {self.rate!r}")


@dataclass(frozen=True)
class Resource:
    """A resource: an id and its capabilities."""

    id: Hashable
    capabilities: Sequence[Capability]  # stored as a tuple

    def __post_init__(self) -> None:
        object.__setattr__(self, "capabilities", tuple(self.capabilities))


@dataclass(frozen=True)
class Task:
    """A task: an id and a sequence of instructions, each a tuple of requirements."""

    id: Hashable
    instructions: Sequence[Sequence[Requirement]] = field(default=())  # stored as tuples

    def __post_init__(self) -> None:
        object.__setattr__(self, "instructions", tuple(tuple(ins) for ins in self.instructions))

    @property
    def requirements(self) -> tuple[Requirement, ...]:
        """The aggregated requirements of eq. (1), one per distinct consumable."""
        return aggregate(self)


def aggregate(task: Task) -> tuple[Requirement, ...]:
    """Eq. (1), the aggregation procedure: ``amt_c = sum_i sum_j ins_i.req_j.amt [req_j.c = c]``.

    Consumables keep the order of their first appearance.

    >>> c = Consumable("cycle", {"isa": {"x86"}})
    >>> t = Task("t", [(Requirement(c, 5.0),), (Requirement(c, 7.0),)])
    >>> [r.amount for r in aggregate(t)]
    [12.0]
    """
    totals: dict[Consumable, float] = {}
    for instruction in task.instructions:
        for req in instruction:
            totals[req.consumable] = totals.get(req.consumable, 0.0) + req.amount
    return tuple(Requirement(c, amt) for c, amt in totals.items())


def satisfy_req(req: Requirement, cap: Capability) -> bool:
    """Algorithm 1: can ``cap``'s consumable satisfy ``req``?

    True iff the types agree and, for every form attribute of the requirement,
    the capability has the attribute and shares at least one admissible value.

    >>> x86 = Consumable("cycle", {"isa": {"x86"}})
    >>> arm = Consumable("cycle", {"isa": {"arm"}})
    >>> satisfy_req(Requirement(x86, 1.0), Capability(Consumable("cycle", {"isa": {"x86", "x86_64"}}), 2e9))
    True
    >>> satisfy_req(Requirement(x86, 1.0), Capability(arm, 2e9))
    False
    """
    if req.consumable.type != cap.consumable.type:
        return False
    offered = cap.consumable.conditions()
    for attr, cond in req.consumable.form:
        if attr not in offered:
            return False
        if not offered[attr] & cond:
            return False
    return True


def satisfy_task(resource: Resource, task: Task) -> bool:
    """Algorithm 2: does every (aggregated) requirement of ``task`` meet a capability of ``resource``?"""
    return all(any(satisfy_req(req, cap) for cap in resource.capabilities) for req in task.requirements)


def task_cost(task: Task, resource: Resource) -> float:
    """Eq. (2): ``K = sum_i amt_i / rate_i`` over the task's aggregated requirements.

    Each requirement is consumed at the rate of a capability that satisfies it
    (Algorithm 1); where several do, the fastest is used (the paper assumes one
    capability per consumable, under which this is eq. (2) exactly).

    Raises
    ------
    InvalidInput
        The resource cannot run the task (no capability satisfies a requirement).

    Examples
    --------
    >>> cyc = Consumable("cycle", {"isa": {"x86"}})
    >>> t = Task("md", [(Requirement(cyc, 4.6e12),)])
    >>> r = Resource("SuperMIC", [Capability(cyc, 2.8e9)])
    >>> round(task_cost(t, r))
    1643
    """
    total = 0.0
    for req in task.requirements:
        rates = [cap.rate for cap in resource.capabilities if satisfy_req(req, cap)]
        if not rates:
            raise InvalidInput(
                f"resource {resource.id!r} has no capability for {req.consumable.type!r} "
                f"{dict(req.consumable.form)} required by task {task.id!r}"
            )
        total += req.amount / max(rates)
    return total


def viable_resources(task: Task, resources: Iterable[Resource]) -> list[Hashable]:
    """The viable resource set of ``task``: ids of resources where `satisfy_task` holds, in input order."""
    return [r.id for r in resources if satisfy_task(r, task)]


def res_select(vrs_id: Sequence[Hashable], tis: Sequence, affinity: Callable[[Any], float]) -> Hashable | None:
    """Algorithm 3: the resource whose input tuple has the highest affinity (first wins ties).

    >>> res_select(["a", "b", "c"], [3, 7, 7], lambda x: x)
    'b'
    >>> res_select([], [], lambda x: x) is None
    True
    """
    if len(vrs_id) != len(tis):
        raise InvalidInput(f"{len(vrs_id)} resource ids for {len(tis)} input tuples")
    best_res, best_val = None, float("-inf")
    for res_id, item in zip(vrs_id, tis):
        value = affinity(item)
        if best_val < value:
            best_val, best_res = value, res_id
    return best_res


def ttc_affinity(queue_wait: Mapping[Any, float]) -> Callable[[tuple], float]:
    """Affinity ``-(Tq + Tx)`` of an input tuple ``(resource, task)``: shortest time to completion wins.

    ``Tq`` is the expected queue wait (s) of the resource; ``Tx`` is eq. (2).
    """

    def affinity(item: tuple) -> float:
        resource, task = item
        return -(float(queue_wait.get(resource.id, 0.0)) + task_cost(task, resource))

    return affinity


def select_resources(
    tasks: Iterable[Task],
    resources: Sequence[Resource],
    affinity: Callable[[tuple], float],
) -> tuple[dict[Hashable, Hashable], dict[Hashable, str]]:
    """Matchmaking of a workload: for each task its viable set, then RES_SELECT on ``(resource, task)``.

    Returns
    -------
    (selection, unmatched)
        Resource id by task id; and a reason by task id for tasks with an empty viable set.

    Examples
    --------
    >>> cyc = Consumable("cycle", {"isa": {"x86"}})
    >>> gpu = Consumable("gpu_op")
    >>> fast, slow = Resource("fast", [Capability(cyc, 3e9)]), Resource("slow", [Capability(cyc, 2e9)])
    >>> tasks = [Task(1, [(Requirement(cyc, 6e9),)]), Task(2, [(Requirement(gpu, 1.0),)])]
    >>> select_resources(tasks, [slow, fast], ttc_affinity({"fast": 5.0, "slow": 0.0}))
    ({1: 'slow'}, {2: 'no viable resource'})
    """
    by_id = {r.id: r for r in resources}
    selection: dict[Hashable, Hashable] = {}
    unmatched: dict[Hashable, str] = {}
    for task in tasks:
        vrs = viable_resources(task, resources)
        if not vrs:
            unmatched[task.id] = "no viable resource"
            continue
        selection[task.id] = res_select(vrs, [(by_id[r], task) for r in vrs], affinity)
    return selection, unmatched
