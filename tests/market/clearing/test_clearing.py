"""MCMF and stable-matching clearing: oracles, properties and bad input."""

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gridmarket.clearing import (
    NO_COMPATIBLE_SYSTEM,
    OVER_CAPACITY,
    ClearingProblem,
    blocking_pairs,
    clear_mcmf,
    combined_cost,
    integer_costs,
    nadir_utopia,
    stable_match,
)
from gridmarket.errors import InvalidInput


def random_problem(rng, n_jobs, n_systems, p_incompatible=0.3, maxq=(0, 4)):
    cost = rng.uniform(0, 100, size=(n_jobs, n_systems)).round(2)
    cost[rng.random((n_jobs, n_systems)) < p_incompatible] = np.nan
    caps = [None if c == 0 else int(c) for c in rng.integers(maxq[0], maxq[1] + 1, n_systems)]
    return ClearingProblem(list(range(n_jobs)), [f"S{k}" for k in range(n_systems)], cost, caps)


def check_feasible(problem, result):
    """Each job at most once, only on compatible systems, capacities respected, all jobs accounted."""
    jpos = {j: i for i, j in enumerate(problem.jobs)}
    spos = {s: k for k, s in enumerate(problem.systems)}
    counts = dict.fromkeys(problem.systems, 0)
    for job, system in result.assignment.items():
        assert problem.compatible[jpos[job], spos[system]]
        counts[system] += 1
    for system, cap in zip(problem.systems, problem.capacity):
        assert cap is None or counts[system] <= cap
    assert set(result.assignment) | set(result.unassigned) == set(problem.jobs)
    assert not set(result.assignment) & set(result.unassigned)


def max_matching_size(problem):
    """Independent maximum-flow value (networkx preflow push) of the same network."""
    g = nx.DiGraph()
    caps = problem.capacity_bounded()
    for i, k in zip(*np.nonzero(problem.compatible)):
        g.add_edge("s", ("j", i), capacity=1)
        g.add_edge(("j", i), ("m", k), capacity=1)
        g.add_edge(("m", k), "t", capacity=int(caps[k]))
    return 0 if g.number_of_nodes() == 0 else nx.maximum_flow_value(g, "s", "t")


@pytest.mark.parametrize("seed", range(12))
def test_ortools_and_networkx_find_equal_optimal_cost(seed):
    rng = np.random.default_rng(seed)
    problem = random_problem(rng, int(rng.integers(1, 40)), int(rng.integers(1, 9)))
    fast, ref = clear_mcmf(problem, backend="ortools"), clear_mcmf(problem, backend="networkx")
    scaled = integer_costs(problem.cost)
    cost = lambda r: sum(scaled[problem.jobs.index(j), problem.systems.index(s)] for j, s in r.assignment.items())  # noqa: E731
    assert len(fast.assignment) == len(ref.assignment) == max_matching_size(problem)
    assert cost(fast) == cost(ref)
    check_feasible(problem, fast)
    check_feasible(problem, ref)


def test_mcmf_is_optimal_against_brute_force_on_tiny_instances():
    from itertools import product

    rng = np.random.default_rng(7)
    for _ in range(30):
        problem = random_problem(rng, 4, 3, maxq=(1, 2))
        best = (-1, 0.0)
        for choice in product([None, 0, 1, 2], repeat=4):
            counts = [0, 0, 0]
            ok = True
            total = 0.0
            for i, k in enumerate(choice):
                if k is None:
                    continue
                if not problem.compatible[i, k]:
                    ok = False
                    break
                counts[k] += 1
                total += integer_costs(problem.cost)[i, k]
            if ok and all(c <= cap for c, cap in zip(counts, problem.capacity_bounded())):
                n = sum(c is not None for c in choice)
                if n > best[0] or (n == best[0] and total < best[1]):
                    best = (n, total)
        r = clear_mcmf(problem)
        scaled = integer_costs(problem.cost)
        got = sum(scaled[j, problem.systems.index(s)] for j, s in r.assignment.items())
        assert (len(r.assignment), got) == best


