"""``gridmarket quote`` / ``advertise`` (gridmarket.scenarios.commands.quote): JSON output, forms 17-19, clean errors."""

import argparse
import json

import pytest

from gridmarket.errors import MarketError
from gridmarket.scenarios.commands.quote import add_subcommands, main

H = 3600
STATE = {  # the Fig. 21 state, in seconds
    "now": 0, "procs": 5,
    "running": [{"id": 1, "procs": 1, "start": 0, "end": 2 * H}, {"id": 2, "procs": 3, "start": 0, "end": 3 * H}],
    "queued": [{"id": 3, "submit": 0, "procs": 2, "estimate": 2 * H}, {"id": 4, "submit": 0, "procs": 2, "estimate": 3 * H}],
    "reservations": [{"id": "R", "start": 5 * H, "procs": 2, "duration": 3 * H}],
}


@pytest.fixture
def state(tmp_path):
    path = tmp_path / "state.json"
    path.write_text(json.dumps(STATE))
    return str(path)


def run(argv, capsys):
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def test_quote_form18_prints_every_candidate_start_with_its_price(state, capsys):
    rows = run(["quote", "--state", state, "--procs", "2", "--duration", str(3 * H)], capsys)
    assert [(r["start"] // H, r["price"]) for r in rows] == [(2, 6.0), (3, 6.0), (4, 8.0), (5, 10.0), (6, 0.0), (8, 0.0)]
    assert rows[0]["total_cost"] == 12.0


def test_quote_form17_and_its_refusal(state, capsys):
    assert run(["quote", "--state", state, "--procs", "2", "--duration", str(3 * H), "--start", str(2 * H)],
               capsys) == [{"start": 2 * H, "price": 6.0, "total_cost": 12.0}]
    [refused] = run(["quote", "--state", state, "--procs", "2", "--duration", "60", "--start", "0"], capsys)
    assert refused["price"] is None and "conflict with running jobs" in refused["reason"]


def test_quote_form19_and_easy_policy(state, capsys):
    rows = run(["quote", "--state", state, "--procs", "2", "--duration", str(3 * H), "--earliest", str(4 * H),
                "--policy", "easy"], capsys)
    assert [r["start"] // H for r in rows] == [4, 5, 6, 8]


def test_advertise_prints_the_free_slots(state, capsys):
    rows = run(["advertise", "--state", state, "--until", str(10 * H)], capsys)
    assert all(r["fixed_cost"] == 0.0 and r["issued"] == 0 for r in rows)
    assert {(r["divisible"], r["extensible"]) for r in rows if r["start"] + r["duration"] == 10 * H} == {(True, True)}


def test_subcommands_set_run_for_the_main_cli(state):
    parser = argparse.ArgumentParser()
    add_subcommands(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["quote", "--state", state, "--procs", "9", "--duration", "5"])
    with pytest.raises(MarketError, match="slot needs 9 processors; machine has 5"):
        args.run(args)


@pytest.mark.parametrize(
    "content, message",
    [
        ("{", "state.json:1: not JSON"),
        (json.dumps({**STATE, "procs": 0}), "procs must be an int >= 1, got 0"),
        (json.dumps({**STATE, "queued": [{"id": 3, "submit": 0, "procs": 2}]}), r"queued\[0\]: missing field 'estimate'"),
    ],
)
def test_malformed_state_fails_cleanly_with_the_field(tmp_path, capsys, content, message):
    import re

    path = tmp_path / "state.json"
    path.write_text(content)
    assert main(["quote", "--state", str(path), "--procs", "1", "--duration", "5"]) == 2
    assert re.search(message, capsys.readouterr().err)


def test_bad_options_are_refused_by_argparse(state):
    for argv in (["quote", "--state", state, "--procs", "0", "--duration", "5"],
                 ["quote", "--state", state, "--procs", "1", "--duration", "5", "--start", "1", "--earliest", "1"],
                 ["quote", "--state", state, "--procs", "1", "--duration", "5", "--policy", "sjf"],
                 ["quote", "--state", state, "--procs", "1", "--duration", "5", "--start", "-3"]):
        with pytest.raises(SystemExit):
            main(argv)


def test_start_in_the_past_is_an_error(tmp_path, capsys):
    path = tmp_path / "state.json"
    path.write_text(json.dumps({"now": 100, "procs": 2}))
    assert main(["quote", "--state", str(path), "--procs", "1", "--duration", "5", "--start", "50"]) == 2
    assert "slot starts at 50, before now (100)" in capsys.readouterr().err
