"""Metascheduling by stable matching, the HTCondor-style alternative (Murali & Vadhiyar, sec. 3.3.2).

Jobs rank systems by increasing predicted response time; systems rank jobs by
increasing electricity cost. Deferred acceptance (Gale & Shapley) with a
capacity ``MaxQ`` per system yields a stable many-to-one matching:

* ``proposing="jobs"`` — jobs propose; the job-optimal stable matching;
* ``proposing="systems"`` — systems propose; the system-optimal one.

A matching is stable when no compatible (job, system) pair would both rather
be together: the job is unmatched or prefers the system to its own, and the
system has a free place or prefers the job to its worst accepted job.

Ties in a ranking are broken by position (lower job or system index first), so
preferences are strict and the result is deterministic.
"""

from __future__ import annotations

import heapq
from collections import deque

import numpy as np

from gridmarket.clearing.problem import ClearingProblem, ClearingResult, build_result
from gridmarket.errors import InvalidInput

__all__ = ["blocking_pairs", "stable_match"]

PROPOSERS = ("jobs", "systems")


def _ranks(problem: ClearingProblem, system_cost: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """(job_cost, system_cost) with NaN patterns checked."""
    job_cost = problem.cost
    if system_cost is None:
        return job_cost, job_cost
    system_cost = np.array(system_cost, dtype=float)
    if system_cost.shape != job_cost.shape:
        raise InvalidInput(f"system_cost has shape {system_cost.shape}; expected {job_cost.shape}")
    if not np.array_equal(np.isnan(system_cost), np.isnan(job_cost)):
        raise InvalidInput("system_cost and cost disagree on which pairs are incompatible (null/NaN)")
    if np.isinf(system_cost).any():
        raise InvalidInput("system_cost must be finite where compatible (it only ranks; negative is fine)")
    return job_cost, system_cost


def _preference_lists(job_cost: np.ndarray, system_cost: np.ndarray):
    m, n = job_cost.shape
    compatible = ~np.isnan(job_cost)
    job_prefs = []
    for i in range(m):
        ks = np.flatnonzero(compatible[i])
        job_prefs.append(ks[np.lexsort((ks, job_cost[i, ks]))].tolist())
    system_prefs, system_rank = [], np.full((n, m), -1, dtype=np.int64)
    for k in range(n):
        js = np.flatnonzero(compatible[:, k])
        order = js[np.lexsort((js, system_cost[js, k]))]
        system_prefs.append(order.tolist())
        system_rank[k, order] = np.arange(order.size)
    job_rank = np.full((m, n), -1, dtype=np.int64)
    for i, prefs in enumerate(job_prefs):
        job_rank[i, prefs] = np.arange(len(prefs))
    return job_prefs, system_prefs, job_rank, system_rank


def stable_match(
    problem: ClearingProblem,
    *,
    proposing: str = "jobs",
    system_cost: np.ndarray | None = None,
) -> ClearingResult:
    """Deferred acceptance with system capacities.

    Parameters
    ----------
    problem : ClearingProblem
        ``cost`` ranks systems for each job (lower is better, e.g. predicted
        response time); NaN pairs are unacceptable to both sides.
    proposing : {"jobs", "systems"}
        Which side proposes.
    system_cost : array, optional
        Same shape as ``problem.cost``; ranks jobs for each system (lower is
        better, e.g. electricity cost). Defaults to ``problem.cost``.

    Returns
    -------
    ClearingResult
        ``total_cost`` sums ``problem.cost`` over the matched pairs; method
        ``stable/jobs`` or ``stable/systems``.

    Notes
    -----
    Sec. 3.3.2 describes the job-proposing form used by HTCondor's
    negotiator and argues against it: the result is optimal for one side only,
    and ranks discard the magnitudes that MCMF's eq. (6) keeps. Complexity
    O(m n) proposals for m jobs and n systems, each O(log MaxQ).

    Examples
    --------
    Both jobs prefer A (capacity 1); A prefers job 2 (cheaper electricity).

    >>> p = ClearingProblem([1, 2], ["A", "B"], [[1.0, 5.0], [1.0, 9.0]], [1, 1])
    >>> stable_match(p, system_cost=[[3.0, 1.0], [2.0, 1.0]]).assignment
    {1: 'B', 2: 'A'}
    """
    if proposing not in PROPOSERS:
        raise InvalidInput(f"proposing must be one of {PROPOSERS}, got {proposing!r}")
    job_cost, sys_cost = _ranks(problem, system_cost)
    job_prefs, system_prefs, job_rank, system_rank = _preference_lists(job_cost, sys_cost)
    caps = problem.capacity_bounded()
    if proposing == "jobs":
        pairs = _jobs_propose(job_prefs, system_rank, caps)
    else:
        pairs = _systems_propose(system_prefs, job_rank, caps, len(job_prefs))
    return build_result(problem, sorted(pairs), f"stable/{proposing}")


def _jobs_propose(job_prefs: list[list[int]], system_rank: np.ndarray, caps: np.ndarray) -> list[tuple[int, int]]:
    n = len(caps)
    held: list[list[tuple[int, int]]] = [[] for _ in range(n)]  # max-heap by rank: (-rank, job)
    next_choice = [0] * len(job_prefs)
    free = deque(i for i, prefs in enumerate(job_prefs) if prefs)
    while free:
        i = free.popleft()
        prefs = job_prefs[i]
        if next_choice[i] >= len(prefs):
            continue  # rejected everywhere: stays unmatched
        k = prefs[next_choice[i]]
        next_choice[i] += 1
        if caps[k] == 0:
            free.append(i)
            continue
        heap, rank = held[k], int(system_rank[k, i])
        if len(heap) < caps[k]:
            heapq.heappush(heap, (-rank, i))
        elif -heap[0][0] > rank:
            _, worst = heapq.heapreplace(heap, (-rank, i))
            free.append(worst)
        else:
            free.append(i)
    return [(i, k) for k, heap in enumerate(held) for _, i in heap]


def _systems_propose(
    system_prefs: list[list[int]], job_rank: np.ndarray, caps: np.ndarray, n_jobs: int
) -> list[tuple[int, int]]:
    n = len(caps)
    match = [-1] * n_jobs  # system held by each job
    filled = [0] * n
    next_choice = [0] * n
    active = deque(k for k in range(n) if caps[k] > 0 and system_prefs[k])
    while active:
        k = active.popleft()
        prefs = system_prefs[k]
        while filled[k] < caps[k] and next_choice[k] < len(prefs):
            i = prefs[next_choice[k]]
            next_choice[k] += 1
            current = match[i]
            if current == -1:
                match[i] = k
                filled[k] += 1
            elif job_rank[i, k] < job_rank[i, current]:
                match[i] = k
                filled[k] += 1
                filled[current] -= 1
                active.append(current)  # it lost a job: proposes further down its list
    return [(i, k) for i, k in enumerate(match) if k != -1]


def blocking_pairs(
    result: ClearingResult,
    problem: ClearingProblem,
    *,
    system_cost: np.ndarray | None = None,
) -> list[tuple]:
    """Compatible (job, system) pairs that block ``result``; empty when it is stable.

    Uses the same strict preferences as `stable_match` (ties by position).

    >>> p = ClearingProblem([1, 2], ["A"], [[1.0], [2.0]], [1])
    >>> from gridmarket.clearing.problem import ClearingResult
    >>> blocking_pairs(ClearingResult({2: "A"}, 2.0, {1: "x"}, "hand"), p)
    [(1, 'A')]
    """
    job_cost, sys_cost = _ranks(problem, system_cost)
    _, _, job_rank, system_rank = _preference_lists(job_cost, sys_cost)
    jpos = {j: i for i, j in enumerate(problem.jobs)}
    spos = {s: k for k, s in enumerate(problem.systems)}
    caps = problem.capacity_bounded()
    match = {jpos[j]: spos[s] for j, s in result.assignment.items()}
    members: list[list[int]] = [[] for _ in problem.systems]
    for i, k in match.items():
        if job_rank[i, k] < 0:
            raise InvalidInput(f"job {problem.jobs[i]!r} is matched to incompatible system {problem.systems[k]!r}")
        members[k].append(i)
    for k, js in enumerate(members):
        if len(js) > caps[k]:
            raise InvalidInput(f"system {problem.systems[k]!r} holds {len(js)} jobs; capacity {caps[k]}")
    blocking = []
    for i in range(len(problem.jobs)):
        for k in map(int, np.flatnonzero(job_rank[i] >= 0)):
            if match.get(i) == k:
                continue
            if i in match and job_rank[i, match[i]] < job_rank[i, k]:
                continue  # the job prefers its own system
            if len(members[k]) < caps[k] or any(system_rank[k, i] < system_rank[k, other] for other in members[k]):
                blocking.append((problem.jobs[i], problem.systems[k]))
    return blocking
