"""The hostile-input review's cases, through the command line: each is one line naming the file (and the key
or line), exit status 2, no traceback, nothing run; inputs that used to be ignored are refused.

1. nested fields of WfFormat/DAX workflows and sweep files are checked; a repeated DAX job id is named;
2. documents are decoded before use: depth, bytes that are not UTF-8, byte order marks;
3. inputs that were silently ignored: ``workload.trace`` beside another source, ``run FILE.toml --seeds``,
   a model named twice, a JSON key given twice, a slot wider than its machine.
"""

import json

import pytest

from gridmarket.errors import InvalidInput
from gridmarket.scenarios.commands.cli import main
from gridmarket.scenarios.config import load_toml, load_toml_text, with_overrides
from gridmarket.scenarios.registry import get_scenario
from gridmarket.scenarios.sweep import run_sweep

SLOTS = {"slots": [{"resource": "r", "start": 0, "procs": 4, "duration": 3600, "divisible": True}],
         "resources": {"r": {"procs": 4}}}
WORKFLOW = {"tasks": [{"id": "a", "procs": 1, "runtime": 60}, {"id": "b", "procs": 1, "runtime": 60}],
            "edges": [{"from": "a", "to": "b"}]}
STATE = {"now": 0, "procs": 4, "running": [], "queued": []}
TOML = """name = "tiny"
models = ["best-effort"]
[[providers]]
name = "a"
procs = 16
[workload]
source = "lublin"
n_jobs = 10
procs = 16
"""
WFFORMAT = {"name": "w", "workflow": {
    "specification": {"tasks": [{"id": "a", "parents": [], "children": ["b"], "inputFiles": [], "outputFiles": ["f"]},
                                {"id": "b", "parents": ["a"], "children": [], "inputFiles": ["f"], "outputFiles": []}],
                      "files": [{"id": "f", "sizeInBytes": 10}]},
    "execution": {"tasks": [{"id": "a", "runtimeInSeconds": 5}, {"id": "b", "runtimeInSeconds": 5}]}}}


def _run(argv, capsys):
    try:
        status = main(argv)
    except SystemExit as exc:
        status = exc.code
    out, err = capsys.readouterr()
    return status, out, err


def _refused(argv, capsys, message):
    status, out, err = _run(argv, capsys)
    assert status == 2 and "Traceback" not in err and err.count("\n") == 1, err
    assert message in err, err
    return err


def _provision(tmp_path, capsys, message, *, workflow=None, slots=None, name="wf.json"):
    wf = tmp_path / name
    if isinstance(workflow, str):
        wf.write_text(workflow)
    else:
        wf.write_text(json.dumps(WORKFLOW if workflow is None else workflow))
    sl = tmp_path / "slots.json"
    sl.write_text(slots if isinstance(slots, str) else json.dumps(SLOTS if slots is None else slots))
    return _refused(["provision", "--workflow", str(wf), "--slots", str(sl), "--method", "greedy"], capsys, message)


# ---- 1. nested fields --------------------------------------------------------------------------


def _wfformat(change):
    doc = json.loads(json.dumps(WFFORMAT))
    change(doc["workflow"])
    return doc


@pytest.mark.parametrize("change, message", [
    (lambda w: w["specification"]["tasks"][1].update(parents="a"),
     "workflow.specification.tasks[1].parents must be a list, got 'a'"),
    (lambda w: w["specification"]["tasks"][1].update(inputFiles=[["f"]]),
     "workflow.specification.tasks[1].inputFiles[0] must be a string id, got ['f']"),
    (lambda w: w["specification"]["files"].append(5), "workflow.specification.files[1] must be an object, got 5"),
    (lambda w: w["specification"]["files"][0].update(sizeInBytes="10"),
     "workflow.specification.files[0].sizeInBytes must be a number of bytes >= 0, got '10'"),
    (lambda w: w["specification"]["tasks"].append(3), "workflow.specification.tasks[2] must be an object, got 3"),
    (lambda w: w["specification"]["tasks"][1].update(id="a"), "workflow.specification.tasks[1]: task id 'a' "
     "appears twice"),
    (lambda w: w["specification"]["tasks"][1].update(inputFiles=["g"]),
     "workflow.specification.tasks[1].inputFiles: names a file 'g' that workflow.specification.files does not list"),
    (lambda w: w["execution"].update(tasks={"a": 1}), "workflow.execution.tasks must be a list, got {'a': 1}"),
    (lambda w: w.update(specification=[]), "workflow.specification must be an object, got []"),
])
def test_wfformat_nested_fields_are_checked_and_named(tmp_path, capsys, change, message):
    err = _provision(tmp_path, capsys, message, workflow=_wfformat(change))
    assert "wf.json: " in err


