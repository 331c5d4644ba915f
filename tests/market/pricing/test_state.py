"""Provider state: from a live scheduler and from state.json; malformed input names the culprit."""

import json

import pytest

from gridmarket.errors import InvalidInput
from gridmarket.job import Job
from gridmarket.pricing.state import (
    ProviderState,
    RunningJob,
    base_profile,
    read_state,
    state_from_dict,
    state_from_scheduler,
    state_to_dict,
)
from gridmarket.reservation import Reservation
from gridmarket.scheduling import EASYScheduler

GOOD = {
    "now": 100,
    "procs": 5,
    "running": [{"id": 1, "procs": 2, "start": 0, "end": 300}],
    "queued": [{"id": 3, "submit": 90, "procs": 2, "estimate": 200}, {"id": 2, "submit": 50, "procs": 1, "estimate": 60}],
    "reservations": [{"start": 400, "procs": 1, "duration": 100}],
}


def test_state_json_round_trips_and_sorts_the_queue_by_arrival(tmp_path):
    path = tmp_path / "state.json"
    path.write_text(json.dumps(GOOD))
    state = read_state(path)
    assert [j.id for j in state.queue] == [2, 3]
    assert state.reservations == (Reservation("r0", 400, 1, 100),)
    assert state_from_dict(state_to_dict(state)) == state


def test_empty_lists_may_be_omitted():
    assert state_from_dict({"now": 0, "procs": 1}) == ProviderState(0, 1)


@pytest.mark.parametrize(
    "change, message",
    [
        ({"now": -1}, r"now must be an int >= 0, got -1"),
        ({"procs": 0}, r"procs must be an int >= 1, got 0"),
        ({"procs": "5"}, r"procs must be an int >= 1, got '5'"),
        ({"running": {}}, "'running' must be a list"),
        ({"running": [5]}, r"running\[0\] must be an object"),
        ({"running": [{"id": 1, "procs": 2, "start": 0}]}, r"running\[0\]: missing field 'end'"),
        ({"running": [{"id": 1, "procs": 9, "start": 0, "end": 300}]}, "running job 1 holds 9 processors; machine has 5"),
        ({"running": [{"id": 1, "procs": 2, "start": 0, "end": 100}]}, r"running job 1: end \(100\) must be after now"),
        ({"running": [{"id": 1, "procs": 2, "start": 200, "end": 300}]}, r"start \(200\) is after now"),
        ({"queued": [{"id": 3, "submit": 0, "procs": 2, "estimate": 0}]}, r"queued\[0\].estimate must be an int >= 1, got 0"),
        ({"queued": [{"id": 3, "submit": 0, "procs": 6, "estimate": 5}]}, "queued job 3 needs 6 processors; machine has 5"),
        ({"queued": [{"id": 3, "submit": 101, "procs": 1, "estimate": 5}]}, r"submit \(101\) is after now"),
        ({"queued": [{"id": 1, "submit": 0, "procs": 1, "estimate": 5}]}, "job id 1 appears twice"),
        ({"reservations": [{"start": 0, "procs": 1, "duration": 50}]}, r"it ends at 50, not after now \(100\)"),
        ({"reservations": [{"start": 200, "procs": 4, "duration": 50}]}, "hold 6 processors at 200; machine has 5"),
        ({"reservations": [{"id": [1], "start": 200, "procs": 1, "duration": 50}]}, r"reservations\[0\].id must be"),
        ({"extra": 1}, "unknown key"),
    ],
)
def test_malformed_state_names_the_offending_field(change, message):
    with pytest.raises(InvalidInput, match=message):
        state_from_dict({**GOOD, **change}, source="state.json")


def test_bad_json_names_the_path_and_line(tmp_path):
    path = tmp_path / "s.json"
    path.write_text('{"now": 0,\n "procs": }')
    with pytest.raises(InvalidInput, match=r"s.json:2: not JSON"):
        read_state(path)
    with pytest.raises(InvalidInput, match="cannot read"):
        read_state(tmp_path / "missing.json")
    path.write_text("[1, 2]")
    with pytest.raises(InvalidInput, match="the top level must be an object"):
        read_state(path)


def test_state_from_a_live_scheduler_holds_running_jobs_to_their_estimates():
    s = EASYScheduler(4)
    s.submit(Job(1, 0, 3, 100, 120), 0)
    s.schedule(0)
    s.add_reservation(Reservation("old", 0, 1, 5), 0)
    s.submit(Job(2, 5, 2, 10, 10), 5)
    state = state_from_scheduler(s, 10)
    assert state.running == (RunningJob(1, 3, 0, 120),)
    assert [j.id for j in state.queue] == [2] and state.reservations == ()
    assert base_profile(state).steps() == [(10, 1), (120, 4)]
