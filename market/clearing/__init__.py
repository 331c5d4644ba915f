"""Clearing of one metascheduling cycle: which pending job goes to which system.

Murali & Vadhiyar, sec. 3.3: cost model (eqs. 4-6), minimum-cost maximum flow
(eqs. 1-3, Fig. 1) and the stable-matching alternative (sec. 3.3.2). Costs are
unit-less; capacities are jobs per cycle (``MaxQ``).
"""

from gridmarket.clearing.costs import combined_cost, nadir_utopia
from gridmarket.clearing.mcmf import BACKENDS, clear_mcmf
from gridmarket.clearing.methods import (
    CLEARING_METHODS,
    ClearingMethod,
    CycleCosts,
    check_result,
    register_clearing,
    resolve_clearing,
)
from gridmarket.clearing.problem import (
    COST_SCALE,
    NO_COMPATIBLE_SYSTEM,
    OVER_CAPACITY,
    ClearingProblem,
    ClearingResult,
    integer_costs,
)
from gridmarket.clearing.stable import blocking_pairs, stable_match

__all__ = [
    "BACKENDS",
    "CLEARING_METHODS",
    "ClearingMethod",
    "CycleCosts",
    "check_result",
    "register_clearing",
    "resolve_clearing",
    "COST_SCALE",
    "ClearingProblem",
    "ClearingResult",
    "NO_COMPATIBLE_SYSTEM",
    "OVER_CAPACITY",
    "blocking_pairs",
    "clear_mcmf",
    "combined_cost",
    "integer_costs",
    "nadir_utopia",
    "stable_match",
]
