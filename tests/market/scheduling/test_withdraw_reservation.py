"""A scheduler's ``withdraw_reservation`` (ch. 6.4 cancellation, on the real policies)."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gridmarket.errors import Infeasible, InvalidInput
from gridmarket.job import Job
from gridmarket.pricing.plan import ProviderPlan
from gridmarket.reservation import Reservation
from gridmarket.scheduling import ConservativeScheduler, LocalScheduler
from gridmarket.scheduling.slots import LayeredSlotScheduler

from ..pricing.strategies import live_schedulers


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
    withdrawn = scheduler.withdraw_reservation(booking.id, now)
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
        s.withdraw_reservation("b", 0)


def _jobs():
    return [Job(1, 0, 3, 100, 100), Job(2, 0, 2, 40, 40), Job(3, 0, 4, 30, 30), Job(4, 0, 1, 200, 200),
            Job(5, 0, 2, 60, 60)]


@pytest.mark.parametrize("withdraw_at", [0, 20, 50])
def test_the_layered_slot_scheduler_withdraws_as_conservative_backfilling_does(withdraw_at):
    # the layered cut of free slots plans like conservative backfilling (slots.py): so must its cancellation
    plans = []
    for cls in (ConservativeScheduler, LayeredSlotScheduler):
        s = cls(4)
        s.add_reservation(Reservation("r", 10, 3, 80), 0)
        for job in _jobs():
            s.submit(job, 0)
        s.schedule(0)
        before = dict(s.planned)
        s.withdraw_reservation("r", withdraw_at)
        plans.append((before, dict(s.planned)))
    assert plans[0] == plans[1]
    assert plans[0][1] != plans[0][0]  # jobs moved up


def test_a_policy_of_ones_own_gets_the_freed_processors_at_its_next_pass():
    class Greedy(LocalScheduler):  # starts any queued job that fits beside the reservations
        name = "greedy-in-withdraw"

        def schedule(self, now):
            self.advance_to(now)
            started = [j for j in self.queue if self.profile.min_free(now, j.estimate) >= j.procs][:1]
            for job in started:
                self.queue.remove(job)
                self.start_job(job, now)
            return started

    s = Greedy(2)
    s.add_reservation(Reservation("r", 0, 2, 100), 0)
    s.submit(Job(1, 0, 2, 10, 10), 0)
    assert s.schedule(0) == []
    assert s.withdraw_reservation("r", 5).id == "r" and not s.reservations
    assert [j.id for j in s.schedule(5)] == [1]
