"""Virtual advance reservations (VAR) on a best-effort queue, and VAR combined with priced reservations.

Singh 2008, ch. 6: VAR (Nurmi et al. [48]) obtains a reservation of ``n``
processors for ``D`` seconds from ``S`` without any support from the
scheduler: a queue-wait predictor in the spirit of QBETS (eq. 21) gives the
probability that a job submitted now starts before a deadline; Figure 33
scans submission times from now to ``S`` in 30 s steps and submits, at the
time of highest probability ``T1``, a best-effort job of ``D + (S − T1)``
seconds. It succeeds when the job starts at ``T2 <= S``; the processors then
idle from ``T2`` to ``S`` (ch. 6.1.1, Figure 34). The combined scheme
(ch. 6.4, Figure 45) also buys the reservation at its adaptive price ``f``
and, when the VAR job starts in time, keeps the cheaper of the two, a
cancelled reservation costing ``p·f`` (eq. 23).

Costs follow ch. 6: the base charge ``n·D`` is common to every scheme, so a
scheme's *extra* cost is what it pays beyond it (VAR: the idle ``n·(S − T2)``;
a reservation: its externality price ``f``), and the normalised allocation
cost is extra / base (Figures 38, 46; eq. 22 bounds VAR's by ``(S − T)/D``).

Times are integer seconds from simulation start; costs are SU.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.special import betaincinv

from gridmarket.errors import InvalidInput
from gridmarket.job import Job
from gridmarket.provisioning.advertised import SECONDS_PER_HOUR
from gridmarket.provisioning.besteffort import submit_job
from gridmarket.simulation import MachineSimulation

__all__ = [
    "VAR_STEP",
    "CombinedOutcome",
    "StartFeed",
    "VarOutcome",
    "VarPlan",
    "WaitPredictor",
    "combine_var_and_reservation",
    "plan_var",
    "run_var",
    "summarize_reservations",
]

VAR_STEP = 30  # seconds between candidate submission times (Figure 33, "Increment = 30")
INF = math.inf


# ----------------------------------------------------------------------------- prediction
def size_class(procs: int) -> int:
    """Job-size class: ``floor(log2(procs))`` (1, 2-3, 4-7, ... processors)."""
    return int(procs).bit_length() - 1


def time_class(estimate: int) -> int:
    """Requested-time class: powers of two of 15 minutes (< 15 min, 15-30 min, 30-60 min, 1-2 h, ...)."""
    return int(estimate // 900).bit_length()


class WaitPredictor:
    """Queue-wait bounds from observed waits, QBETS style (Brevik, Nurmi & Wolski 2006).

    Parameters
    ----------
    confidence : float
        Confidence level ``C`` of the quantile bounds, in (0, 1) (QBETS uses 0.95).
    max_history : int
        Observations kept per size class (the most recent).
    min_history : int
        Below this many observations a class borrows the pooled history of all sizes.

    Notes
    -----
    *Binomial method.* With ``n`` observed waits sorted ``w_(1) <= ... <=
    w_(n)``, ``w_(k)`` bounds the ``q``-quantile from above with confidence
    ``C`` when ``P(Binomial(n, q) <= k − 1) >= C``. The probability reported
    for a deadline ``Δ`` is the largest ``q`` whose bound is ``<= Δ``: with
    ``j`` waits ``<= Δ`` it is the ``q`` solving ``P(Bin(n, q) <= j − 1) = C``,
    i.e. the ``1 − C`` quantile of a Beta(j, n − j + 1) distribution
    (``scipy.special.betaincinv``). It is a lower confidence bound on the
    probability of starting within ``Δ``, 0 when no observed wait was that short.

    *Classes.* Like QBETS, waits are grouped by requested processors and
    requested time: power-of-two processor classes (:func:`size_class`)
    crossed with power-of-two classes of 15 minutes (:func:`time_class`). A
    class with fewer than ``min_history`` waits borrows its size class, then
    the pooled history. The time classes are what give Figure 33 its
    trade-off: submitting earlier leaves more time to start but asks for a
    longer job, which waits longer. QBETS also detects change points in the
    history; here the window of the last ``max_history`` waits per class
    does the forgetting.

    The predictor is fitted online: :meth:`observe` adds one wait.

    Examples
    --------
    100 jobs of 32 processors: 60 started at once, 40 waited 2 h. The chance
    of starting within an hour is at least 0.51 (95 % confidence), within
    3 h at least 0.97 (all 100 waits were shorter: 0.05 ** (1/100) = 0.970).

    >>> p = WaitPredictor()
    >>> for i in range(100):
    ...     p.observe(32, 3600, 0 if i < 60 else 7200)
    >>> round(p.probability(32, 3600, 3600), 3), round(p.probability(32, 3600, 3 * 3600), 3)
    (0.513, 0.97)
    """

    def __init__(self, *, confidence: float = 0.95, max_history: int = 1000, min_history: int = 20) -> None:
        if not isinstance(confidence, float) or not 0 < confidence < 1:
            raise InvalidInput(f"confidence must be a float in (0, 1), got {confidence!r}")
        for name, value in (("max_history", max_history), ("min_history", min_history)):
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise InvalidInput(f"{name} must be an int >= 1, got {value!r}")
        self.confidence = confidence
        self.max_history = max_history
        self.min_history = min_history
        self._windows: dict[tuple, deque[int]] = {(): deque(maxlen=max_history)}
        self._sorted: dict[tuple, np.ndarray] = {}

    def observe(self, procs: int, estimate: int, wait: int) -> None:
        """Add the wait (seconds) of a job of ``procs`` processors and ``estimate`` seconds that has just started."""
        if wait < 0:
            raise InvalidInput(f"a wait cannot be negative, got {wait}")
        sc = size_class(procs)
        for key in ((sc, time_class(estimate)), (sc,), ()):
            window = self._windows.get(key)
            if window is None:
                window = self._windows[key] = deque(maxlen=self.max_history)
            window.append(wait)
            self._sorted.pop(key, None)

    @property
    def n_observed(self) -> int:
        """Waits in the pooled window."""
        return len(self._windows[()])

    def _history(self, procs: int, estimate: int) -> np.ndarray:
        sc = size_class(procs)
        for key in ((sc, time_class(estimate)), (sc,), ()):
            window = self._windows.get(key, ())
            if len(window) >= self.min_history or key == ():
                break
        cached = self._sorted.get(key)
        if cached is None:
            cached = self._sorted[key] = np.sort(np.fromiter(window, dtype=np.int64, count=len(window)))
        return cached

    def probability(self, procs: int, estimate: int, deadline: float) -> float:
        """Lower bound on the probability that a job submitted now starts within ``deadline`` seconds.

        The QBETS query of eq. 21: processors, requested time, deadline.
        """
        waits = self._history(procs, estimate)
        n = len(waits)
        if n == 0 or deadline < 0:
            return 0.0
        j = int(np.searchsorted(waits, deadline, side="right"))
        if j == 0:
            return 0.0
        return float(betaincinv(j, n - j + 1, 1.0 - self.confidence))

    def wait_bound(self, procs: int, estimate: int, quantile: float) -> float:
        """Upper bound (confidence ``C``) on the ``quantile`` of the wait, seconds; ``inf`` if too few data."""
        if not 0 < quantile < 1:
            raise InvalidInput(f"quantile must be in (0, 1), got {quantile!r}")
        waits = self._history(procs, estimate)
        n = len(waits)
        # smallest k with P(Bin(n, q) <= k - 1) >= C: k - 1 = binomial C-quantile
        k = 1
        cdf = pmf = (1 - quantile) ** n
        while cdf < self.confidence and k <= n:
            pmf *= (n - k + 1) / k * quantile / (1 - quantile)
            cdf += pmf
            k += 1
        return float(waits[k - 1]) if k <= n else INF


class StartFeed:
    """Feeds a predictor the wait of every job a simulation starts (the observed history, ch. 6.1).

    Call :meth:`update` after advancing the simulation; jobs that started
    since the last call are observed, in start order.
    """

    def __init__(self, sim: MachineSimulation, predictor: WaitPredictor, *, skip: Iterable[int] = ()) -> None:
        self.sim = sim
        self.predictor = predictor
        self.skip = set(skip)
        self._seen = 0
        self._jobs: dict[int, Job] = {}

    def update(self) -> None:
        """Observe the jobs started since the previous call."""
        starts = self.sim.start
        if len(starts) == self._seen:
            return
        items = list(starts.items())[self._seen:]
        self._seen = len(starts)
        for jid, t in items:
            if jid in self.skip:
                continue
            job = self._jobs.get(jid)
            if job is None:
                self._jobs = {j.id: j for j in self.sim.jobs}
                job = self._jobs[jid]
            self.predictor.observe(job.procs, job.estimate, t - job.submit)


# ----------------------------------------------------------------------------- Figure 33
@dataclass(frozen=True, slots=True)
class VarPlan:
    """When to submit the VAR job and for how long (Figure 33's output)."""

    submit: int
    runtime: int
    probability: float


def plan_var(
    predictor: WaitPredictor,
    *,
    procs: int,
    duration: int,
    start: int,
    now: int,
    step: int = VAR_STEP,
) -> VarPlan:
    """Figure 33: the submission time of highest start-before-``start`` probability, and the padded runtime.

    Parameters
    ----------
    predictor : WaitPredictor
        The queue-wait predictor (QBETS in the thesis).
    procs, duration, start : int
        The reservation wanted: ``procs`` processors for ``duration`` seconds from ``start``.
    now : int
        Current time, ``<= start``.
    step : int
        Seconds between candidate submission times (30).

    Returns
    -------
    VarPlan
        ``submit`` in ``[now, start)`` (``now`` if every probability is 0),
        ``runtime = duration + (start − submit)``.

    Notes
    -----
    For a submission at ``t`` the job must start within ``start − t`` and
    asks for ``duration + (start − t)`` seconds. The first maximum is kept
    (the earliest time on ties), as in Figure 33 (``currProb > maxProb``).

    Examples
    --------
    Waits of 20 and 40 minutes observed, the reservation 2 h away: every
    submission up to 40 minutes before the start has the same, best chance
    (all observed waits were shorter), and the earliest is kept.

    >>> p = WaitPredictor(min_history=1)
    >>> for w in [1200] * 50 + [2400] * 50:
    ...     p.observe(4, 3600, w)
    >>> v = plan_var(p, procs=4, duration=3600, start=7200, now=0)
    >>> v.submit, v.runtime, round(v.probability, 3)
    (0, 10800, 0.97)
    """
    for name, value in (("procs", procs), ("duration", duration), ("start", start), ("now", now), ("step", step)):
        if not isinstance(value, int) or isinstance(value, bool):
            raise InvalidInput(f"{name} must be an int, got {value!r}")
    if procs < 1 or duration < 1 or step < 1:
        raise InvalidInput(f"procs, duration and step must be >= 1, got {procs}, {duration}, {step}")
    if start < now:
        raise InvalidInput(f"the reservation starts at {start}, before now ({now})")
    best_t, best_p = now, 0.0
    for t in range(now, start, step):
        p = predictor.probability(procs, duration + (start - t), start - t)
        if p > best_p:
            best_t, best_p = t, p
    return VarPlan(best_t, duration + (start - best_t), best_p)


# ----------------------------------------------------------------------------- execution
@dataclass(frozen=True, slots=True)
class VarOutcome:
    """What happened to one virtual reservation (ch. 6.1.1, Figure 34).

    Attributes
    ----------
    procs, duration, start : int
        The reservation wanted.
    submit : int
        ``T1``: when the VAR job was submitted.
    job_start : int or None
        ``T2``: when it started, if it did by ``start``; ``None`` otherwise (failure).
    probability : float
        The predicted probability at ``T1``.
    """

    procs: int
    duration: int
    start: int
    submit: int
    job_start: int | None
    probability: float

    @property
    def success(self) -> bool:
        """The job started by the reservation's start."""
        return self.job_start is not None and self.job_start <= self.start

    @property
    def base_cost(self) -> float:
        """``n·D`` in SU: what the reservation itself is worth at the base rate."""
        return self.procs * self.duration / SECONDS_PER_HOUR

    @property
    def extra_cost(self) -> float:
        """Idle processors from ``T2`` to ``S`` in SU (0 on failure: nothing is kept)."""
        if not self.success or self.job_start is None:  # (success implies a job start)
            return 0.0
        return self.procs * (self.start - self.job_start) / SECONDS_PER_HOUR

    @property
    def allocation_cost(self) -> float:
        """SU paid on success: ``n × (S + D − T2)``, the job's run from its start to ``S + D``."""
        return self.base_cost + self.extra_cost if self.success else 0.0

    @property
    def normalized_cost(self) -> float:
        """Extra cost over the base charge (ch. 6.3; eq. 22 bounds it by ``(S − T1)/D``)."""
        return self.extra_cost / self.base_cost


def run_var(
    sim: MachineSimulation,
    predictor: WaitPredictor,
    *,
    procs: int,
    duration: int,
    start: int,
    job_id: int,
    feed: StartFeed | None = None,
    step: int = VAR_STEP,
) -> VarOutcome:
    """Plan a VAR (Figure 33) at ``sim.now``, submit its job and advance ``sim`` until it starts or ``start`` passes.

    Parameters
    ----------
    sim : MachineSimulation
        The provider's machine replaying its workload; advanced in place.
    predictor : WaitPredictor
        Fitted on the machine's history; ``feed`` keeps it up to date while
        the simulation runs.
    procs, duration, start : int
        The reservation wanted; ``start >= sim.now``.
    job_id : int
        Id for the VAR job (unused by the workload).
    feed : StartFeed, optional
        Observes every job start (the VAR job's is skipped).
    step : int
        Figure 33's increment (30 s).

    Returns
    -------
    VarOutcome

    Notes
    -----
    A VAR job that has not started by ``S`` is withdrawn from the queue at
    ``S`` (the reservation failed; it must not clog later requests).
    The job requests ``D + (S − T1)`` and, in the simulation, runs that long:
    a real user would release the processors at ``S + D``; the simulated
    machine holds them ``T2 − T1`` longer at most, which only affects jobs
    planned after the reservation.
    """
    if procs > sim.scheduler.procs:
        raise InvalidInput(f"VAR for {procs} processors; the machine has {sim.scheduler.procs}")
    now = sim.now
    plan = plan_var(predictor, procs=procs, duration=duration, start=start, now=now, step=step)
    if feed is not None:
        feed.skip.add(job_id)
    _advance(sim, plan.submit, feed)
    submit_job(sim, Job(job_id, plan.submit, procs, plan.runtime, plan.runtime))
    while job_id not in sim.start:
        t = sim.next_time()
        if t is None or t > start:
            break
        _advance(sim, t, feed)
    began = sim.start.get(job_id)
    if began is None:  # not started by S: the VAR failed and its job is withdrawn (ch. 6.1.1)
        sim.advance(start)
        sim.cancel(job_id)
    return VarOutcome(procs, duration, start, plan.submit, began if began is not None and began <= start else None,
                      plan.probability)


def _advance(sim: MachineSimulation, until: int, feed: StartFeed | None) -> None:
    sim.run_until(until)
    if feed is not None:
        feed.update()


# ----------------------------------------------------------------------------- Figure 45
@dataclass(frozen=True, slots=True)
class CombinedOutcome:
    """The combined VAR + priced-reservation scheme for one request (Figure 45).

    Attributes
    ----------
    used : str or None
        ``"reservation"``, ``"var"`` or ``None`` (both failed).
    extra_cost : float
        SU paid beyond the base charge ``n·D``: ``f`` when the reservation is
        used, the idle ``n(S − T2)`` plus the penalty ``p·f`` when VAR is used.
    base_cost : float
        ``n·D`` in SU.
    var_submitted : bool
        False when the reservation was free (``f = 0``) and VAR was not tried.
    """

    used: str | None
    extra_cost: float
    base_cost: float
    var_submitted: bool

    @property
    def success(self) -> bool:
        """A reservation (real or virtual) was obtained."""
        return self.used is not None

    @property
    def normalized_cost(self) -> float:
        """Extra cost over the base charge."""
        return self.extra_cost / self.base_cost


def combine_var_and_reservation(
    *,
    procs: int,
    duration: int,
    start: int,
    price: float,
    penalty_factor: float,
    var_start: int | None,
) -> CombinedOutcome:
    """Figure 45: keep the priced reservation or the VAR job, whichever costs less.

    Parameters
    ----------
    procs, duration, start : int
        The reservation: ``n``, ``D`` (seconds), ``S``.
    price : float
        ``f``: the adaptive (externality) price of the reservation in SU,
        ``math.inf`` when it cannot be granted.
    penalty_factor : float
        ``p`` in [0, 1]: cancelling the reservation costs ``p·f`` (eq. 23; 0.1 in ch. 6.4).
    var_start : int or None
        ``T2``: when the VAR job started, ``None`` if it did not (or was not run).

    Returns
    -------
    CombinedOutcome

    Notes
    -----
    If ``f = 0`` the reservation alone is used and no VAR job is submitted.
    If the VAR job starts by ``S`` and ``n(S − T2) + p·f <= f`` the
    reservation is cancelled and VAR used; otherwise the VAR job is
    cancelled (when it starts, so it costs nothing) and the reservation
    used. If the reservation could not be granted, VAR is the only chance.

    Examples
    --------
    32 processors for 1 h from 4 h, price f = 20 SU, penalty 10 %: a VAR job
    starting 30 min early idles 16 SU, + 2 SU penalty = 18 <= 20: VAR is kept.

    >>> h = 3600
    >>> c = combine_var_and_reservation(procs=32, duration=h, start=4 * h, price=20.0,
    ...                                 penalty_factor=0.1, var_start=int(3.5 * h))
    >>> c.used, c.extra_cost, c.normalized_cost
    ('var', 18.0, 0.5625)
    >>> combine_var_and_reservation(procs=32, duration=h, start=4 * h, price=20.0,
    ...                             penalty_factor=0.1, var_start=3 * h).used
    'reservation'
    """
    if not isinstance(penalty_factor, (int, float)) or not 0 <= penalty_factor <= 1:
        raise InvalidInput(f"penalty_factor must be in [0, 1], got {penalty_factor!r}")
    if not isinstance(price, (int, float)) or isinstance(price, bool) or not price >= 0:
        raise InvalidInput(f"price must be >= 0 SU (inf when not granted), got {price!r}")
    base = procs * duration / SECONDS_PER_HOUR
    if price == 0:
        return CombinedOutcome("reservation", 0.0, base, False)
    var_ok = var_start is not None and var_start <= start
    idle = procs * (start - var_start) / SECONDS_PER_HOUR if var_start is not None and var_ok else INF
    if price == INF:
        return CombinedOutcome("var", idle, base, True) if var_ok else CombinedOutcome(None, 0.0, base, True)
    if var_ok and idle + penalty_factor * price <= price:
        return CombinedOutcome("var", idle + penalty_factor * price, base, True)
    return CombinedOutcome("reservation", float(price), base, True)


def summarize_reservations(outcomes: Sequence) -> dict[str, float]:
    """Success rate and mean normalised allocation cost of successful requests (ch. 6.3 figures).

    ``outcomes`` are :class:`VarOutcome` or :class:`CombinedOutcome` (or
    anything with ``success`` and ``normalized_cost``).

    >>> summarize_reservations([CombinedOutcome("var", 1.0, 4.0, True), CombinedOutcome(None, 0.0, 4.0, True)])
    {'n': 2, 'success_rate': 0.5, 'mean_normalized_cost': 0.25}
    """
    n = len(outcomes)
    ok = [o for o in outcomes if o.success]
    mean = sum(o.normalized_cost for o in ok) / len(ok) if ok else math.nan
    return {"n": n, "success_rate": len(ok) / n if n else math.nan, "mean_normalized_cost": mean}
