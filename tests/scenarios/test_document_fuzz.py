"""Every document type gridmarket reads, fuzzed: a random or mutated document is read or refused with one
line of gridmarket's own error type naming the file; never another exception (no traceback).

One valid example per type is mutated at two levels: its parsed value (drop, rename or retype a key at any
depth, with random JSON values; a key given twice; a value nested deep) and its bytes (truncate, insert
brackets, quotes or any byte, a byte order mark, UTF-16). Bounded examples; CI derandomizes them
(``HYPOTHESIS_PROFILE=ci``).
"""

import json
import re
import warnings

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gridmarket.energy import read_prices
from gridmarket.errors import MarketError
from gridmarket.scenarios.commands.cli import main
from gridmarket.scenarios.config import load_toml
from gridmarket.scenarios.sweep import read_points
from gridmarket.workflows import read_dax, read_workflow_json
from gridmarket.workloads import read_gwf, read_swf

H = 3600
STATE = {"now": 0, "procs": 5,
         "running": [{"id": 1, "procs": 1, "start": 0, "end": 2 * H, "user": 1}],
         "queued": [{"id": 3, "submit": 0, "procs": 2, "estimate": 2 * H}],
         "reservations": [{"id": "R", "start": 5 * H, "procs": 2, "duration": 3 * H}]}
STATE_PSP = {"now": 100, "procs": 4, "running": [{"id": 1, "procs": 2, "start": 0, "end": 300, "user": 1}],
             "queued": [{"id": 2, "submit": 40, "procs": 4, "estimate": 200, "user": 2}],
             "policy_state": {"accuracy": {"2": 0.1, "1": 0.5}, "default_accuracy": 1.0}}
COSTS = {"jobs": ["a", "b"], "systems": ["X", "Y"], "cost": [[1, 2], [2, None]], "system_cost": [[1, 1], [2, None]],
         "capacity": {"X": 1, "Y": 1}}
SLOTS = {"slots": [{"resource": "r", "start": 0, "procs": 4, "duration": None, "divisible": True, "unit_cost": 1}],
         "resources": {"r": {"procs": 4}}, "release": 0, "network": {"latency": 0, "bytes_per_second": 1e9}}
WORKFLOW = {"tasks": [{"id": "a", "procs": 1, "runtime": 60}, {"id": "b", "procs": 2, "runtime": {"r": 30}}],
            "edges": [{"from": "a", "to": "b", "data": 10}]}
WFFORMAT = {"name": "w", "workflow": {
    "specification": {"tasks": [{"id": "a", "name": "pre", "parents": [], "children": ["b"], "inputFiles": [],
                                 "outputFiles": ["f"]},
                                {"id": "b", "parents": ["a"], "children": [], "inputFiles": ["f"], "outputFiles": []}],
                      "files": [{"id": "f", "sizeInBytes": 10}]},
    "execution": {"tasks": [{"id": "a", "runtimeInSeconds": 5.5, "coreCount": 2}, {"id": "b", "runtimeInSeconds": 5}]}}}
WFFORMAT_OLD = {"name": "w", "workflow": {"tasks": [
    {"name": "a", "runtime": 5, "cores": 1, "parents": [], "files": [{"name": "f", "size": 10, "link": "output"}]},
    {"name": "b", "runtime": 7, "parents": ["a"], "files": [{"name": "f", "size": 10, "link": "input"}]}]}}
SCENARIO = {"name": "tiny", "seed": 3, "models": ["best-effort", "mcmf"], "duration_seconds": 86400,
            "providers": [{"name": "a", "procs": 16, "policy": "easy", "prices": "fixed", "price_per_mwh": 40.0},
                          {"name": "b", "procs": 8, "overbooking": 1.5}],
            "workload": {"source": "lublin", "n_jobs": 10, "procs": 16, "workflow_files": ["w.json"]},
            "parameters": {"alpha": 0.5, "maxq": 2, "transfer_gbps": 10.0}}
