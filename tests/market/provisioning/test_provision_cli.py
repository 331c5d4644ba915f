"""The ``provision`` command (gridmarket.scenarios.commands.provision.main): plan, Pareto set, errors."""

import json

import pytest

from gridmarket.scenarios.commands.provision import main


@pytest.fixture
def files(tmp_path):
    wf = {"tasks": [{"id": "a", "procs": 2, "runtime": 1800}, {"id": "b", "procs": 4, "runtime": 3600},
                    {"id": "c", "procs": 1, "runtime": 600}],
          "edges": [{"from": "a", "to": "b"}, {"from": "a", "to": "c"}]}
    slots = {"slots": [
        {"resource": "m", "start": 0, "procs": 2, "duration": 3600, "divisible": False, "extensible": False},
        {"resource": "m", "start": 0, "procs": 1, "duration": 7200, "divisible": False, "extensible": False},
        {"resource": "m", "start": 3600, "procs": 4, "duration": None, "divisible": True, "extensible": True}],
        "resources": {"m": {"procs": 4}}}
    (tmp_path / "wf.json").write_text(json.dumps(wf))
    (tmp_path / "slots.json").write_text(json.dumps(slots))
    return tmp_path / "wf.json", tmp_path / "slots.json"


def test_moga_prints_the_pareto_set_and_the_chosen_plan(files, capsys):
    wf, slots = files
    assert main(["--workflow", str(wf), "--slots", str(slots), "--method", "moga", "--alpha", "0", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "singh-moga-cli-a0-seed3" in out and "Pareto set" in out
    # α = 0: a runs on the indivisible slot at 0, b on the edge slot from 1 h: makespan 2 h
    assert "  a  m  0  1800" in out and "  b  m  3600  7200" in out
    assert "makespan (s): 7200" in out and "allocation cost (SU): 6.000" in out


def test_greedy_prints_the_reservations(files, capsys):
    wf, slots = files
    assert main(["--workflow", str(wf), "--slots", str(slots), "--method", "greedy", "--alpha", "1"]) == 0
    out = capsys.readouterr().out
    assert "allocation cost (SU): 5.167" in out  # the best-effort price: 1 + 4 + 1/6 SU


@pytest.mark.parametrize("args, message", [
    (["--alpha", "1.5"], "argument --alpha: must be a number in [0.0, 1.0] (a share of jobs, or a trade-off weight), got 1.5"),
])
def test_bad_alpha_is_an_error(files, capsys, args, message):
    wf, slots = files
    with pytest.raises(SystemExit) as stop:  # argparse's usage error, before any file is read
        main(["--workflow", str(wf), "--slots", str(slots), *args])
    assert stop.value.code == 2
    assert message in capsys.readouterr().err


def test_empty_or_malformed_slots_and_cyclic_workflows_are_errors(files, tmp_path, capsys):
    wf, _ = files
    empty = tmp_path / "empty.json"
    empty.write_text("[]")
    assert main(["--workflow", str(wf), "--slots", str(empty)]) == 2
    assert "slot set is empty" in capsys.readouterr().err
    bad = tmp_path / "bad.json"
    bad.write_text('[{"start": 0}]')
    assert main(["--workflow", str(wf), "--slots", str(bad)]) == 2
    assert "slots[0]: missing key 'procs'" in capsys.readouterr().err
    cyclic = tmp_path / "cyc.json"
    cyclic.write_text(json.dumps({"tasks": [{"id": "a", "runtime": 5}, {"id": "b", "runtime": 5}],
                                  "edges": [{"from": "a", "to": "b"}, {"from": "b", "to": "a"}]}))
    assert main(["--workflow", str(cyclic), "--slots", str(bad)]) == 2
    assert "cycle" in capsys.readouterr().err


def test_an_infeasible_problem_says_so(tmp_path, capsys):
    wf = tmp_path / "wf.json"
    wf.write_text(json.dumps({"tasks": [{"id": "a", "procs": 3, "runtime": 100}]}))
    slots = tmp_path / "slots.json"
    slots.write_text(json.dumps([
        {"resource": "m", "start": 0, "procs": 2, "duration": 50, "divisible": False, "extensible": False},
        {"resource": "m", "start": 0, "procs": 2, "duration": 50, "divisible": False, "extensible": False}]))
    assert main(["--workflow", str(wf), "--slots", str(slots), "--method", "moga"]) == 1
    assert "infeasible: task 'a' (3 processors) fits in no slot of the plan" in capsys.readouterr().out