def test_old_wfformat_layout_fields_are_checked(tmp_path, capsys):
    doc = {"name": "w", "workflow": {"tasks": [{"id": "a", "runtime": 5, "files": [{"name": "f", "size": "x"}]}]}}
    _provision(tmp_path, capsys, "wf.json: workflow.tasks[0].files[0].sizeInBytes must be a number of bytes >= 0",
               workflow=doc)
    _provision(tmp_path, capsys, "wf.json: workflow.tasks[0] must be an object, got 5",
               workflow={"workflow": {"tasks": [5]}})


@pytest.mark.parametrize("xml, message", [
    ('<adag><job id="A" runtime="1"/><job id="A" runtime="2"/></adag>', "w.xml: job id 'A' appears twice"),
    ('<adag><job id="A" runtime="1"><uses file="f" link="output" size="abc"/></job></adag>',
     "w.xml: job 'A': <uses file='f'> size 'abc' is not a number"),
    ('<adag><job id="A" runtime="1"><uses file="f" size="-5"/></job></adag>',
     "w.xml: job 'A': <uses file='f'> size must be a finite number >= 0, got '-5'"),
    ('<adag><job id="A" runtime="1"><uses link="input"/></job></adag>', "w.xml: job 'A': a <uses> has no file"),
    ("<adag></adag>", "w.xml: workflow has no task"),
])
def test_dax_fields_are_checked_and_a_repeated_job_id_is_not_called_a_cycle(tmp_path, capsys, xml, message):
    err = _provision(tmp_path, capsys, message, workflow=xml, name="w.xml")
    assert "cycle" not in err


def test_a_damaged_sweep_manifest_is_one_line_before_any_run(tmp_path):
    config = load_toml_text(TOML, where="t.toml")
    for text, message in (("[1]", "a sweep manifest is an object, got list"),
                          ("[" * 5000 + "]" * 5000, "sweep manifest is nested more than 64 levels deep"),
                          ('{"scenario": 1, "scenario": 2}', "key 'scenario' appears twice")):
        out = tmp_path / "sweep"
        out.mkdir(exist_ok=True)
        (out / "sweep.json").write_text(text)
        with pytest.raises(InvalidInput, match=message):
            run_sweep(config, {"seed": [1]}, out, resume=True)


# ---- 2. decoding before validation ------------------------------------------------------------------


@pytest.mark.parametrize("raw, message", [
    (b"name = " + b"[" * 100_000 + b"]" * 100_000 + b"\n", "s.toml: scenario is nested more than 64 levels deep"),
    (b'name = "x\xff"\n', "s.toml:1: scenario is not UTF-8 text (invalid start byte 0xff at byte offset 9)"),
    (TOML.encode("utf-16"), "s.toml: scenario is UTF-16 text"),
])
def test_scenario_toml_is_decoded_before_it_is_parsed(tmp_path, capsys, raw, message):
    path = tmp_path / "s.toml"
    path.write_bytes(raw)
    _refused(["compare", "--scenario", str(path)], capsys, message)


def test_a_byte_order_mark_does_not_hide_the_document(tmp_path):
    path = tmp_path / "s.toml"
    path.write_bytes(b"\xef\xbb\xbf" + TOML.encode())
    assert load_toml(path).name == "tiny"


@pytest.mark.parametrize("text, message", [
    ("[" * 100_000 + "]" * 100_000, "st.json: state is nested more than 64 levels deep"),
    ('{"now": 0, "procs": 4, "procs": 8}', "st.json:1: key 'procs' appears twice in one object"),
    ('{"now": NaN, "procs": 4}', "st.json: not JSON: NaN is not a JSON number"),
])
def test_state_json_is_decoded_before_it_is_used(tmp_path, capsys, text, message):
    path = tmp_path / "st.json"
    path.write_text(text)
    _refused(["quote", "--state", str(path), "--procs", "1", "--duration", "60"], capsys, message)


def test_a_bom_before_a_state_reads_as_the_state(tmp_path, capsys):
    path = tmp_path / "st.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(STATE).encode())
    status, out, err = _run(["quote", "--state", str(path), "--procs", "1", "--duration", "60"], capsys)
    assert status == 0, err


