"""Read WfCommons WfFormat JSON workflow instances (schema 1.4-1.6) and the simple gridmarket JSON.

WfFormat (https://github.com/wfcommons/wfformat): ``workflow.specification.tasks[]``
lists ``id``, ``parents``, ``children``, ``inputFiles`` and ``outputFiles``
(file ids); ``workflow.specification.files[]`` gives ``sizeInBytes``;
``workflow.execution.tasks[]`` gives ``runtimeInSeconds`` and optionally
``coreCount``. The older layout (schema <= 1.4) keeps everything in
``workflow.tasks[]`` with ``runtime``/``runtimeInSeconds``, ``cores`` and inline
``files`` (``link`` input/output). The gridmarket format (what the CLI's workflow files use) is
``{"tasks": [{"id", "procs", "runtime"}], "edges": [{"from", "to", "data"}]}``
with ``data`` in bytes.

Times are integer seconds (real runtimes are rounded up, at least 1 s);
data sizes are bytes: an edge carries the bytes of every file the parent
writes and the child reads.
"""

from __future__ import annotations

import json  # noqa: F401  (the doctests write JSON)
import math
from collections.abc import Mapping
from os import PathLike
from pathlib import Path

import networkx as nx

from gridmarket.errors import InvalidInput
from gridmarket.validation import check_keys, read_json
from gridmarket.workflows.dag import validate_workflow

__all__ = ["read_wfformat", "read_workflow_json", "workflow_from_dict", "workflow_to_dict"]


def _seconds(value: object, where: str) -> int:
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not 0 <= value < math.inf:
        raise InvalidInput(f"{where}: runtime must be a number of seconds >= 0, got {_shown(value)}")
    return max(1, math.ceil(value))


def _load(path: str | PathLike[str]) -> dict:
    p = Path(path)
    doc = read_json(p, "workflow")
    if not isinstance(doc, dict):
        raise InvalidInput(f"{p}: a workflow file holds a JSON object, got {type(doc).__name__}")
    return doc


def read_wfformat(path: str | PathLike[str], *, default_procs: int = 1) -> nx.DiGraph:
    """Read a WfCommons instance (WfFormat JSON) as a workflow.

    Parameters
    ----------
    path : path-like
        A ``.json`` WfFormat file.
    default_procs : int
        Processors of a task whose ``coreCount`` (``cores``) is absent.

    Returns
    -------
    networkx.DiGraph
        Task ids as nodes with ``procs``, ``runtime`` (seconds, rounded up, at
        least 1) and ``name``; edges with ``data_bytes``. Graph attribute
        ``name`` is the instance's name.

    Raises
    ------
    InvalidInput
        Unreadable file, not WfFormat, a task without runtime, an unknown
        parent or child, a cycle. Messages name the path and the task.

    Examples
    --------
    >>> import tempfile, os
    >>> doc = {"name": "tiny", "workflow": {
    ...     "specification": {"tasks": [
    ...         {"id": "a", "parents": [], "children": ["b"], "inputFiles": [], "outputFiles": ["f"]},
    ...         {"id": "b", "parents": ["a"], "children": [], "inputFiles": ["f"], "outputFiles": []}],
    ...       "files": [{"id": "f", "sizeInBytes": 2048}]},
    ...     "execution": {"tasks": [{"id": "a", "runtimeInSeconds": 1.5, "coreCount": 4},
    ...                             {"id": "b", "runtimeInSeconds": 10}]}}}
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = os.path.join(d, "tiny.json")
    ...     _ = open(p, "w").write(json.dumps(doc))
    ...     g = read_wfformat(p)
    >>> dict(g.nodes(data="runtime")), dict(g.nodes(data="procs")), g.edges["a", "b"]["data_bytes"]
    ({'a': 2, 'b': 10}, {'a': 4, 'b': 1}, 2048)
    """
    doc = _load(path)
    return _from_wfformat(doc, str(path), default_procs)


def _object(value: object, where: str) -> Mapping:
    if not isinstance(value, Mapping):
        raise InvalidInput(f"{where} must be an object, got {_shown(value)}")
    return value


def _array(value: object, where: str) -> list:
    if not isinstance(value, list):
        raise InvalidInput(f"{where} must be a list, got {_shown(value)}")
    return value


def _name(value: object, where: str) -> str | int:
    """A task or file id: a string (WfFormat's type) or an integer."""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise InvalidInput(f"{where} must be a string id, got {_shown(value)}")
    return value


def _names(value: object, where: str) -> list[str | int]:
    return [_name(v, f"{where}[{i}]") for i, v in enumerate(_array(value, where))]


