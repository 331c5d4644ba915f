"""Workloads: job-log readers and writers, synthetic workload models, and transformations.

Times are integer seconds everywhere.
"""

from gridmarket.workloads._tracefile import DroppedJobsWarning
from gridmarket.workloads.batsim_json import read_batsim_workload
from gridmarket.workloads.gwf import read_gwf
from gridmarket.workloads.lublin import lublin_workload
from gridmarket.workloads.swf import read_swf, write_swf
from gridmarket.workloads.traces import read_trace
from gridmarket.workloads.transforms import (
    duplicate_trace,
    exact_estimates,
    scale_interarrival,
    scale_load,
    truncate,
)
from gridmarket.workloads.tsafrir import tsafrir_distribution, tsafrir_estimates
from gridmarket.workloads.workload import Workload

__all__ = [
    "Workload",
    "DroppedJobsWarning",
    "read_swf",
    "write_swf",
    "read_gwf",
    "read_batsim_workload",
    "read_trace",
    "lublin_workload",
    "tsafrir_distribution",
    "tsafrir_estimates",
    "scale_interarrival",
    "scale_load",
    "duplicate_trace",
    "exact_estimates",
    "truncate",
]
