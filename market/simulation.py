"""Event-driven simulation of one machine running a local batch policy.

Times are integer seconds from the start of the workload.

:func:`simulate` checks a workload and runs it through the machine's event loop,
:class:`MachineSimulation` (:mod:`gridmarket.scheduling.machine`: at each event time, every
end, every arrival in id order, then ONE scheduling pass; a job runs for
``min(runtime, estimate)``). A ``mesa.Model`` steps the same loop.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np

from gridmarket.errors import InvalidInput
from gridmarket.job import Job
from gridmarket.metrics import summarize
from gridmarket.reservation import Reservation
from gridmarket.scheduling import LocalScheduler, resolve_machine_policy
from gridmarket.scheduling.machine import MachineSimulation
from gridmarket.simulation_result import SimulationResult
from gridmarket.workloads.workload import Workload

if TYPE_CHECKING:
    import pandas as pd

    from gridmarket.twotier.policies import TwoTierPolicy

__all__ = [
    "ESTIMATES",
    "MachineSimulation",
    "SimulationResult",
    "job_columns",
    "job_records",
    "simulate",
]

ESTIMATES = ("requested", "exact")


def _check_jobs(jobs: Iterable[Job], procs: int, name: str) -> tuple[list[Job], dict[str, int]]:
    kept, dropped = [], {}
    too_big = 0
    last = None
    for job in jobs:
        key = (job.submit, job.id)
        if last is not None and key < last:
            raise InvalidInput(
                f"{name}: job {job.id} submits at {job.submit}, before job {last[1]} at {last[0]}"
            )
        last = key
        if job.procs > procs:
            too_big += 1
        else:
            kept.append(job)
    if too_big:
        reason = f"needs more than the machine's {procs} processors"
        dropped[reason] = too_big
        warnings.warn(f"{name}: dropped {too_big} job(s) that {reason}", stacklevel=3)
    return kept, dropped


def simulate(
    workload: Workload | Iterable[Job],
    *,
    procs: int | None = None,
    policy: str | type[LocalScheduler] | TwoTierPolicy = "easy",
    estimates: str = "requested",
    reservations: Iterable[Reservation] = (),
    rng: np.random.Generator | None = None,
) -> SimulationResult:
    """Run ``workload`` on one machine of ``procs`` processors under ``policy``.

    Parameters
    ----------
    workload : Workload or iterable of Job
        Jobs sorted by ``(submit, id)``.
    procs : int, optional
        Machine size; defaults to the workload's ``max_procs``.
    policy : str, LocalScheduler subclass or TwoTierPolicy
        ``fcfs``, ``easy``, ``conservative``, ``slots``, ``psp`` or any registered
        name or plug-in; or a two-tier policy ``keasy``, ``reasy``, ``measy``
        (:func:`gridmarket.twotier.simulate_twotier` with its defaults), resolved by
        :func:`gridmarket.scheduling.resolve_machine_policy`.
    estimates : {"requested", "exact"}
        Plan with the user's estimates, or with the actual runtimes (the
        thesis's experiments, Singh 2008 ch. 3.1).
    reservations : iterable of Reservation
        Placed in the plan at time 0 and honoured by the policy.
    rng : numpy.random.Generator, optional
        Required by stochastic policies (the two-tier ones draw CPU usages,
        slowdowns and losses); the rigid-job policies are deterministic.

    Returns
    -------
    SimulationResult

    Raises
    ------
    InvalidInput
        Unknown policy or estimate mode, no machine size, no jobs, jobs out of order.

    Examples
    --------
    >>> jobs = [Job(1, 0, 4, 100, 100), Job(2, 0, 4, 50, 50), Job(3, 0, 1, 200, 900)]
    >>> r = simulate(jobs, procs=4, policy="fcfs")
    >>> r.records[["job_id", "start", "end"]].values.tolist()
    [[1, 0, 100], [2, 100, 150], [3, 150, 350]]
    """
    if estimates not in ESTIMATES:
        raise InvalidInput(f"estimates must be one of {ESTIMATES}, got {estimates!r}")
    machine_policy = resolve_machine_policy(policy)
    if not isinstance(machine_policy, type):  # a two-tier policy's record: its own engine
        from gridmarket.twotier import simulate_twotier

        if reservations:
            raise InvalidInput(f"policy {machine_policy.name!r} does not take reservations")
        if rng is None:
            raise InvalidInput(f"policy {machine_policy.name!r} is stochastic: pass rng=numpy.random.default_rng(seed)")
        return simulate_twotier(workload, procs=procs, policy=machine_policy, rng=rng, estimates=estimates)
    jobs_in: Sequence[Job]
    if isinstance(workload, Workload):
        name, jobs_in, dropped = workload.name or "workload", workload.jobs, dict(workload.dropped)
        procs = procs if procs is not None else workload.max_procs
    else:
        name, jobs_in, dropped = "workload", tuple(workload), {}
    if procs is None:
        raise InvalidInput(f"{name}: no machine size: pass procs (the workload declares none)")
    scheduler = machine_policy(procs)
    if not jobs_in:
        raise InvalidInput(f"{name}: the workload has no jobs")
    if estimates == "exact":
        jobs_in = [j if j.estimate == j.runtime else replace(j, estimate=j.runtime) for j in jobs_in]
    jobs, too_big = _check_jobs(jobs_in, procs, name)
    dropped.update(too_big)
    sim = MachineSimulation(scheduler, jobs)
    for reservation in reservations:
        sim.add_reservation(reservation)
    sim.run_until(None)
    columns = job_columns(jobs, sim.start, sim.end)
    return SimulationResult(
        records=columns,
        summary=summarize(columns, procs, dropped=dropped),
        procs=procs,
        policy=scheduler.name,
        dropped=dropped,
    )


def job_records(jobs: list[Job], start: dict[int, int], end: dict[int, int]) -> pd.DataFrame:
    """Per-job records (see :class:`SimulationResult`) of ``jobs`` that all ended, as a table."""
    import pandas as pd

    return pd.DataFrame(job_columns(jobs, start, end))


def job_columns(jobs: list[Job], start: dict[int, int], end: dict[int, int]) -> dict[str, Any]:
    """:func:`job_records` column by column (numpy arrays, by name), without pandas."""
    n = len(jobs)
    if len(start) != n or len(end) != n:
        missing = [j.id for j in jobs if j.id not in end][:5]
        raise RuntimeError(f"simulation ended with {n - len(end)} unfinished job(s), e.g. {missing}")
    ids = np.fromiter((j.id for j in jobs), np.int64, n)
    runtime = np.fromiter((j.runtime for j in jobs), np.int64, n)
    estimate = np.fromiter((j.estimate for j in jobs), np.int64, n)
    submit = np.fromiter((j.submit for j in jobs), np.int64, n)
    starts = np.fromiter((start[j.id] for j in jobs), np.int64, n)
    return {
        "job_id": ids,
        "submit": submit,
        "start": starts,
        "end": np.fromiter((end[j.id] for j in jobs), np.int64, n),
        "procs": np.fromiter((j.procs for j in jobs), np.int64, n),
        "runtime": runtime,
        "estimate": estimate,
        "wait": starts - submit,
        "user": np.fromiter((j.user for j in jobs), np.int64, n),
        "outcome": np.where(runtime > estimate, "killed", "completed"),
    }
