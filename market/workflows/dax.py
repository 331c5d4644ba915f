"""Read Pegasus DAX XML workflows (DAX 2.1-3.x, as the Pegasus Workflow Generator writes them).

``<job id name runtime="seconds">`` holds ``<uses file link="input|output"
size="bytes">``; dependencies are ``<child ref><parent ref/></child>``. The
namespace is ``http://pegasus.isi.edu/schema/DAX`` (tags are matched on their
local name, so un-namespaced files read too). Times are integer seconds (real
runtimes rounded up, at least 1 s); an edge carries the bytes of every file
the parent writes and the child reads.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from os import PathLike
from pathlib import Path

import networkx as nx

from gridmarket.errors import InvalidInput
from gridmarket.workflows.dag import validate_workflow

__all__ = ["read_dax"]


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _number(text: str, where: str) -> float:
    """``text`` as a finite number >= 0 (seconds or bytes); InvalidInput naming ``where`` otherwise."""
    try:
        value = float(text)
    except ValueError:
        raise InvalidInput(f"{where} {text!r} is not a number") from None
    if not 0 <= value < math.inf:
        raise InvalidInput(f"{where} must be a finite number >= 0, got {text!r}")
    return value


def read_dax(path: str | PathLike[str], *, procs: int = 1) -> nx.DiGraph:
    """Read a Pegasus DAX file as a workflow.

    Parameters
    ----------
    path : path-like
        The ``.xml``/``.dax`` file.
    procs : int
        Processors of every task (DAX 2.1 does not give them).

    Returns
    -------
    networkx.DiGraph
        Job ids as nodes with ``procs``, ``runtime`` and ``name`` (the
        transformation); edges with ``data_bytes``.

    Raises
    ------
    InvalidInput
        Unreadable or malformed XML (path and line), a job without runtime,
        a job id given twice, a runtime or file size that is not a number
        >= 0, a dependency on an unknown job, a cycle.

    Examples
    --------
    >>> import tempfile, os
    >>> xml = '''<adag xmlns="http://pegasus.isi.edu/schema/DAX">
    ...   <job id="A" name="pre" runtime="1.2"><uses file="f" link="output" size="10"/></job>
    ...   <job id="B" name="run" runtime="30"><uses file="f" link="input" size="10"/></job>
    ...   <child ref="B"><parent ref="A"/></child></adag>'''
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = os.path.join(d, "w.xml")
    ...     _ = open(p, "w").write(xml)
    ...     g = read_dax(p)
    >>> dict(g.nodes(data="runtime")), g.edges["A", "B"]["data_bytes"]
    ({'A': 2, 'B': 30}, 10)
    """
    p = Path(path)
    try:
        root = ET.parse(p).getroot()
    except OSError as exc:
        raise InvalidInput(f"{p}: cannot read DAX: {exc}") from None
    except ET.ParseError as exc:
        raise InvalidInput(f"{p}:{exc.position[0]}: malformed XML: {exc}") from None
    if _local(root.tag) != "adag":
        raise InvalidInput(f"{p}: root element is <{_local(root.tag)}>, not <adag>: not a DAX file")
    g: nx.DiGraph = nx.DiGraph(name=root.get("name", ""))
    # by job id, then file name
    inputs: dict[str, dict[str, int]] = {}
    outputs: dict[str, dict[str, int]] = {}
    for job in root:
        if _local(job.tag) != "job":
            continue
        jid, runtime = job.get("id"), job.get("runtime")
        if jid is None:
            raise InvalidInput(f"{p}: a <job> has no id")
        if jid in g:  # a repeated id would merge two jobs into one node (and look like a cycle)
            raise InvalidInput(f"{p}: job id {jid!r} appears twice")
        if runtime is None:
            raise InvalidInput(f"{p}: job {jid!r} has no runtime attribute")
        seconds = _number(runtime, f"{p}: job {jid!r}: runtime")
        g.add_node(jid, runtime=max(1, math.ceil(seconds)), procs=procs, name=job.get("name", jid))
        inputs[jid], outputs[jid] = {}, {}
        for use in job:
            if _local(use.tag) != "uses":
                continue
            name = use.get("file", use.get("name"))
            if name is None:
                raise InvalidInput(f"{p}: job {jid!r}: a <uses> has no file attribute")
            size = int(_number(use.get("size") or "0", f"{p}: job {jid!r}: <uses file={name!r}> size"))
            (inputs if use.get("link") == "input" else outputs)[jid][name] = size
    for child in root:
        if _local(child.tag) != "child":
            continue
        cid = child.get("ref")
        if cid is None or cid not in g:
            raise InvalidInput(f"{p}: <child ref={cid!r}> names an unknown job")
        for parent in child:
            pid = parent.get("ref")
            if pid is None or pid not in g:
                raise InvalidInput(f"{p}: job {cid!r} names an unknown parent {pid!r}")
            shared = outputs[pid].keys() & inputs[cid].keys()
            g.add_edge(pid, cid, data_bytes=sum(outputs[pid][f] for f in shared))
    return validate_workflow(g, where=str(p))
