"""Grid metascheduling in day-ahead electricity markets (Murali & Vadhiyar, secs. 3-5).

A cycle-based metascheduler over systems running real local schedulers, its
strategies (MCMF, stable matching, INST, TWOPRICE, the BS baseline) and the
fairness score. Times are integer seconds; prices ``price_per_mwh``.
"""

from gridmarket.metascheduling.fairness import fairness_scores
from gridmarket.metascheduling.grid import STRATEGIES, GridConfig, GridResult, Site, run_grid, stream_rng
from gridmarket.metascheduling.metrics import instantaneous_load, power_over_time
from gridmarket.metascheduling.workload import grid_workload

__all__ = ["STRATEGIES", "GridConfig", "GridResult", "Site", "fairness_scores", "grid_workload",
           "instantaneous_load", "power_over_time", "run_grid", "stream_rng"]
