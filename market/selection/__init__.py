"""Resource selection by consumables and matchmaking (Ha, Turilli, Merzky & Jha, sec. III).

Viability (Algorithms 1-2), task cost (eqs. 1-2) and affinity-based selection
(Algorithm 3), usable as the compatibility layer of a metascheduler. Rates are
consumables per second; costs and times are seconds.
"""

from gridmarket.selection.bag_of_tasks import (
    TABLE_I_SYSTEMS,
    X86_CYCLE,
    SimulatedSystem,
    bag_of_tasks_ttc,
    compare_selection,
)
from gridmarket.selection.matchmaking import (
    Capability,
    Consumable,
    Requirement,
    Resource,
    Task,
    aggregate,
    res_select,
    satisfy_req,
    satisfy_task,
    select_resources,
    task_cost,
    ttc_affinity,
    viable_resources,
)

__all__ = [
    "Capability",
    "Consumable",
    "Requirement",
    "Resource",
    "SimulatedSystem",
    "TABLE_I_SYSTEMS",
    "Task",
    "X86_CYCLE",
    "aggregate",
    "bag_of_tasks_ttc",
    "compare_selection",
    "res_select",
    "satisfy_req",
    "satisfy_task",
    "select_resources",
    "task_cost",
    "ttc_affinity",
    "viable_resources",
]
