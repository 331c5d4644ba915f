"""The ``clear`` command (gridmarket.scenarios.commands.clear): JSON in, JSON out, errors with a non-zero status."""

import json

import pytest

from gridmarket.errors import InvalidInput
from gridmarket.scenarios.commands.clear import clear_from_json, main

COSTS = {
    "jobs": ["j1", "j2", "j3"],
    "systems": ["A", "B"],
    "cost": [[5, None], [1, 4], [None, None]],
    "capacity": {"A": 1},
}


def test_mcmf_answer_has_assignment_total_and_reasons():
    out = clear_from_json(COSTS)
    assert out["assignment"] == {"j1": "A", "j2": "B"}
    assert out["total_cost"] == 9.0
    assert out["unassigned"] == [{"job": "j3", "reason": "no compatible system"}]


def test_stable_matching_uses_system_cost_for_system_ranks():
    data = {"jobs": ["x", "y"], "systems": ["A"], "cost": [[1], [2]], "capacity": {"A": 1},
            "system_cost": [[9], [1]]}
    assert clear_from_json(data, method="stable-jobs")["assignment"] == {"y": "A"}
    assert clear_from_json(data, method="mcmf")["assignment"] == {"x": "A"}


def test_maxq_overrides_every_capacity():
    data = dict(COSTS, cost=[[1, 1], [1, 1], [1, 1]])
    assert len(clear_from_json(data, maxq=1)["assignment"]) == 2


@pytest.mark.parametrize("data,match", [
    ({"jobs": [1], "systems": ["A"]}, "missing key .cost."),
    ({"jobs": [1], "systems": ["A"], "cost": [[float("nan")], [1]]}, "rows"),
    ({"jobs": [1], "systems": ["A"], "cost": [[1]], "capacity": {"Z": 1}}, "unknown system"),
])
def test_bad_json_is_rejected_with_the_culprit(data, match):
    with pytest.raises(InvalidInput, match=match):
        clear_from_json(data)


def test_command_prints_json_and_fails_cleanly(tmp_path, capsys):
    path = tmp_path / "costs.json"
    path.write_text(json.dumps(COSTS))
    assert main(["clear", "--costs", str(path), "--method", "stable-systems"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"assignment", "total_cost", "unassigned"}
    path.write_text("{not json")
    assert main(["clear", "--costs", str(path)]) == 2
    assert "costs.json:1: not JSON" in capsys.readouterr().err
