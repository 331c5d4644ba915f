"""Greedy HEFT provisioning of a workflow over quotes from several providers.

Singh 2008, ch. 7.1, Figure 51: rank the tasks by HEFT upward rank (eq. 7) and
take them in non-increasing order; for each task, compute its earliest
feasible start on every resource from its parents' finish and the data
transfers, send every resource a form-(19) query for its processors and
runtime from that start, pool the ``<start, price>`` answers, pick the one
minimising ``α·cost_nr + (1 − α)·finish_nr`` (both min/max normalised over the
pool), reserve it and go on. Works with any number of providers (ch. 7.3).

Times are integer seconds from simulation start; prices are SU.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import networkx as nx

from gridmarket.errors import Infeasible, InvalidInput
from gridmarket.provisioning.schedule import Placement
from gridmarket.tradeoff import check_alpha, choose_by_tradeoff
from gridmarket.workflows.dag import Network, runtime_on, validate_workflow
from gridmarket.workflows.rank import rank_order, upward_rank

__all__ = ["GreedyPlan", "provision_greedy"]


@dataclass(frozen=True)
class GreedyPlan:
    """The reservations greedy provisioning made.

    Attributes
    ----------
    placements : dict
        Task -> :class:`Placement` (``resource`` is the provider's name).
    prices : dict
        Task -> price paid for its reservation, SU.
    makespan : int
        Last finish minus the release time, seconds.
    allocation_cost : float
        Sum of the prices, SU (ch. 7.2: "the sum of the total costs of all the provisioned slots").
    n_queries : int
        Form-(19) queries sent.
    """

    placements: dict[Hashable, Placement]
    prices: dict[Hashable, float]
    makespan: int
    allocation_cost: float
    n_queries: int


def provision_greedy(
    workflow: nx.DiGraph,
    providers: Sequence,
    *,
    alpha: float,
    release: int,
    network: Network | None = None,
    order: Sequence[Hashable] | None = None,
) -> GreedyPlan:
    """Provision ``workflow`` task by task on the cheapest-and-earliest quote (Fig. 51); reserves as it goes.

    Parameters
    ----------
    workflow : networkx.DiGraph
        A workflow; per-resource runtimes are looked up by provider name.
    providers : sequence of QuoteProvider
        Objects with ``name``, ``procs``, ``quotes(procs, duration, earliest)``
        and ``reserve(start, procs, duration)``
        (:class:`gridmarket.provisioning.quotes.QuoteProvider`). Each chosen quote
        is reserved on its provider.
    alpha : float
        Trade-off factor in [0, 1]: 1 minimises price only, 0 finish time only.
    release : int
        Earliest start of any task (seconds).
    network : Network, optional
        Data transfer between providers.
    order : sequence, optional
        Task order; by default non-increasing upward rank (eq. 7) over the providers.

    Returns
    -------
    GreedyPlan

    Raises
    ------
    InvalidInput
        ``alpha`` outside [0, 1], no provider, duplicate provider names, a
        task no provider can run (unknown runtime or more processors than
        any machine), a quote before the start asked for.
    Infeasible
        No provider quoted any start for a task (the message names it);
        reservations already made for earlier tasks stay made.

    Notes
    -----
    ``s_ir = max over parents (finish_j + transfer(j -> r))`` with transfers
    free on the same resource (Fig. 51). A quote's finish is its start plus
    the task's runtime on that resource. Virtual (zero-runtime) tasks need
    no query: they finish when their parents do. O(T x R x Q) for T tasks,
    R providers and Q quotes per answer, plus the providers' own work.

    Examples
    --------
    Two providers quote a 1-processor, 1-hour task: ``x`` at once for 3 SU
    (an externality price), ``y`` only in 2 h at the base rate of 1 SU:

    >>> from gridmarket.provisioning.quotes import PriceQuote
    >>> class Fixed:
    ...     def __init__(self, name, answers):
    ...         self.name, self.procs, self.answers, self.booked = name, 4, answers, []
    ...     def quotes(self, procs, duration, earliest):
    ...         return [PriceQuote(s, p) for s, p in self.answers if s >= earliest]
    ...     def reserve(self, start, procs, duration):
    ...         self.booked.append(start)
    >>> g = nx.DiGraph(); g.add_node("t", procs=1, runtime=3600)
    >>> fast = provision_greedy(g, [Fixed("x", [(0, 3.0)]), Fixed("y", [(7200, 1.0)])], alpha=0.0, release=0)
    >>> cheap = provision_greedy(g, [Fixed("x", [(0, 3.0)]), Fixed("y", [(7200, 1.0)])], alpha=1.0, release=0)
    >>> (fast.placements["t"].resource, fast.makespan), (cheap.placements["t"].resource, cheap.makespan)
    (('x', 3600), ('y', 10800))
    """
    validate_workflow(workflow)
    check_alpha(alpha)
    providers = list(providers)
    if not providers:
        raise InvalidInput("greedy provisioning needs at least one provider")
    names = [p.name for p in providers]
    if len(set(names)) != len(names):
        raise InvalidInput(f"provider names must be unique, got {names}")
    if order is None:
        order = rank_order(workflow, upward_rank(workflow, resources=names, network=network))
    order = list(order)

    # validate every task before reserving anything
    for t in order:
        runtimes = [runtime_on(workflow, t, r) for r in names]
        if all(rt in (0, None) for rt in runtimes) and any(rt == 0 for rt in runtimes):
            continue
        procs = workflow.nodes[t]["procs"]
        if not any(rt and procs <= p.procs for rt, p in zip(runtimes, providers)):
            biggest = max(p.procs for p in providers)
            raise InvalidInput(
                f"task {t!r} ({procs} processors) can run on no provider (largest machine: {biggest} processors)"
            )

    finish: dict[Hashable, int] = {}
    where: dict[Hashable, Hashable | None] = {}
    placements: dict[Hashable, Placement] = {}
    prices: dict[Hashable, float] = {}
    n_queries = 0
    for t in order:
        parents = list(workflow.predecessors(t))
        runtimes = [runtime_on(workflow, t, r) for r in names]
        if all(rt in (0, None) for rt in runtimes):  # virtual task
            at = max([finish[p] for p in parents], default=release)
            finish[t], where[t] = at, None
            placements[t] = Placement(t, None, at, at, 0)
            continue
        procs = workflow.nodes[t]["procs"]
        pool: list[tuple[int, float, int, int, int]] = []  # finish, price, start, provider index, runtime
        for k, (provider, d) in enumerate(zip(providers, runtimes)):
            if not d or procs > provider.procs:
                continue
            s_ir = release
            for p in parents:
                lag = 0
                if network is not None and where[p] is not None:
                    lag = network.transfer(workflow.edges[p, t].get("data_bytes", 0), where[p], provider.name)
                s_ir = max(s_ir, finish[p] + lag)
            n_queries += 1
            for q in provider.quotes(procs, d, s_ir):
                if q.start < s_ir:
                    raise InvalidInput(
                        f"provider {provider.name!r} quoted a start at {q.start} for task {t!r}, before {s_ir}"
                    )
                pool.append((q.start + d, float(q.price), q.start, k, d))
        if not pool:
            raise Infeasible(f"no provider quoted a start for task {t!r} ({procs} processors)")
        best = pool[choose_by_tradeoff([c[0] for c in pool], [c[1] for c in pool], alpha)]
        end, price, start, k, d = best
        providers[k].reserve(start, procs, d)
        finish[t], where[t] = end, providers[k].name
        placements[t] = Placement(t, providers[k].name, start, end, procs)
        prices[t] = price
    makespan = max(finish.values()) - release
    return GreedyPlan(placements, prices, makespan, sum(prices.values()), n_queries)
