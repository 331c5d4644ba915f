"""One slot record and one Table 1 (Singh 2008, eqs. 1-2, Table 1): pricing and provisioning give one answer."""

import math

import networkx as nx
import pytest
from hypothesis import given, settings

from gridmarket.errors import Infeasible, InvalidInput
from gridmarket.job import Job
from gridmarket.pricing import ProviderPlan, ProviderState, Slot, subslot_cost
from gridmarket.provisioning import PlanEvaluator, advertise
from gridmarket.scheduling import FreeSlot, SlotScheduler
from gridmarket.workflows import Network

from .provisioning.test_schedule import instances

H = 3600
FIG1 = [(2, 3), (4, 1), (1, 2), (3, 2)]  # Singh 2008, Fig. 1: tasks A-D (processors, hours)


@pytest.fixture
def fig1_plan():
    queue = tuple(Job(i, 0, n, d * H, d * H) for i, (n, d) in enumerate(FIG1))
    return ProviderPlan(ProviderState(0, 5, queue=queue), "conservative")


def _s2(plan):
    """Slot S2 of Fig. 1: 1 processor over [0, 3 h), bounded by task B: indivisible, not extensible."""
    return next(s for s in plan.advertise(until=8 * H) if (s.start, s.procs, s.duration) == (0, 1, 3 * H))


def _answer(fn):
    try:
        return fn()
    except Infeasible:
        return "infeasible"


ROWS = [(b, e) for b in (False, True) for e in (False, True)]
REQUESTS = [(0, 4, 2 * H), (0, 4, H), (0, 4, 3 * H), (H, 2, H), (H, 2, 5 * H), (0, 2, 2 * H), (H, 4, 2 * H)]


@pytest.mark.parametrize("b, e", ROWS)
@pytest.mark.parametrize("request_", REQUESTS)
def test_pricing_and_provisioning_cost_every_sub_slot_alike(b, e, request_):
    # Table 1 for a slot of 4 processors over 2 h at c = 1, f = 0.5 SU: the slot pricing sells and the
    # slot a broker pools for provisioning (advertise names it) answer every request the same way. They
    # once did not: provisioning charged 8.5 SU for 1 h of the indivisible slot, pricing refused it.
    priced = Slot(0, 4, 2 * H, fixed_cost=0.5, divisible=b, extensible=e)
    pooled = advertise("ctc", [priced])[0]
    assert _answer(lambda: subslot_cost(priced, *request_)) == _answer(lambda: pooled.subslot(*request_).total_cost)


def test_table_1_for_the_indivisible_slot_by_hand():
    slot = Slot(0, 4, 2 * H, fixed_cost=0.5)
    assert subslot_cost(slot, 0, 4, 2 * H) == 8.5  # row 1: n_i d_i c_i + f_i
    with pytest.raises(Infeasible, match="must last 7200 s, asks 3600"):  # d_k = d_i is a restriction of row 1
        subslot_cost(slot, 0, 4, H)
    with pytest.raises(Infeasible, match="all 4 processors must be taken, asks 2"):
        subslot_cost(slot, 0, 2, 2 * H)


def test_a_shorter_buy_of_fig1_s2_is_refused_by_the_plan_and_by_the_pooled_record(fig1_plan):
    s2 = _s2(fig1_plan)
    pooled = advertise("fig1", [s2])[0]
    with pytest.raises(Infeasible, match="neither divisible nor extensible"):
        fig1_plan.buy(s2, duration=H)
    with pytest.raises(Infeasible, match="neither divisible nor extensible"):
        pooled.subslot(duration=H)


def test_a_task_shorter_than_fig1_s2_pays_the_whole_slot_as_the_plan_charges_it(fig1_plan):
    # the broker's way to use part of an indivisible slot: buy the whole slot (Table 1 row 1) and run in it
    s2 = _s2(fig1_plan)
    booking = fig1_plan.buy(s2)
    g = nx.DiGraph()
    g.add_node("t", procs=1, runtime=H)
    schedule = PlanEvaluator(g, advertise("fig1", [s2])).schedule([1])
    assert schedule.placements["t"].end == H
    assert schedule.allocation_cost == booking.price == subslot_cost(s2, 0, 1, 3 * H) == 3.0


def test_the_plan_and_a_broker_see_the_same_records(fig1_plan):
    ads = fig1_plan.advertise(until=8 * H)
    pooled = advertise("fig1", ads)
    assert [type(s) for s in pooled] == [Slot] * len(ads)
    assert [s.resource for s in pooled] == ["fig1"] * len(ads)
    # the pooled slot is the advertised one with its provider named: prices, penalty and issue time kept
    assert [s for s in pooled] == [Slot.of(s, resource="fig1", unit_cost=s.unit_cost, fixed_cost=s.fixed_cost,
                                           penalty_factor=s.penalty_factor, issued=s.issued) for s in ads]
    assert all(a.total_cost == p.total_cost for a, p in zip(ads, pooled))


def test_the_schedulers_free_slots_become_slots_by_the_one_conversion():
    sched = SlotScheduler(5)
    for i, (n, d) in enumerate(FIG1):
        sched.submit(Job(i, 0, n, d * H, d * H), 0)
    free = sched.free_slots(0)
    slots = [Slot.of(f, resource="fig1") for f in free]
    assert [(s.start, s.procs, s.duration, s.divisible, s.extensible) for s in slots] == [
        (f.start, f.procs, f.duration, f.divisible, f.extensible) for f in free]
    assert advertise("fig1", free) == slots
    edge = [s for s in slots if s.duration == math.inf]
    assert edge and all(s.divisible and s.extensible and s.total_cost == math.inf for s in edge)
    assert Slot.of(FreeSlot(0, 2, math.inf, True, True), until=3 * H).duration == 3 * H


def test_an_endless_slot_must_be_an_edge_slot_and_the_evaluator_needs_its_resource():
    with pytest.raises(InvalidInput, match="infinite duration needs divisible=True and extensible=True"):
        Slot(0, 1, math.inf, extensible=True)
    g = nx.DiGraph()
    g.add_node("t", procs=1, runtime=H)
    with pytest.raises(InvalidInput, match="names no resource"):
        PlanEvaluator(g, [Slot(0, 1, H)])
    with pytest.raises(InvalidInput, match="not a gridmarket.pricing.Slot"):
        PlanEvaluator(g, [FreeSlot(0, 1, H, False, False)])



@settings(max_examples=150, deadline=None)
@given(instances())
def test_the_evaluators_charges_are_table_1s_for_what_each_slot_sold(inst):
    # every touched slot's charge in a plan is Table 1's cost of the allocations it made: one sub-slot per
    # task on a divisible slot, the whole slot (to its last use when extensible) on an indivisible one
    g, slots, bits = inst
    try:
        ev = PlanEvaluator(g, slots, network=Network(latency=3, bytes_per_second=10), release=5)
    except InvalidInput:
        return  # a task larger than every resource
    schedule = ev.schedule(bits)
    uses: dict[int, list] = {}
    for p in schedule.placements.values():
        for k, q in p.slots:
            uses.setdefault(k, []).append((p.start, q, p.end - p.start))
    assert set(uses) == set(schedule.slot_costs)
    for k, charge in schedule.slot_costs.items():
        s = slots[k]
        if s.divisible:
            expected = sum(subslot_cost(s, *use) for use in uses[k])
        else:
            last = max(start + d for start, _, d in uses[k])
            expected = subslot_cost(s, s.start, s.procs, max(s.duration, last - s.start) if s.extensible else s.duration)
        assert charge == pytest.approx(expected, rel=1e-12, abs=1e-12), (k, s)