def test_costs_from_standard_input_are_decoded_as_files_are(capsys, monkeypatch):
    import io
    import sys

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b'{"jobs": [], "jobs": []}')))
    _refused(["clear", "--costs", "-"], capsys, "standard input:1: key 'jobs' appears twice")


# ---- 3. inputs that were ignored --------------------------------------------------------------------


def test_workload_trace_with_another_source_names_both_keys():
    with pytest.raises(InvalidInput, match=r"t\.toml: workload.trace \('x.swf'\) is read only with workload.source "
                                           r"= 'trace', not 'lublin'"):
        load_toml_text(TOML + 'trace = "x.swf"\n', where="t.toml")


def test_workload_trace_as_a_sweep_grid_parameter_needs_the_trace_source(tmp_path):
    config = load_toml_text(TOML, where="t.toml")
    with pytest.raises(InvalidInput, match="workload.trace .* is read only with workload.source = 'trace'"):
        run_sweep(config, {"workload.trace": ["a.swf", "b.swf"]}, tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_run_scenario_with_seeds_is_refused_and_points_at_sweep(tmp_path, capsys):
    path = tmp_path / "s.toml"
    path.write_text(TOML)
    _refused(["run", str(path), "--seeds", "1..3"], capsys, f"run its seeds with 'gridmarket sweep {path} --grid "
                                                             "seed=1..3'")
    _refused(["run", "quickstart", "--json"], capsys, "--json applies to reproductions only")


def test_a_model_named_twice_is_refused(tmp_path, capsys):
    _refused(["compare", "--models", "mcmf,moga,mcmf"], capsys, "models: 'mcmf' is named twice")
    with pytest.raises(InvalidInput, match="'best-effort' is named twice"):
        load_toml_text(TOML.replace('["best-effort"]', '["best-effort", "best-effort"]'))
    with pytest.raises(InvalidInput, match="'greedy' is named twice"):
        with_overrides(get_scenario("quickstart"), {"models": ("greedy", "greedy")})


def test_a_json_key_given_twice_is_refused(tmp_path, capsys):
    text = json.dumps(SLOTS).replace('{"slots": ', '{"slots": [], "slots": ', 1)
    _provision(tmp_path, capsys, "slots.json:1: key 'slots' appears twice in one object", slots=text)


def test_a_slot_wider_than_its_machine_is_refused(tmp_path, capsys):
    slots = json.loads(json.dumps(SLOTS))
    slots["slots"][0]["procs"] = 400
    _provision(tmp_path, capsys, "slots.json: slots[0].procs: 400 processors on resource 'r', whose machine has 4",
               slots=slots)


# ---- found by the document fuzz -------------------------------------------------------------------


def test_a_trace_with_a_byte_order_mark_reads_and_a_missing_one_is_named(tmp_path, capsys):
    trace = tmp_path / "t.swf"
    trace.write_bytes(b"\xef\xbb\xbf; MaxProcs: 8\n1 0 0 100 2 -1 -1 2 200 -1 1 1 1 -1 1 -1 -1 -1\n")
    status, out, err = _run(["simulate", "--trace", str(trace)], capsys)
    assert status == 0, err
    _refused(["simulate", "--trace", str(tmp_path / "none.swf")], capsys, "none.swf: cannot read job log: No such file")


def test_a_price_csv_naming_a_column_twice_is_refused(tmp_path):
    from gridmarket.energy import read_prices

    path = tmp_path / "p.csv"
    path.write_text("timestamp,price,price\n2020-01-01T00:00:00,1,2\n")
    with pytest.raises(InvalidInput, match=r"p\.csv:1: column 'price' appears twice in the header"):
        read_prices(path)


def test_refusals_of_the_mechanisms_behind_clear_and_provision_name_the_files(tmp_path, capsys):
    costs = tmp_path / "costs.json"
    costs.write_text(json.dumps({"jobs": ["a"], "systems": ["X"], "cost": [[1]], "system_cost": [[None]]}))
    _refused(["clear", "--costs", str(costs), "--method", "stable-systems"], capsys,
             "costs.json: system_cost and cost disagree")
    workflow = {"tasks": [{"id": "a", "procs": 1, "runtime": {"elsewhere": 60}}]}
    _provision(tmp_path, capsys, "wf.json with ", workflow=workflow)
