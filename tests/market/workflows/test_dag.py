"""The workflow model: validation, entry/exit tasks, the network's transfer times (Singh 2008, ch. 4.1)."""

import math

import networkx as nx
import pytest

from gridmarket.errors import InvalidInput
from gridmarket.workflows import (
    ENTRY,
    EXIT,
    Network,
    add_entry_exit,
    runtime_on,
    validate_workflow,
)


def chain(*runtimes, procs=1):
    g = nx.DiGraph()
    for i, rt in enumerate(runtimes):
        g.add_node(i, procs=procs, runtime=rt)
        if i:
            g.add_edge(i - 1, i, data_bytes=0)
    return g


def test_validate_returns_the_same_graph_when_well_formed():
    g = chain(10, 20)
    assert validate_workflow(g) is g


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda g: g.add_edge(1, 0), r"workflow has a cycle: (0 -> 1 -> 0|1 -> 0 -> 1)"),
        (lambda g: g.nodes[0].pop("runtime"), r"task 0 has no runtime"),
        (lambda g: g.nodes[0].update(runtime=-1), r"task 0: runtime must be an int >= 0 seconds, got -1"),
        (lambda g: g.nodes[0].update(runtime=1.5), r"runtime must be an int"),
        (lambda g: g.nodes[0].update(runtime={}), r"runtime mapping is empty"),
        (lambda g: g.nodes[1].update(procs=0), r"task 1: procs must be an int >= 1, got 0"),
        (lambda g: g.nodes[1].pop("procs"), r"task 1: procs must be an int >= 1, got None"),
        (lambda g: g.edges[0, 1].update(data_bytes=-5), r"edge 0 -> 1: data_bytes must be >= 0, got -5"),
    ],
)
def test_validate_rejects_malformed_workflows_with_the_culprit_named(mutate, message):
    g = chain(10, 20)
    mutate(g)
    with pytest.raises(InvalidInput, match=message):
        validate_workflow(g)


def test_validate_rejects_empty_graphs_and_non_graphs():
    with pytest.raises(InvalidInput, match="no task"):
        validate_workflow(nx.DiGraph())
    with pytest.raises(InvalidInput, match="networkx.DiGraph"):
        validate_workflow(nx.Graph([(0, 1)]))


def test_runtime_per_resource_is_looked_up_and_missing_resource_is_none():
    g = nx.DiGraph()
    g.add_node("t", procs=2, runtime={"ctc": 100, "sdsc": 150})
    assert [runtime_on(g, "t", r) for r in ("ctc", "sdsc", "kth")] == [100, 150, None]


def test_entry_and_exit_are_added_only_when_several_sources_or_sinks():
    g = nx.DiGraph([("a", "c"), ("b", "c"), ("c", "d"), ("c", "e")])
    nx.set_node_attributes(g, 10, "runtime")
    nx.set_node_attributes(g, 1, "procs")
    h = add_entry_exit(g)
    assert set(h.successors(ENTRY)) == {"a", "b"} and set(h.predecessors(EXIT)) == {"d", "e"}
    assert h.nodes[ENTRY]["runtime"] == 0 and h.nodes[EXIT]["procs"] == 0
    assert ENTRY not in g  # the input is not modified
    single = add_entry_exit(chain(5, 5))
    assert ENTRY not in single and EXIT not in single
    validate_workflow(h)


def test_transfer_is_latency_plus_size_over_bandwidth_rounded_up_and_free_locally():
    net = Network(latency=150, bytes_per_second=1e9)
    assert net.transfer(1, "a", "b") == 151  # 1 ns rounds up to a whole second
    assert net.transfer(2.5e9, "a", "b") == 153
    assert net.transfer(2.5e9, "a", "a") == 0
    assert net.transfer(0, "a", "b") == 0  # a pure precedence moves nothing


def test_links_override_the_default_and_mean_transfer_averages_distinct_pairs():
    net = Network(latency=10, bytes_per_second=1e6, links={("a", "b"): (100, 1e6)})
    assert net.transfer(1e6, "a", "b") == 101 and net.transfer(1e6, "b", "a") == 11
    assert net.mean_transfer(1e6, ["a", "b"]) == pytest.approx((101 + 11) / 2)
    assert net.mean_transfer(1e6, ["a"]) == 0.0


@pytest.mark.parametrize("kwargs", [dict(latency=-1), dict(bytes_per_second=0), dict(latency=1.5),
                                    dict(links={("a",): (1, 1.0)}), dict(links={("a", "b"): (1, -1.0)})])
def test_network_rejects_bad_parameters(kwargs):
    with pytest.raises(InvalidInput):
        Network(**kwargs)


def test_infinite_bandwidth_leaves_only_the_latency():
    assert Network(latency=7).transfer(10**12, 0, 1) == 7
    assert math.isinf(Network().bytes_per_second)
