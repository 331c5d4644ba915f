"""The workflow model: a DAG of rigid parallel tasks, and the network between resources.

Singh 2008, ch. 4.1 (application model): a workflow is a directed acyclic graph
whose task runtimes on each resource and whose parent-to-child data sizes are
known; moving data between tasks on the same resource costs nothing, between
different resources it costs latency + size / bandwidth; without loss of
generality there is a single entry and a single exit task.

A workflow is a plain :class:`networkx.DiGraph` (DESIGN.md, "Shared
vocabulary"):

* node attribute ``procs`` (int >= 1): processors the task needs for its whole run;
* node attribute ``runtime``: seconds, an int, or a mapping of resource name to
  int when runtimes differ between resources (a resource missing from the
  mapping cannot run the task). A runtime of 0 marks a *virtual* task (the
  entry / exit added by :func:`add_entry_exit`): it takes no processors and no
  time;
* edge attribute ``data_bytes`` (int >= 0, default 0): bytes the parent sends
  to the child.

Times are integer seconds from simulation start; data sizes are bytes.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass, field

import networkx as nx

from gridmarket.errors import InvalidInput
from gridmarket.validation import check_number

__all__ = [
    "ENTRY",
    "EXIT",
    "Network",
    "add_entry_exit",
    "runtime_on",
    "validate_workflow",
]

ENTRY = "__entry__"
EXIT = "__exit__"


@dataclass(frozen=True, slots=True)
class Network:
    """Latency and bandwidth between resources (Singh 2008, ch. 4.1 and 4.9).

    Parameters
    ----------
    latency : int
        Seconds added to every transfer between two different resources, >= 0.
    bytes_per_second : float
        Bandwidth between two different resources, > 0 (``math.inf``: data
        moves instantly, only the latency counts).
    links : mapping of (str, str) to (int, float), optional
        Per ordered pair of resources ``(latency, bytes_per_second)``
        overriding the defaults.

    Notes
    -----
    Transfers are never contended (ch. 4.9: "We do not consider contention for
    network resources"). Transfer times are rounded up to whole seconds. An
    edge that carries no data (a pure precedence, or the edges of a virtual
    entry/exit task) costs nothing, even between resources.

    Examples
    --------
    The thesis's multi-site setting (ch. 4.9): 1000 Gb at 10 Gbps with 150 s
    latency is a transfer of 250 s.

    >>> net = Network(latency=150, bytes_per_second=10e9 / 8)
    >>> net.transfer(1000e9 / 8, "ctc", "sdsc"), net.transfer(1000e9 / 8, "ctc", "ctc")
    (250, 0)
    """

    latency: int = 0
    bytes_per_second: float = math.inf
    links: Mapping[tuple[Hashable, Hashable], tuple[int, float]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        _check_link("network", self.latency, self.bytes_per_second)
        for pair, link in self.links.items():
            if not (isinstance(pair, tuple) and len(pair) == 2):
                raise InvalidInput(f"network: link key must be a (source, target) pair, got {pair!r}")
            if not (isinstance(link, tuple) and len(link) == 2):
                raise InvalidInput(f"network: link {pair!r} must be (latency, bytes_per_second), got {link!r}")
            _check_link(f"network link {pair!r}", *link)

    def transfer(self, data_bytes: float, source: Hashable, target: Hashable) -> int:
        """Seconds to move ``data_bytes`` from ``source`` to ``target`` (0 on the same resource)."""
        if source == target or not data_bytes:
            return 0
        latency, bandwidth = self.links.get((source, target), (self.latency, self.bytes_per_second))
        return latency + math.ceil(data_bytes / bandwidth)

    def mean_transfer(self, data_bytes: float, resources: Iterable[Hashable]) -> float:
        """Mean transfer time over ordered pairs of distinct ``resources`` (HEFT's c̄, eq. 7).

        Zero with a single resource: every transfer is then local (ch. 4.7,
        "the data transfer time between the tasks is zero since all tasks are
        executed on the same resource").
        """
        names = list(dict.fromkeys(resources))
        if len(names) < 2:
            return 0.0
        if not self.links:
            return float(self.transfer(data_bytes, 0, 1))
        total = sum(self.transfer(data_bytes, a, b) for a in names for b in names if a != b)
        return total / (len(names) * (len(names) - 1))


def _check_link(where: str, latency: object, bandwidth: object) -> None:
    if not isinstance(latency, int) or isinstance(latency, bool) or latency < 0:
        raise InvalidInput(f"{where}: latency must be an int >= 0 seconds, got {latency!r}")
    check_number(f"{where}: latency", latency, "seconds")
    if not isinstance(bandwidth, (int, float)) or isinstance(bandwidth, bool) or not bandwidth > 0:
        raise InvalidInput(f"{where}: bytes_per_second must be > 0, got {bandwidth!r}")


def runtime_on(workflow: nx.DiGraph, task: Hashable, resource: Hashable) -> int | None:
    """Seconds ``task`` runs on ``resource``; ``None`` if it cannot run there.

    >>> g = nx.DiGraph()
    >>> g.add_node("a", procs=1, runtime={"ctc": 60})
    >>> runtime_on(g, "a", "ctc"), runtime_on(g, "a", "sdsc")
    (60, None)
    """
    runtime = workflow.nodes[task]["runtime"]
    if isinstance(runtime, Mapping):
        return runtime.get(resource)
    return runtime


def validate_workflow(workflow: nx.DiGraph, *, where: str | None = None) -> nx.DiGraph:
    """Check that ``workflow`` is a well-formed workflow; return it unchanged.

    Parameters
    ----------
    workflow : networkx.DiGraph
        Tasks as nodes with ``procs`` and ``runtime``; edges with optional
        ``data_bytes``.
    where : str, optional
        The file the workflow was read from: messages then start with it.

    Returns
    -------
    networkx.DiGraph
        ``workflow`` itself.

    Raises
    ------
    InvalidInput
        Not a DiGraph, no task, a cycle (the message names one), a missing or
        malformed ``runtime`` or ``procs``, a negative ``data_bytes``.

    Examples
    --------
    >>> g = nx.DiGraph([("a", "b"), ("b", "a")])
    >>> validate_workflow(g)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    gridmarket.errors.InvalidInput: workflow has a cycle: a -> b -> a
    """
    try:
        _check_workflow(workflow)
    except InvalidInput as err:
        if where is None:
            raise
        raise InvalidInput(f"{where}: {err}") from None
    return workflow


def _check_workflow(workflow: nx.DiGraph) -> None:
    if not isinstance(workflow, nx.DiGraph) or workflow.is_multigraph():
        raise InvalidInput(f"workflow must be a networkx.DiGraph, got {type(workflow).__name__}")
    if workflow.number_of_nodes() == 0:
        raise InvalidInput("workflow has no task")
    try:
        cycle = nx.find_cycle(workflow)
    except nx.NetworkXNoCycle:
        pass
    else:
        path = [u for u, _ in cycle] + [cycle[0][0]]
        raise InvalidInput("workflow has a cycle: " + " -> ".join(map(str, path)))
    for task, attrs in workflow.nodes(data=True):
        if "runtime" not in attrs:
            raise InvalidInput(f"task {task!r} has no runtime")
        runtime = attrs["runtime"]
        values = list(runtime.values()) if isinstance(runtime, Mapping) else [runtime]
        if isinstance(runtime, Mapping) and not values:
            raise InvalidInput(f"task {task!r}: runtime mapping is empty (no resource can run it)")
        for value in values:
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise InvalidInput(f"task {task!r}: runtime must be an int >= 0 seconds, got {value!r}")
            check_number(f"task {task!r}: runtime", value, "seconds")
        virtual = all(v == 0 for v in values)
        procs = attrs.get("procs")
        if virtual and procs is None:
            continue
        if not isinstance(procs, int) or isinstance(procs, bool) or procs < (0 if virtual else 1):
            raise InvalidInput(f"task {task!r}: procs must be an int >= 1, got {procs!r}")
        check_number(f"task {task!r}: procs", procs, "processors", low=0)
    for u, v, attrs in workflow.edges(data=True):
        size = attrs.get("data_bytes", 0)
        if not isinstance(size, (int, float)) or isinstance(size, bool) or size < 0:
            raise InvalidInput(f"edge {u!r} -> {v!r}: data_bytes must be >= 0, got {size!r}")
        check_number(f"edge {u!r} -> {v!r}: data_bytes in GB", size / 1e9, "data")


def add_entry_exit(workflow: nx.DiGraph) -> nx.DiGraph:
    """A copy of ``workflow`` with a single entry and a single exit task (ch. 4.1).

    When several tasks have no parent (no child), a virtual task ``ENTRY``
    (``EXIT``) with runtime 0, 0 processors and 0-byte edges is added as their
    parent (child); a workflow that already has a single one keeps it. The
    thesis combines several DAGs the same way (end of ch. 4.9).

    Examples
    --------
    >>> g = nx.DiGraph([("a", "c"), ("b", "c")])
    >>> nx.set_node_attributes(g, {"a": 10, "b": 20, "c": 5}, "runtime")
    >>> nx.set_node_attributes(g, 1, "procs")
    >>> h = add_entry_exit(g)
    >>> sorted(h.successors(ENTRY)), list(h.predecessors(EXIT)) if EXIT in h else "single exit"
    (['a', 'b'], 'single exit')
    """
    out = workflow.copy()
    for name in (ENTRY, EXIT):
        if name in out:
            raise InvalidInput(f"workflow already has a task named {name!r}")
    sources = [t for t in workflow if workflow.in_degree(t) == 0]
    sinks = [t for t in workflow if workflow.out_degree(t) == 0]
    if len(sources) > 1:
        out.add_node(ENTRY, procs=0, runtime=0)
        out.add_edges_from(((ENTRY, t) for t in sources), data_bytes=0)
    if len(sinks) > 1:
        out.add_node(EXIT, procs=0, runtime=0)
        out.add_edges_from(((t, EXIT) for t in sinks), data_bytes=0)
    return out
