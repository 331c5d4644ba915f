"""Scheduling cost and allocation cost of a plan over slots (Singh 2008, ch. 4.2 eqs. 4-6, ch. 4.5)."""

import math

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gridmarket.errors import Infeasible, InvalidInput
from gridmarket.job import Job
from gridmarket.pricing import Slot, subslot_cost
from gridmarket.provisioning import PlanEvaluator, advertise
from gridmarket.scheduling import SlotScheduler
from gridmarket.workflows import Network, add_entry_exit

H = 3600


def workflow(tasks, edges=()):
    """tasks: {id: (procs, runtime)}; edges: (u, v) or (u, v, bytes)."""
    g = nx.DiGraph()
    for t, (procs, runtime) in tasks.items():
        g.add_node(t, procs=procs, runtime=runtime)
    for e in edges:
        g.add_edge(e[0], e[1], data_bytes=e[2] if len(e) > 2 else 0)
    return g


@pytest.fixture
def figure1_slots():
    """The five free slots S1-S5 of the thesis's Figure 1, advertised up to 8 h at c = 1, f = 0."""
    s = SlotScheduler(5)
    for i, (n, d) in enumerate([(2, 3 * H), (4, H), (1, 2 * H), (3, 2 * H)]):
        s.submit(Job(i, 0, n, d, d), 0)
    slots = advertise("fig1", s.free_slots(0, until=8 * H))
    # S1 (0, 1 proc, to 8 h, ext), S2 (0, 1, 3 h), S3 (2 h, 1, 1 h), S4 (4 h, 1, ext), S5 (6 h, 3, ext)
    assert [(x.start // H, x.procs, x.divisible) for x in slots] == [
        (0, 1, True), (0, 1, False), (2, 1, False), (4, 1, True), (6, 3, True)]
    return slots


def test_two_processor_task_stacks_s1_and_s2_at_time_zero(figure1_slots):
    ev = PlanEvaluator(workflow({"t": (2, H)}), figure1_slots)
    s = ev.schedule([1] * 5)
    p = s.placements["t"]
    assert (p.start, p.end) == (0, H) and sorted(p.slots) == [(0, 1), (1, 1)]
    # S2 is indivisible: bought whole (1 proc x 3 h); S1 divisible: 1 proc x 1 h
    assert s.allocation_cost == 4.0 and s.bought == (0, 1) and s.makespan == H


def test_without_the_indivisible_slot_the_task_waits_but_costs_less(figure1_slots):
    ev = PlanEvaluator(workflow({"t": (2, H)}), figure1_slots)
    assert ev.evaluate([1, 0, 0, 1, 0]) == (2.0, 5 * H, 0)  # S1 + S4 from 4 h to 5 h


def test_three_processor_task_waits_for_the_edge_slots(figure1_slots):
    # [0, 2h): S1 + S2 = 2; S3 ends at 3 h; at 4 h S1 + S4 = 2; at 6 h S1 + S4 + S5 = 5
    ev = PlanEvaluator(workflow({"t": (3, 2 * H)}), figure1_slots)
    s = ev.schedule([1] * 5)
    assert s.placements["t"].start == 6 * H
    assert s.allocation_cost == 6.0  # only divisible slots touched: 3 procs x 2 h


def test_unused_slots_in_a_plan_cost_nothing(figure1_slots):
    ev = PlanEvaluator(workflow({"t": (1, H)}), figure1_slots)
    s = ev.schedule([1] * 5)
    assert s.bought == (0,) and s.allocation_cost == 1.0


def test_chain_waits_for_parent_and_transfer_across_resources():
    # a on x (only x has a slot at 0); b can run on x from 2 h or on y at once after the transfer
    g = workflow({"a": (1, H), "b": (1, H)}, [("a", "b", 10**9)])
    slots = [Slot(0, 1, H, divisible=False, extensible=False, resource="x"),
             Slot(2 * H, 1, math.inf, divisible=True, extensible=True, resource="x"),
             Slot(0, 1, math.inf, divisible=True, extensible=True, resource="y")]
    net = Network(latency=100, bytes_per_second=10**6)  # 1 GB: 100 + 1000 s
    g.nodes["a"]["runtime"] = {"x": H, "y": 3 * H}
    ev = PlanEvaluator(g, slots, network=net)
    s = ev.schedule([1, 1, 1])
    a, b = s.placements["a"], s.placements["b"]
    assert (a.resource, a.start, a.end) == ("x", 0, H)
    assert (b.resource, b.start) == ("y", H + 1100)  # y finishes at 2h + 1100 s < x's 3 h
    assert s.makespan == 2 * H + 1100
    assert ev.evaluate([1, 1, 0])[1] == 3 * H  # without y: b waits for x's second slot


def test_release_time_and_virtual_entry_exit():
    g = add_entry_exit(workflow({"a": (1, 100), "b": (1, 50)}))
    slots = [Slot(0, 2, math.inf, divisible=True, extensible=True, resource="m")]
    s = PlanEvaluator(g, slots, release=500).schedule([1])
    assert s.placements["a"].start == 500 and s.placements["b"].start == 500
    assert s.makespan == 100 and s.finish == 600
    assert s.placements["__exit__"].resource is None


def test_extensible_indivisible_slot_is_paid_to_its_last_use():
    slots = [Slot(0, 2, H, divisible=False, extensible=True, resource="m")]
    s = PlanEvaluator(workflow({"a": (1, 3 * H)}), slots).schedule([1])
    assert s.allocation_cost == 2 * 3  # 2 procs x 3 h (Table 1, row 2)


def test_fixed_cost_is_paid_once_per_indivisible_slot_and_per_task_on_divisible_ones():
    g = workflow({"a": (1, H), "b": (1, H)})
    indiv = [Slot(0, 2, H, unit_cost=2.0, fixed_cost=1.0, divisible=False, extensible=False, resource="m")]
    assert PlanEvaluator(g, indiv).evaluate([1])[0] == 2 * 2 + 1
    div = [Slot(0, 2, H, unit_cost=2.0, fixed_cost=1.0, divisible=True, extensible=False, resource="m")]
    assert PlanEvaluator(g, div).evaluate([1])[0] == 2 * 2 + 2


def test_already_bought_indivisible_capacity_is_used_before_new_slots():
    # a (2 procs) must touch the indivisible slot 0 anyway, so it takes both its processors there
    # rather than one from the divisible slot 1; b then uses slot 0's spare processor for free
    g = workflow({"a": (2, H), "b": (1, H)})
    slots = [Slot(0, 3, H, divisible=False, extensible=False, resource="m"), Slot(0, 1, H, divisible=True, extensible=False, resource="m")]
    s = PlanEvaluator(g, slots).schedule([1, 1])
    assert s.placements["a"].slots == ((0, 2),) and s.placements["b"].slots == ((0, 1),)
    assert s.bought == (0,) and s.allocation_cost == 3.0


def test_infeasible_plan_has_infinite_makespan_and_a_reason():
    g = workflow({"a": (1, H), "b": (3, H)}, [("a", "b")])
    slots = [Slot(0, 2, 4 * H, divisible=True, extensible=False, resource="m"), Slot(0, 1, 4 * H, divisible=True, extensible=False, resource="m")]
    ev = PlanEvaluator(g, slots)
    s = ev.schedule([1, 0])
    assert not s.feasible and math.isinf(s.makespan)
    assert s.reason == "task 'b' (3 processors) fits in no slot of the plan"
    assert ev.evaluate([0, 0]) == (0.0, math.inf, 2)
    assert ev.schedule([1, 1]).feasible


def test_bad_input_is_rejected_before_any_work():
    g = workflow({"a": (8, H)})
    slot = Slot(0, 4, H, divisible=True, extensible=True, resource="m")
    with pytest.raises(InvalidInput, match="slot set is empty"):
        PlanEvaluator(g, [])
    with pytest.raises(InvalidInput, match="task 'a' needs 8 processors; the largest resource offers 4"):
        PlanEvaluator(g, [slot])
    with pytest.raises(InvalidInput, match="needs 8 processors; the largest resource offers 6"):
        PlanEvaluator(g, [slot], capacity={"m": 6})
    g2 = workflow({"a": (1, H), "b": (1, H)}, [("a", "b")])
    with pytest.raises(InvalidInput, match="order puts task 'b' before its parent 'a'"):
        PlanEvaluator(g2, [slot], order=["b", "a"])
    g3 = nx.DiGraph()
    g3.add_node("a", procs=1, runtime={"elsewhere": 5})
    with pytest.raises(InvalidInput, match=r"task 'a' cannot run on any of the resources \['m'\]"):
        PlanEvaluator(g3, [slot])
    ev = PlanEvaluator(g2, [slot])
    with pytest.raises(InvalidInput, match="one bit per slot: 1 expected, got 2"):
        ev.evaluate([1, 1])
    with pytest.raises(InvalidInput, match="release"):
        PlanEvaluator(g2, [slot], release=-1)


def test_table1_restrictions_are_enforced():
    slot = Slot(100, 4, H, divisible=True, extensible=False, resource="m")
    with pytest.raises(Infeasible, match="not extensible"):
        subslot_cost(slot, 100, 2, 2 * H)
    with pytest.raises(Infeasible, match="must start at or after 100"):
        subslot_cost(slot, 0, 2, 10)
    with pytest.raises(InvalidInput, match="infinite duration needs divisible=True and extensible=True"):
        Slot(0, 1, math.inf, divisible=True, extensible=False, resource="m")


# ----------------------------------------------------------------------------- properties
@st.composite
def instances(draw):
    n = draw(st.integers(1, 7))
    g = nx.DiGraph()
    resources = ["x", "y"][: draw(st.integers(1, 2))]
    for i in range(n):
        g.add_node(i, procs=draw(st.integers(1, 3)), runtime=draw(st.integers(1, 40)))
    for j in range(1, n):
        for i in draw(st.sets(st.integers(0, j - 1), max_size=2)):
            g.add_edge(i, j, data_bytes=draw(st.integers(0, 50)))
    slots = []
    for _ in range(draw(st.integers(1, 6))):
        resource = draw(st.sampled_from(resources))
        start, procs = draw(st.integers(0, 60)), draw(st.integers(1, 4))
        ext = draw(st.booleans())
        div = draw(st.booleans())
        endless = ext and div and draw(st.booleans())  # an endless slot is an edge slot (Table 1: b = e = true)
        slots.append(Slot(start, procs, math.inf if endless else draw(st.integers(1, 120)), divisible=div,
                          extensible=ext, resource=resource))
    bits = draw(st.lists(st.integers(0, 1), min_size=len(slots), max_size=len(slots)))
    return g, slots, bits


def _checked(g, slots, bits):
    net = Network(latency=3, bytes_per_second=10)
    try:
        ev = PlanEvaluator(g, slots, network=net, release=5)
    except InvalidInput:
        return None  # a task larger than every resource: rejected up front
    return ev, ev.schedule(bits), net


@given(instances())
@settings(max_examples=150, deadline=None)
def test_no_task_starts_before_its_parents_finish_plus_transfer(inst):
    out = _checked(*inst)
    if out is None:
        return
    ev, s, net = out
    g = inst[0]
    for t, p in s.placements.items():
        assert p.start >= 5
        for parent in g.predecessors(t):
            q = s.placements[parent]
            lag = net.transfer(g.edges[parent, t]["data_bytes"], q.resource, p.resource)
            assert p.start >= q.end + lag


@given(instances())
@settings(max_examples=150, deadline=None)
def test_tasks_never_use_more_processors_than_the_slots_they_bought(inst):
    out = _checked(*inst)
    if out is None:
        return
    ev, s, _ = out
    g, slots, bits = inst
    events = {}
    for p in s.placements.values():
        assert sum(q for _, q in p.slots) == p.procs
        for k, q in p.slots:
            slot = slots[k]
            assert bits[k] == 1 and slot.resource == p.resource
            assert slot.start <= p.start and (slot.extensible or p.end <= slot.end)
            events.setdefault(k, []).extend([(p.start, q), (p.end, -q)])
    for k, ev_k in events.items():
        used = 0
        for _, delta in sorted(ev_k, key=lambda e: (e[0], e[1])):
            used += delta
            assert used <= slots[k].procs
    if s.feasible:
        assert set(s.placements) == set(g.nodes)
        # every processor-second of every task is paid for at least once (c = 1, f = 0)
        work = sum(g.nodes[t]["procs"] * g.nodes[t]["runtime"] for t in g) / H
        assert s.allocation_cost >= work - 1e-9
        assert s.makespan == max(p.end for p in s.placements.values()) - 5


@given(instances())
@settings(max_examples=100, deadline=None)
def test_fast_evaluation_agrees_with_the_full_schedule(inst):
    out = _checked(*inst)
    if out is None:
        return
    ev, s, _ = out
    ac, sc, left = ev.evaluate(inst[2])
    assert (ac, sc) == (s.allocation_cost, s.makespan)
    assert (left == 0) == s.feasible
