"""Synthetic workflows: the thesis's layered random task graphs and the CyberShake workflow.

Singh 2008, ch. 4.7 (Figure 12: 100 tasks in 10 levels, mean runtime 1000 s,
depth sqrt(n) when the size varies; ch. 4.9: two parents per task, mean data
1000 Gb) and ch. 4.8 (Figure 17, Table 2: the CyberShake seismic hazard
workflow). Times are integer seconds; data sizes are bytes.
"""

from __future__ import annotations

import math

import networkx as nx
import numpy as np

from gridmarket.errors import InvalidInput

__all__ = ["CYBERSHAKE_MODULES", "cybershake_workflow", "layered_workflow"]


def _positive_int(name: str, value: object, minimum: int = 1) -> int:
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value < minimum:
        raise InvalidInput(f"{name} must be an int >= {minimum}, got {value!r}")
    return int(value)


def _uniform_int(rng: np.random.Generator, mean: float, size: int, low: int) -> np.ndarray:
    """Integers uniform on [low, 2 * mean - low] (mean ``mean``), or all ``mean`` if that is narrower."""
    high = int(round(2 * mean)) - low
    if high <= low:
        return np.full(size, max(low, int(round(mean))), dtype=np.int64)
    return rng.integers(low, high, size=size, endpoint=True)


def layered_workflow(
    n_tasks: int,
    *,
    depth: int | None = None,
    mean_runtime: float = 1000,
    mean_procs: float = 1,
    n_parents: int = 2,
    mean_data_bytes: float = 0,
    rng: np.random.Generator,
) -> nx.DiGraph:
    """A random layered workflow, the thesis's parameterised task-graph generator.

    Parameters
    ----------
    n_tasks : int
        Tasks, >= 1.
    depth : int, optional
        Levels, 1 <= depth <= n_tasks; ``round(sqrt(n_tasks))`` by default (ch. 4.7,
        "The depth of the workflow is sqrt(n)"), 10 for the 100-task workflow.
    mean_runtime : float
        Mean task runtime, seconds (1000 in the thesis).
    mean_procs : float
        Mean processors per task (22 for CTC, 6 for SDSC, 14 multi-site).
    n_parents : int
        Parents of every task below the first level (2 in ch. 4.9), drawn
        without replacement from the level above (all of it when smaller).
    mean_data_bytes : float
        Mean bytes on each edge (ch. 4.9: 1000 Gb = 125e9 bytes); 0 gives
        compute-only workflows (ch. 4.7).
    rng : numpy.random.Generator
        Source of randomness.

    Returns
    -------
    networkx.DiGraph
        Tasks ``0 .. n_tasks - 1`` level by level, each with ``procs``,
        ``runtime`` and ``level``; edges with ``data_bytes``.

    Notes
    -----
    The thesis does not give its distributions. Here: every level gets one
    task and the rest are spread uniformly over the levels (multinomial);
    runtimes, processors and data sizes are uniform integers on
    ``[low, 2 * mean - low]`` (``low`` = 1 s, 1 processor, 0 bytes), so their
    means are the given means. Edges only join consecutive levels, so the
    depth is exact.

    Examples
    --------
    >>> g = layered_workflow(100, mean_procs=6, rng=np.random.default_rng(1))
    >>> g.number_of_nodes(), max(nx.get_node_attributes(g, "level").values()) + 1
    (100, 10)
    >>> all(g.in_degree(t) == 2 for t in g if g.nodes[t]["level"] > 0)
    True
    """
    n_tasks = _positive_int("n_tasks", n_tasks)
    if depth is None:
        depth = max(1, round(math.sqrt(n_tasks)))
    depth = _positive_int("depth", depth)
    if depth > n_tasks:
        raise InvalidInput(f"depth {depth} exceeds n_tasks {n_tasks}")
    n_parents = _positive_int("n_parents", n_parents)
    for name, value, low in (("mean_runtime", mean_runtime, 1), ("mean_procs", mean_procs, 1),
                             ("mean_data_bytes", mean_data_bytes, 0)):
        if not isinstance(value, (int, float)) or isinstance(value, bool) or not low <= value < math.inf:
            raise InvalidInput(f"{name} must be a finite number >= {low}, got {value!r}")
    sizes = 1 + rng.multinomial(n_tasks - depth, np.full(depth, 1 / depth))
    runtimes = _uniform_int(rng, mean_runtime, n_tasks, 1)
    procs = _uniform_int(rng, mean_procs, n_tasks, 1)
    g: nx.DiGraph = nx.DiGraph()
    levels: list[list[int]] = []
    task = 0
    for level, size in enumerate(sizes):
        members = list(range(task, task + int(size)))
        for t in members:
            g.add_node(t, procs=int(procs[t]), runtime=int(runtimes[t]), level=level)
        if levels:
            above = levels[-1]
            k = min(n_parents, len(above))
            for t in members:
                for p in rng.choice(above, size=k, replace=False):
                    g.add_edge(int(p), t, data_bytes=0)
        levels.append(members)
        task += int(size)
    if mean_data_bytes > 0:
        data = _uniform_int(rng, mean_data_bytes, g.number_of_edges(), 0)
        for (u, v), size in zip(sorted(g.edges), data):
            g.edges[u, v]["data_bytes"] = int(size)
    return g


