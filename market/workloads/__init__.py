"""Workloads: job-log readers and writers, synthetic workload models, and transformations.

Times are integer seconds everywhere.
"""

from market.workloads._tracefile import DroppedJobsWarning
from market.workloads.gwf import read_gwf
from market.workloads.lublin import lublin_workload
from market.workloads.swf import read_swf, write_swf
from market.workloads.transforms import (
    duplicate_trace,
    exact_estimates,
    scale_interarrival,
    scale_load,
    truncate,
)
from market.workloads.tsafrir import tsafrir_distribution, tsafrir_estimates
from market.workloads.workload import Workload

__all__ = [
    "Workload",
    "DroppedJobsWarning",
    "read_swf",
    "write_swf",
    "read_gwf",
    "lublin_workload",
    "tsafrir_distribution",
    "tsafrir_estimates",
    "scale_interarrival",
    "scale_load",
    "duplicate_trace",
    "exact_estimates",
    "truncate",
]
