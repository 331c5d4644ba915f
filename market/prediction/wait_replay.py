"""Replay a trace on one machine while predicting every job's queue wait, and score the predictions.

The evaluation of Murali & Vadhiyar sec. 5.1.1 (absolute error per job, the
share of jobs predicted within an hour, percentage prediction error) on our
own scheduler: each job's wait is predicted at its submission from the
machine's queue and running set, with the history of jobs started before it.
Times are integer seconds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np
import pandas as pd

from gridmarket.errors import InvalidInput
from gridmarket.job import Job
from gridmarket.prediction.queue_wait import QueueWaitPredictor, queue_features
from gridmarket.scheduling import make_scheduler
from gridmarket.simulation import MachineSimulation

__all__ = ["PPE_FLOOR", "past_jobs", "replay_wait_predictions", "simulated_waits", "wait_prediction_errors",
           "warm_predictor"]

PPE_FLOOR = 60
"""Seconds: percentage errors divide by ``max(actual wait, PPE_FLOOR)`` so zero waits stay finite."""


def replay_wait_predictions(
    jobs: Sequence[Job],
    *,
    procs: int,
    policy: str = "easy",
    predictor: QueueWaitPredictor | None = None,
    predict: bool = True,
    machine=None,
) -> pd.DataFrame:
    """Simulate ``jobs`` on one machine and predict each job's wait at its submission.

    Parameters
    ----------
    jobs : sequence of Job
        Sorted by ``(submit, id)``; every job fits ``procs``.
    procs : int
        Machine size.
    policy : str
        Local scheduler name (default EASY, as in sec. 4.1).
    predictor : QueueWaitPredictor, optional
        Default: a fresh one with the paper's 2000-job history. It keeps what
        it observed: replaying a site's past jobs with ``predict=False`` gives
        a predictor its history (sec. 4.3.2) before it is used.
    predict : bool, default True
        ``False``: only feed the predictor (``predicted`` is NaN), much cheaper.
    machine : optional
        An empty machine to replay on instead of ``policy``'s: anything with the stepping
        interface of :class:`gridmarket.simulation.MachineSimulation` (``submit``, ``run_until``,
        ``start``, ``scheduler`` with ``queue`` and ``running``), e.g. a two-tier machine
        (:class:`gridmarket.twotier.stepper.TwoTierMachineSimulation`); ``policy`` is then unused.

    Returns
    -------
    pandas.DataFrame
        ``job_id, submit, procs, estimate, wait, predicted`` (seconds).

    Notes
    -----
    The machine state for the features is the one just before the submit
    instant (jobs ending at that very second are still running). A job enters
    the history once it has started, so no prediction uses a wait that was
    not yet known.

    Examples
    --------
    >>> jobs = [Job(i, 10 * i, 2, 100, 100) for i in range(1, 40)]
    >>> frame = replay_wait_predictions(jobs, procs=4)
    >>> list(frame.columns), len(frame)
    (['job_id', 'submit', 'procs', 'estimate', 'wait', 'predicted'], 39)
    """
    if not jobs:
        raise InvalidInput("no jobs to replay")
    too_big = next((j for j in jobs if j.procs > procs), None)
    if too_big is not None:
        raise InvalidInput(f"job {too_big.id} needs {too_big.procs} processors; machine has {procs}")
    predictor = predictor if predictor is not None else QueueWaitPredictor()
    if machine is None:
        sim = MachineSimulation(make_scheduler(policy, procs), list(jobs))
    else:
        sim = machine
        for job in jobs:
            sim.submit(job)
    scheduler = sim.scheduler
    features: dict[int, np.ndarray] = {}
    waiting: dict[int, Job] = {}
    predicted: dict[int, float] = {}
    k, n = 0, len(jobs)
    while k < n:
        t = jobs[k].submit
        sim.run_until(t - 1)
        for job_id in [j for j in waiting if j in sim.start]:
            job = waiting.pop(job_id)
            predictor.observe(features[job_id], sim.start[job_id] - job.submit)
        group = []
        while k < n and jobs[k].submit == t:
            group.append(jobs[k])
            k += 1
        rows = np.array([queue_features(j.procs, j.estimate, scheduler, t) for j in group])
        values = predictor.predict_many(rows) if predict else np.full(len(group), np.nan)
        for job, row, value in zip(group, rows, values):
            features[job.id] = row
            predicted[job.id] = float(value)
            waiting[job.id] = job
    sim.run_until(None)
    for job_id, job in waiting.items():  # the jobs that started after the last submission
        predictor.observe(features[job_id], sim.start[job_id] - job.submit)
    return pd.DataFrame(
        {
            "job_id": [j.id for j in jobs],
            "submit": [j.submit for j in jobs],
            "procs": [j.procs for j in jobs],
            "estimate": [j.estimate for j in jobs],
            "wait": [sim.start[j.id] - j.submit for j in jobs],
            "predicted": [predicted[j.id] for j in jobs],
        }
    )


def warm_predictor(predictor: QueueWaitPredictor, n_jobs: int, *, procs: int, policy: str,
                   rng: np.random.Generator, machine=None) -> None:
    """Give ``predictor`` a history: ``n_jobs`` past jobs of one machine, replayed under its policy.

    Murali & Vadhiyar's predictor learns from the last 2000 jobs started on
    the system (sec. 4.3.2). A run that starts it empty predicts no wait
    anywhere until a job that waited has started, and a metascheduler keeps
    sending jobs to a site whose queue grows meanwhile. The history is a
    seeded Lublin–Feitelson workload sized to the machine (``procs``), with
    Tsafrir user estimates, at the model's own load, spread over ten users
    (PSP ranks users), replayed apart from the run that follows (features
    and waits are relative, so its times never mix with the run's). ``machine``:
    an empty machine to replay on instead of ``policy``'s (:func:`replay_wait_predictions`).

    >>> p = QueueWaitPredictor()
    >>> warm_predictor(p, 300, procs=64, policy="easy", rng=np.random.default_rng(1))
    >>> len(p), p.predict(queue_features(1, 600, make_scheduler("easy", 64), 0)) >= 0
    (300, True)
    """
    replay_wait_predictions(past_jobs(n_jobs, procs=procs, rng=rng), procs=procs, policy=policy,
                            predictor=predictor, predict=False, machine=machine)


def past_jobs(n_jobs: int, *, procs: int, rng: np.random.Generator) -> list[Job]:
    """A machine's history for warming predictors: ``n_jobs`` Lublin–Feitelson jobs sized to ``procs``.

    User estimates follow Tsafrir's model; each job belongs to one of ten
    users (PSP ranks users). Sorted by ``(submit, id)``; times in seconds.

    >>> jobs = past_jobs(50, procs=64, rng=np.random.default_rng(1))
    >>> len(jobs), all(1 <= j.procs <= 64 and 1 <= j.user <= 10 for j in jobs)
    (50, True)
    """
    from gridmarket.workloads import lublin_workload

    history = lublin_workload(n_jobs, procs=procs, rng=rng, estimates="tsafrir").jobs
    users = rng.integers(1, 11, len(history)).tolist()
    return [replace(job, user=user) for job, user in zip(history, users, strict=True)]


def simulated_waits(jobs: Sequence[Job], *, procs: int, policy: str) -> list[tuple[Job, int]]:
    """Run ``jobs`` alone on a machine of ``procs`` processors; ``(job, wait s)`` in start order.

    The order a wait becomes known in, for predictors fed online (``WaitPredictor.observe``).

    >>> jobs = [Job(1, 0, 4, 100, 100), Job(2, 0, 4, 50, 50), Job(3, 10, 2, 10, 10)]
    >>> [(j.id, w) for j, w in simulated_waits(jobs, procs=4, policy="fcfs")]
    [(1, 0), (2, 100), (3, 140)]
    """
    if not jobs:
        raise InvalidInput("no jobs to replay")
    too_big = next((j for j in jobs if j.procs > procs), None)
    if too_big is not None:
        raise InvalidInput(f"job {too_big.id} needs {too_big.procs} processors; machine has {procs}")
    sim = MachineSimulation(make_scheduler(policy, procs), list(jobs))
    sim.run_until(None)
    order = sorted(jobs, key=lambda j: (sim.start[j.id], j.id))
    return [(j, sim.start[j.id] - j.submit) for j in order]


def wait_prediction_errors(frame: pd.DataFrame, *, floor: int = PPE_FLOOR) -> dict:
    """Error report of replayed predictions.

    Returns
    -------
    dict
        ``jobs``; ``aae`` (average absolute error, s); ``median_ae`` (s);
        ``within_1h`` (share of jobs with absolute error < 1 h, the paper's
        Fig. 2 criterion); ``mean_ppe`` and ``median_ppe`` (percent, over
        ``max(wait, floor)``); ``mean_wait`` (s); ``aae_by_wait`` (AAE per
        range of actual wait: < 1 h, 1-6 h, 6-24 h, >= 24 h).

    Examples
    --------
    >>> f = pd.DataFrame({"wait": [0, 3600], "predicted": [60.0, 1800.0]})
    >>> e = wait_prediction_errors(f)
    >>> e["aae"], e["within_1h"], e["mean_ppe"]
    (930.0, 1.0, 75.0)
    """
    missing = [c for c in ("wait", "predicted") if c not in frame.columns]
    if missing:
        raise InvalidInput(f"frame lacks column(s) {missing}")
    wait = frame["wait"].to_numpy(float)
    err = np.abs(frame["predicted"].to_numpy(float) - wait)
    ppe = err / np.maximum(wait, floor) * 100.0
    bins = [(0, 3600, "<1h"), (3600, 6 * 3600, "1-6h"), (6 * 3600, 24 * 3600, "6-24h"), (24 * 3600, np.inf, ">=24h")]
    by = {label: float(err[(wait >= lo) & (wait < hi)].mean()) for lo, hi, label in bins if ((wait >= lo) & (wait < hi)).any()}
    return {
        "jobs": int(len(frame)),
        "aae": float(err.mean()),
        "median_ae": float(np.median(err)),
        "within_1h": float((err < 3600).mean()),
        "mean_ppe": float(ppe.mean()),
        "median_ppe": float(np.median(ppe)),
        "mean_wait": float(wait.mean()),
        "aae_by_wait": by,
    }
