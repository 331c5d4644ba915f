"""Withdrawing a reservation from a live scheduler (ch. 6.4 cancellation, on the real policies)."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gridmarket.errors import Infeasible, InvalidInput
from gridmarket.pricing.cancellation import withdraw_reservation
from gridmarket.pricing.plan import ProviderPlan
from gridmarket.reservation import Reservation

from .strategies import live_schedulers


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_withdrawing_a_sold_reservation_matches_the_plans_cancellation(data):
    policy = data.draw(st.sampled_from(["conservative", "slots", "easy", "fcfs"]))
    scheduler, now = data.draw(live_schedulers(policy))
    plan = ProviderPlan.from_scheduler(scheduler, now)
    start = now + data.draw(st.integers(0, 150))
    procs = data.draw(st.integers(1, scheduler.procs))
    try:
        booking = plan.reserve(start, procs, data.draw(st.integers(1, 100)))
    except Infeasible:
        return
    profile_before = scheduler.profile.copy()
    profile_before.advance(now)
    scheduler.add_reservation(booking.reservation, now)
    if policy in ("conservative", "slots"):
        assert scheduler.planned == plan.planned
    penalty = plan.cancel(booking)
    withdrawn = withdraw_reservation(scheduler, booking.id, now)
    assert withdrawn == booking.reservation and booking.id not in scheduler.reservations
    assert penalty == pytest.approx(0.1 * booking.slot.fixed_cost)
    if policy in ("conservative", "slots"):
        assert scheduler.planned == plan.planned
    else:
        assert scheduler.profile.steps() == profile_before.steps()


def test_withdrawing_an_unknown_reservation_names_it():
    from gridmarket.scheduling import EASYScheduler

    s = EASYScheduler(2)
    s.add_reservation(Reservation("a", 0, 1, 10), 0)
    with pytest.raises(InvalidInput, match="unknown reservation id 'b'; held: 'a'"):
        withdraw_reservation(s, "b", 0)
