"""MOGA (Singh 2008, ch. 4.5, eqs. 8-14): the sharing fitness, the operators, fronts against enumeration."""

import math
import random

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gridmarket.errors import Infeasible, InvalidInput
from gridmarket.job import Job
from gridmarket.pricing import Slot
from gridmarket.provisioning import PlanEvaluator, advertise
from gridmarket.provisioning.moga import cx_two_point, moga, moga_fitness, mut_flip_bit
from gridmarket.provisioning.pareto import exact_front, hypervolume
from gridmarket.scheduling import SlotScheduler
from gridmarket.workflows import layered_workflow


# ----------------------------------------------------------------------------- fitness
def test_eq_10_averages_the_linear_fitness_over_each_rank():
    # ranks: (1, 9) (3, 5) (7, 2) -> 1; (4, 7) -> 2 (dominated by (3, 5)); (8, 6) -> 3 (by (3, 5), (7, 2))
    ac, sc = [1, 3, 7, 4, 8], [9, 5, 2, 7, 6]
    fit = moga_fitness(ac, sc, sigma_share=1e-9)  # no sharing
    assert fit.tolist() == [4.0, 4.0, 4.0, 2.0, 1.0]  # N − (μ(1) − 1)/2 = 5 − 1; 5 − 3; 5 − 4


@given(st.lists(st.tuples(st.integers(0, 9), st.integers(0, 9)), min_size=1, max_size=30),
       st.floats(0.01, 2.0))
@settings(max_examples=150, deadline=None)
def test_shared_fitness_keeps_every_rank_total_and_the_population_total(pts, sigma):
    ac, sc = [p[0] for p in pts], [p[1] for p in pts]
    raw = moga_fitness(ac, sc, sigma_share=1e-12)
    shared = moga_fitness(ac, sc, sigma_share=sigma)
    n = len(pts)
    assert raw.sum() == pytest.approx(n * (n + 1) / 2)  # eq. 10 hands out N, N-1, ..., 1
    assert shared.sum() == pytest.approx(raw.sum())  # eq. 13 keeps each rank's total
    assert (shared > 0).all()


def test_sharing_lowers_the_fitness_of_crowded_members_of_a_rank():
    # three rank-1 plans: two almost on top of each other, one alone
    ac, sc = [0.0, 0.001, 1.0], [1.0, 0.999, 0.0]
    fit = moga_fitness(ac, sc)
    assert fit[2] > fit[0] and fit[0] == pytest.approx(fit[1])
    assert fit.sum() == pytest.approx(3 * 2.0)  # rank 1, N = 3: F = 3 − 1 = 2 each


def test_infeasible_plans_rank_below_every_feasible_one_and_prefer_fewer_unplaced_tasks():
    ac = [10.0, 0.0, 1.0, 2.0]
    sc = [100.0, math.inf, math.inf, math.inf]
    fit = moga_fitness(ac, sc, violation=[0, 3, 1, 1], sigma_share=1e-9)
    assert fit[0] == fit.max()
    # (viol 1, AC 1) dominates (viol 1, AC 2); (viol 3, AC 0) is non-dominated among the infeasible
    assert fit[2] > fit[3]


def test_fitness_rejects_bad_arguments():
    with pytest.raises(InvalidInput, match="differ in length"):
        moga_fitness([1.0], [1.0, 2.0])
    with pytest.raises(InvalidInput, match="sigma_share"):
        moga_fitness([1.0], [1.0], sigma_share=0)


# ----------------------------------------------------------------------------- operators
@given(st.integers(2, 40), st.integers(0, 2**32 - 1))
@settings(max_examples=100, deadline=None)
def test_two_point_crossover_swaps_one_inner_segment(n, seed):
    a, b = [0] * n, [1] * n
    cx_two_point(a, b, rng=np.random.default_rng(seed))
    assert [x + y for x, y in zip(a, b)] == [1] * n
    ones = [i for i, x in enumerate(a) if x]
    assert ones and ones == list(range(ones[0], ones[-1] + 1)) and ones[0] >= 1


