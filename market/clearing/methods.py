"""Clearing methods by name: how a metascheduler turns one cycle's predictions into an assignment.

A clearing method is a function ``method(costs: CycleCosts) -> ClearingResult``. The two of
Murali & Vadhiyar (sec. 3.3) are registered as ``"mcmf"`` (eq. 6's combined cost, min-cost
max-flow) and ``"stable"`` (deferred acceptance: jobs rank systems by predicted response,
systems rank jobs by electricity cost, sec. 3.3.2). A method of your own is registered with
:func:`register_clearing` or named ``"package.module:function"`` wherever a clearing is taken
(``MetaschedulerSpec.clearing``, a scenario's ``models``, ``compare --models``;
``docs/extending.md``). Whatever a method returns is checked (:func:`check_result`) before any
job is dispatched.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass

import numpy as np

from gridmarket.clearing.costs import combined_cost
from gridmarket.clearing.mcmf import clear_mcmf
from gridmarket.clearing.problem import ClearingProblem, ClearingResult
from gridmarket.clearing.stable import stable_match
from gridmarket.errors import InvalidInput
from gridmarket.plugins import FunctionContract, Registry

__all__ = ["CLEARING_METHODS", "ClearingMethod", "CycleCosts", "check_result", "register_clearing",
           "resolve_clearing"]


@dataclass(frozen=True)
class CycleCosts:
    """What a clearing method sees in one metascheduling cycle (Murali & Vadhiyar, sec. 3.3).

    Attributes
    ----------
    jobs : list
        Pending job ids, one row each.
    systems : list
        System (provider) names, one column each.
    response : numpy.ndarray, shape (jobs, systems)
        Predicted response time (s): predicted wait plus the job's estimate there. NaN where the
        system cannot run the job.
    energy : numpy.ndarray, shape (jobs, systems)
        Predicted electricity cost of running the job there (the systems' price unit). NaN where
        the system cannot run the job.
    capacity : list of int or None
        Jobs each system may receive this cycle (``MaxQ``); None = unbounded.
    w_t : float
        Weight of response time against electricity cost, percent (eq. 6).
    """

    jobs: list
    systems: list
    response: np.ndarray
    energy: np.ndarray
    capacity: list
    w_t: float


ClearingMethod = Callable[[CycleCosts], ClearingResult]


def _mcmf(costs: CycleCosts) -> ClearingResult:
    """Eq. (6)'s combined cost cleared by min-cost max-flow (eqs. 1-3)."""
    cost = combined_cost(costs.response, costs.energy, costs.w_t)
    return clear_mcmf(ClearingProblem(costs.jobs, costs.systems, cost, costs.capacity))


def _stable(costs: CycleCosts) -> ClearingResult:
    """Stable matching, jobs proposing by predicted response, systems ranking by electricity cost."""
    problem = ClearingProblem(costs.jobs, costs.systems, costs.response, costs.capacity)
    return stable_match(problem, proposing="jobs", system_cost=costs.energy)


CLEARING_METHODS: Registry[ClearingMethod] = Registry("clearing", FunctionContract(("costs",)),
                                                     {"mcmf": _mcmf, "stable": _stable})
"""Registered clearing methods by name (the live table; :func:`register_clearing` adds to it)."""


def register_clearing(name: str, method: ClearingMethod | None = None):
    """Register ``method`` under ``name`` (also usable as a decorator: ``@register_clearing("cheapest")``).

    Raises ``InvalidInput`` for a name taken already, a name with a colon (those are plug-in
    names) or a method that cannot be called as ``method(costs)``.
    """
    return CLEARING_METHODS.register(name, method)


def resolve_clearing(name: str) -> ClearingMethod:
    """The clearing method called ``name``: a registered one, or a plug-in ``"package.module:function"``.

    >>> resolve_clearing("mcmf").__name__
    '_mcmf'
    >>> resolve_clearing("mcfm")
    Traceback (most recent call last):
    ...
    gridmarket.errors.InvalidInput: unknown clearing 'mcfm' (did you mean 'mcmf'?); known: mcmf, stable, or a plug-in 'package.module:Name'
    """
    return CLEARING_METHODS.resolve(name)


def check_result(result: object, costs: CycleCosts, name: str) -> ClearingResult:
    """``result`` if it is a valid clearing of ``costs``; else ``InvalidInput`` naming method ``name``.

    Valid: a :class:`ClearingResult` whose assignment maps pending jobs to systems that can run
    them (finite response and energy), within every system's capacity.
    """
    if not isinstance(result, ClearingResult):
        raise InvalidInput(f"clearing {name!r} returned {type(result).__name__}, not a ClearingResult")
    row = {j: r for r, j in enumerate(costs.jobs)}
    col = {s: c for c, s in enumerate(costs.systems)}
    taken: dict[Hashable, int] = {}
    for job, system in result.assignment.items():
        if job not in row:
            raise InvalidInput(f"clearing {name!r} assigned job {job!r}, which is not pending this cycle")
        if system not in col:
            raise InvalidInput(f"clearing {name!r} assigned job {job!r} to unknown system {system!r}")
        r, c = row[job], col[system]
        if not (np.isfinite(costs.response[r, c]) and np.isfinite(costs.energy[r, c])):
            raise InvalidInput(f"clearing {name!r} assigned job {job!r} to {system!r}, which cannot run it")
        taken[system] = taken.get(system, 0) + 1
    for system, n in taken.items():
        cap = costs.capacity[col[system]]
        if cap is not None and n > cap:
            raise InvalidInput(f"clearing {name!r} sent {n} jobs to {system!r}, over its capacity of {cap} this cycle")
    return result
