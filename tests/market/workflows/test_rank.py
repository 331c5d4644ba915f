"""HEFT upward rank (Singh 2008, eq. 7) and the scheduling order it gives."""

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gridmarket.errors import InvalidInput
from gridmarket.workflows import ENTRY, Network, add_entry_exit, rank_order, upward_rank


@pytest.fixture
def diamond():
    """a (10 s) -> b (20 s), c (5 s) -> d (1 s); 1e6 bytes on a->b, 4e6 on a->c, none below."""
    g = nx.DiGraph()
    for t, rt in dict(a=10, b=20, c=5, d=1).items():
        g.add_node(t, procs=1, runtime=rt)
    g.add_edge("a", "b", data_bytes=10**6)
    g.add_edge("a", "c", data_bytes=4 * 10**6)
    g.add_edge("b", "d", data_bytes=0)
    g.add_edge("c", "d", data_bytes=0)
    return g


def test_rank_on_one_resource_is_the_longest_runtime_path(diamond):
    assert upward_rank(diamond) == {"d": 1.0, "c": 6.0, "b": 21.0, "a": 31.0}


def test_rank_adds_mean_transfer_times_between_resources(diamond):
    # 1 MB/s and 2 s latency: a->b costs 2 + 1 = 3 s, a->c costs 2 + 4 = 6 s; b->d, c->d carry nothing.
    # rank(b) = 21, rank(c) = 6, rank(a) = 10 + max(3 + 21, 6 + 6) = 34.
    net = Network(latency=2, bytes_per_second=10**6)
    rank = upward_rank(diamond, resources=["x", "y"], network=net)
    assert rank == {"d": 1.0, "c": 6.0, "b": 21.0, "a": 34.0}
    # a single resource makes every transfer local
    assert upward_rank(diamond, resources=["x"], network=net)["a"] == 31.0


def test_rank_uses_the_mean_runtime_over_resources_that_can_run_the_task():
    g = nx.DiGraph([("a", "b")])
    g.add_node("a", procs=1, runtime={"x": 10, "y": 30})
    g.add_node("b", procs=1, runtime={"x": 4})
    assert upward_rank(g) == {"b": 4.0, "a": 24.0}
    assert upward_rank(g, resources=["y", "x"]) == {"b": 4.0, "a": 24.0}
    assert upward_rank(g, resources=["x"])["a"] == 14.0
    with pytest.raises(InvalidInput, match="task 'b' cannot run on any of the resources"):
        upward_rank(g, resources=["y"])


def test_order_is_non_increasing_rank_with_virtual_entry_first(diamond):
    g = add_entry_exit(nx.disjoint_union(diamond, diamond))
    order = rank_order(g)
    assert order[0] == ENTRY  # ties with its children (runtime 0) but precedes them
    rank = upward_rank(g)
    assert all(rank[u] >= rank[v] for u, v in zip(order, order[1:]))


@st.composite
def dags(draw):
    n = draw(st.integers(1, 12))
    g = nx.DiGraph()
    for i in range(n):
        g.add_node(i, procs=1, runtime=draw(st.integers(0, 50)))
    for j in range(1, n):
        for i in draw(st.sets(st.integers(0, j - 1), max_size=3)):
            g.add_edge(i, j, data_bytes=draw(st.integers(0, 10**6)))
    return g


@given(dags())
@settings(max_examples=80, deadline=None)
def test_rank_order_is_always_a_topological_order(g):
    order = rank_order(g, resources=["x", "y"], network=Network(latency=1, bytes_per_second=1e5))
    pos = {t: i for i, t in enumerate(order)}
    assert sorted(order) == sorted(g.nodes)
    assert all(pos[u] < pos[v] for u, v in g.edges)
