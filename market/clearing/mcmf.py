"""Metascheduling by minimum-cost maximum flow (Murali & Vadhiyar, sec. 3.3, eqs. 1-6, Fig. 1).

The flow network: source -> each job (capacity 1, cost 0) -> each compatible
system (capacity 1, cost C(J, S)) -> sink (capacity MaxQ, cost 0). A maximum
flow of minimum cost places as many jobs as the capacities allow and, among
such placements, minimises the summed cost; by integrality every job arc
carries 0 or 1, so no job is placed twice and no system gets more than MaxQ.

Costs are multiplied by ``COST_SCALE`` (100) and rounded to integers before the
solve, as the paper does. Two backends solve the same network:

* ``"ortools"`` — OR-Tools ``SimpleMinCostFlow.solve_max_flow_with_min_cost``
  (a cost-scaling push-relabel solver in C++), the fast default;
* ``"networkx"`` — ``networkx.max_flow_min_cost`` (network simplex in pure
  Python, the paper's own solver), kept as the reference.

They return the same optimal cost; among equal-cost optima the chosen pairs
may differ (no tie rule is promised).
"""

from __future__ import annotations

import numpy as np

from gridmarket.clearing.problem import ClearingProblem, ClearingResult, build_result, integer_costs
from gridmarket.errors import InvalidInput, MarketError

__all__ = ["BACKENDS", "clear_mcmf"]

BACKENDS = ("ortools", "networkx")


def clear_mcmf(problem: ClearingProblem, *, backend: str = "ortools") -> ClearingResult:
    """Place jobs on systems by a min-cost max flow.

    Parameters
    ----------
    problem : ClearingProblem
    backend : {"ortools", "networkx"}

    Returns
    -------
    ClearingResult
        ``total_cost`` is the sum of the unscaled costs of the chosen pairs.
        Jobs without a compatible system, and jobs left over because every
        compatible system reached its capacity, are in ``unassigned`` with the reason.

    Raises
    ------
    InvalidInput
        Unknown backend.

    Notes
    -----
    Nodes: source, ``n_jobs`` jobs, ``n_systems`` systems, sink; arcs: one per
    job, one per compatible pair, one per system. OR-Tools' cost-scaling
    algorithm runs in O(n^2 m log(nC)); networkx's network simplex is the
    algorithm of the paper (sec. 3.3, [Orlin 1996]).

    Examples
    --------
    Two jobs, two systems of capacity 1; job 1 only fits system A, so job 2
    takes B although A would be cheaper for it.

    >>> p = ClearingProblem([1, 2], ["A", "B"], [[5.0, None], [1.0, 4.0]], [1, 1])
    >>> r = clear_mcmf(p)
    >>> r.assignment, r.total_cost
    ({1: 'A', 2: 'B'}, 9.0)
    >>> clear_mcmf(p, backend="networkx").total_cost
    9.0
    """
    if backend not in BACKENDS:
        raise InvalidInput(f"unknown backend {backend!r}; known: {', '.join(BACKENDS)}")
    cost = integer_costs(problem.cost)
    jobs_idx, sys_idx = np.nonzero(problem.compatible)
    if jobs_idx.size == 0:
        return build_result(problem, [], f"mcmf/{backend}")
    solve = _solve_ortools if backend == "ortools" else _solve_networkx
    pairs = solve(problem, cost, jobs_idx, sys_idx)
    return build_result(problem, pairs, f"mcmf/{backend}")


def _solve_ortools(problem: ClearingProblem, cost: np.ndarray, jobs_idx: np.ndarray, sys_idx: np.ndarray) -> list[tuple[int, int]]:
    from ortools.graph.python import min_cost_flow

    m, n = len(problem.jobs), len(problem.systems)
    source, sink = 0, m + n + 1
    jobs_used = np.unique(jobs_idx)
    caps = problem.capacity_bounded()
    tails = np.concatenate([np.zeros(jobs_used.size, np.int64), 1 + jobs_idx, 1 + m + np.arange(n)])
    heads = np.concatenate([1 + jobs_used, 1 + m + sys_idx, np.full(n, sink, np.int64)])
    capacities = np.concatenate([np.ones(jobs_used.size + jobs_idx.size, np.int64), caps])
    costs = np.concatenate([np.zeros(jobs_used.size, np.int64), cost[jobs_idx, sys_idx], np.zeros(n, np.int64)])
    flow = min_cost_flow.SimpleMinCostFlow()
    flow.add_arcs_with_capacity_and_unit_cost(tails, heads, capacities, costs)
    # supplies bound the flow from above; the solver then sends as much as the arcs allow
    flow.set_node_supply(source, int(jobs_used.size))
    flow.set_node_supply(sink, -int(jobs_used.size))
    status = flow.solve_max_flow_with_min_cost()
    if status != flow.OPTIMAL:
        raise MarketError(f"OR-Tools min-cost flow ended with status {status}")
    first = jobs_used.size
    arcs = np.arange(first, first + jobs_idx.size)
    used = flow.flows(arcs) > 0
    return list(zip(jobs_idx[used].tolist(), sys_idx[used].tolist()))


def _solve_networkx(problem: ClearingProblem, cost: np.ndarray, jobs_idx: np.ndarray, sys_idx: np.ndarray) -> list[tuple[int, int]]:
    import networkx as nx

    caps = problem.capacity_bounded()
    graph: nx.DiGraph = nx.DiGraph()
    graph.add_edges_from(("s", ("j", int(i)), {"capacity": 1, "weight": 0}) for i in np.unique(jobs_idx))
    graph.add_edges_from(
        (("j", int(i)), ("m", int(k)), {"capacity": 1, "weight": int(cost[i, k])})
        for i, k in zip(jobs_idx, sys_idx)
    )
    graph.add_edges_from((("m", int(k)), "t", {"capacity": int(caps[k]), "weight": 0}) for k in np.unique(sys_idx))
    flow = nx.max_flow_min_cost(graph, "s", "t")
    pairs = []
    for i in np.unique(jobs_idx):
        for (_, k), f in flow[("j", int(i))].items():
            if f > 0:
                pairs.append((int(i), int(k)))
    return pairs
