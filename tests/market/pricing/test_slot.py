"""The priced slot and Table 1's sub-slot allocation (Singh 2008, eqs. 1-2, Table 1, eq. 23)."""

import pytest

from gridmarket.errors import Infeasible, InvalidInput
from gridmarket.pricing.slot import PENALTY_FACTOR, Slot, subslot_cost

H = 3600


def slot(b, e, **kw):
    """4 processors over [1 h, 3 h) at 2 SU per processor-hour plus f = 5 SU."""
    return Slot(H, 4, 2 * H, unit_cost=2.0, fixed_cost=5.0, divisible=b, extensible=e, **kw)


def test_total_cost_is_n_d_c_plus_f_with_d_in_hours():
    assert Slot(0, 3, 2 * H, unit_cost=1.5, fixed_cost=4.0).total_cost == 3 * 2 * 1.5 + 4.0


def test_defaults_are_best_effort_price_and_penalty_factor_of_chapter_6_4():
    s = Slot(0, 1, H)
    assert (s.unit_cost, s.fixed_cost, s.penalty_factor) == (1.0, 0.0, 0.1)
    assert PENALTY_FACTOR == 0.1


def test_cancellation_penalty_is_p_times_f():
    assert Slot(0, 1, H, fixed_cost=30.0, penalty_factor=0.25).cancellation_penalty == 7.5


# ------------------------------------------------------------ Table 1: allowed requests and their cost
@pytest.mark.parametrize(
    "b, e, ask, cost",
    [
        # false false: the whole slot, n_i d_i c_i + f_i
        (False, False, (H, 4, 2 * H), 4 * 2 * 2.0 + 5),
        # false true: all processors from s_i, any d_k >= d_i: n_i d_k c_i + f_i
        (False, True, (H, 4, 2 * H), 4 * 2 * 2.0 + 5),
        (False, True, (H, 4, 5 * H), 4 * 5 * 2.0 + 5),
        # true false: any part inside the slot: n_k d_k c_i + f_i
        (True, False, (H, 4, 2 * H), 4 * 2 * 2.0 + 5),
        (True, False, (2 * H, 1, H), 1 * 1 * 2.0 + 5),
        (True, False, (H + 600, 3, 2 * H - 600), 3 * (2 - 1 / 6) * 2.0 + 5),
        # true true: any processors, any start from s_i, any length
        (True, True, (2 * H, 2, 10 * H), 2 * 10 * 2.0 + 5),
        (True, True, (H, 4, H), 4 * 1 * 2.0 + 5),
    ],
)
def test_table1_cost_of_allowed_subslot(b, e, ask, cost):
    assert subslot_cost(slot(b, e), *ask) == pytest.approx(cost)
    part = slot(b, e).subslot(*ask)
    assert (part.start, part.procs, part.duration) == ask
    assert (part.divisible, part.extensible, part.fixed_cost, part.unit_cost) == (False, False, 5.0, 2.0)


def test_whole_slot_is_the_default_request():
    s = slot(False, False)
    assert s.subslot() == Slot(H, 4, 2 * H, 2.0, 5.0)


# ------------------------------------------------------------ Table 1: refused requests name the restriction
@pytest.mark.parametrize(
    "b, e, ask, message",
    [
        (False, False, (H, 3, 2 * H), "not divisible .* all 4 processors must be taken, asks 3"),
        (False, False, (2 * H, 4, H), "not divisible .* must start at 3600, asks 7200"),
        (False, False, (H, 4, H), "neither divisible nor extensible: the request must last 7200 s, asks 3600"),
        (False, False, (H, 4, 3 * H), "neither divisible nor extensible"),
        (False, True, (H, 4, H), "must last at least 7200 s, asks 3600"),
        (False, True, (H, 2, 3 * H), "all 4 processors must be taken"),
        (False, True, (2 * H, 4, 3 * H), "must start at 3600"),
        (True, False, (H, 5, H), "has 4 processors, the request asks 5"),
        (True, False, (0, 1, H), "must start at or after 3600, asks 0"),
        (True, False, (2 * H, 1, 2 * H), r"not extensible \(e=false\): the request must end by 10800"),
        (True, True, (H - 1, 1, H), "must start at or after 3600"),
        (True, True, (H, 8, H), "has 4 processors"),
    ],
)
def test_table1_refuses_requests_that_break_the_restrictions(b, e, ask, message):
    with pytest.raises(Infeasible, match=message):
        slot(b, e).subslot(*ask)


@pytest.mark.parametrize(
    "ask, message",
    [((H, 0, H), "procs must be an int >= 1, got 0"), ((H, 1, 0), "duration must be an int >= 1 s, got 0"),
     ((-1, 1, H), "start must be an int >= 0, got -1"), ((H, 1.5, H), "procs must be an int")],
)
def test_malformed_subslot_request_is_invalid_input(ask, message):
    with pytest.raises(InvalidInput, match=message):
        slot(True, True).subslot(*ask)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"start": 0, "procs": 0, "duration": 1}, "procs must be an int >= 1, got 0"),
        ({"start": 0, "procs": 1, "duration": 0}, "duration must be an int >= 1 s or math.inf, got 0"),
        ({"start": -5, "procs": 1, "duration": 1}, "start must be an int >= 0, got -5"),
        ({"start": 0, "procs": 1, "duration": 1, "fixed_cost": -1.0}, "fixed_cost must be a finite number >= 0"),
        ({"start": 0, "procs": 1, "duration": 1, "unit_cost": float("nan")}, "unit_cost must be a finite number"),
        ({"start": 0, "procs": 1, "duration": 1, "penalty_factor": 1.5}, r"penalty_factor must be in \[0, 1\]"),
        ({"start": 0, "procs": 1, "duration": 1, "divisible": 1}, "divisible must be a bool"),
        ({"start": 0, "procs": True, "duration": 1}, "procs must be an int"),
    ],
)
def test_slot_validates_its_fields(kwargs, message):
    with pytest.raises(InvalidInput, match=message):
        Slot(**kwargs)