DAX = """<?xml version="1.0" encoding="UTF-8"?>
<adag xmlns="http://pegasus.isi.edu/schema/DAX" name="w">
  <job id="A" name="pre" runtime="1.2"><uses file="f" link="output" size="10"/></job>
  <job id="B" name="run" runtime="30"><uses file="f" link="input" size="10"/></job>
  <child ref="B"><parent ref="A"/></child>
</adag>
"""
POINTS = "alpha,seed,model\n0,1,mcmf\n0.5,2,greedy\n"
PRICES = "timestamp,price,zone,currency\n" + "".join(f"2020-01-01T{h:02d}:00:00,{20 + h}.5,DE,EUR\n" for h in range(6))
SWF = "; MaxProcs: 8\n1 0 0 100 2 -1 -1 2 200 -1 1 1 1 -1 1 -1 -1 -1\n2 10 0 50 4 -1 -1 4 100 -1 1 2 1 -1 1 -1 -1 -1\n"
GWF = "# GWF\n" + "".join(f"{i} {10 * i} 0 100 2 -1 -1 2 200 -1 1 u{i} g1 -1 1 -1 -1 -1 s1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1\n"
                          for i in range(1, 3))


def _toml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float, str)):
        return json.dumps(value) if not isinstance(value, float) or value == value and abs(value) != float("inf") \
            else ("nan" if value != value else ("inf" if value > 0 else "-inf"))
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value if v is not None) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(str(k))} = {_toml_value(v)}" for k, v in value.items()
                               if v is not None) + "}"
    raise TypeError(value)


def to_toml(doc: dict) -> str:
    """A TOML text of ``doc`` (tables for objects, arrays of tables for lists of objects; null keys left out)."""
    lines, tables = [], []
    for key, value in doc.items():
        if isinstance(value, dict):
            tables.append(f"[{json.dumps(str(key))}]")
            tables += [f"{json.dumps(str(k))} = {_toml_value(v)}" for k, v in value.items() if v is not None]
        elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            for item in value:
                tables.append(f"[[{json.dumps(str(key))}]]")
                tables += [f"{json.dumps(str(k))} = {_toml_value(v)}" for k, v in item.items() if v is not None]
        elif value is not None:
            lines.append(f"{json.dumps(str(key))} = {_toml_value(value)}")
    return "\n".join(lines + tables) + "\n"


def _cli(argv):
    def run(path, tmp_path):
        try:
            status = main([a.replace("PATH", str(path)).replace("TMP", str(tmp_path)) for a in argv])
        except SystemExit as exc:  # argparse
            status = exc.code
        return status
    return run


def _reader(fn):
    def run(path, tmp_path):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # readers warn about dropped jobs; not the point here
            fn(path)
        return 0
    return run


# name: (file name, the valid document (a value, or text), how to read it)
DOCUMENTS = {
    "state": ("state.json", STATE, _cli(["quote", "--state", "PATH", "--procs", "2", "--duration", "3600"])),
    "state-psp": ("state.json", STATE_PSP, _cli(["quote", "--state", "PATH", "--policy", "psp", "--procs", "2",
                                                 "--duration", "3600"])),
    "costs": ("costs.json", COSTS, _cli(["clear", "--costs", "PATH", "--method", "stable-systems"])),
    "slots": ("slots.json", SLOTS, _cli(["provision", "--workflow", "TMP/other.json", "--slots", "PATH",
                                         "--method", "greedy"])),
    "workflow": ("wf.json", WORKFLOW, _reader(read_workflow_json)),
    "wfformat": ("wff.json", WFFORMAT, _reader(read_workflow_json)),
    "wfformat-old": ("wfo.json", WFFORMAT_OLD, _reader(read_workflow_json)),
    "scenario": ("s.toml", SCENARIO, _reader(load_toml)),
    "dax": ("w.xml", DAX, _reader(read_dax)),
    "points": ("design.csv", POINTS, _reader(read_points)),
    "prices": ("prices.csv", PRICES, _reader(read_prices)),
    "swf": ("t.swf", SWF, _reader(read_swf)),
    "gwf": ("t.gwf", GWF, _reader(read_gwf)),
}
STRUCTURED = [name for name, (_, doc, _) in DOCUMENTS.items() if not isinstance(doc, str)]

# no ':' in drawn text: a plug-in name ("package.module:Name") would import a module
_TEXT = st.text(st.characters(codec="utf-8", exclude_characters=":"), max_size=8)
_JSON = st.recursive(st.none() | st.booleans() | st.integers(-10**20, 10**20) | st.floats(allow_nan=False) | _TEXT,
                     lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_TEXT, inner, max_size=3),
                     max_leaves=8)


DEEP = "deeply-nested-"  # a value to be written as 1 inside this many arrays


def _places(doc):
    """Every (container, key) inside ``doc``."""
    out = []

    def walk(node):
        items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else []
        for key, value in list(items):
            out.append((node, key))
            walk(value)

    walk(doc)
    return out