#: Table 2 of Singh 2008 (ch. 4.8): module -> (tasks, mean runtime in seconds, processors).
#: The table spells the fourth module "pvml_chk1" and Figure 17 "pmvl_chk1"; Figure 17's spelling is kept.
CYBERSHAKE_MODULES: dict[str, tuple[int, int, int]] = {
    "fd_grid_xyz": (1, 1, 1),
    "preSGT": (1, 300, 1),
    "fd_grid_cvm": (1, 2100, 288),
    "pmvl_chk1": (1, 86400, 288),
    "pmvl_chk2": (1, 86400, 288),
    "synthSGT": (4017, 519, 1),
    "peakValCal": (4017, 1, 1),
}


def cybershake_workflow(n_sites: int = 4017, *, data_bytes: int = 0) -> nx.DiGraph:
    """The CyberShake seismic hazard workflow of Figure 17 with the modules of Table 2.

    Parameters
    ----------
    n_sites : int
        Parallel ``synthSGT`` -> ``peakValCal`` pairs (4017 in the thesis, giving
        its 8039 tasks).
    data_bytes : int
        Bytes on every edge (the thesis gives none; it ran on one cluster).

    Returns
    -------
    networkx.DiGraph
        Nodes named after the module (``synthSGT_17``, ...), with ``procs``,
        ``runtime`` (Table 2's mean) and ``module``.

    Notes
    -----
    Five levels (ch. 4.8; the text counts them from 1, Figure 17 from 0):
    ``fd_grid_xyz`` and ``preSGT``; ``fd_grid_cvm`` (288 processors, after
    ``fd_grid_xyz``, which builds its grid); the two strain Green tensor runs
    ``pmvl_chk1`` and ``pmvl_chk2`` (288 processors each, after
    ``fd_grid_cvm`` and ``preSGT``); ``synthSGT_i``, each reading both
    tensors; ``peakValCal_i`` after ``synthSGT_i``. Figure 17 draws the levels
    but not every arc; the arcs above follow the CyberShake pipeline of the
    thesis's reference [19] (mesh, then SGT, then seismogram synthesis, then
    peak values).

    Examples
    --------
    >>> g = cybershake_workflow()
    >>> g.number_of_nodes(), nx.dag_longest_path_length(g, weight=None) + 1
    (8039, 5)
    >>> g.nodes["pmvl_chk1"]["procs"], g.nodes["synthSGT_0"]["runtime"]
    (288, 519)
    """
    n_sites = _positive_int("n_sites", n_sites)
    if not isinstance(data_bytes, int) or isinstance(data_bytes, bool) or data_bytes < 0:
        raise InvalidInput(f"data_bytes must be an int >= 0, got {data_bytes!r}")
    g: nx.DiGraph = nx.DiGraph()

    def add(name: str, module: str) -> str:
        _, runtime, procs = CYBERSHAKE_MODULES[module]
        g.add_node(name, procs=procs, runtime=runtime, module=module)
        return name

    xyz, pre = add("fd_grid_xyz", "fd_grid_xyz"), add("preSGT", "preSGT")
    cvm = add("fd_grid_cvm", "fd_grid_cvm")
    sgt = [add("pmvl_chk1", "pmvl_chk1"), add("pmvl_chk2", "pmvl_chk2")]
    g.add_edge(xyz, cvm, data_bytes=data_bytes)
    for s in sgt:
        g.add_edge(cvm, s, data_bytes=data_bytes)
        g.add_edge(pre, s, data_bytes=data_bytes)
    for i in range(n_sites):
        synth = add(f"synthSGT_{i}", "synthSGT")
        peak = add(f"peakValCal_{i}", "peakValCal")
        for s in sgt:
            g.add_edge(s, synth, data_bytes=data_bytes)
        g.add_edge(synth, peak, data_bytes=data_bytes)
    return g
