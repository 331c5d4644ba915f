"""Layered random workflows (Singh 2008, ch. 4.7, Figure 12) and CyberShake (ch. 4.8, Table 2)."""

import math
from collections import Counter

import networkx as nx
import numpy as np
import pytest

from gridmarket.errors import InvalidInput
from gridmarket.workflows import (
    CYBERSHAKE_MODULES,
    cybershake_workflow,
    layered_workflow,
    validate_workflow,
)


def test_layered_workflow_has_the_requested_shape():
    g = layered_workflow(100, depth=10, mean_procs=22, n_parents=2, rng=np.random.default_rng(3))
    validate_workflow(g)
    levels = Counter(nx.get_node_attributes(g, "level").values())
    assert sum(levels.values()) == 100 and sorted(levels) == list(range(10))
    assert nx.dag_longest_path_length(g, weight=None) == 9  # depth 10
    for t in g:
        level = g.nodes[t]["level"]
        expected = 0 if level == 0 else min(2, levels[level - 1])
        assert g.in_degree(t) == expected
        assert all(g.nodes[p]["level"] == level - 1 for p in g.predecessors(t))


def test_layered_workflow_means_match_the_parameters_on_a_large_sample():
    g = layered_workflow(4000, depth=40, mean_runtime=1000, mean_procs=6, mean_data_bytes=125e9,
                         rng=np.random.default_rng(0))
    rt = np.array([a for _, a in g.nodes(data="runtime")])
    procs = np.array([a for _, a in g.nodes(data="procs")])
    data = np.array([a for *_, a in g.edges(data="data_bytes")])
    assert rt.mean() == pytest.approx(1000, rel=0.03) and rt.min() >= 1
    assert procs.mean() == pytest.approx(6, rel=0.03) and procs.min() >= 1
    assert data.mean() == pytest.approx(125e9, rel=0.03)


def test_layered_depth_defaults_to_sqrt_n_and_seed_fixes_the_graph():
    a = layered_workflow(400, rng=np.random.default_rng(9))
    b = layered_workflow(400, rng=np.random.default_rng(9))
    assert max(nx.get_node_attributes(a, "level").values()) + 1 == 20
    assert nx.utils.graphs_equal(a, b)


@pytest.mark.parametrize("kwargs, message", [
    (dict(n_tasks=0), "n_tasks must be an int >= 1"),
    (dict(n_tasks=5, depth=6), "depth 6 exceeds n_tasks 5"),
    (dict(n_tasks=5, mean_procs=0), "mean_procs must be a finite number >= 1"),
    (dict(n_tasks=5, mean_runtime=math.inf), "mean_runtime"),
])
def test_layered_rejects_bad_parameters(kwargs, message):
    with pytest.raises(InvalidInput, match=message):
        layered_workflow(rng=np.random.default_rng(0), **kwargs)


def test_cybershake_follows_table_2():
    g = cybershake_workflow()
    assert g.number_of_nodes() == 8039  # ch. 4.8
    modules = Counter(nx.get_node_attributes(g, "module").values())
    assert modules == {m: n for m, (n, _, _) in CYBERSHAKE_MODULES.items()}
    for _, attrs in g.nodes(data=True):
        _, runtime, procs = CYBERSHAKE_MODULES[attrs["module"]]
        assert (attrs["runtime"], attrs["procs"]) == (runtime, procs)
    # five levels; every seismogram synthesis reads both strain Green tensors
    assert nx.dag_longest_path_length(g, weight=None) == 4
    assert set(g.predecessors("synthSGT_100")) == {"pmvl_chk1", "pmvl_chk2"}
    assert list(g.successors("synthSGT_100")) == ["peakValCal_100"]


def test_small_cybershake_keeps_the_structure():
    g = cybershake_workflow(3, data_bytes=10)
    assert g.number_of_nodes() == 5 + 2 * 3
    assert all(d == 10 for *_, d in g.edges(data="data_bytes"))
    # critical path: xyz 1 + cvm 2100 + sgt 86400 + synth 519 + peak 1
    assert nx.dag_longest_path_length(g, weight=None) == 4
    longest = max(sum(g.nodes[t]["runtime"] for t in p) for p in nx.all_simple_paths(g, "fd_grid_xyz", "peakValCal_0"))
    assert longest == 1 + 2100 + 86400 + 519 + 1