@st.composite
def value_mutations(draw, doc):
    """``doc`` (a copy) changed at one place: dropped, renamed, retyped, given twice, or nested deep."""
    doc = json.loads(json.dumps(doc))
    node, key = draw(st.sampled_from(_places(doc)))
    kind = draw(st.sampled_from(["drop", "rename", "retype", "deep"]))
    if kind == "drop":
        del node[key]
    elif kind == "rename" and isinstance(node, dict):
        node[key + draw(st.text("abcxyz_", min_size=1, max_size=2))] = node.pop(key)
    elif kind == "deep":  # written out by _text_of: too deep for json.dumps itself
        node[key] = f"{DEEP}{draw(st.sampled_from([60, 70, 3000]))}"
    else:
        node[key] = draw(_JSON)
    return doc


def _bytes_mutation(data, text: str) -> bytes:
    kind = data.draw(st.sampled_from(["cut", "insert", "bytes", "bom", "utf16", "repeat-line"]))
    at = data.draw(st.integers(0, len(text)))
    if kind == "cut":
        return text[:at].encode()
    if kind == "insert":
        return (text[:at] + data.draw(st.text("[]{}\"'<>=,;#\\\n ", min_size=1, max_size=6)) + text[at:]).encode()
    if kind == "bytes":
        raw = text.encode()
        return raw[:at] + data.draw(st.binary(min_size=1, max_size=4)) + raw[at:]
    if kind == "bom":
        return b"\xef\xbb\xbf" + text.encode()
    if kind == "utf16":
        return text.encode("utf-16")
    lines = text.splitlines(keepends=True)
    k = data.draw(st.integers(0, max(len(lines) - 1, 0)))
    return "".join(lines[: k + 1] + lines[k:]).encode()


def _text_of(name, doc) -> str:
    if isinstance(doc, str):
        return doc
    text = to_toml(doc) if DOCUMENTS[name][0].endswith(".toml") else json.dumps(doc, indent=1)
    return re.sub(f'"{DEEP}(\\d+)"', lambda m: "[" * int(m[1]) + "1" + "]" * int(m[1]), text)


def _read(name, raw: bytes, tmp_path, capsys):
    """Read ``raw`` as document ``name``: assert it is read, or refused in one line naming the file."""
    file_name, _, read = DOCUMENTS[name]
    (tmp_path / "other.json").write_text(json.dumps(WORKFLOW))
    path = tmp_path / file_name
    path.write_bytes(raw)
    try:
        status = read(path, tmp_path)
    except MarketError as err:  # a reader's refusal: one line naming the file
        message = str(err)
        assert "\n" not in message and file_name in message, message
        return
    out, err = capsys.readouterr()
    assert "Traceback" not in err, err
    if status == 1:  # provision: a valid question without an answer
        assert name == "slots" and out.startswith("infeasible: "), out
        return
    assert status in (0, 2), err
    if status == 2:
        lines = [line for line in err.splitlines() if not line.startswith("gridmarket: warning:")]
        assert len(lines) == 1 and lines[0].startswith("gridmarket: error: ") and file_name in lines[0], err


@pytest.mark.parametrize("name", sorted(DOCUMENTS))
def test_the_valid_example_reads(name, tmp_path, capsys):
    _, doc, read = DOCUMENTS[name]
    path = tmp_path / DOCUMENTS[name][0]
    path.write_text(_text_of(name, doc))
    (tmp_path / "other.json").write_text(json.dumps(WORKFLOW))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert read(path, tmp_path) == 0, capsys.readouterr().err


@pytest.mark.parametrize("name", STRUCTURED)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_documents_mutated_in_value_are_read_or_refused_in_one_line(name, data, tmp_path, capsys):
    doc = DOCUMENTS[name][1]
    mutated = data.draw(value_mutations(doc))
    text = _text_of(name, mutated)
    if data.draw(st.booleans()) and name != "scenario":  # a key given twice, at the top
        key = data.draw(st.sampled_from(sorted(mutated))) if isinstance(mutated, dict) and mutated else None
        if key is not None:
            text = "{" + json.dumps(key) + ": " + json.dumps(mutated[key]) + ", " + text.lstrip()[1:]
    _read(name, text.encode(), tmp_path, capsys)


@pytest.mark.parametrize("name", sorted(DOCUMENTS))
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_documents_mutated_in_bytes_are_read_or_refused_in_one_line(name, data, tmp_path, capsys):
    _read(name, _bytes_mutation(data, _text_of(name, DOCUMENTS[name][1])), tmp_path, capsys)
