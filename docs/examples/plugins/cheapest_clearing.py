"""Cheapest energy first: a metascheduler clearing method written outside gridmarket.

Used by docs/extending.md as ``cheapest_clearing:cheapest_energy`` (with ``docs/examples/plugins``
on PYTHONPATH). A clearing method takes one cycle's ``CycleCosts`` and returns a ``ClearingResult``.
"""

import numpy as np

from gridmarket.clearing import NO_COMPATIBLE_SYSTEM, OVER_CAPACITY, ClearingResult, CycleCosts


def cheapest_energy(costs: CycleCosts) -> ClearingResult:
    """Each job in arrival order to the system where its predicted electricity cost is lowest.

    Systems at capacity (MaxQ) this cycle are skipped; ties go to the shorter predicted response.
    Response time does not count otherwise (compare with MCMF's eq. 6 at w_t = 0).
    """
    left = [np.inf if cap is None else cap for cap in costs.capacity]
    assignment, unassigned, total = {}, {}, 0.0
    for r, job in enumerate(costs.jobs):
        usable = [c for c in range(len(costs.systems))
                  if np.isfinite(costs.energy[r, c]) and np.isfinite(costs.response[r, c])]
        if not usable:
            unassigned[job] = NO_COMPATIBLE_SYSTEM
            continue
        open_ = [c for c in usable if left[c] > 0]
        if not open_:
            unassigned[job] = OVER_CAPACITY
            continue
        c = min(open_, key=lambda k: (costs.energy[r, k], costs.response[r, k]))
        assignment[job] = costs.systems[c]
        left[c] -= 1
        total += float(costs.energy[r, c])
    return ClearingResult(assignment, total, unassigned, "cheapest-energy")
