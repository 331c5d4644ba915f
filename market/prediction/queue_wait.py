"""Queue waiting-time prediction by similar-job clustering, with ridge regression as fallback.

Murali & Vadhiyar, sec. 3.1 (after their predictor [17]): a job is a point in
a feature space made of

* the job: processors requested, estimate;
* the queue now: sums of the queued jobs' processors, estimates and elapsed waits;
* the machine now: busy processors, summed elapsed run time and summed
  estimates of the running jobs.

History jobs (the last 2000 started on the system, sec. 4.3.2) nearest to the
target by Manhattan distance are clustered by DBSCAN (scikit-learn's labels,
computed by :mod:`gridmarket.prediction.dbscan`), which also drops
outliers; if a cluster lies close to the target, the prediction is the
distance-weighted mean wait of its jobs, otherwise a ridge regression fitted on
the whole history predicts it. Times are integer seconds.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import islice
from typing import Any

import numpy as np

from gridmarket.errors import InvalidInput
from gridmarket.job import Job
from gridmarket.prediction.dbscan import cluster_waits, nearest_rows, reference_manhattan_to_rows

__all__ = [
    "FEATURES",
    "QueueTotals",
    "QueueWaitPredictor",
    "perturb_waits",
    "queue_features",
]

FEATURES = (
    "procs",
    "estimate",
    "queued_procs",
    "queued_estimate",
    "queued_elapsed_wait",
    "busy_procs",
    "running_elapsed",
    "running_estimate",
)
"""Names of the eight features, in order."""


def queue_features(procs: int, estimate: int, scheduler, now: int) -> np.ndarray:
    """The feature vector of a job (``procs``, ``estimate``) arriving at ``now`` on a machine.

    Parameters
    ----------
    procs, estimate : int
        The job's request on this machine (an estimate already scaled to it).
    scheduler : LocalScheduler
        Read only: ``queue`` (waiting jobs) and ``running`` (id -> (job, start)).
    now : int
        Current time, seconds.

    Returns
    -------
    numpy.ndarray of float, shape (8,)
        In the order of `FEATURES`.

    Examples
    --------
    >>> from gridmarket.scheduling import FCFSScheduler
    >>> s = FCFSScheduler(4)
    >>> s.submit(Job(1, 0, 4, 100, 200), 0); _ = s.schedule(0)
    >>> s.submit(Job(2, 10, 2, 50, 60), 10)
    >>> queue_features(1, 30, s, 20).tolist()
    [1.0, 30.0, 2.0, 60.0, 10.0, 4.0, 20.0, 200.0]
    """
    queue, running = scheduler.queue, scheduler.running.values()
    q_procs = sum(j.procs for j in queue)
    q_est = sum(j.estimate for j in queue)
    q_wait = sum(now - j.submit for j in queue)
    busy = sum(j.procs for j, _ in running)
    r_elapsed = sum(now - start for _, start in running)
    r_est = sum(j.estimate for j, _ in running)
    return np.array([procs, estimate, q_procs, q_est, q_wait, busy, r_elapsed, r_est], dtype=float)


class QueueTotals:
    """The sums behind :func:`queue_features` for one simulation, kept up to date instead of re-summed.

    :func:`queue_features` sums over the whole queue and every running job,
    O(queue) per call; where the queue piles up (a metascheduler sending many
    jobs to one system) that dominates a run. This keeps the same sums from
    the simulation's own records: queued = submitted - started, running =
    started - ended, each a sum of ``procs``, ``estimate`` and
    ``submit``/start time (integers, so the features are exactly those of
    :func:`queue_features`).

    Parameters
    ----------
    sim : MachineSimulation
        Read only. Valid while no job of it is cancelled or killed (those
        leave the queue or end without the records this counts; `sync` refuses
        them).

    Examples
    --------
    >>> from gridmarket.scheduling import FCFSScheduler
    >>> from gridmarket.simulation import MachineSimulation
    >>> sim = MachineSimulation(FCFSScheduler(4), [Job(1, 0, 4, 100, 200), Job(2, 10, 2, 50, 60)])
    >>> sim.run_until(19)
    >>> totals = QueueTotals(sim)
    >>> totals.sync()
    [1]
    >>> totals.features(1, 30, 20).tolist() == queue_features(1, 30, sim.scheduler, 20).tolist()
    True
    """

    def __init__(self, sim) -> None:
        self.sim = sim
        self._submitted = 0  # jobs of sim.jobs counted in the submitted sums
        self._n_start = self._n_end = 0
        self._procs = self._est = self._submit = 0  # submitted minus started
        self._busy = self._r_est = self._r_start = 0  # started minus ended
        self._n_queue = self._n_run = 0
        self._job: dict[int, Job] = {}

    def sync(self) -> list[int]:
        """Count the submissions, starts and ends since the last call; return the newly started ids in start order."""
        sim = self.sim
        if sim.cancelled or sim.killed:
            raise InvalidInput("QueueTotals: a job was cancelled or killed; use queue_features")
        jobs, job_of = sim.jobs, self._job
        for k in range(self._submitted, sim.submitted):
            job = jobs[k]
            job_of[job.id] = job
            self._procs += job.procs
            self._est += job.estimate
            self._submit += job.submit
            self._n_queue += 1
        self._submitted = sim.submitted
        started = self._newest(sim.start, self._n_start)
        for job_id, t in started:
            job = job_of[job_id]
            self._procs -= job.procs
            self._est -= job.estimate
            self._submit -= job.submit
            self._n_queue -= 1
            self._busy += job.procs
            self._r_est += job.estimate
            self._r_start += t
            self._n_run += 1
        self._n_start = len(sim.start)
        for job_id, _ in self._newest(sim.end, self._n_end):
            job = job_of.pop(job_id)
            self._busy -= job.procs
            self._r_est -= job.estimate
            self._r_start -= sim.start[job_id]
            self._n_run -= 1
        self._n_end = len(sim.end)
        return [job_id for job_id, _ in started]

    @staticmethod
    def _newest(record: dict[int, int], seen: int) -> list[tuple[int, int]]:
        """The entries added to ``record`` after its first ``seen`` (dicts keep insertion order)."""
        fresh = len(record) - seen
        if fresh <= 0:
            return []
        newest = list(islice(reversed(record.items()), fresh))
        newest.reverse()
        return newest

    def features(self, procs: int, estimate: int, now: int) -> np.ndarray:
        """:func:`queue_features` of a job (``procs``, ``estimate``) arriving at ``now``; call `sync` first."""
        return np.array(
            [procs, estimate, self._procs, self._est, self._n_queue * now - self._submit,
             self._busy, self._n_run * now - self._r_start, self._r_est],
            dtype=float,
        )  # fmt: skip


@dataclass
class QueueWaitPredictor:
    """Online wait predictor for one system: observe started jobs, predict new ones.

    Parameters
    ----------
    history : int, default 2000
        Most recent started jobs kept (sec. 4.3.2).
    n_similar : int, default 64
        History jobs nearest to the target (Manhattan distance on features
        scaled by their history standard deviation) handed to DBSCAN.
    eps : float, default 1.0
        DBSCAN neighbourhood radius, in scaled Manhattan units.
    min_samples : int, default 4
        DBSCAN core-point size.
    close : float, default 3.0
        A cluster whose mean distance to the target is at most this is
        "very similar" and predicts by its weighted mean wait.
    alpha : float, default 1.0
        Ridge penalty (on scaled features).
    log_target : bool, default False
        Fit the ridge on ``log1p(wait)`` instead of the wait.
    cap : bool, default True
        Cap a ridge prediction at the longest wait in the history (ours; the
        paper states no cap). Without it the linear model extrapolates: a
        queue far longer than any in the history gets a wait far longer than
        any seen, which is what a metascheduler needs to see a pile-up coming
        (the history holds only *started* jobs, so the waits of a growing
        queue reach it late). ``benchmarks/nordugrid_predictor_cap.py``
        measures both on murali-nordugrid.
    refit_every : int, default 50
        Observations between ridge refits.
    nonpositive : {"zero", "nearest"}, default "zero"
        What a ridge answer <= 0 s becomes: a zero wait (ours), or the wait of
        the nearest history job (scaled Manhattan distance, ties to the older
        slot), as the authors' predictor answers with its one-neighbour
        weighted average when the regression's output is not positive (their
        ``QueueWaitingTime.py``: ``if regression_output > 0`` else
        ``WA_Predictor``, ``test_weighted_avg_neighbour_count = 1``). On a
        queue a metascheduler fills, the linear model answers <= 0 for many
        jobs; as zero waits the clearing sends them there
        (``benchmarks/nordugrid_predictor_cap.py --branches``).

    Attributes
    ----------
    n_cluster, n_ridge : int
        Rows answered so far by a close cluster and by the ridge.
    last_by_cluster : numpy.ndarray of bool
        Which rows of the last :meth:`predict_many` call a cluster answered.

    Notes
    -----
    The ``n_similar`` nearest history jobs are taken nearest first, ties to
    the older history slot (:func:`gridmarket.prediction.dbscan.nearest_rows`), an
    order that names the DBSCAN clusters the same way on every machine.
    The paper gives the method, not its constants: ``n_similar``, ``eps``,
    ``min_samples``, ``close`` and ``log_target`` are ours, chosen on 3000
    jobs of the SDSC-SP2 trace replayed under EASY (average absolute error
    12.4 ks for a mean wait of 14.1 ks; median percentage error 66 %); the
    tests replay a slice of it and pin the error. Prediction costs
    O(h) distances plus DBSCAN on ``n_similar`` points; the ridge fit is
    O(h * 8^2) every ``refit_every`` observations.

    Examples
    --------
    >>> p = QueueWaitPredictor(min_samples=2)
    >>> for w in (100, 110, 120, 105):
    ...     p.observe(np.array([1.0, 60, 0, 0, 0, 0, 0, 0]), w)
    >>> round(p.predict(np.array([1.0, 60, 0, 0, 0, 0, 0, 0])))
    109
    """

    history: int = 2000
    n_similar: int = 64
    eps: float = 1.0
    min_samples: int = 4
    close: float = 3.0
    alpha: float = 1.0
    log_target: bool = False
    cap: bool = True
    refit_every: int = 50
    nonpositive: str = "zero"
    _x: np.ndarray | None = field(default=None, init=False, repr=False)  # ring buffer of features
    _y: np.ndarray = field(init=False, repr=False)
    _n: int = field(default=0, init=False, repr=False)
    _pos: int = field(default=0, init=False, repr=False)
    _model: tuple[Any, np.ndarray] | None = field(default=None, init=False, repr=False)  # (Ridge, feature scale)
    _since_fit: int = field(default=0, init=False, repr=False)
    _scaled: tuple | None = field(default=None, init=False, repr=False)  # (scale, history / scale) until it changes
    _memo: dict = field(default_factory=dict, init=False, repr=False)  # this history's answers, by feature row
    n_cluster: int = field(default=0, init=False)
    n_ridge: int = field(default=0, init=False)
    last_by_cluster: np.ndarray | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        for name in ("history", "n_similar", "min_samples", "refit_every"):
            value = getattr(self, name)
            if not isinstance(value, int) or value < 1:
                raise InvalidInput(f"QueueWaitPredictor: {name} must be an int >= 1, got {value!r}")
        for name in ("cap", "log_target"):
            if not isinstance(getattr(self, name), bool):
                raise InvalidInput(f"QueueWaitPredictor: {name} must be a bool, got {getattr(self, name)!r}")
        if self.nonpositive not in ("zero", "nearest"):
            raise InvalidInput(f"QueueWaitPredictor: nonpositive must be 'zero' or 'nearest', got {self.nonpositive!r}")
        for name in ("eps", "close", "alpha"):
            if not getattr(self, name) > 0:
                raise InvalidInput(f"QueueWaitPredictor: {name} must be > 0, got {getattr(self, name)!r}")
        self._y = np.zeros(self.history)

    def __len__(self) -> int:
        return self._n

    def observe(self, features: np.ndarray, wait: float) -> None:
        """Add a started job: its features at submission and the wait it had (s, >= 0)."""
        if wait < 0:
            raise InvalidInput(f"wait must be >= 0 s, got {wait}")
        features = np.asarray(features, dtype=float)
        if self._x is None:
            self._x = np.zeros((self.history, features.size))
        elif features.size != self._x.shape[1]:
            raise InvalidInput(f"{features.size} features; the history has {self._x.shape[1]}")
        self._x[self._pos] = features
        self._y[self._pos] = float(wait)
        self._pos = (self._pos + 1) % self.history
        self._n = min(self._n + 1, self.history)
        self._since_fit += 1
        self._scaled = None
        self._memo.clear()

    def predict(self, features: np.ndarray) -> float:
        """Predicted wait in seconds (>= 0) of a job with ``features``; 0 with no history."""
        return float(self.predict_many(np.asarray(features, dtype=float)[None, :])[0])

    def predict_many(self, features: np.ndarray) -> np.ndarray:
        """Predicted waits (s) for each row of ``features`` (n, 8).

        Rows equal to one already predicted since the last :meth:`observe` get the same answer without
        recomputing it (a metascheduler asks again for every job still waiting, and for many jobs of
        one size at once); every other row goes through :func:`gridmarket.prediction.dbscan.cluster_waits`
        in one call, and the ridge answers the rows that have no close cluster.
        """
        features = np.atleast_2d(np.asarray(features, dtype=float))
        if not np.isfinite(features).all():
            raise InvalidInput("QueueWaitPredictor: features must be finite numbers")
        n = self._n
        self.last_by_cluster = np.zeros(len(features), dtype=bool)
        if n == 0:
            return np.zeros(len(features))
        y = self._y[:n]
        if n < self.min_samples:
            return np.full(len(features), y.mean())
        if self._scaled is None:  # the history changed since the last prediction
            X = self._x[:n]  # type: ignore[index]  # n > 0: observe made the buffer
            scale = X.std(axis=0)
            scale[scale == 0] = 1.0
            self._scaled = (scale, X / scale)
        scale, Xs = self._scaled
        out = np.empty(len(features))
        by_cluster = self.last_by_cluster
        memo = self._memo  # row bytes -> (wait, answered by a cluster)
        todo: dict[bytes, list[int]] = {}
        for r, row in enumerate(features):
            key = row.tobytes()
            answer = memo.get(key)
            if answer is None:
                todo.setdefault(key, []).append(r)
            else:
                out[r], by_cluster[r] = answer
        if todo:
            Fs = np.ascontiguousarray(features[[rows[0] for rows in todo.values()]] / scale)
            waits = cluster_waits(Xs, y, Fs, self.n_similar, self.eps, self.min_samples, self.close)
            for (key, rows), q, wait in zip(todo.items(), Fs, waits.tolist()):
                cluster = not np.isnan(wait)
                if not cluster:
                    wait = self._ridge(Xs, y, q)
                memo[key] = (wait, cluster)
                out[rows] = wait
                by_cluster[rows] = cluster
        n_cluster = int(by_cluster.sum())
        self.n_cluster += n_cluster
        self.n_ridge += len(features) - n_cluster
        return np.maximum(out, 0.0)

    def _ridge(self, Xs: np.ndarray, y: np.ndarray, q: np.ndarray) -> float:
        if self._model is None or self._since_fit >= self.refit_every:
            from sklearn.linear_model import Ridge

            target = np.log1p(y) if self.log_target else y
            self._model = (Ridge(alpha=self.alpha).fit(Xs, target), Xs.std(axis=0))
            self._since_fit = 0
        model, _ = self._model
        # Ridge.predict's own arithmetic (X @ coef_.T + intercept_) without its ~50 us of input checks
        value = float((q[None, :] @ model.coef_.T + model.intercept_)[0])
        if value <= 0 and self.nonpositive == "nearest":
            return float(y[nearest_rows(reference_manhattan_to_rows(Xs, q[None, :])[0], 1)[0]])
        if not self.cap:
            return float(np.expm1(min(value, 700.0))) if self.log_target else value  # (expm1 overflows past ~709)
        if self.log_target:
            value = float(np.expm1(min(value, np.log1p(y.max()))))
        # a linear model extrapolates without bound; no wait longer than any seen is predicted
        return min(value, float(y.max()))


def perturb_waits(predicted: np.ndarray, threshold_hours: float, *, rng: np.random.Generator) -> np.ndarray:
    """Add uniform ``[1, P]`` hours of noise to predicted waits (sec. 5.3, Table V).

    ``threshold_hours`` P = 0 returns the predictions unchanged (the unperturbed row).

    >>> perturb_waits(np.array([0.0, 60.0]), 0, rng=np.random.default_rng(0)).tolist()
    [0.0, 60.0]
    >>> w = perturb_waits(np.zeros(1000), 3, rng=np.random.default_rng(0))
    >>> bool(w.min() >= 3600 and w.max() <= 3 * 3600)
    True
    """
    predicted = np.asarray(predicted, dtype=float)
    if threshold_hours == 0:
        return predicted.copy()
    if threshold_hours < 1:
        raise InvalidInput(f"perturbation threshold must be 0 or >= 1 h, got {threshold_hours}")
    return predicted + rng.uniform(1.0, threshold_hours, size=predicted.shape) * 3600.0
