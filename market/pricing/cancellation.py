"""Cancelling a priced reservation in a live scheduler (Singh 2008, ch. 6.4). Times in seconds.

:meth:`gridmarket.pricing.plan.ProviderPlan.cancel` cancels on a plan; this
module does the same on a running :class:`~gridmarket.scheduling.base.LocalScheduler`,
which has no method to drop a reservation (``add_reservation`` only). Until
the scheduling package grows one, :func:`withdraw_reservation` gives the
capacity back to the scheduler's availability profile and compresses the
queue the way each policy does after an early completion.
"""

from __future__ import annotations

from gridmarket.errors import InvalidInput
from gridmarket.reservation import Reservation
from gridmarket.scheduling import ConservativeScheduler, EASYScheduler, FCFSScheduler, SlurmPSPScheduler

__all__ = ["withdraw_reservation"]


def withdraw_reservation(scheduler, reservation_id: str | int, now: int) -> Reservation:
    """Drop reservation ``reservation_id`` from ``scheduler`` at ``now``; return it.

    The part of the reservation from ``now`` on returns to the scheduler's
    profile. Conservative backfilling then moves queued jobs, in arrival
    order, to their earliest start if it is earlier (nobody is delayed); the
    slot scheduler re-cuts its free slots and does the same; EASY, FCFS and
    PSP in SLURM (which re-plans from the profile at every pass and keeps no
    plan between passes) see the capacity at their next pass.

    Parameters
    ----------
    scheduler : LocalScheduler
        A ``conservative``, ``slots``, ``easy``, ``fcfs`` or ``psp-slurm`` scheduler, or a subclass of
        one (a plug-in such as the SJF-over-EASY of ``docs/extending.md``, PSP), withdrawn as its base.
    reservation_id : str or int
        The reservation to drop.
    now : int
        Current time (seconds), not before the scheduler's last event.

    Raises
    ------
    InvalidInput
        Unknown reservation id, or a policy this function does not know.

    Notes
    -----
    A job moved to ``now`` starts at the scheduler's next pass: a caller
    driving a :class:`~gridmarket.simulation.MachineSimulation` makes the
    simulation run a pass at ``now`` with ``sim.wake_at(now)``.

    Examples
    --------
    >>> from gridmarket.job import Job
    >>> from gridmarket.scheduling import ConservativeScheduler
    >>> s = ConservativeScheduler(4)
    >>> s.add_reservation(Reservation("r", 0, 4, 100), 0)
    >>> s.submit(Job(1, 0, 2, 50, 50), 0); s.planned
    {1: 100}
    >>> withdraw_reservation(s, "r", 10).end, s.planned
    (100, {1: 10})
    """
    if reservation_id not in scheduler.reservations:
        known = ", ".join(repr(k) for k in scheduler.reservations) or "none"
        raise InvalidInput(f"unknown reservation id {reservation_id!r}; held: {known}")
    plans_queue = isinstance(scheduler, ConservativeScheduler)  # the slot scheduler plans conservatively
    if not (plans_queue or isinstance(scheduler, (EASYScheduler, FCFSScheduler, SlurmPSPScheduler))):
        raise InvalidInput(f"withdraw_reservation: policy {scheduler.name!r} ({type(scheduler).__name__}) is not "
                           "supported: it is neither conservative, slots, easy, fcfs, psp-slurm nor a subclass of one")
    reservation = scheduler.reservations[reservation_id]
    if reservation.end <= now:
        del scheduler.reservations[reservation_id]
        return reservation
    start = max(reservation.start, now)
    profile = scheduler.profile
    profile.advance(now)
    profile.release(start, reservation.end - start, reservation.procs)
    del scheduler.reservations[reservation_id]
    if plans_queue:
        scheduler.compress(now)
    return reservation
