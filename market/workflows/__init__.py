"""Workflows: the DAG model, generators, importers and the HEFT upward rank.

Singh 2008, ch. 4.1 (model), 4.5 (eq. 7), 4.7-4.8 (generated and CyberShake
workflows). Times are integer seconds; data sizes are bytes.
"""

from gridmarket.workflows.dag import (
    ENTRY,
    EXIT,
    Network,
    add_entry_exit,
    runtime_on,
    validate_workflow,
)
from gridmarket.workflows.dax import read_dax
from gridmarket.workflows.generators import (
    CYBERSHAKE_MODULES,
    cybershake_workflow,
    layered_workflow,
)
from gridmarket.workflows.rank import rank_order, upward_rank
from gridmarket.workflows.wfformat import (
    read_wfformat,
    read_workflow_json,
    workflow_from_dict,
    workflow_to_dict,
)

__all__ = [
    "CYBERSHAKE_MODULES",
    "ENTRY",
    "EXIT",
    "Network",
    "add_entry_exit",
    "cybershake_workflow",
    "layered_workflow",
    "rank_order",
    "read_dax",
    "read_wfformat",
    "read_workflow_json",
    "runtime_on",
    "upward_rank",
    "validate_workflow",
    "workflow_from_dict",
    "workflow_to_dict",
]
