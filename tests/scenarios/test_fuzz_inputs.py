"""Fuzzed input documents: every mutation of a valid document is either refused with one line
naming the file (exit 2) or, where it changes nothing the command reads, accepted; never a traceback,
and never exit 0 for a renamed key (a typo that would otherwise be silently ignored).

The mutations: drop a key, rename one (a typo), retype a value, put a number out of range, truncate
the text, write it in another encoding. Run in-process through ``gridmarket.scenarios.commands.cli.main`` (bounded
examples; CI derandomizes them).
"""

import json
import string

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gridmarket.scenarios.commands.cli import main

H = 3600
STATE = {"now": 0, "procs": 5,
         "running": [{"id": 1, "procs": 1, "start": 0, "end": 2 * H}, {"id": 2, "procs": 3, "start": 0, "end": 3 * H}],
         "queued": [{"id": 3, "submit": 0, "procs": 2, "estimate": 2 * H}],
         "reservations": [{"id": "R", "start": 5 * H, "procs": 2, "duration": 3 * H}]}
COSTS = {"jobs": ["a", "b"], "systems": ["X", "Y"], "cost": [[1, 2], [2, None]], "capacity": {"X": 1, "Y": 1}}
SLOTS = {"slots": [{"resource": "r", "start": 0, "procs": 4, "duration": 3600, "divisible": True}],
         "resources": {"r": {"procs": 4}}}
WORKFLOW = {"tasks": [{"id": "a", "procs": 1, "runtime": 60}, {"id": "b", "procs": 2, "runtime": 30}],
            "edges": [{"from": "a", "to": "b", "data": 10}]}

DOCUMENTS = {
    "state": (STATE, lambda p, other: ["quote", "--state", p, "--procs", "2", "--duration", "3600"]),
    "costs": (COSTS, lambda p, other: ["clear", "--costs", p]),
    "slots": (SLOTS, lambda p, other: ["provision", "--workflow", other, "--slots", p]),
    "workflow": (WORKFLOW, lambda p, other: ["provision", "--workflow", p, "--slots", other]),
}


def _paths(doc):
    """Every (path, container, key) inside ``doc``."""
    out = []

    def walk(node, path):
        items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else []
        for key, value in items:
            out.append((path + (key,), node, key))
            walk(value, path + (key,))

    walk(doc, ())
    return out


@st.composite
def mutations(draw, doc):
    doc = json.loads(json.dumps(doc))
    places = _paths(doc)
    kind = draw(st.sampled_from(["drop", "rename", "retype", "range", "truncate", "encoding"]))
    if kind in ("truncate", "encoding"):
        return kind, doc
    path, node, key = draw(st.sampled_from(places))
    if kind == "drop":
        if isinstance(node, dict):
            del node[key]
        else:
            node.pop(key)
    elif kind == "rename":
        dicts = [(p, n, k) for p, n, k in places if isinstance(n, dict)]
        path, node, key = draw(st.sampled_from(dicts))
        if isinstance(node, dict) and key in ("r",) and path[-2:-1] == ("resources",):
            kind = "drop"  # resource names are data, not keys; renaming one changes which resource it is
        typo = draw(st.text(string.ascii_lowercase, min_size=1, max_size=2))
        node[str(key) + typo] = node.pop(key)
    elif kind == "retype":
        node[key] = draw(st.sampled_from(["x", "", [], {}, None, True, 1.5, [1, 2]]))
    else:
        node[key] = draw(st.sampled_from([-1, 0, -10**9, 10**18, 1e308]))
    return kind, doc


def _write(tmp_path, name, kind, doc, draw_cut):
    text = json.dumps(doc)
    path = tmp_path / name
    if kind == "truncate":
        path.write_text(text[:draw_cut % max(len(text), 1)])
    elif kind == "encoding":
        path.write_bytes(text.replace('"', "\u201c", 1).encode("utf-16"))
    else:
        path.write_text(text)
    return str(path)


@pytest.mark.parametrize("name", sorted(DOCUMENTS))
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_mutated_documents_get_one_line_errors_never_tracebacks(name, data, tmp_path, capsys):
    doc, argv = DOCUMENTS[name]
    kind, mutated = data.draw(mutations(doc))
    path = _write(tmp_path, f"{name}.json", kind, mutated, data.draw(st.integers(0, 10**6)))
    other_doc = WORKFLOW if name == "slots" else SLOTS
    other = tmp_path / "other.json"
    other.write_text(json.dumps(other_doc))
    try:
        status = main(argv(path, str(other)))
    except SystemExit as exc:  # argparse
        status = exc.code
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    if status == 1:  # a valid document with no answer (provision: a task fits in no slot, e.g. runtime 1e18 s)
        assert name in ("slots", "workflow") and out.startswith("infeasible: ") and len(out.splitlines()) == 1, out
        return
    assert status in (0, 2), (kind, mutated, err)
    if status == 2:
        lines = [line for line in err.splitlines() if not line.startswith("gridmarket: warning:")]
        assert len(lines) == 1 and lines[0].startswith("gridmarket") and "error" in lines[0], err
    if kind in ("rename", "truncate", "encoding"):
        assert status == 2, (kind, mutated, out)


SWF = "\n".join([
    "; MaxProcs: 8",
    "1 0 0 100 2 -1 -1 2 200 -1 1 1 1 -1 1 -1 -1 -1",
    "2 10 0 50 4 -1 -1 4 100 -1 1 2 1 -1 1 -1 -1 -1",
    "3 20 0 300 8 -1 -1 8 400 -1 1 1 1 -1 1 -1 -1 -1",
]) + "\n"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(line=st.integers(1, 3), field=st.integers(0, 17),
       value=st.sampled_from(["x", "", "-5", "1e99", "3.5", "nan", "99999999999999999999"]),
       cut=st.integers(0, 400))
def test_mutated_swf_traces_are_read_or_refused_by_line_never_a_traceback(line, field, value, cut, tmp_path,
                                                                          capsys):
    lines = SWF.splitlines()
    fields = lines[line].split()
    fields[field] = value
    lines[line] = " ".join(f for f in fields if f != "" or value != "")
    text = "\n".join(lines)[: max(cut, 60)]
    path = tmp_path / "t.swf"
    path.write_text(text)
    try:
        status = main(["simulate", "--trace", str(path), "--policy", "easy"])
    except SystemExit as exc:
        status = exc.code
    out, err = capsys.readouterr()
    assert "Traceback" not in err and status in (0, 2), err
    if status == 2:
        assert "t.swf" in err and err.count("\n") == 1, err
