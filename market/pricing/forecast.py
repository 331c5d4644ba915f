"""Planned starts of a provider's queued jobs under its local policy, for pricing (what-if planning).

Step 1 and step 4 of Singh 2008, ch. 5, Fig. 22: "create a schedule of the tasks in Q using pi",
with running jobs and reservations fixed. Times are integer seconds from simulation start. The plan
is the policy's planner's (:mod:`gridmarket.scheduling.planner`: conservative backfilling's greedy
plan, or any other policy run forward through the machine's event step); this module is where
pricing takes a policy given by name (the ``--policy`` of ``gridmarket quote``) and turns it into
that planner, once (:func:`gridmarket.scheduling.planner_of`).
"""

from __future__ import annotations

from gridmarket.pricing.state import ProviderState
from gridmarket.reservation import Reservation
from gridmarket.scheduling import LocalScheduler, planner_of
from gridmarket.scheduling.planner import Planner, greedy_plan
from gridmarket.scheduling.profile import AvailabilityProfile

__all__ = ["check_policy", "forecast", "greedy_plan", "pricing_planner"]


def pricing_planner(policy: str | type[LocalScheduler] | LocalScheduler | Planner) -> Planner:
    """The planner pricing uses for ``policy`` (a name, a plug-in name, a scheduler class or scheduler, a planner).

    Raises ``InvalidInput`` with one line: ``unknown pricing policy ...``, a plug-in that cannot be
    imported, or ``pricing policy ...: its scheduler refuses the stand-ins of running jobs``.
    """
    return planner_of(policy, purpose="pricing")


def check_policy(policy: str | type[LocalScheduler]) -> str | type[LocalScheduler]:
    """``policy`` as given if pricing can plan with it; ``InvalidInput`` otherwise (a command-line option's check).

    Any local policy :func:`gridmarket.scheduling.resolve_policy` knows can be planned, provided a
    scheduler made by its ``for_planning`` takes a job: a forward plan re-creates the running jobs as
    stand-ins (with their users) and submits the queue.

    >>> check_policy("gridmarket.scheduling.fcfs:FCFSScheduler"), check_policy("psp")
    ('gridmarket.scheduling.fcfs:FCFSScheduler', 'psp')
    """
    pricing_planner(policy)
    return policy


def forecast(
    state: ProviderState, policy: str | type[LocalScheduler] | Planner, *, extra: Reservation | None = None,
    base: AvailabilityProfile | None = None,
) -> dict[int, int]:
    """Planned start of every queued job of ``state`` under ``policy``, optionally with one more reservation.

    Parameters
    ----------
    state : ProviderState
        Running jobs (to their planned ends), reservations and the queue at ``state.now``.
    policy : str, scheduler class or Planner
        A policy pricing can plan with (:func:`check_policy`), or its planner.
    extra : Reservation, optional
        A slot to plan around as if it were already reserved (Fig. 22, step 2).
    base : Profile, optional
        ``base_profile(state)`` if the caller has it (not modified).

    Returns
    -------
    dict of int to int
        Job id to planned start (seconds), in queue order.

    Raises
    ------
    Infeasible
        ``extra`` conflicts with running jobs or reservations (Fig. 22, step 3).

    Examples
    --------
    Four processors; job 1 (3 procs) runs until 100. Queued: job 2 (4 procs,
    10 s), job 3 (1 proc, 50 s), job 4 (1 proc, 500 s). EASY backfills job 3
    now (it ends before job 2's shadow time, 100); job 4 would delay job 2
    and waits for it. FCFS backfills nothing.

    >>> from gridmarket.job import Job
    >>> from gridmarket.pricing.state import RunningJob
    >>> s = ProviderState(1, 4, running=(RunningJob(1, 3, 0, 100),),
    ...                   queue=(Job(2, 1, 4, 10, 10), Job(3, 1, 1, 50, 50), Job(4, 1, 1, 500, 500)))
    >>> forecast(s, "easy"), forecast(s, "fcfs")
    ({2: 100, 3: 1, 4: 110}, {2: 100, 3: 110, 4: 110})

    A slot of 2 processors over [100, 120) pushes job 2, and job 4 behind it, by 20 s:

    >>> forecast(s, "easy", extra=Reservation("x", 100, 2, 20))
    {2: 120, 3: 1, 4: 130}
    """
    return pricing_planner(policy).plan(state, extra, base=base)
