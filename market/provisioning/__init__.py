"""Provisioning: resource plans for workflows over advertised slots and quotes (Singh 2008, ch. 4, 6, 7).

* :mod:`~gridmarket.provisioning.advertised` -- a provider's slots named for the global set (eq. 3; the
  record and its Table 1 sub-slots are :class:`gridmarket.pricing.Slot`);
* :mod:`~gridmarket.provisioning.schedule` -- scheduling and allocation cost of a plan (ch. 4.2, 4.5);
* :mod:`~gridmarket.provisioning.moga` -- the multi-objective GA (ch. 4.5, eqs. 8-14);
* :mod:`~gridmarket.provisioning.pareto` -- Pareto sets, selection by α (eq. 15), enumeration oracle;
* :mod:`~gridmarket.provisioning.besteffort` -- the just-in-time best-effort baseline (ch. 4.7, eq. 16);
* :mod:`~gridmarket.provisioning.quotes`, :mod:`~gridmarket.provisioning.greedy` -- greedy HEFT over quotes (ch. 7, Fig. 51);
* :mod:`~gridmarket.provisioning.var` -- virtual advance reservations and the combined scheme (ch. 6);
* :mod:`~gridmarket.provisioning.methods` -- provisioning methods by name (``moga``, ``greedy``, plug-ins).

Times are integer seconds; costs are SU (processor-hours).
"""

from gridmarket.provisioning.advertised import SECONDS_PER_HOUR, advertise
from gridmarket.provisioning.besteffort import (
    BestEffortRun,
    JustInTime,
    Submission,
    best_effort_cost,
    run_best_effort,
    submit_job,
)
from gridmarket.provisioning.dbc import DBC_STRATEGIES, DBCPlan, DBCResource, dbc_plan
from gridmarket.provisioning.greedy import GreedyPlan, provision_greedy
from gridmarket.provisioning.methods import (
    PROVISIONING_METHODS,
    ProvisioningMethod,
    ProvisioningProblem,
    ProvisioningResult,
    check_provisioning,
    register_provisioning,
    resolve_provisioning,
)
from gridmarket.provisioning.moga import SIGMA_SHARE, MogaResult, moga, moga_fitness
from gridmarket.provisioning.pareto import (
    ParetoPlan,
    ParetoSet,
    dominates,
    exact_front,
    hypervolume,
    nondominated,
)
from gridmarket.provisioning.quotes import (
    FreeCapacityProvider,
    PlanQuoteProvider,
    PriceQuote,
    QuoteLike,
    QuoteProvider,
)
from gridmarket.provisioning.schedule import Placement, PlanEvaluator, PlanSchedule
from gridmarket.provisioning.var import (
    VAR_STEP,
    CombinedOutcome,
    StartFeed,
    VarOutcome,
    VarPlan,
    WaitPredictor,
    combine_var_and_reservation,
    plan_var,
    run_var,
    summarize_reservations,
)

__all__ = [
    "DBC_STRATEGIES",
    "PROVISIONING_METHODS",
    "SECONDS_PER_HOUR",
    "SIGMA_SHARE",
    "VAR_STEP",
    "BestEffortRun",
    "CombinedOutcome",
    "DBCPlan",
    "DBCResource",
    "FreeCapacityProvider",
    "GreedyPlan",
    "JustInTime",
    "MogaResult",
    "ParetoPlan",
    "ParetoSet",
    "Placement",
    "PlanEvaluator",
    "PlanQuoteProvider",
    "PlanSchedule",
    "PriceQuote",
    "ProvisioningMethod",
    "ProvisioningProblem",
    "ProvisioningResult",
    "QuoteLike",
    "QuoteProvider",
    "StartFeed",
    "Submission",
    "VarOutcome",
    "VarPlan",
    "WaitPredictor",
    "advertise",
    "best_effort_cost",
    "check_provisioning",
    "combine_var_and_reservation",
    "dbc_plan",
    "dominates",
    "exact_front",
    "hypervolume",
    "moga",
    "moga_fitness",
    "nondominated",
    "plan_var",
    "provision_greedy",
    "register_provisioning",
    "resolve_provisioning",
    "run_best_effort",
    "run_var",
    "submit_job",
    "summarize_reservations",
]
