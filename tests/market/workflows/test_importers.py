"""WfCommons (WfFormat JSON), Pegasus DAX and the gridmarket JSON format."""

import json

import networkx as nx
import pytest

from gridmarket.datasets import registry, sample
from gridmarket.errors import InvalidInput
from gridmarket.workflows import (
    read_dax,
    read_wfformat,
    read_workflow_json,
    upward_rank,
    workflow_from_dict,
    workflow_to_dict,
)

WORKFLOWS = [p for p, ds in registry().items() if ds.tasks is not None]


def test_every_registered_workflow_has_task_and_edge_counts():
    assert len(WORKFLOWS) == 31  # 13 WfInstances, 12 Pegasus DAX, 6 generated
    assert all(registry()[p].edges is not None for p in WORKFLOWS)


@pytest.mark.parametrize("path", [pytest.param(p, marks=pytest.mark.data(p), id=p.rsplit("/", 1)[-1])
                                  for p in WORKFLOWS])
def test_every_registered_workflow_reads_with_its_registered_counts(path, data_dir):
    g = read_dax(data_dir / path) if path.endswith(".xml") else read_workflow_json(data_dir / path)
    assert (g.number_of_nodes(), g.number_of_edges()) == (registry()[path].tasks, registry()[path].edges)
    assert nx.is_directed_acyclic_graph(g)
    assert all(rt >= 1 for _, rt in g.nodes(data="runtime"))


def test_dax_edges_carry_the_bytes_of_the_files_passed():
    g = read_dax(sample("samples/Montage_25.xml"))  # the registered Montage_25.xml, shipped whole
    assert g.nodes["ID00000"]["name"] == "mProjectPP"
    # mProjectPP writes the projected image and its area file; the children read them
    sizes = [d for *_, d in g.out_edges("ID00000", data="data_bytes")]
    assert sizes and all(s > 0 for s in sizes)
    assert max(upward_rank(g).values()) > 0


@pytest.mark.data("workflows/wfcommons-generated/wfcommons-montage-100-seed42.json")
def test_wfinstances_use_core_counts_and_real_runtimes_rounded_up(data_dir):
    path = data_dir / "workflows" / "wfcommons-generated" / "wfcommons-montage-100-seed42.json"
    g = read_wfformat(path)
    assert g.nodes["mProject_00000001"]["runtime"] == 1264  # 1263.481 s, rounded up
    assert g.nodes["mProject_00000001"]["procs"] == 1


def test_gridmarket_json_round_trips(tmp_path):
    doc = {"tasks": [{"id": "a", "procs": 2, "runtime": 60}, {"id": "b", "procs": 1, "runtime": {"x": 30, "y": 45}}],
           "edges": [{"from": "a", "to": "b", "data": 1000}]}
    path = tmp_path / "wf.json"
    path.write_text(json.dumps(doc))
    g = read_workflow_json(path)
    assert g.nodes["b"]["runtime"] == {"x": 30, "y": 45}
    assert workflow_to_dict(g) == doc


@pytest.mark.parametrize("doc, message", [
    ({"tasks": [{"id": "a", "procs": 1}]}, "task 'a' has no runtime"),
    ({"tasks": [{"id": "a", "procs": 1, "runtime": 5}], "edges": [{"from": "a", "to": "z"}]}, "unknown task 'z'"),
    ({"tasks": [{"id": "a", "procs": 1, "runtime": 5}, {"id": "b", "procs": 1, "runtime": 5}],
      "edges": [{"from": "a", "to": "b"}, {"from": "b", "to": "a"}]}, "cycle"),
    ({"tasks": [{"id": "a", "procs": 1, "runtime": 5}, {"id": "a", "procs": 1, "runtime": 5}]}, "appears twice"),
    ({"tasks": "x"}, "'tasks' must be a list"),
])
def test_gridmarket_json_errors_name_the_culprit(doc, message):
    with pytest.raises(InvalidInput, match=message):
        workflow_from_dict(doc)


def test_unreadable_files_name_path_and_line(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"tasks": [\n  oops]}')
    with pytest.raises(InvalidInput, match=r"bad\.json:2: not JSON"):
        read_workflow_json(bad)
    xml = tmp_path / "bad.xml"
    xml.write_text("<adag>\n<job id='a' runtime='1'>\n</adag>")
    with pytest.raises(InvalidInput, match=r"bad\.xml:3: malformed XML"):
        read_dax(xml)
    with pytest.raises(InvalidInput, match="cannot read"):
        read_dax(tmp_path / "missing.xml")


def test_dax_errors_for_missing_runtime_and_unknown_parent(tmp_path):
    p = tmp_path / "w.xml"
    p.write_text('<adag><job id="a" name="x"/></adag>')
    with pytest.raises(InvalidInput, match="job 'a' has no runtime"):
        read_dax(p)
    p.write_text('<adag><job id="a" runtime="1"/><child ref="a"><parent ref="q"/></child></adag>')
    with pytest.raises(InvalidInput, match="unknown parent 'q'"):
        read_dax(p)


def test_wfformat_errors_for_missing_runtime_and_unknown_parent(tmp_path):
    doc = {"workflow": {"specification": {"tasks": [{"id": "a", "parents": ["zz"]}], "files": []},
                        "execution": {"tasks": [{"id": "a", "runtimeInSeconds": 3}]}}}
    p = tmp_path / "w.json"
    p.write_text(json.dumps(doc))
    with pytest.raises(InvalidInput, match="task 'a' names an unknown parent 'zz'"):
        read_wfformat(p)
    doc["workflow"]["execution"]["tasks"] = []
    p.write_text(json.dumps(doc))
    with pytest.raises(InvalidInput, match="task 'a' has no runtime"):
        read_wfformat(p)