def _bytes(value: object, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < math.inf:
        raise InvalidInput(f"{where} must be a number of bytes >= 0, got {_shown(value)}")
    return int(value)


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _from_wfformat(doc: Mapping, where: str, default_procs: int) -> nx.DiGraph:
    """The workflow of a parsed WfFormat document; every field it reads is checked, named by its JSON path."""
    wf = doc.get("workflow")
    if not isinstance(wf, Mapping):
        raise InvalidInput(f"{where}: no 'workflow' object: not a WfFormat instance")
    name = doc.get("name", "")
    if not isinstance(name, str):
        raise InvalidInput(f"{where}: name must be a string, got {_shown(name)}")
    g: nx.DiGraph = nx.DiGraph(name=name)
    sizes: dict[str | int, int] = {}
    inputs: dict[str | int, set] = {}
    outputs: dict[str | int, set] = {}
    links: list[tuple[str, str | int, list[str | int], list[str | int]]] = []  # (where, task, parents, children)
    if "specification" in wf:
        spec = _object(wf["specification"], f"{where}: workflow.specification")
        execution = _object(wf.get("execution", {}), f"{where}: workflow.execution")
        for i, f in enumerate(_array(spec.get("files", []), f"{where}: workflow.specification.files")):
            at = f"{where}: workflow.specification.files[{i}]"
            fid = _name(_object(f, at).get("id"), f"{at}.id")
            if fid in sizes:
                raise InvalidInput(f"{at}: file id {fid!r} appears twice")
            sizes[fid] = _bytes(f.get("sizeInBytes", 0), f"{at}.sizeInBytes")
        runs: dict[str | int, Mapping] = {}
        for i, run in enumerate(_array(execution.get("tasks", []), f"{where}: workflow.execution.tasks")):
            at = f"{where}: workflow.execution.tasks[{i}]"
            rid = _name(_object(run, at).get("id"), f"{at}.id")
            if rid in runs:
                raise InvalidInput(f"{at}: task {rid!r} appears twice")
            runs[rid] = run
        for i, t in enumerate(_array(spec.get("tasks", []), f"{where}: workflow.specification.tasks")):
            at = f"{where}: workflow.specification.tasks[{i}]"
            if _object(t, at).get("id") is None:
                raise InvalidInput(f"{at}: a task has no id")
            tid = _name(t["id"], f"{at}.id")
            if tid in g:
                raise InvalidInput(f"{at}: task id {tid!r} appears twice")
            run = runs.get(tid)
            if run is None or "runtimeInSeconds" not in run:
                raise InvalidInput(f"{where}: task {tid!r} has no runtime in workflow.execution.tasks")
            g.add_node(tid, runtime=_seconds(run["runtimeInSeconds"], f"{where}: task {tid!r}"),
                       procs=_procs(run.get("coreCount", default_procs), where, tid),
                       name=_task_name(t.get("name", tid), at))
            for key, files in (("inputFiles", inputs), ("outputFiles", outputs)):
                files[tid] = set(_names(t.get(key, []), f"{at}.{key}"))
                unknown = files[tid] - sizes.keys()
                if unknown:
                    raise InvalidInput(f"{at}.{key}: names a file {min(unknown, key=str)!r} that "
                                       "workflow.specification.files does not list")
            links.append((at, tid, _names(t.get("parents", []), f"{at}.parents"),
                          _names(t.get("children", []), f"{at}.children")))
        unrun = sorted(runs.keys() - g.nodes, key=str)
        if unrun:
            raise InvalidInput(f"{where}: workflow.execution.tasks runs {unrun[0]!r}, which "
                               "workflow.specification.tasks does not list")
    else:
        tasks = wf.get("tasks")
        if not isinstance(tasks, list):
            raise InvalidInput(f"{where}: no workflow.specification nor workflow.tasks: not WfFormat")
        for i, t in enumerate(tasks):
            at = f"{where}: workflow.tasks[{i}]"
            tid = _object(t, at).get("id", t.get("name"))
            runtime = t.get("runtimeInSeconds", t.get("runtime"))
            if tid is None or runtime is None:
                raise InvalidInput(f"{where}: task {tid!r} has no id or no runtime")
            tid = _name(tid, f"{at}.id")
            if tid in g:
                raise InvalidInput(f"{at}: task id {tid!r} appears twice")
            g.add_node(tid, runtime=_seconds(runtime, f"{where}: task {tid!r}"),
                       procs=_procs(t.get("cores", t.get("coreCount", default_procs)), where, tid),
                       name=_task_name(t.get("name", tid), at))
            inputs[tid], outputs[tid] = set(), set()
            for k, f in enumerate(_array(t.get("files", []), f"{at}.files")):
                fat = f"{at}.files[{k}]"
                fid = _name(_object(f, fat).get("id", f.get("name")), f"{fat}.id")
                size = _bytes(f.get("sizeInBytes", f.get("size", 0)), f"{fat}.sizeInBytes")
                if sizes.setdefault(fid, size) != size:
                    raise InvalidInput(f"{fat}: file {fid!r} has {size} bytes here and {sizes[fid]} in another task")
                (inputs if f.get("link") == "input" else outputs)[tid].add(fid)
            links.append((at, tid, _names(t.get("parents", []), f"{at}.parents"),
                          _names(t.get("children", []), f"{at}.children")))
    for _, tid, parents, children in links:
        for parent in parents:
            if parent not in g:
                raise InvalidInput(f"{where}: task {tid!r} names an unknown parent {parent!r}")
            shared = outputs[parent] & inputs[tid]
            g.add_edge(parent, tid, data_bytes=int(sum(sizes.get(f, 0) for f in shared)))
        for child in children:
            if child not in g:
                raise InvalidInput(f"{where}: task {tid!r} names an unknown child {child!r}")
            if not g.has_edge(tid, child):
                shared = outputs[tid] & inputs[child]
                g.add_edge(tid, child, data_bytes=int(sum(sizes.get(f, 0) for f in shared)))
    return validate_workflow(g, where=where)


def _task_name(value: object, where: str) -> str | int:
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise InvalidInput(f"{where}.name must be a string, got {_shown(value)}")
    return value


def _procs(value: object, where: str, task: object) -> int:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise InvalidInput(f"{where}: task {task!r}: coreCount must be an int >= 1, got {_shown(value)}")
    return value


def workflow_from_dict(doc: Mapping, *, where: str = "workflow") -> nx.DiGraph:
    """A workflow from the gridmarket JSON object ``{"tasks": [...], "edges": [...]}``.

    ``runtime`` is an int of seconds or an object of resource name to seconds;
    ``data`` (bytes) is optional on an edge.

    >>> g = workflow_from_dict({"tasks": [{"id": "a", "procs": 2, "runtime": 60},
    ...                                   {"id": "b", "procs": 1, "runtime": 30}],
    ...                         "edges": [{"from": "a", "to": "b", "data": 1000}]})
    >>> list(g.edges(data=True))
    [('a', 'b', {'data_bytes': 1000})]
    """
    check_keys(where, doc, ("tasks", "edges"), required=("tasks",))
    tasks = doc.get("tasks")
    if not isinstance(tasks, list):
        raise InvalidInput(f"{where}: 'tasks' must be a list")
    g: nx.DiGraph = nx.DiGraph()
    for i, t in enumerate(tasks):
        if not isinstance(t, Mapping) or "id" not in t:
            raise InvalidInput(f"{where}: tasks[{i}] has no id")
        check_keys(f"{where}: tasks[{i}]", t, ("id", "procs", "runtime"))
        if not isinstance(t["id"], (str, int)) or isinstance(t["id"], bool):
            raise InvalidInput(f"{where}: tasks[{i}].id must be a string or an integer (got {t['id']!r})")
        if "runtime" not in t:
            raise InvalidInput(f"{where}: task {t['id']!r} has no runtime")
        if t["id"] in g:
            raise InvalidInput(f"{where}: task id {t['id']!r} appears twice")
        runtime = t["runtime"]
        if isinstance(runtime, Mapping):
            runtime = dict(runtime)
        g.add_node(t["id"], procs=t.get("procs", 1), runtime=runtime)
    edges = doc.get("edges", [])
    if not isinstance(edges, list):
        raise InvalidInput(f"{where}: edges must be a list (got {edges!r})")
    for i, e in enumerate(edges):
        if not isinstance(e, Mapping) or "from" not in e or "to" not in e:
            raise InvalidInput(f"{where}: edges[{i}] needs 'from' and 'to'")
        check_keys(f"{where}: edges[{i}]", e, ("from", "to", "data"))
        data = e.get("data", 0)
        if isinstance(data, bool) or not isinstance(data, (int, float)) or not 0 <= data < float("inf"):
            raise InvalidInput(f"{where}: edges[{i}].data must be a number of bytes >= 0 (got {data!r})")
        for end in ("from", "to"):
            if not isinstance(e[end], (str, int)) or isinstance(e[end], bool) or e[end] not in g:
                raise InvalidInput(f"{where}: edges[{i}] names an unknown task {e[end]!r}")
        g.add_edge(e["from"], e["to"], data_bytes=e.get("data", 0))
    return validate_workflow(g, where=where)


def workflow_to_dict(workflow: nx.DiGraph) -> dict:
    """The gridmarket JSON object of ``workflow`` (inverse of :func:`workflow_from_dict`)."""
    validate_workflow(workflow)
    return {
        "tasks": [
            {"id": t, "procs": a.get("procs", 0), "runtime": dict(a["runtime"]) if isinstance(a["runtime"], Mapping)
             else a["runtime"]}
            for t, a in workflow.nodes(data=True)
        ],
        "edges": [{"from": u, "to": v, "data": a.get("data_bytes", 0)} for u, v, a in workflow.edges(data=True)],
    }


def read_workflow_json(path: str | PathLike[str]) -> nx.DiGraph:
    """Read a workflow from the gridmarket JSON format, or from WfFormat JSON.

    The format is recognised by its keys: ``tasks`` at the top level is the
    gridmarket format, ``workflow`` is WfFormat.
    """
    doc = _load(path)
    if "workflow" in doc:
        return _from_wfformat(doc, str(path), 1)
    return workflow_from_dict(doc, where=str(path))