def test_operators_and_search_leave_pythons_global_random_state_alone():
    state = random.getstate()
    cx_two_point([0, 1, 0], [1, 0, 1], rng=np.random.default_rng(1))
    mut_flip_bit([0, 1, 0], indpb=0.5, rng=np.random.default_rng(1))
    moga(_tiny_instance(1), population=10, generations=2, rng=np.random.default_rng(1))
    assert random.getstate() == state


def test_mutation_rate_is_per_bit():
    flips = sum(sum(mut_flip_bit([0] * 100, indpb=0.01, rng=np.random.default_rng(s))[0]) for s in range(200))
    assert flips == pytest.approx(200, rel=0.25)


# ----------------------------------------------------------------------------- the search
def _tiny_instance(seed, n_tasks=10, procs=16, n_jobs=25):
    """Slots a 16-processor slot scheduler leaves after 25 queued jobs; a 10-task layered workflow."""
    rng = np.random.default_rng(seed)
    s = SlotScheduler(procs)
    for i in range(n_jobs):
        d = int(rng.integers(1, 8)) * 600
        s.submit(Job(i, 0, int(rng.integers(1, procs + 1)), d, d), 0)
    slots = advertise("m", s.free_slots(0, until=s.plan_end + 300))
    g = layered_workflow(n_tasks, depth=3, mean_runtime=900, mean_procs=3, rng=rng)
    return PlanEvaluator(g, slots)


def _hv_ratio(found, exact):
    pts = exact.points
    lo = [min(p[i] for p in pts) for i in (0, 1)]
    span = [(max(p[i] for p in pts) - lo[i]) or 1.0 for i in (0, 1)]

    def norm(ps):
        return [tuple((p[i] - lo[i]) / span[i] for i in (0, 1)) for p in ps]

    return hypervolume(norm(found), (1.1, 1.1)) / hypervolume(norm(pts), (1.1, 1.1))


@pytest.mark.parametrize("seed", [1, 4, 5, 9])
def test_moga_front_reaches_95_percent_of_the_exact_hypervolume(seed):
    ev = _tiny_instance(seed)
    assert 11 <= ev.n_slots <= 13
    exact = exact_front(ev)
    result = moga(ev, rng=np.random.default_rng(seed))  # population 100, 10 generations
    assert len(exact) >= 3
    assert _hv_ratio(result.front.points, exact) >= 0.95
    # every plan MOGA reports is what the evaluator says it is, and none beats the exact front
    for plan in result.front.plans:
        bits = [1 if i in plan.slots else 0 for i in range(ev.n_slots)]
        assert ev.evaluate(bits)[:2] == plan.objectives
        assert all(not (plan.allocation_cost < p[0] and plan.makespan <= p[1]
                        or plan.allocation_cost <= p[0] and plan.makespan < p[1]) for p in exact.points)


def test_moga_is_reproducible_for_a_seed_and_reports_its_work():
    ev = _tiny_instance(4)
    a = moga(ev, population=20, generations=4, rng=np.random.default_rng(7))
    b = moga(ev, population=20, generations=4, rng=np.random.default_rng(7))
    assert a.front == b.front and a.n_evaluations == b.n_evaluations
    assert len(a.history) == 5 and a.generations == 4 and 0 < a.n_evaluations <= 20 * 5


def test_moga_on_a_hopeless_problem_returns_an_empty_front_and_select_says_infeasible():
    g = nx.DiGraph([("a", "b")])
    g.add_node("a", procs=2, runtime=3600)
    g.add_node("b", procs=2, runtime=3600)
    # two 1-processor slots that never overlap in time: a 2-processor task can never fit
    slots = [Slot(0, 2, 3600, divisible=False, extensible=False, resource="m"), Slot(3600, 1, 100, divisible=False, extensible=False, resource="m")]
    result = moga(PlanEvaluator(g, slots), population=6, generations=2, rng=np.random.default_rng(0))
    assert len(result.front) == 0
    with pytest.raises(Infeasible, match="no feasible resource plan"):
        result.front.select(0.5)


@pytest.mark.parametrize("kwargs", [dict(population=1), dict(generations=-1), dict(population=2.5)])
def test_moga_rejects_bad_parameters(kwargs):
    with pytest.raises(InvalidInput):
        moga(_tiny_instance(1), rng=np.random.default_rng(0), **kwargs)
