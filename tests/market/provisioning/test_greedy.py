"""Greedy HEFT provisioning over quotes (Singh 2008, ch. 7.1, Figure 51) and the f = 0 quoting provider."""

import math

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gridmarket.errors import Infeasible, InvalidInput
from gridmarket.job import Job
from gridmarket.provisioning.greedy import provision_greedy
from gridmarket.provisioning.quotes import FreeCapacityProvider, PriceQuote, QuoteProvider
from gridmarket.scheduling import SlotScheduler
from gridmarket.tradeoff import choose_by_tradeoff
from gridmarket.workflows import Network, layered_workflow

H = 3600


class TableProvider:
    """A hand-written provider: a fixed price list by start time; every start >= earliest is quoted.

    ``prices`` maps a start time to the fixed part ``f`` (SU); the unit part is ``n d`` (c = 1).
    A reservation removes that start from the list (one reservation per start).
    """

    def __init__(self, name, procs, prices):
        self.name, self.procs, self.prices = name, procs, dict(prices)
        self.queries, self.booked = [], []

    def quotes(self, procs, duration, earliest):
        self.queries.append((procs, duration, earliest))
        base = procs * duration / H
        return [PriceQuote(s, base + f) for s, f in sorted(self.prices.items()) if s >= earliest]

    def reserve(self, start, procs, duration):
        if start not in self.prices:
            raise Infeasible(f"{start} is gone")
        del self.prices[start]
        self.booked.append((start, procs, duration))


def test_hand_provider_honours_the_protocol():
    assert isinstance(TableProvider("x", 4, {}), QuoteProvider)
    assert isinstance(FreeCapacityProvider("y", 4, SlotScheduler(4).free_slots(0)), QuoteProvider)


@pytest.mark.parametrize("alpha, expected", [(0.0, 0), (0.4, 0), (0.6, 1), (1.0, 1)])
def test_choice_minimises_the_normalised_combination(alpha, expected):
    # finish (1 h, 3 h) -> (0, 1); price (5, 1) -> (1, 0): score α·p + (1 − α)·f
    assert choose_by_tradeoff([H, 3 * H], [5.0, 1.0], alpha) == expected


def test_choice_tie_and_errors():
    assert choose_by_tradeoff([H, H], [1.0, 1.0], 0.5) == 0
    with pytest.raises(InvalidInput, match="alpha must be in"):
        choose_by_tradeoff([H], [1.0], 1.2)
    with pytest.raises(Infeasible, match="no feasible candidate"):
        choose_by_tradeoff([], [], 0.5)


def test_chain_by_hand_on_two_providers_with_transfers():
    # a (1 proc, 1 h) then b (1 proc, 1 h), 1 GB between them; 100 s latency, 1e6 B/s: 1100 s across sites.
    g = nx.DiGraph([("a", "b")])
    g.add_node("a", procs=1, runtime=H)
    g.add_node("b", procs=1, runtime=H)
    g.edges["a", "b"]["data_bytes"] = 10**9
    x = TableProvider("x", 4, {0: 0.0, H: 5.0, 3 * H: 0.0})
    y = TableProvider("y", 4, {0: 2.0, H + 1100: 0.0, 2 * H: 0.0})
    plan = provision_greedy(g, [x, y], alpha=0.0, release=0, network=Network(latency=100, bytes_per_second=10**6))
    # a: earliest finish is at 0 on x (price 1) or y (price 3): tie on finish, lower price -> x at 0
    assert (plan.placements["a"].resource, plan.placements["a"].start) == ("x", 0)
    # b: x asked from 1 h (quotes 1 h at 6 SU, 3 h at 1 SU); y asked from 1 h + 1100 s (quotes it, and 2 h)
    assert x.queries[-1] == (1, H, H) and y.queries[-1] == (1, H, H + 1100)
    assert (plan.placements["b"].resource, plan.placements["b"].start) == ("x", H)  # α = 0: earliest finish
    assert plan.makespan == 2 * H and plan.allocation_cost == 1.0 + 6.0
    assert plan.n_queries == 4 and x.booked == [(0, 1, H), (H, 1, H)]
    # α = 1: cheapest; b's cheapest quotes cost 1 SU (x at 3 h, y at 1 h + 1100 s, y at 2 h): earliest finish wins
    x2 = TableProvider("x", 4, {0: 0.0, H: 5.0, 3 * H: 0.0})
    y2 = TableProvider("y", 4, {0: 2.0, H + 1100: 0.0, 2 * H: 0.0})
    plan = provision_greedy(g, [x2, y2], alpha=1.0, release=0, network=Network(latency=100, bytes_per_second=10**6))
    assert (plan.placements["b"].resource, plan.placements["b"].start) == ("y", H + 1100)
    assert plan.allocation_cost == 2.0