@settings(max_examples=60, deadline=None)
@given(
    n_jobs=st.integers(0, 25),
    n_systems=st.integers(1, 6),
    seed=st.integers(0, 2**32 - 1),
    method=st.sampled_from(["mcmf", "stable/jobs", "stable/systems"]),
)
def test_every_clearing_places_each_job_at_most_once_within_capacities(n_jobs, n_systems, seed, method):
    rng = np.random.default_rng(seed)
    problem = random_problem(rng, n_jobs, n_systems)
    if method == "mcmf":
        result = clear_mcmf(problem)
    else:
        result = stable_match(problem, proposing=method.split("/")[1],
                              system_cost=np.where(problem.compatible, rng.uniform(0, 1, problem.cost.shape), np.nan))
    check_feasible(problem, result)


def test_unassigned_jobs_carry_their_reason():
    p = ClearingProblem(["a", "b", "c"], ["S"], [[1.0], [2.0], [None]], [1])
    r = clear_mcmf(p)
    assert r.assignment == {"a": "S"}
    assert r.unassigned == {"b": OVER_CAPACITY, "c": NO_COMPATIBLE_SYSTEM}
    assert r.to_json()["unassigned"][1] == {"job": "c", "reason": NO_COMPATIBLE_SYSTEM}


def test_custom_reason_for_a_job_without_system():
    p = ClearingProblem(["a"], ["S"], [[None]], [None], reasons={"a": "needs 9000 cores; largest system has 576"})
    assert clear_mcmf(p).unassigned == {"a": "needs 9000 cores; largest system has 576"}


def test_unbounded_capacity_lets_every_job_take_its_cheapest_system():
    rng = np.random.default_rng(1)
    p = random_problem(rng, 30, 4, p_incompatible=0.0, maxq=(0, 0))
    r = clear_mcmf(p)
    cheapest = np.nanargmin(p.cost, axis=1)
    assert all(p.systems.index(r.assignment[j]) == cheapest[j] or
               p.cost[j, p.systems.index(r.assignment[j])] == p.cost[j, cheapest[j]] for j in p.jobs)


@pytest.mark.parametrize(
    "cost,match",
    [
        ([[float("nan")], [-1.0]], "negative"),
        ([[float("inf")]], "infinite"),
        ([[1.0, 2.0]], "1 x 1"),
    ],
)
def test_bad_costs_are_rejected(cost, match):
    jobs = list(range(len(cost)))
    with pytest.raises(InvalidInput, match=match):
        ClearingProblem(jobs, ["S"], cost, [None])


def test_duplicate_ids_and_bad_capacity_are_rejected():
    with pytest.raises(InvalidInput, match="job 1 appears twice"):
        ClearingProblem([1, 1], ["S"], [[1.0], [1.0]], [None])
    with pytest.raises(InvalidInput, match="capacity of system 'S'"):
        ClearingProblem([1], ["S"], [[1.0]], [-2])
    with pytest.raises(InvalidInput, match="unknown system"):
        ClearingProblem.from_mapping([1], ["S"], [[1.0]], {"T": 2})


def test_unknown_backend_is_rejected():
    with pytest.raises(InvalidInput, match="unknown backend 'scipy'"):
        clear_mcmf(ClearingProblem([1], ["S"], [[1.0]], [None]), backend="scipy")


# ---------------------------------------------------------------- costs, eqs. 4-6
def test_nadir_utopia_maps_cycle_extremes_to_zero_and_one():
    x = nadir_utopia(np.array([[5.0, np.nan], [15.0, 10.0]]))
    assert x[0, 0] == 0 and x[1, 0] == 1 and x[1, 1] == 0.5 and np.isnan(x[0, 1])
    assert nadir_utopia(np.array([[3.0, 3.0]])).tolist() == [[0.0, 0.0]]


@pytest.mark.parametrize("w_t", [0, 25, 100])
def test_combined_cost_weights_terms_eq6(w_t):
    T = np.array([[100.0, 200.0], [300.0, np.nan]])
    E = np.array([[4.0, 2.0], [0.0, np.nan]])
    C = combined_cost(T, E, w_t)
    expected = w_t * np.array([[0, 0.5], [1, 0]]) + (100 - w_t) * np.array([[1, 0.5], [0, 0]])
    assert np.allclose(C[~np.isnan(C)], expected[~np.isnan(T)])


def test_combined_cost_accepts_negative_energy_from_negative_prices():
    C = combined_cost(np.array([[10.0, 10.0]]), np.array([[-3.0, 1.0]]), 0)
    assert C.tolist() == [[0.0, 100.0]]


