"""Exhaustive provisioning: a provisioning method written outside gridmarket.

Used by docs/extending.md as ``exhaustive_provisioning:exhaustive`` (with ``docs/examples/plugins``
on PYTHONPATH). A provisioning method takes a ``ProvisioningProblem`` (the workflow, the slots on
offer, alpha) and a random generator, and returns a ``ProvisioningResult``. Times are integer
seconds; prices SU.
"""

from gridmarket.provisioning import PlanEvaluator, ProvisioningResult, exact_front

MAX_SLOTS = 12  # 2^12 - 1 plans to schedule: a second or two


def exhaustive(problem, *, rng):
    """Every subset of the slots is a plan: the exact Pareto set, and the plan of alpha by eq. 15.

    MOGA (Singh 2008, ch. 4.5) searches the same plans; on a small slot set this method cannot
    miss one. Each plan is scheduled as MOGA's are (HEFT order, Table 1 costs); ``rng`` is unused.
    """
    evaluator = PlanEvaluator(problem.workflow, problem.slots, network=problem.network,
                              release=problem.release, capacity=problem.capacity or None)
    front = exact_front(evaluator, max_slots=MAX_SLOTS)
    chosen = front.select(problem.alpha)  # Infeasible (exit status 1) when no plan fits
    schedule = evaluator.schedule_indices(chosen.slots)
    charges = {f"slot {i} ({problem.slots[i].resource})": schedule.slot_costs[i] for i in schedule.bought}
    return ProvisioningResult(schedule.placements, charges, front=front,
                              n_evaluations=2 ** evaluator.n_slots - 1)
