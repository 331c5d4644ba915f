"""HEFT upward rank of workflow tasks (Singh 2008, ch. 4.5, eq. 7; Topcuoglu et al. 2002).

Times are integer seconds; ranks are float seconds (means of runtimes and transfer times).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence

import networkx as nx

from gridmarket.errors import InvalidInput
from gridmarket.workflows.dag import Network, validate_workflow

__all__ = ["rank_order", "upward_rank"]


def _mean_runtime(workflow: nx.DiGraph, task: Hashable, resources: Sequence[Hashable] | None) -> float:
    runtime = workflow.nodes[task]["runtime"]
    if not isinstance(runtime, Mapping):
        return float(runtime)
    values = list(runtime.values()) if resources is None else [runtime[r] for r in resources if r in runtime]
    if not values:
        raise InvalidInput(f"task {task!r} cannot run on any of the resources {list(resources or [])}")
    return sum(values) / len(values)


def upward_rank(
    workflow: nx.DiGraph,
    *,
    resources: Iterable[Hashable] | None = None,
    network: Network | None = None,
) -> dict[Hashable, float]:
    """Upward rank of every task: the mean critical path from it to the exit (eq. 7).

    ``Rank(v_i) = w̄_i + max over children v_j of (c̄_ij + Rank(v_j))``, and
    ``Rank = w̄`` for a task without children.

    Parameters
    ----------
    workflow : networkx.DiGraph
        A workflow (:mod:`gridmarket.workflows.dag`).
    resources : iterable of hashable, optional
        Resources the tasks may run on. ``w̄_i`` is the mean runtime of task
        ``i`` on those of them that can run it (all the resources its runtime
        mapping names, by default; a plain int runtime is the same everywhere).
    network : Network, optional
        Gives ``c̄_ij``, the mean transfer time of the edge's ``data_bytes``
        between distinct resources; 0 when there is one resource or no
        network.

    Returns
    -------
    dict
        Rank of each task, in seconds.

    Raises
    ------
    InvalidInput
        The workflow is malformed (see :func:`validate_workflow`), or a task
        can run on none of ``resources``.

    Notes
    -----
    Singh 2008, ch. 4.5, eq. (7), after HEFT [56]. One pass in reverse
    topological order, O(V + E).

    Examples
    --------
    A fork-join by hand: a (10 s) feeds b (20 s) and c (5 s), both feed d (1 s).
    With one resource transfers are free: rank(d) = 1, rank(b) = 21, rank(c) = 6,
    rank(a) = 10 + max(21, 6) = 31.

    >>> g = nx.DiGraph([("a", "b"), ("a", "c"), ("b", "d"), ("c", "d")])
    >>> nx.set_node_attributes(g, {"a": 10, "b": 20, "c": 5, "d": 1}, "runtime")
    >>> nx.set_node_attributes(g, 1, "procs")
    >>> upward_rank(g)
    {'d': 1.0, 'c': 6.0, 'b': 21.0, 'a': 31.0}

    Two resources 100 s apart (latency only) and 1 byte on every edge: every
    edge adds 100 s, so rank(b) = 20 + 100 + 1 = 121 and rank(a) = 10 + 100 + 121 = 231.

    >>> nx.set_edge_attributes(g, 1, "data_bytes")
    >>> upward_rank(g, resources=["x", "y"], network=Network(latency=100))["a"]
    231.0
    """
    validate_workflow(workflow)
    names = None if resources is None else list(dict.fromkeys(resources))
    if names is not None and not names:
        raise InvalidInput("upward_rank: resources is empty")
    runtime_names: set[Hashable] = set()
    if names is None:
        for _, rt in workflow.nodes(data="runtime"):
            if isinstance(rt, Mapping):
                runtime_names.update(rt)
    transfer_names = names if names is not None else sorted(runtime_names, key=str)
    rank: dict[Hashable, float] = {}
    for task in reversed(list(nx.topological_sort(workflow))):
        best = 0.0
        for child in workflow.successors(task):
            c = 0.0
            if network is not None:
                c = network.mean_transfer(workflow.edges[task, child].get("data_bytes", 0), transfer_names)
            best = max(best, c + rank[child])
        rank[task] = _mean_runtime(workflow, task, names) + best
    return rank


def rank_order(workflow: nx.DiGraph, rank: Mapping[Hashable, float] | None = None, **kwargs) -> list[Hashable]:
    """Tasks by non-increasing upward rank: the HEFT scheduling order (ch. 4.5).

    Parameters
    ----------
    workflow : networkx.DiGraph
        A workflow.
    rank : mapping, optional
        Precomputed :func:`upward_rank`; otherwise computed with ``kwargs``.

    Returns
    -------
    list
        Every task once; a parent always comes before its children.

    Notes
    -----
    Tie rule: equal ranks keep networkx's lexicographic topological order
    (by ``str`` of the task id). With non-negative runtimes and transfers a
    parent's rank is never below its child's, so sorting by (-rank,
    topological index) is a topological order even when a virtual
    zero-runtime task ties with its child.

    Examples
    --------
    >>> g = nx.DiGraph([("a", "b"), ("a", "c"), ("b", "d"), ("c", "d")])
    >>> nx.set_node_attributes(g, {"a": 10, "b": 20, "c": 5, "d": 1}, "runtime")
    >>> nx.set_node_attributes(g, 1, "procs")
    >>> rank_order(g)
    ['a', 'b', 'c', 'd']
    """
    if rank is None:
        rank = upward_rank(workflow, **kwargs)
    topo = {t: i for i, t in enumerate(nx.lexicographical_topological_sort(workflow, key=str))}
    return sorted(workflow.nodes, key=lambda t: (-rank[t], topo[t]))