def test_no_quote_means_infeasible_and_bad_input_is_refused():
    g = nx.DiGraph()
    g.add_node("t", procs=2, runtime=H)
    with pytest.raises(Infeasible, match="no provider quoted a start for task 't'"):
        provision_greedy(g, [TableProvider("x", 4, {})], alpha=0.5, release=0)
    with pytest.raises(InvalidInput, match=r"task 't' \(2 processors\) can run on no provider"):
        provision_greedy(g, [TableProvider("x", 1, {0: 0.0})], alpha=0.5, release=0)
    with pytest.raises(InvalidInput, match="alpha"):
        provision_greedy(g, [TableProvider("x", 4, {0: 0.0})], alpha=-1, release=0)
    with pytest.raises(InvalidInput, match="unique"):
        provision_greedy(g, [TableProvider("x", 4, {}), TableProvider("x", 4, {})], alpha=0.5, release=0)

    class Liar(TableProvider):
        def quotes(self, procs, duration, earliest):
            return [PriceQuote(0, 1.0)]

    g.add_node("u", procs=1, runtime=H)
    g.add_edge("t", "u")
    with pytest.raises(InvalidInput, match="quoted a start at 0 for task 'u', before 3600"):
        provision_greedy(g, [Liar("x", 4, {0: 0.0})], alpha=0.5, release=0)


def _busy_provider(name, seed, procs=16, n_jobs=20):
    rng = np.random.default_rng(seed)
    s = SlotScheduler(procs)
    for i in range(n_jobs):
        d = int(rng.integers(1, 6)) * 900
        s.submit(Job(i, 0, int(rng.integers(1, procs + 1)), d, d), 0)
    return s, FreeCapacityProvider(name, procs, s.free_slots(0))


def test_free_capacity_quotes_never_delay_a_planned_job():
    sched, provider = _busy_provider("m", 3)
    for n, d in [(1, 900), (4, 1800), (16, 600)]:
        for q in provider.quotes(n, d, 0):
            # the window fits on one free slot or a vertical stack of the scheduler's own plan (Fig. 2):
            # in the layered cut the slots covering a window hold exactly the processors free throughout it
            free = sum(s.procs for s in sched.free_slots(0) if s.start <= q.start and s.end >= q.start + d)
            assert free >= n
            assert q.price == n * d / H


@given(st.integers(0, 10_000), st.sampled_from([0.0, 0.5, 1.0]), st.integers(1, 3))
@settings(max_examples=25, deadline=None)
def test_greedy_plans_respect_precedence_transfers_and_capacity(seed, alpha, n_sites):
    rng = np.random.default_rng(seed)
    g = layered_workflow(15, depth=4, mean_runtime=900, mean_procs=4, mean_data_bytes=10**8, rng=rng)
    providers = [_busy_provider(f"s{i}", seed + i)[1] for i in range(n_sites)]
    net = Network(latency=30, bytes_per_second=10**7)
    profiles = {p.name: p.profile.copy() for p in providers}
    plan = provision_greedy(g, providers, alpha=alpha, release=0, network=net)
    for u, v in g.edges:
        pu, pv = plan.placements[u], plan.placements[v]
        assert pv.start >= pu.end + net.transfer(g.edges[u, v]["data_bytes"], pu.resource, pv.resource)
    for p in plan.placements.values():  # every reservation fitted the free capacity, none overlap
        profiles[p.resource].reserve(p.start, p.end - p.start, p.procs)
    assert plan.allocation_cost == pytest.approx(sum(a["procs"] * a["runtime"] for _, a in g.nodes(data=True)) / H)


def test_lower_alpha_never_finishes_later_on_one_idle_provider():
    g = layered_workflow(20, mean_procs=2, rng=np.random.default_rng(5))
    spans = []
    for alpha in (0.0, 1.0):
        p = FreeCapacityProvider("m", 8, SlotScheduler(8).free_slots(0))
        spans.append(provision_greedy(g, [p], alpha=alpha, release=0).makespan)
    assert spans[0] <= spans[1]
    assert not math.isinf(spans[1])
