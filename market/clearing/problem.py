"""The clearing problem of one metascheduling cycle, and its result.

Murali & Vadhiyar, sec. 3.3.1: pending jobs, grid systems, a cost per
compatible (job, system) pair and a capacity ``MaxQ`` per system (the most
jobs it may receive in one cycle). Costs are unit-less numbers (eq. 6 gives
0..100); NaN marks an incompatible pair.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from gridmarket.errors import InvalidInput

__all__ = [
    "COST_SCALE",
    "NO_COMPATIBLE_SYSTEM",
    "OVER_CAPACITY",
    "ClearingProblem",
    "ClearingResult",
    "integer_costs",
]

COST_SCALE = 100
"""Costs are multiplied by this and rounded to integers before a min-cost-flow solve (sec. 3.3.1)."""

NO_COMPATIBLE_SYSTEM = "no compatible system"
OVER_CAPACITY = "every compatible system is at capacity (MaxQ) this cycle"


@dataclass(frozen=True, eq=False)
class ClearingProblem:
    """Jobs x systems costs with per-system capacities.

    Parameters
    ----------
    jobs : sequence of hashable
        Job ids, unique.
    systems : sequence of hashable
        System ids, unique.
    cost : array_like, shape (n_jobs, n_systems)
        Cost of placing each job on each system, finite and >= 0; NaN (or
        None) where the system cannot run the job.
    capacity : sequence of int or None
        Jobs each system may receive this cycle (``MaxQ``); None = unbounded.
    reasons : mapping, optional
        Why a job has no compatible system, by job id (reported for such jobs
        instead of the generic reason).

    Examples
    --------
    >>> p = ClearingProblem(["j1", "j2"], ["A", "B"], [[1.0, None], [2.0, 3.0]], [1, None])
    >>> p.compatible.tolist()
    [[True, False], [True, True]]
    """

    jobs: Sequence  # stored as a tuple
    systems: Sequence  # stored as a tuple
    cost: np.ndarray
    capacity: Sequence  # stored as a tuple
    reasons: Mapping = field(default_factory=dict)

    def __post_init__(self) -> None:
        jobs, systems = tuple(self.jobs), tuple(self.systems)
        for kind, ids in (("job", jobs), ("system", systems)):
            if len(set(ids)) != len(ids):
                dup = next(x for x in ids if ids.count(x) > 1)
                raise InvalidInput(f"{kind} {dup!r} appears twice")
        raw = np.array(self.cost, dtype=object) if not isinstance(self.cost, np.ndarray) else self.cost
        if raw.dtype == object:
            raw = np.where(raw == None, np.nan, raw)  # noqa: E711 - elementwise None test
        try:
            cost = np.array(raw, dtype=float).reshape(len(jobs), len(systems))
        except (TypeError, ValueError) as err:
            raise InvalidInput(
                f"cost must be {len(jobs)} x {len(systems)} numbers or nulls: {err}"
            ) from None
        if np.isinf(cost).any():
            j, s = np.argwhere(np.isinf(cost))[0]
            raise InvalidInput(f"cost of job {jobs[j]!r} on system {systems[s]!r} is infinite; use NaN/null for incompatible")
        if (cost < 0).any():
            j, s = np.argwhere(cost < 0)[0]
            raise InvalidInput(f"cost of job {jobs[j]!r} on system {systems[s]!r} is negative ({cost[j, s]})")
        capacity = tuple(self.capacity)
        if len(capacity) != len(systems):
            raise InvalidInput(f"{len(capacity)} capacities for {len(systems)} systems")
        for system, cap in zip(systems, capacity):
            if cap is not None and (not isinstance(cap, (int, np.integer)) or isinstance(cap, bool) or cap < 0):
                raise InvalidInput(f"capacity of system {system!r} must be an int >= 0 or None, got {cap!r}")
        cost.flags.writeable = False
        object.__setattr__(self, "jobs", jobs)
        object.__setattr__(self, "systems", systems)
        object.__setattr__(self, "cost", cost)
        object.__setattr__(self, "capacity", tuple(None if c is None else int(c) for c in capacity))
        object.__setattr__(self, "reasons", dict(self.reasons))

    @classmethod
    def from_mapping(
        cls,
        jobs: Sequence[Hashable],
        systems: Sequence[Hashable],
        cost: Sequence[Sequence[float | None]],
        capacity: Mapping[Hashable, int | None] | int | None = None,
    ) -> ClearingProblem:
        """Build from the CLI's JSON shape: ``capacity`` by system name (missing = unbounded) or one MaxQ for all."""
        if isinstance(capacity, Mapping):
            unknown = [s for s in capacity if s not in set(systems)]
            if unknown:
                raise InvalidInput(f"capacity names unknown system(s) {unknown}; systems are {list(systems)}")
            caps = [capacity.get(s) for s in systems]
        else:
            caps = [capacity] * len(systems)
        if len(cost) != len(jobs):
            raise InvalidInput(f"cost has {len(cost)} rows for {len(jobs)} jobs")
        for job, row in zip(jobs, cost):
            if len(row) != len(systems):
                raise InvalidInput(f"cost row of job {job!r} has {len(row)} entries for {len(systems)} systems")
        return cls(tuple(jobs), tuple(systems), np.array(cost, dtype=object), tuple(caps))

    @property
    def compatible(self) -> np.ndarray:
        """Boolean (n_jobs, n_systems): True where the job can run on the system."""
        return ~np.isnan(self.cost)

    def capacity_bounded(self) -> np.ndarray:
        """Capacities with None replaced by the number of jobs (an unbounded sink arc)."""
        n = len(self.jobs)
        return np.array([n if c is None else min(c, n) for c in self.capacity], dtype=np.int64)

    def no_system_reason(self, i: int) -> str:
        return self.reasons.get(self.jobs[i], NO_COMPATIBLE_SYSTEM)


