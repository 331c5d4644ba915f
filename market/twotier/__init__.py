"""Two-tier processor sharing: KEASY, REASY and MEASY (Liu et al. 2012, ``measy-migration-consolidation``).

Each processor hosts a foreground VM (highest CPU priority) and a background VM (lowest); jobs
run in the fg tier as under EASY backfilling, and waiting jobs soak up the cycles fg jobs leave
idle in the bg tier. Times are integer seconds from simulation start.

Modules: :mod:`~gridmarket.twotier.progress` (CPU usages and the progress model, secs. 2.1, 3.1,
3.2), :mod:`~gridmarket.twotier.vm` (the machine's VMs and Algorithm 2's Dispatch),
:mod:`~gridmarket.twotier.policies` (Algorithms 1-3), :mod:`~gridmarket.twotier.simulation` (the
event-driven engine, :func:`simulate_twotier`), :mod:`~gridmarket.twotier.metrics` (sec. 3.3).
"""

from gridmarket.twotier.metrics import TAU, paper_metrics
from gridmarket.twotier.policies import EASY_ONE_TIER, KEASY, MEASY, REASY, TwoTierPolicy
from gridmarket.twotier.progress import JobTraits, bg_rate, draw_traits, fg_rate
from gridmarket.twotier.simulation import DEFAULT_MIGRATION_COST, TWO_TIER_POLICIES, simulate_twotier

__all__ = [
    "DEFAULT_MIGRATION_COST",
    "EASY_ONE_TIER",
    "KEASY",
    "MEASY",
    "REASY",
    "TAU",
    "TWO_TIER_POLICIES",
    "JobTraits",
    "TwoTierPolicy",
    "bg_rate",
    "draw_traits",
    "fg_rate",
    "paper_metrics",
    "simulate_twotier",
]
