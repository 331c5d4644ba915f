"""Scheduling cost and allocation cost of a resource plan over advertised slots.

Singh 2008, ch. 4.2 (eqs. 4-6) and 4.5 ("Fitness Evaluation"): the tasks of a
workflow are taken in non-increasing HEFT upward rank (eq. 7); the slots of the
plan are put in one bin per resource; each task goes at its earliest feasible
start in each bin -- on one slot or a vertical stack of slots (Fig. 2), no
earlier than its parents' finish plus the data transfer to that resource --
and is placed in the bin where it finishes first; the slots it used are
replaced by their left-overs (Fig. 3). The scheduling cost SC is the finish of
the exit task (eq. 5), reported as the makespan from the release time; the
allocation cost AC (eq. 4) charges every touched indivisible slot whole and
only the used part of divisible slots (Table 1). A plan on which some task
cannot be placed is infeasible and its scheduling cost is infinite.

Times are integer seconds from simulation start; costs are SU
(processor-hours).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field

import networkx as nx

from gridmarket.errors import InvalidInput
from gridmarket.kernel import compiled_module
from gridmarket.pricing.slot import SECONDS_PER_HOUR, Slot
from gridmarket.scheduling.profile import add_free, rises, window_min
from gridmarket.workflows.dag import Network, runtime_on, validate_workflow
from gridmarket.workflows.rank import rank_order, upward_rank

__all__ = ["Placement", "PlanEvaluator", "PlanSchedule"]

INF = math.inf


@dataclass(frozen=True, slots=True)
class Placement:
    """Where and when one task runs in a plan.

    Attributes
    ----------
    task : hashable
        The task.
    resource : hashable or None
        Its resource; ``None`` for a virtual (zero-runtime) task.
    start, end : int
        Seconds.
    procs : int
        Processors it holds over ``[start, end)``.
    slots : tuple of (int, int)
        ``(slot index, processors taken from it)``; the indices refer to the
        evaluator's global slot set.
    """

    task: Hashable
    resource: Hashable | None
    start: int
    end: int
    procs: int
    slots: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True)
class PlanSchedule:
    """The schedule of a workflow on a resource plan and its two costs (eqs. 4-5).

    Attributes
    ----------
    plan : tuple of int
        Indices of the slots in the plan (the 1 bits).
    placements : dict
        Task -> :class:`Placement`, in scheduling (rank) order; partial when infeasible.
    makespan : int or float
        Finish of the exit task minus the release time, seconds; ``inf`` when
        the plan is infeasible (the scheduling cost SC).
    allocation_cost : float
        SU paid for the slots touched (AC).
    bought : tuple of int
        Indices of the slots that carry at least one task: what is bought.
    reason : str or None
        Why the plan is infeasible, ``None`` when it is feasible.
    """

    plan: tuple[int, ...]
    placements: dict[Hashable, Placement]
    makespan: int | float
    allocation_cost: float
    bought: tuple[int, ...]
    reason: str | None = None
    release: int = 0
    slot_costs: dict[int, float] = field(default_factory=dict)

    @property
    def feasible(self) -> bool:
        """True when every task is placed."""
        return self.reason is None

    @property
    def finish(self) -> int | float:
        """Absolute finish time of the exit task (seconds; SC of eq. 5)."""
        return self.release + self.makespan


# ----------------------------------------------------------------------------- slot capacity
def reference_take(times: list[int], free: list[int], a: int, b: int, q: int) -> None:
    """Remove ``q`` processors over ``[a, b)`` from a slot's step function (in place; ``a >= times[0]``).

    The availability profile's update (:func:`gridmarket.scheduling.profile.add_free`).
    """
    add_free(times, free, a, b, -q)


# ----------------------------------------------------------------------------- evaluator
class PlanEvaluator:
    """Schedules a workflow on any plan drawn from a global slot set (ch. 4.5).

    Compile once per (workflow, slots), then evaluate many plans: the MOGA
    hot path.

    Parameters
    ----------
    workflow : networkx.DiGraph
        A workflow (:mod:`gridmarket.workflows.dag`); runtimes per resource are
        looked up by the slots' ``resource``.
    slots : sequence of Slot
        The global slot set Â (eq. 3); a plan is a subset, given as a 0/1
        sequence over it (the MOGA encoding) or as indices.
    network : Network, optional
        Transfer times between resources; none: transfers are free.
    release : int
        Earliest start of any task (the submission time), seconds.
    order : sequence, optional
        Scheduling order; by default non-increasing upward rank over the
        slots' resources (eq. 7).
    capacity : mapping of resource to int, optional
        Processors of each resource's machine, to reject tasks no machine can
        hold. Without it, a task needing more processors than all of a
        resource's slots together is rejected.

    Raises
    ------
    InvalidInput
        Malformed workflow, empty slot set, a slot that is not a slot, a task
        that no resource can run or that needs more processors than any
        resource has, an order that is not a topological order of all tasks.

    Notes
    -----
    *Earliest start in a bin* (Fig. 2, with the task's earliest feasible
    start as the only change, ch. 4.5). Each slot of the bin keeps its free
    processors as a step function. Cut into layered rectangles (as
    :mod:`gridmarket.scheduling.slots` cuts a machine), the rectangles of one slot
    that cover a window hold exactly the processors that slot has free
    throughout the window; so a window is feasible on one slot or a vertical
    stack when those minima, summed over the bin's slots, reach the task's
    processors. Only the ready time and the instants where some slot's free
    capacity rises can be earliest starts; they are tried in increasing
    order. O(C x W) for C candidates tried and W steps the windows span.

    *Which slots of a stack are used.* Any covering slots will do for the
    start time; the cheapest are taken: first slots already bought whole
    (indivisible, already touched), then divisible slots (cheapest unit cost
    first), then untouched indivisible slots (cheapest first), the ones
    ending first within a class; if that buys a new indivisible slot, the
    choice is made again with that slot counted as bought, since its spare
    processors then cost nothing.

    *Bin choice.* The thesis places the task in the bin with the earliest
    start; HEFT, which it follows, uses the earliest finish. They agree when
    a task's runtime is the same everywhere (every experiment of the thesis);
    here the earliest finish is used, then the earliest start, then the order
    of first appearance of the resource in the slot set.

    *Left-overs* (Fig. 3). The processors a task takes are removed from each
    used slot's free step function: what is left is the slot's left-over
    capacity, with no seam to hide any of it. An extensible slot's free
    capacity runs on past its end (Table 1).

    *Costs* (eq. 4, Table 1, and ch. 4.5 "the allocation cost is derived by
    considering the difference between the initial and final set of
    slots"): a slot no task used costs nothing, even if it is in the plan;
    an indivisible slot used at all costs ``n d c + f``, with ``d`` stretched
    to the last use for an extensible one; a divisible slot costs ``c`` times
    the processor-hours its tasks use, plus ``f`` for each task placed on it
    (each is one sub-slot of Table 1).

    *Virtual tasks* (runtime 0: an added entry/exit) take no processors and
    no slot; transfers to and from them are free.

    Examples
    --------
    A chain a -> b on one resource with one indivisible 2-processor slot over
    [0, 1 h) and one divisible extensible slot of 4 processors from 1 h:

    >>> h = 3600
    >>> g = nx.DiGraph([("a", "b")])
    >>> g.add_node("a", procs=2, runtime=h // 2)
    >>> g.add_node("b", procs=4, runtime=h)
    >>> from gridmarket.pricing import Slot
    >>> slots = [Slot(0, 2, h, resource="m"),
    ...          Slot(h, 4, math.inf, divisible=True, extensible=True, resource="m")]
    >>> ev = PlanEvaluator(g, slots)
    >>> s = ev.schedule([1, 1])
    >>> [(p.task, p.start, p.end, p.slots) for p in s.placements.values()]
    [('a', 0, 1800, ((0, 2),)), ('b', 3600, 7200, ((1, 4),))]
    >>> s.makespan, s.allocation_cost      # a buys the whole slot 0 (2 SU), b uses 4 SU
    (7200, 6.0)
    >>> ev.evaluate([0, 1])                # a waits for slot 1: later, cheaper
    (5.0, 9000, 0)
    >>> ev.evaluate([1, 0])                # b fits nowhere: infeasible
    (2.0, inf, 1)
    """

    def __init__(
        self,
        workflow: nx.DiGraph,
        slots: Sequence[Slot],
        *,
        network: Network | None = None,
        release: int = 0,
        order: Sequence[Hashable] | None = None,
        capacity: Mapping[Hashable, int] | None = None,
    ) -> None:
        validate_workflow(workflow)
        slots = list(slots)
        if not slots:
            raise InvalidInput("the slot set is empty: there is nothing to provision")
        for i, s in enumerate(slots):
            if not isinstance(s, Slot):
                raise InvalidInput(f"slots[{i}] is a {type(s).__name__}, not a gridmarket.pricing.Slot")
            if s.resource is None:
                raise InvalidInput(f"slots[{i}] (at {s.start}) names no resource: the global slot set of eq. 3 "
                                   f"needs each slot's provider (gridmarket.provisioning.advertise names them)")
        if not isinstance(release, int) or isinstance(release, bool) or release < 0:
            raise InvalidInput(f"release must be an int >= 0 seconds, got {release!r}")
        self.workflow = workflow
        self.slots = slots
        self.network = network
        self.release = release
        self.resources: list[Hashable] = list(dict.fromkeys(s.resource for s in slots))
        res_index = {r: i for i, r in enumerate(self.resources)}
        self.slot_resource = [res_index[s.resource] for s in slots]
        n_res = len(self.resources)

        if order is None:
            order = rank_order(workflow, upward_rank(workflow, resources=self.resources, network=network))
        else:
            order = list(order)
            if sorted(map(repr, order)) != sorted(map(repr, workflow.nodes)) or len(order) != len(workflow):
                raise InvalidInput("order must list every task of the workflow once")
            pos = {t: i for i, t in enumerate(order)}
            for u, v in workflow.edges:
                if pos[u] > pos[v]:
                    raise InvalidInput(f"order puts task {v!r} before its parent {u!r}")
        self.order = list(order)
        pos = {t: i for i, t in enumerate(self.order)}

        # the most processors a task could ever get on each resource
        if capacity is not None:
            room = [capacity.get(r, 0) for r in self.resources]
        else:
            room = [0] * n_res
            for s, r in zip(slots, self.slot_resource):
                room[r] += s.procs
        self._procs: list[int] = []
        self._runtime: list[list[int | None] | None] = []  # None: virtual task
        self._parents: list[list[tuple[int, list[list[int]] | None]]] = []
        for t in self.order:
            attrs = workflow.nodes[t]
            runtimes = [runtime_on(workflow, t, r) for r in self.resources]
            if all(rt == 0 for rt in runtimes if rt is not None) and any(rt == 0 for rt in runtimes):
                self._runtime.append(None)
                self._procs.append(0)
            else:
                procs = attrs["procs"]
                usable = [rt if (rt is not None and rt > 0 and procs <= room[r]) else None
                          for r, rt in enumerate(runtimes)]
                if all(u is None for u in usable):
                    if all(rt is None for rt in runtimes):
                        raise InvalidInput(f"task {t!r} cannot run on any resource of the slot set {self.resources}")
                    most = max(room)
                    raise InvalidInput(
                        f"task {t!r} needs {procs} processors; the largest resource offers {most}"
                    )
                self._runtime.append(usable)
                self._procs.append(procs)
            parents = []
            for p in workflow.predecessors(t):
                data = workflow.edges[p, t].get("data_bytes", 0)
                table = None
                if network is not None and data and n_res > 1:
                    table = [[network.transfer(data, a, b) for b in self.resources] for a in self.resources]
                parents.append((pos[p], table))
            self._parents.append(parents)
        self.n_slots = len(slots)
        self._divisible = [bool(s.divisible) for s in slots]
        self._unit_cost = [s.unit_cost for s in slots]
        # eq. 1 in processor-seconds, the form _allocation_cost sums, to rank untouched indivisible slots
        self._total_cost = [s.total_cost if s.duration == INF else
                            s.procs * s.duration * s.unit_cost / SECONDS_PER_HOUR + s.fixed_cost for s in slots]

    # ------------------------------------------------------------------ public
    def evaluate(self, plan: Sequence[int]) -> tuple[float, float, int]:
        """``(allocation cost SU, makespan s, tasks left unplaced)`` of ``plan``.

        ``plan`` is a 0/1 sequence over the slot set (the MOGA encoding). The
        makespan is ``inf`` and the count positive when the plan is infeasible.
        """
        return self._run(self._chosen(plan), record=False)

    def schedule(self, plan: Sequence[int]) -> PlanSchedule:
        """The full schedule of the workflow on ``plan`` (0/1 sequence over the slot set)."""
        return self._run(self._chosen(plan), record=True)

    def schedule_indices(self, indices: Sequence[int]) -> PlanSchedule:
        """The schedule on the plan made of the slots at ``indices``."""
        bits = [0] * self.n_slots
        for i in indices:
            if not 0 <= i < self.n_slots:
                raise InvalidInput(f"slot index {i} is outside the slot set of {self.n_slots}")
            bits[i] = 1
        return self.schedule(bits)

    # ------------------------------------------------------------------ engine
    def _chosen(self, plan: Sequence[int]) -> list[int]:
        if len(plan) != self.n_slots:
            raise InvalidInput(f"a plan has one bit per slot: {self.n_slots} expected, got {len(plan)}")
        return [i for i, bit in enumerate(plan) if bit]

    def _run(self, chosen: list[int], record: bool):
        slots, slot_resource, release = self.slots, self.slot_resource, self.release
        n_res = len(self.resources)
        # per slot: its free processors as a step function; per bin (resource): its slots
        s_times: dict[int, list[int]] = {}
        s_free: dict[int, list[int]] = {}
        bins: list[list[tuple]] = [[] for _ in range(n_res)]  # (slot, times, free, end)
        for k in chosen:
            s = slots[k]
            end = INF if s.extensible else s.start + s.duration
            s_times[k], s_free[k] = [s.start], [s.procs]
            bins[slot_resource[k]].append((k, s_times[k], s_free[k], end))
        used_area: dict[int, int] = {}  # processor-seconds per touched slot
        bought: set[int] = set()  # indivisible slots touched: their spare processors cost nothing more
        divisible = self._divisible
        used_end: dict[int, int] = {}
        n_subslots: dict[int, int] = {}

        n = len(self.order)
        finish = [0] * n
        where: list[int | None] = [None] * n
        placements: dict[Hashable, Placement] = {}
        reason = None
        placed = 0
        procs_of, runtime_of, parents_of = self._procs, self._runtime, self._parents
        for i in range(n):
            runtimes = runtime_of[i]
            parents = parents_of[i]
            if runtimes is None:  # virtual task
                t = release
                for p, _ in parents:
                    if finish[p] > t:
                        t = finish[p]
                finish[i] = t
                if record:
                    task = self.order[i]
                    placements[task] = Placement(task, None, t, t, 0)
                placed += 1
                continue
            need = procs_of[i]
            best = None
            for r in range(n_res):
                d = runtimes[r]
                if d is None or not bins[r]:
                    continue
                ready = release
                for p, table in parents:
                    f = finish[p]
                    on = where[p]
                    if table is not None and on is not None:
                        f += table[on][r]
                    if f > ready:
                        ready = f
                fit = _fit(bins[r], ready, d, need)
                if fit is None:
                    continue
                start = fit[0]
                key = (start + d, start, r)
                if best is None or key < best[0]:
                    best = (key, fit[1], d)
            if best is None:
                reason = f"task {self.order[i]!r} ({need} processors) fits in no slot of the plan"
                break
            (end, start, r), stack, d = best
            members = _pick(stack, need, bought, divisible, self._unit_cost, self._total_cost)
            for k, q in members:
                if not divisible[k]:
                    bought.add(k)
                _take(s_times[k], s_free[k], start, end, q)
                used_area[k] = used_area.get(k, 0) + q * d
                if end > used_end.get(k, 0):
                    used_end[k] = end
                n_subslots[k] = n_subslots.get(k, 0) + 1
            finish[i] = end
            where[i] = r
            placed += 1
            if record:
                task = self.order[i]
                placements[task] = Placement(task, self.resources[r], start, end, need, tuple(members))

        ac, costs = self._allocation_cost(used_area, used_end, n_subslots)
        if reason is None:
            last = max(finish) if n else release
            makespan: int | float = last - release
        else:
            makespan = INF
        if not record:
            return ac, makespan, n - placed
        return PlanSchedule(
            plan=tuple(chosen),
            placements=placements,
            makespan=makespan,
            allocation_cost=ac,
            bought=tuple(sorted(used_area)),
            reason=reason,
            release=release,
            slot_costs=costs,
        )

    def _allocation_cost(self, used_area: dict[int, int], used_end: dict[int, int],
                         n_subslots: dict[int, int]) -> tuple[float, dict[int, float]]:
        """Eq. 4 over the touched slots, Table 1 per slot type: the plan's cost (SU) and each slot's.

        ``used_area``: processor-seconds used per touched slot; ``used_end``: when its last use ends (s);
        ``n_subslots``: how many sub-slots were cut from it. Paid processor-seconds are summed as ints per
        unit cost and divided once, so equal plans cost exactly the same whatever the order their slots
        were met in.
        """
        slots = self.slots
        costs: dict[int, float] = {}
        area_by_rate: dict[float, int | float] = {}
        area: int | float
        fixed: list[float] = []
        for k in sorted(used_area):
            s = slots[k]
            if s.divisible:
                # one sub-slot per task (Table 1 rows 3-4: n_k d_k c + f each), summed
                area = used_area[k]
                fee = s.fixed_cost * n_subslots[k]
            else:
                # an indivisible slot is bought whole (Table 1 rows 1-2), an extensible one to its last use:
                # the allocation the one rule (Slot.subslot) allows, whatever part the tasks use
                d_k = max(s.duration, used_end[k] - s.start) if s.extensible else s.duration
                whole = s.subslot(s.start, s.procs, d_k)
                area, fee = whole.procs * whole.duration, whole.fixed_cost
            area_by_rate[s.unit_cost] = area_by_rate.get(s.unit_cost, 0) + area
            fixed.append(fee)
            costs[k] = area * s.unit_cost / SECONDS_PER_HOUR + fee
        ac = math.fsum(c * a / SECONDS_PER_HOUR for c, a in sorted(area_by_rate.items())) + math.fsum(fixed)
        return ac, costs

def reference_pick(stack: list[tuple], need: int, bought: set[int], divisible: list[bool],
                   unit_cost: list[float], total_cost: list[float]) -> list[tuple[int, int]]:
    """Processors per slot from the covering slots ``stack``: the cheapest first (``bought`` unchanged).

    ``stack`` holds ``(slot, processors free over the window, end)``. Greedy
    by class: indivisible slots already bought, then divisible slots by unit
    cost, then new indivisible slots by total cost; within a class the ones
    ending first, then by slot index. When that buys a new indivisible slot,
    its spare processors are free from then on, so the choice is made again
    counting it as bought.
    """
    while True:
        ranked = []
        for k, low, end in stack:
            if k in bought:
                ranked.append((0, 0.0, end, k, low))
            elif divisible[k]:
                ranked.append((1, unit_cost[k], end, k, low))
            else:
                ranked.append((2, total_cost[k], end, k, low))
        ranked.sort()
        members = []
        left = need
        for _, _, _, k, low in ranked:
            q = min(left, low)
            members.append((k, q))
            left -= q
            if left == 0:
                break
        new = {k for k, _ in members if k not in bought and not divisible[k]}
        if not new:
            return members
        bought = bought | new


def reference_fit(bin_slots: list[tuple], ready: int, d: int, need: int):
    """Earliest start ``>= ready`` of ``need`` x ``d`` on one slot or a vertical stack (Fig. 2).

    ``bin_slots`` holds ``(slot, times, free, end)``: each slot's free
    processors as a step function from its start, up to ``end`` (``inf`` when
    extensible). A slot contributes to a window the processors it has free
    throughout it -- exactly the layered rectangles of the slot that cover
    the window -- and the window is feasible when the contributions reach
    ``need``. Only ``ready`` and instants where some slot's free capacity
    rises can be earliest starts, so those are tried in order. Returns
    ``(start, [(slot, processors free over the window), ...])`` or ``None``.
    """
    usable = []
    for entry in bin_slots:
        first, end = entry[1][0], entry[3]
        if end - (first if first > ready else ready) >= d:  # long enough from the ready time on
            usable.append(entry)
    if not usable:
        return None
    stack = reference_cover(usable, ready, d, need)
    if stack is not None:
        return ready, stack
    cands: set[int] = set()
    for _, times, free, end in usable:
        cands.update(rises(times, free, ready, end - d))
    for t in sorted(cands):
        stack = reference_cover(usable, t, d, need)
        if stack is not None:
            return t, stack
    return None


def reference_cover(bin_slots: list[tuple], t: int, d: int, need: int) -> list[tuple] | None:
    """The slots with processors free throughout ``[t, t + d)`` if they hold ``need``, else ``None``."""
    wend = t + d
    total = 0
    stack = []
    for k, times, free, end in bin_slots:
        if times[0] > t or wend > end:
            continue
        low = window_min(times, free, t, wend)
        if low:
            stack.append((k, low, end))
            total += low
    return stack if total >= need else None


_compiled = compiled_module("gridmarket.provisioning._cplan")

# The evaluator's slot-capacity loops: the Cython twins in ``_cplan.pyx`` (same results; tested against
# these references) unless ``GRIDMARKET_KERNEL=reference`` or they were not built.
_fit = reference_fit if _compiled is None else _compiled.fit
_take = reference_take if _compiled is None else _compiled.take
_pick = reference_pick if _compiled is None else _compiled.pick