@dataclass(frozen=True)
class ClearingResult:
    """Outcome of one clearing.

    Attributes
    ----------
    assignment : dict
        System id by job id, for the jobs placed this cycle.
    total_cost : float
        Sum of the (unscaled) costs of the chosen pairs.
    unassigned : dict
        Reason by job id, for every job not placed. No job is dropped silently.
    method : str
        ``mcmf/ortools``, ``mcmf/networkx``, ``stable/jobs`` or ``stable/systems``.
    """

    assignment: dict
    total_cost: float
    unassigned: dict
    method: str

    def to_json(self) -> dict:
        """The CLI's output shape: ``{"assignment", "total_cost", "unassigned"}``."""
        return {
            "assignment": {str(j): s for j, s in self.assignment.items()},
            "total_cost": self.total_cost,
            "unassigned": [{"job": j, "reason": r} for j, r in self.unassigned.items()],
        }


def integer_costs(cost: np.ndarray, scale: int = COST_SCALE) -> np.ndarray:
    """``rint(cost * scale)`` as int64, incompatible (NaN) entries set to -1.

    >>> integer_costs(np.array([[0.004, 12.345], [np.nan, 1.0]])).tolist()
    [[0, 1234], [-1, 100]]
    """
    scaled = np.rint(np.nan_to_num(cost, nan=-1.0 / scale) * scale)
    if scaled.size and np.abs(scaled).max() >= 2**53:
        raise InvalidInput(f"costs up to {np.nanmax(cost)} overflow integer arcs at scale {scale}")
    return scaled.astype(np.int64)


def build_result(problem: ClearingProblem, pairs: list[tuple[int, int]], method: str) -> ClearingResult:
    """Assignment, unscaled total cost and the reason of every unassigned job."""
    assignment = {problem.jobs[i]: problem.systems[k] for i, k in pairs}
    total = float(sum(problem.cost[i, k] for i, k in pairs))
    placed = {i for i, _ in pairs}
    has_system = problem.compatible.any(axis=1)
    unassigned = {
        problem.jobs[i]: (OVER_CAPACITY if has_system[i] else problem.no_system_reason(i))
        for i in range(len(problem.jobs))
        if i not in placed
    }
    return ClearingResult(assignment, total, unassigned, method)
