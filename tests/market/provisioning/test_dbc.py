"""Deadline-and-budget-constrained task-farm plans against enumeration of every assignment."""

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gridmarket.errors import InvalidInput
from gridmarket.provisioning.dbc import DBCResource, dbc_plan

resources = st.lists(
    st.builds(lambda p, t, w, r, u: (p, t, w, r, None if u is None else r + u), st.integers(0, 6).map(float),
              st.integers(1, 50), st.integers(1, 2), st.integers(0, 40), st.one_of(st.none(), st.integers(0, 120))),
    min_size=0, max_size=3)  # no resources at all: only the empty plan of no jobs is feasible


def _all_plans(rs, n):
    """Every assignment of ``n`` jobs that the resources' ends allow (an open resource takes any number)."""
    for counts in itertools.product(range(n + 1), repeat=len(rs)):
        if sum(counts) == n and all(r.until is None or r.finish(k) <= r.until for r, k in zip(rs, counts)):
            yield counts, sum(k * r.price for k, r in zip(counts, rs)), max((r.finish(k) for r, k in zip(rs, counts)),
                                                                             default=0)


@settings(max_examples=400, deadline=None)
@given(raw=resources, n=st.integers(0, 5), deadline=st.integers(0, 250), budget=st.integers(0, 30).map(float))
def test_every_strategy_is_exact_against_enumeration(raw, n, deadline, budget):
    rs = [DBCResource(f"r{i}", *x) for i, x in enumerate(raw)]
    feasible = [(c, cost, span) for c, cost, span in _all_plans(rs, n) if span <= deadline and cost <= budget]
    plans = {s: dbc_plan(rs, n, deadline=deadline, budget=budget, strategy=s) for s in ("cost", "time", "cost-time")}
    if not feasible:
        assert all(p is None for p in plans.values())
        return
    for p in plans.values():  # never over budget, always by the deadline, every job placed
        assert p is not None and sum(p.jobs) == n and p.cost <= budget and p.makespan <= deadline
        assert p.cost == sum(k * r.price for k, r in zip(p.jobs, rs))
        assert p.makespan == max((r.finish(k) for r, k in zip(rs, p.jobs)), default=0)
    cheapest = min(cost for _, cost, _ in feasible)
    assert plans["cost"].cost == cheapest
    assert plans["time"].makespan == min(span for _, _, span in feasible)
    assert plans["cost-time"].cost == cheapest
    assert plans["cost-time"].makespan == min(span for _, cost, span in feasible if cost == cheapest)


def test_bad_input_is_refused_naming_it():
    with pytest.raises(InvalidInput, match="unknown DBC strategy 'fast'"):
        dbc_plan([DBCResource("a", 1.0, 10)], 1, deadline=10, budget=1.0, strategy="fast")
    with pytest.raises(InvalidInput, match="resource 'a': job_time must be an int >= 1"):
        DBCResource("a", 1.0, 0)
    with pytest.raises(InvalidInput, match="resource names must be unique"):
        dbc_plan([DBCResource("a", 1.0, 10), DBCResource("a", 2.0, 5)], 1, deadline=10, budget=5.0)
