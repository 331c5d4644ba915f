"""Pareto sets of resource plans, selection by trade-off factor, and the exact front by enumeration.

Singh 2008, ch. 4.3 (domination), 4.6 (eq. 15: the plan minimising
``α·AC_nr + (1 − α)·SC_nr``, costs min/max normalised over the Pareto set,
kept so that a new α needs no new search). The enumeration of every plan of a
small slot set is the oracle MOGA fronts are checked against, scored by the
2-D hypervolume. Times are seconds; costs are SU.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from gridmarket.errors import InvalidInput
from gridmarket.tradeoff import choose_by_tradeoff

__all__ = [
    "ParetoPlan",
    "ParetoSet",
    "dominates",
    "exact_front",
    "hypervolume",
    "nondominated",
]

INF = math.inf


def dominates(a: Sequence[float], b: Sequence[float]) -> bool:
    """True when ``a`` is no worse than ``b`` in every objective and better in one (ch. 4.3, minimisation).

    >>> dominates((1, 5), (2, 5)), dominates((1, 5), (1, 5)), dominates((1, 6), (2, 5))
    (True, False, False)
    """
    better = False
    for x, y in zip(a, b):
        if x > y:
            return False
        if x < y:
            better = True
    return better


def nondominated(points: Sequence[Sequence[float]]) -> list[int]:
    """Indices of the points no other point dominates; of equal points, the first.

    O(N log N) for two objectives: a sweep by the first objective.

    >>> nondominated([(3, 1), (1, 3), (2, 2), (2, 3), (1, 3)])
    [1, 2, 0]
    """
    for p in points:
        if len(p) != 2:
            raise InvalidInput(f"nondominated: two objectives expected, got {p!r}")
    order = sorted(range(len(points)), key=lambda i: (points[i][0], points[i][1], i))
    out, best = [], INF
    for i in order:
        if points[i][1] < best:
            out.append(i)
            best = points[i][1]
    return out


@dataclass(frozen=True, slots=True)
class ParetoPlan:
    """One plan of a Pareto set: the slots it takes and its two costs.

    Attributes
    ----------
    slots : tuple of int
        Indices, in the global slot set, of the slots the plan buys: those
        some task uses (a bit string that also selects unused slots is the
        same plan at the same costs).
    allocation_cost : float
        AC, SU (eq. 4).
    makespan : int or float
        SC as a makespan from the release time, seconds (eq. 5).
    """

    slots: tuple[int, ...]
    allocation_cost: float
    makespan: int | float

    @property
    def objectives(self) -> tuple[float, float]:
        """``(AC, SC)``."""
        return self.allocation_cost, self.makespan


@dataclass(frozen=True, slots=True)
class ParetoSet:
    """Non-dominated feasible plans, by increasing allocation cost (ch. 4.5-4.6).

    Kept whole so that :meth:`select` answers any trade-off factor without a
    new search (ch. 4.6).

    Examples
    --------
    >>> front = ParetoSet.of([ParetoPlan((0,), 4.0, 900), ParetoPlan((0, 1), 6.0, 500),
    ...                       ParetoPlan((1,), 7.0, 600)])
    >>> [p.slots for p in front.plans]
    [(0,), (0, 1)]
    >>> front.select(0.0).slots, front.select(1.0).slots
    ((0, 1), (0,))
    """

    plans: tuple[ParetoPlan, ...]

    @classmethod
    def of(cls, plans: Iterable[ParetoPlan]) -> ParetoSet:
        """The Pareto set of ``plans``: infeasible and dominated ones dropped, one plan per point."""
        plans = [p for p in plans if p.makespan < INF]
        keep = nondominated([p.objectives for p in plans])
        return cls(tuple(sorted((plans[i] for i in keep), key=lambda p: p.objectives)))

    def __len__(self) -> int:
        return len(self.plans)

    @property
    def points(self) -> list[tuple[float, float]]:
        """``(AC, SC)`` of every plan."""
        return [p.objectives for p in self.plans]

    def select(self, alpha: float) -> ParetoPlan:
        """The plan of trade-off factor ``alpha``: eq. 15 by :func:`gridmarket.tradeoff.choose_by_tradeoff`.

        Minimises ``α·AC_nr + (1 − α)·SC_nr`` over the set (ties: the lower makespan, then the lower
        cost, then the first).

        Raises
        ------
        InvalidInput
            ``alpha`` outside [0, 1].
        Infeasible
            The set is empty: no feasible plan was found.
        """
        return self.plans[choose_by_tradeoff([p.makespan for p in self.plans],
                                             [p.allocation_cost for p in self.plans], alpha,
                                             what="resource plan")]


def hypervolume(points: Iterable[Sequence[float]], reference: Sequence[float]) -> float:
    """Area dominated by ``points`` and bounded by ``reference`` (two objectives, minimised).

    Points not strictly better than the reference in both objectives add
    nothing. A sweep by the first objective, O(N log N).

    >>> hypervolume([(1, 3), (2, 2), (3, 1)], (4, 4))
    6.0
    """
    rx, ry = reference
    pts = sorted((x, y) for x, y in points if x < rx and y < ry)
    area, best_y = 0.0, ry
    for x, y in pts:
        if y < best_y:
            area += (rx - x) * (best_y - y)
            best_y = y
    return area


def exact_front(evaluator, *, max_slots: int = 20) -> ParetoSet:
    """The exact Pareto set by enumerating all ``2^n`` plans: the oracle for MOGA on tiny cases.

    Parameters
    ----------
    evaluator : PlanEvaluator
        Workflow and slot set.
    max_slots : int
        Refuse larger slot sets (2^20 plans already take minutes).

    Raises
    ------
    InvalidInput
        More than ``max_slots`` slots.
    """
    n = evaluator.n_slots
    if n > max_slots:
        raise InvalidInput(f"enumeration of {n} slots means 2^{n} plans; at most {max_slots} allowed")
    plans = []
    for code in range(1, 1 << n):
        bits = [(code >> i) & 1 for i in range(n)]
        ac, sc, _ = evaluator.evaluate(bits)
        if sc < INF:
            plans.append(ParetoPlan(tuple(i for i in range(n) if bits[i]), ac, sc))
    front = ParetoSet.of(plans)
    return ParetoSet(tuple(replace(p, slots=evaluator.schedule_indices(p.slots).bought) for p in front.plans))