def test_combined_cost_rejects_bad_weight_and_mismatched_nan():
    with pytest.raises(InvalidInput, match="w_t"):
        combined_cost(np.ones((1, 1)), np.ones((1, 1)), 120)
    with pytest.raises(InvalidInput, match="disagree"):
        combined_cost(np.array([[1.0, np.nan]]), np.array([[1.0, 1.0]]), 50)


# ---------------------------------------------------------------- stable matching
def oracle_matching(problem, system_cost, optimal):
    """The `matching` package's hospital-resident solution, as {job: system}."""
    from matching.games import HospitalResident

    compatible = problem.compatible
    res_prefs, hosp_prefs = {}, {}
    for i, j in enumerate(problem.jobs):
        ks = np.flatnonzero(compatible[i])
        if ks.size:
            res_prefs[f"j{j}"] = [problem.systems[k] for k in ks[np.lexsort((ks, problem.cost[i, ks]))]]
    for k, s in enumerate(problem.systems):
        js = np.flatnonzero(compatible[:, k])
        if js.size == 0:
            continue  # the package rejects players with empty lists
        hosp_prefs[s] = [f"j{problem.jobs[i]}" for i in js[np.lexsort((js, system_cost[js, k]))]]
    caps = {s: c for s, c in zip(problem.systems, problem.capacity_bounded().tolist()) if s in hosp_prefs}
    game = HospitalResident.create_from_dictionaries(res_prefs, hosp_prefs, caps)
    solution = game.solve(optimal=optimal)
    return {int(r.name[1:]): h.name for h, rs in solution.items() for r in rs}


@pytest.mark.parametrize("seed", range(10))
@pytest.mark.parametrize("proposing,optimal", [("jobs", "resident"), ("systems", "hospital")])
def test_stable_match_equals_matching_package_and_is_stable(seed, proposing, optimal):
    rng = np.random.default_rng(100 + seed)
    problem = random_problem(rng, int(rng.integers(2, 25)), int(rng.integers(1, 6)), maxq=(1, 4))
    system_cost = np.where(problem.compatible, rng.uniform(0, 50, problem.cost.shape).round(1), np.nan)
    result = stable_match(problem, proposing=proposing, system_cost=system_cost)
    assert blocking_pairs(result, problem, system_cost=system_cost) == []
    assert result.assignment == oracle_matching(problem, system_cost, optimal)


def test_job_optimal_is_weakly_better_for_every_job_than_system_optimal():
    rng = np.random.default_rng(42)
    problem = random_problem(rng, 30, 5, maxq=(1, 3))
    sc = np.where(problem.compatible, rng.uniform(0, 1, problem.cost.shape), np.nan)
    by_jobs = stable_match(problem, proposing="jobs", system_cost=sc)
    by_systems = stable_match(problem, proposing="systems", system_cost=sc)
    for j, s in by_systems.assignment.items():
        i = problem.jobs.index(j)
        assert j in by_jobs.assignment
        assert problem.cost[i, problem.systems.index(by_jobs.assignment[j])] <= problem.cost[i, problem.systems.index(s)]


def test_with_unbounded_capacity_jobs_get_their_first_choice():
    """Sec. 3.3.2's drawback: system preferences are then ignored altogether."""
    p = ClearingProblem([1, 2], ["A", "B"], [[1.0, 2.0], [1.0, 2.0]], [None, None])
    r = stable_match(p, system_cost=[[9.0, 0.0], [9.0, 0.0]])
    assert r.assignment == {1: "A", 2: "A"}


def test_blocking_pairs_detects_an_unstable_assignment():
    from gridmarket.clearing import ClearingResult

    p = ClearingProblem([1, 2], ["A", "B"], [[1.0, 2.0], [1.0, 2.0]], [1, 1])
    sc = np.array([[1.0, 1.0], [2.0, 2.0]])  # both systems prefer job 1
    bad = ClearingResult({1: "B", 2: "A"}, 3.0, {}, "hand")
    assert blocking_pairs(bad, p, system_cost=sc) == [(1, "A")]


def test_stable_match_rejects_bad_proposer_and_system_cost():
    p = ClearingProblem([1], ["A"], [[1.0]], [1])
    with pytest.raises(InvalidInput, match="proposing"):
        stable_match(p, proposing="users")
    with pytest.raises(InvalidInput, match="shape"):
        stable_match(p, system_cost=[[1.0, 2.0]])
