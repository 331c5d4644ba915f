"""Every bad input gets one line naming the file and field, exit 2; no silent acceptance."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from gridmarket.scenarios.commands.cli import main

ROOT = Path(__file__).resolve().parents[2]
COSTS = {"jobs": ["a", "b"], "systems": ["X", "Y"], "cost": [[1, 2], [2, 1]], "capacity": {"X": 1, "Y": 1}}
SLOTS = {"slots": [{"resource": "r", "start": 0, "procs": 4, "duration": 3600, "divisible": True}],
         "resources": {"r": {"procs": 4}}}
WORKFLOW = {"tasks": [{"id": "a", "procs": 1, "runtime": 60}, {"id": "b", "procs": 1, "runtime": 60}],
            "edges": [{"from": "a", "to": "b"}]}


def _run(argv, capsys):
    try:
        status = main(argv)
    except SystemExit as exc:
        status = exc.code
    out, err = capsys.readouterr()
    return status, out, err


def _write(tmp_path, name, doc):
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return str(path)


@pytest.mark.parametrize("doc, field, message", [
    ({**{k: v for k, v in COSTS.items() if k != "capacity"}, "capacty": {"X": 1}}, "costs.json",
     "unknown key 'capacty' (did you mean 'capacity'?)"),
    ({**COSTS, "system_cost": [1, 2]}, "costs.json", "system_cost must be a list of 2 rows (one per job)"),
    ({**COSTS, "system_cost": [[1, "x"], [2, 1]]}, "costs.json", "system_cost entries must be numbers or null"),
    ({**COSTS, "capacity": [1]}, "costs.json", "capacity has 1 entries for 2 systems"),
])
def test_bad_costs_json_is_refused_with_file_and_field(tmp_path, capsys, doc, field, message):
    status, out, err = _run(["clear", "--costs", _write(tmp_path, field, doc), "--method", "stable-systems"], capsys)
    assert status == 2 and out == "" and err.count("\n") == 1
    assert f"{field}: {message}" in err and "Traceback" not in err


def test_capacity_as_a_list_per_system_is_accepted_as_the_mapping(tmp_path, capsys):
    listed = _run(["clear", "--costs", _write(tmp_path, "l.json", {**COSTS, "capacity": [1, 0]})], capsys)
    mapped = _run(["clear", "--costs", _write(tmp_path, "m.json", {**COSTS, "capacity": {"X": 1, "Y": 0}})], capsys)
    assert listed[0] == mapped[0] == 0 and json.loads(listed[1]) == json.loads(mapped[1])
    assert json.loads(listed[1])["assignment"] == {"a": "X"}


@pytest.mark.parametrize("change, message", [
    (lambda d: d["slots"][0].update(divisable=True), "slots[0]: unknown key 'divisable' (did you mean 'divisible'?)"),
    (lambda d: d["slots"][0].update(divisible="yes"), "slots[0].divisible: must be true or false (got 'yes')"),
    (lambda d: d.update(network={"latncy": 1}), "network: unknown key 'latncy' (did you mean 'latency'?)"),
    (lambda d: d.update(release_at=3), "unknown key 'release_at' (did you mean 'release'?)"),
])
def test_bad_slots_json_is_refused(tmp_path, capsys, change, message):
    doc = json.loads(json.dumps(SLOTS))
    change(doc)
    argv = ["provision", "--workflow", _write(tmp_path, "wf.json", WORKFLOW), "--slots",
            _write(tmp_path, "slots.json", doc)]
    status, out, err = _run(argv, capsys)
    assert status == 2 and message in err and "slots.json" in err and err.count("\n") == 1


@pytest.mark.parametrize("change, message", [
    (lambda d: d["tasks"][0].update(runtmie=5), "tasks[0]: unknown key 'runtmie' (did you mean 'runtime'?)"),
    (lambda d: d["edges"][0].update(date=5), "edges[0]: unknown key 'date' (did you mean 'data'?)"),
    (lambda d: d.update(egdes=[]), "unknown key 'egdes' (did you mean 'edges'?)"),
])
def test_bad_workflow_json_is_refused(tmp_path, capsys, change, message):
    doc = json.loads(json.dumps(WORKFLOW))
    change(doc)
    argv = ["provision", "--workflow", _write(tmp_path, "wf.json", doc), "--slots", _write(tmp_path, "s.json", SLOTS)]
    status, out, err = _run(argv, capsys)
    assert status == 2 and message in err and "wf.json" in err


@pytest.mark.parametrize("argv, message", [
    (["compare", "--models", ""], "--models: expected a comma-separated list"),
    (["compare", "--models", "mcmf,"], "--models: expected a comma-separated list"),
    (["compare", "--jobs", "10"], "--jobs N takes the first N jobs of --trace FILE"),
    (["simulate", "--jobs", "50", "--seed", "-1"], "argument --seed: must be an int in [0, 9223372036854775807], got -1"),
    (["simulate", "--jobs", "0"], "argument --jobs: must be an int in [1, 100000000] jobs, got 0"),
    (["simulate", "--jobs", "50", "--format", "batsim"], "--format batsim describes the --out file"),
])
def test_options_that_would_be_ignored_or_crash_are_refused(capsys, argv, message):
    status, out, err = _run(argv, capsys)
    assert status == 2 and message in err and "Traceback" not in err


def test_broken_pipe_ends_quietly():
    result = subprocess.run(f"'{sys.executable}' -m gridmarket.scenarios.commands.cli simulate --jobs 3000 --out /dev/stdout | head -1",
                            shell=True, capture_output=True, text=True, cwd=ROOT)
    assert result.stdout.startswith("job_id,") and result.stderr == ""


def test_warnings_print_as_one_clean_line(tmp_path):
    trace = tmp_path / "t.swf"
    trace.write_text("; MaxProcs: 4\n1 0 0 10 2 -1 -1 2 20 -1 1 1 1 -1 1 -1 -1 -1\n"
                     "2 5 0 0 2 -1 -1 2 20 -1 1 1 1 -1 1 -1 -1 -1\n")
    result = subprocess.run([sys.executable, "-m", "gridmarket.scenarios.commands.cli", "simulate", "--trace", str(trace)],
                            capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    assert result.stderr.startswith("gridmarket: warning: ") and result.stderr.count("\n") == 1


def test_viz_refuses_a_port_in_use_before_printing_an_address(capsys):
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        status, out, err = _run(["viz", "--port", str(port)], capsys)
    assert status == 2 and out == "" and f"--port {port}: the port is in use on 127.0.0.1" in err


def test_scenario_errors_name_the_provider_once(tmp_path, capsys):
    path = tmp_path / "s.toml"
    path.write_text('name = "x"\n[[providers]]\nname = "a"\nprcs = 8\n')
    status, out, err = _run(["compare", "--scenario", str(path)], capsys)
    assert status == 2 and err.count("providers[0]") == 1 and "unknown key 'prcs' (did you mean 'procs'?)" in err


def test_state_top_level_field_errors_read_file_then_field(tmp_path, capsys):
    path = _write(tmp_path, "st.json", {"now": 0, "procs": "x"})
    status, out, err = _run(["quote", "--state", path, "--procs", "1", "--duration", "5"], capsys)
    assert status == 2 and "st.json: procs must be an int >= 1, got 'x'" in err
