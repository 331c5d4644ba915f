"""Domination, Pareto sets, selection by trade-off factor (Singh 2008, ch. 4.3, 4.6 eq. 15), hypervolume."""

import itertools
import math

import moocore  # DEAP's hypervolume backend
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gridmarket.errors import Infeasible, InvalidInput
from gridmarket.provisioning.pareto import (
    ParetoPlan,
    ParetoSet,
    dominates,
    hypervolume,
    nondominated,
)
from gridmarket.tradeoff import choose_by_tradeoff

points = st.lists(st.tuples(st.integers(0, 20), st.integers(0, 20)), min_size=1, max_size=25)


def test_figure_9_the_three_non_dominated_plans_form_the_set():
    # â1..â5 of Figure 9: â4 is dominated by â2, â5 by â2 and â3
    a = {1: (1, 9), 2: (3, 5), 3: (7, 2), 4: (4, 7), 5: (8, 6)}
    keep = {list(a)[i] for i in nondominated(list(a.values()))}
    assert keep == {1, 2, 3}
    assert dominates(a[2], a[4]) and dominates(a[2], a[5]) and dominates(a[3], a[5])


@given(points)
@settings(max_examples=200, deadline=None)
def test_nondominated_matches_brute_force(pts):
    got = set(nondominated(pts))
    expect = {i for i, p in enumerate(pts)
              if not any(dominates(q, p) for q in pts) and p not in pts[:i]}
    assert got == expect


def select_by_tradeoff(points, alpha):
    """Eq. 15 over ``(AC, SC)`` points: the one trade-off rule, makespan as the time, AC as the cost."""
    return choose_by_tradeoff([sc for _, sc in points], [ac for ac, _ in points], alpha)


@pytest.mark.parametrize("alpha, expected", [(0.0, 2), (0.3, 1), (0.5, 1), (0.8, 0), (1.0, 0)])
def test_eq_15_selection_by_hand(alpha, expected):
    # normalised: (0, 1), (0.2, 0.2), (1, 0); scores at α: α·AC + (1 − α)·SC
    pts = [(10.0, 900), (12.0, 500), (20.0, 400)]
    assert select_by_tradeoff(pts, alpha) == expected


def test_selection_with_a_single_point_or_equal_costs_and_bad_alpha():
    assert select_by_tradeoff([(5.0, 100)], 0.5) == 0
    assert select_by_tradeoff([(5.0, 100), (5.0, 90)], 1.0) == 1  # tie on AC: lower makespan
    for bad in (-0.1, 1.5, math.nan, True, "0.5"):
        with pytest.raises(InvalidInput, match="alpha must be in"):
            select_by_tradeoff([(1.0, 1)], bad)
    with pytest.raises(Infeasible, match="no feasible candidate to choose from"):
        select_by_tradeoff([], 0.5)


def test_pareto_set_keeps_one_plan_per_point_and_answers_any_alpha():
    plans = [ParetoPlan((0,), 4.0, 900), ParetoPlan((0, 1), 6.0, 500), ParetoPlan((2,), 6.0, 500),
             ParetoPlan((1,), 7.0, 600), ParetoPlan((3,), 1.0, math.inf)]
    front = ParetoSet.of(plans)
    assert [p.slots for p in front.plans] == [(0,), (0, 1)]
    assert {front.select(a / 10).slots for a in range(11)} == {(0,), (0, 1)}
    with pytest.raises(Infeasible, match="no feasible resource plan to choose from"):
        ParetoSet.of([]).select(0.5)
    with pytest.raises(InvalidInput):
        ParetoSet.of([]).select(2.0)


@given(points)
@settings(max_examples=200, deadline=None)
def test_every_alpha_selects_a_member_of_the_set_and_extremes_pick_the_extremes(pts):
    alpha_1 = pts[select_by_tradeoff(pts, 1.0)]
    alpha_0 = pts[select_by_tradeoff(pts, 0.0)]
    assert alpha_1[0] == min(p[0] for p in pts) and alpha_0[1] == min(p[1] for p in pts)


@given(points)
@settings(max_examples=200, deadline=None)
def test_hypervolume_agrees_with_deaps_backend_moocore(pts):
    ref = (21.0, 21.0)
    expected = moocore.hypervolume(np.array(pts, dtype=float), ref=np.array(ref))
    assert hypervolume(pts, ref) == pytest.approx(expected)


def test_hypervolume_by_hand_and_points_outside_the_reference_add_nothing():
    assert hypervolume([(1, 3), (2, 2), (3, 1)], (4, 4)) == 6.0
    assert hypervolume([(5, 1), (1, 5)], (4, 4)) == 0.0
    assert hypervolume([], (1, 1)) == 0.0
    # adding a dominated point changes nothing; a dominating one only adds
    base = hypervolume([(1, 3), (3, 1)], (4, 4))
    assert hypervolume([(1, 3), (3, 1), (3, 3)], (4, 4)) == base
    assert hypervolume([(1, 3), (3, 1), (2, 2)], (4, 4)) > base
    assert all(hypervolume([p], (4, 4)) == (4 - p[0]) * (4 - p[1])
               for p in itertools.product(range(4), repeat=2))
    assert np.isclose(hypervolume([(0.5, 0.5)], (1.0, 1.0)), 0.25)
