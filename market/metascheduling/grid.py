"""A grid of batch systems driven by a cycle-based metascheduler (Murali & Vadhiyar, secs. 2-5).

Each system runs its own local scheduler (EASY by default, sec. 4.1) in a
`gridmarket.simulation.MachineSimulation`. Every ``cycle`` seconds the
metascheduler takes the pending grid jobs, predicts for each compatible system
the job's wait (a `QueueWaitPredictor` per system fed by that system's started
jobs), its end with the estimate scaled to the system (sec. 3.1), its power
and its electricity cost under the prices it expects (known day-ahead prices,
SARIMA past midnight, sec. 3.2), and clears the cycle by one of the strategies:

* ``mcmf`` — eqs. (4)-(6) costs, min-cost max flow with capacity MaxQ (sec. 3.3.1);
* ``stable-jobs`` / ``stable-systems`` — deferred acceptance, jobs ranking
  systems by response time and systems ranking jobs by electricity cost (sec. 3.3.2);
* ``inst`` — MCMF with every predicted wait fed as zero (sec. 5);
* ``twoprice`` — MCMF with the on/off-peak prices of `two_price` (sec. 5);
* ``bs`` — the baseline: every job runs where it was submitted.

A fraction ``grid_fraction`` of jobs (a seeded Bernoulli trial per job, sec.
5.6) goes through the metascheduler; the others are submitted to their origin
system directly. Times are integer seconds from simulation start; prices
``price_per_mwh``; power ``watts``; costs in the price series' currency.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from gridmarket.clearing import ClearingProblem, clear_mcmf, combined_cost, stable_match
from gridmarket.energy.electricity_cost import WH_PER_MWH
from gridmarket.energy.power import power_factors
from gridmarket.energy.prices import HourlyPrices, two_price
from gridmarket.energy.systems import GridSystem
from gridmarket.errors import InvalidInput
from gridmarket.job import Job
from gridmarket.metrics import bounded_slowdown
from gridmarket.prediction.price_forecast import PriceOutlook
from gridmarket.prediction.queue_wait import QueueTotals, QueueWaitPredictor, perturb_waits
from gridmarket.prediction.wait_replay import warm_predictor
from gridmarket.scheduling import make_scheduler
from gridmarket.simulation import MachineSimulation

__all__ = ["STRATEGIES", "GridConfig", "GridResult", "Site", "run_grid", "stream_rng"]

STRATEGIES = ("bs", "mcmf", "inst", "twoprice", "stable-jobs", "stable-systems")


@dataclass(frozen=True)
class Site:
    """A grid system with the prices it really pays and the view its metascheduler has of them.

    Parameters
    ----------
    system : GridSystem
    prices : HourlyPrices
        Actual hourly prices (hour 0 = simulation time 0), long enough to cover every job's end.
    outlook : PriceOutlook, optional
        What the metascheduler knows at each cycle; default: known day-ahead
        prices, SARIMA forecasts past midnight (`PriceOutlook`). Its forecasts
        are cached, so runs that share a `Site` fit each day once.
    continuation : HourlyPrices, optional
        Prices after ``prices`` ends (its hour 0 is second ``prices.end_time``),
        used only to price the part of a job's run past that end -- a caller's
        stated choice for a queue that outlasts its data (e.g.
        `gridmarket.energy.continue_by_repeating`). The metascheduler never sees
        them. None: a job ending past ``prices`` is an error (`run_grid`).
    """

    system: GridSystem
    prices: HourlyPrices
    outlook: PriceOutlook | None = None
    continuation: HourlyPrices | None = None

    def __post_init__(self) -> None:
        if self.outlook is None:
            object.__setattr__(self, "outlook", PriceOutlook(self.prices))

    def view(self, now: int) -> HourlyPrices:
        return self.outlook.view(now)  # type: ignore[union-attr]  # __post_init__ made one

    def price_hours(self, start: int, end: int) -> float:
        """Price-hours actually paid over ``[start, end)`` (seconds): ``prices``, then ``continuation``.

        Raises `InvalidInput` (one line) when ``end`` is past both.
        """
        cut = self.prices.end_time
        if end <= cut:
            return float(self.prices.integral(start, end))
        after = self.continuation
        if after is None or end - cut > after.end_time:
            covered = cut if after is None else cut + after.end_time
            what = "its price series" if after is None else "its price series and their continuation"
            raise InvalidInput(f"ends at second {end} on {self.system.name!r}, past {what} ({covered} s)")
        head = self.prices.integral(min(start, cut), cut)
        return float(head) + float(after.integral(max(start, cut) - cut, end - cut))


@dataclass(frozen=True)
class GridConfig:
    """A metascheduling strategy and its parameters (kept as given; checked in `run_grid`).

    Parameters
    ----------
    strategy : str
        One of `STRATEGIES`.
    w_t : float
        Weight of response time in eq. (6), percent.
    maxq : int or None
        Jobs a system may receive per cycle; None = unbounded.
    cycle : int
        Seconds between scheduling cycles (default 600).
    grid_fraction : float
        Probability that a job goes through the metascheduler (``f_g``).
    perturbation_hours : float
        Table V: add U[1, P] h to every predicted wait (0 = none).
    power_model : str
        ``hpl``, ``average``, ``lower`` or ``higher`` (sec. 5.8).
    local_policy : str
        Local scheduler of every system.
    backend : str
        MCMF backend, ``ortools`` or ``networkx``.
    history : int
        Jobs of history per wait predictor.
    wait_predictor : callable, optional
        Factory of a fresh predictor per system (default
        `QueueWaitPredictor(history, nonpositive=wait_nonpositive)`).
    wait_nonpositive : str
        The default predictor's answer where its ridge gives <= 0 s:
        ``zero`` (ours) or ``nearest`` (the nearest history job's wait, the
        authors' code; `QueueWaitPredictor`'s ``nonpositive``).
    warmup : int
        Past jobs replayed on each system to train its predictor before the
        run (`gridmarket.prediction.warm_predictor`, from a child stream of
        ``rng``); 0 starts the predictors empty. The paper's systems had
        their history (sec. 4.3.2); an empty predictor predicts no wait until
        a job that waited has started.
    lead_in : int
        The first ``lead_in`` jobs of the run's trace are history: each runs
        at its origin system (never routed), the predictors learn from them
        and their queues carry into the measured period, and they are left
        out of the records and summaries -- the authors' simulator does this
        with the first 500 jobs a site of its trace (``historySetSize`` in
        their ``metaScheduler.py``). 0: every job is measured.
    """

    strategy: str = "mcmf"
    w_t: float = 25.0
    maxq: int | None = 2
    cycle: int = 600
    grid_fraction: float = 1.0
    perturbation_hours: float = 0.0
    power_model: str = "hpl"
    local_policy: str = "easy"
    backend: str = "ortools"
    history: int = 2000
    wait_predictor: Callable[[], QueueWaitPredictor] | None = None
    wait_nonpositive: str = "zero"
    warmup: int = 0
    lead_in: int = 0

    @property
    def name(self) -> str:
        """A readable run id, e.g. ``mcmf-w25-maxq2``."""
        if self.strategy == "bs":
            return "bs"
        parts = [self.strategy]
        if self.strategy in ("mcmf", "inst", "twoprice"):
            parts.append(f"w{self.w_t:g}")
        parts.append(f"maxq{'inf' if self.maxq is None else self.maxq}")
        if self.grid_fraction != 1.0:
            parts.append(f"fg{self.grid_fraction:g}")
        if self.perturbation_hours:
            parts.append(f"p{self.perturbation_hours:g}h")
        if self.power_model != "hpl":
            parts.append(self.power_model)
        return "-".join(parts)

    def check(self) -> None:
        if self.strategy not in STRATEGIES:
            raise InvalidInput(f"unknown strategy {self.strategy!r}; known: {', '.join(STRATEGIES)}")
        if not 0 <= self.w_t <= 100:
            raise InvalidInput(f"w_t must be in [0, 100], got {self.w_t!r}")
        if self.maxq is not None and (not isinstance(self.maxq, int) or self.maxq < 1):
            raise InvalidInput(f"maxq must be an int >= 1 or None, got {self.maxq!r}")
        if not isinstance(self.cycle, int) or self.cycle < 1:
            raise InvalidInput(f"cycle must be an int >= 1 s, got {self.cycle!r}")
        if not 0 <= self.grid_fraction <= 1:
            raise InvalidInput(f"grid_fraction must be in [0, 1], got {self.grid_fraction!r}")
        if isinstance(self.warmup, bool) or not isinstance(self.warmup, int) or self.warmup < 0:
            raise InvalidInput(f"warmup must be an int >= 0 jobs, got {self.warmup!r}")
        if isinstance(self.lead_in, bool) or not isinstance(self.lead_in, int) or self.lead_in < 0:
            raise InvalidInput(f"lead_in must be an int >= 0 jobs, got {self.lead_in!r}")


@dataclass
class GridResult:
    """Per-job records and summaries of one grid run.

    Attributes
    ----------
    records : pandas.DataFrame
        One row per job: ``job_id, origin, system, routed, submit, dispatch,
        start, end, procs, runtime, estimate, power_watts, energy_cost,
        predicted_wait`` (times in seconds; ``routed`` is True for grid
        submissions; ``predicted_wait`` is NaN for local jobs).
    summary : dict
        ``jobs, mean_response, mean_wait, mean_bsld, total_energy_cost, total_energy_mwh, migrated,
        mean_wait_ppe`` and ``config``.
    per_system : pandas.DataFrame
        By system: ``jobs, core_hours, utilization, energy_cost, mean_response``.
    """

    records: pd.DataFrame
    summary: dict
    per_system: pd.DataFrame
    config: GridConfig = field(repr=False, default=None)  # type: ignore[assignment]  # run_grid gives it


class _SiteState:
    """Mutable bookkeeping of one system during a run."""

    def __init__(self, site: Site, config: GridConfig) -> None:
        self.site = site
        self.system = site.system
        self.scheduler = make_scheduler(config.local_policy, site.system.cores)
        self.sim = MachineSimulation(self.scheduler, [])
        factory = config.wait_predictor or (
            lambda: QueueWaitPredictor(history=config.history, nonpositive=config.wait_nonpositive))
        self.predictor = factory()
        self.totals = QueueTotals(self.sim)  # the queue features' sums, kept instead of re-summed
        self.features: dict[int, np.ndarray] = {}
        self.unobserved: dict[int, tuple[int, int]] = {}  # job id -> (arrival order here, machine submit)
        self.jobs: list[Job] = []

    def arrive(self, job: Job) -> None:
        """Queue ``job`` (submit time = arrival here) after recording its features."""
        self.sim.run_until(job.submit - 1)
        self.observe()
        self.features[job.id] = self.totals.features(job.procs, job.estimate, job.submit)
        self.unobserved[job.id] = (len(self.jobs), job.submit)
        self.sim.jobs.append(job)
        self.jobs.append(job)

    def observe(self) -> None:
        """Feed the predictor every job started since the last call, in arrival order."""
        start = self.sim.start
        started = self.totals.sync()
        if len(started) > 1:
            started.sort(key=lambda j: self.unobserved[j][0])
        for job_id in started:
            _, submit = self.unobserved.pop(job_id)
            self.predictor.observe(self.features.pop(job_id), start[job_id] - submit)


def _route(jobs: Sequence[Job], fraction: float, rng: np.random.Generator) -> np.ndarray:
    if fraction >= 1.0:
        return np.ones(len(jobs), bool)
    if fraction <= 0.0:
        return np.zeros(len(jobs), bool)
    return rng.random(len(jobs)) < fraction


def _scaled(job: Job, origin: GridSystem, target: GridSystem, submit: int) -> Job:
    if origin.gflops_per_core == target.gflops_per_core:
        return replace(job, submit=submit, site=target.name)
    ratio = origin.gflops_per_core / target.gflops_per_core
    return replace(job, submit=submit, runtime=_stretch(job.runtime, ratio), estimate=_stretch(job.estimate, ratio),
                   site=target.name)


def _stretch(seconds: int, ratio: float) -> int:
    """``seconds`` of work on a core ``ratio`` times as fast as the target's, on the target (whole seconds)."""
    return max(1, int(np.ceil(round(seconds * ratio, 9))))


def _scaled_estimate(job: Job, origin: GridSystem, target: GridSystem) -> int:
    """``_scaled(job, origin, target, t).estimate`` without building the job."""
    if origin.gflops_per_core == target.gflops_per_core:
        return job.estimate
    return _stretch(job.estimate, origin.gflops_per_core / target.gflops_per_core)


def stream_rng(stream: np.random.SeedSequence) -> np.random.Generator:
    """A generator on a fresh copy of ``stream``: every run seeded from one stream gets the same draws.

    :func:`run_grid` draws the predictors' warm-up histories from ``rng.spawn``, which advances the
    seed sequence under the generator. ``np.random.default_rng(stream)`` twice on one ``stream``
    shares that sequence, so a second strategy would train on other histories than the first, and a
    strategy's figures would depend on which strategies ran before it. Seed each run with
    ``stream_rng(stream)`` instead: the strategies compared see the same warm-up histories, in any
    order (common random numbers).

    >>> s = np.random.SeedSequence(7).spawn(1)[0]
    >>> a, b = stream_rng(s), stream_rng(s)
    >>> a.spawn(1)[0].integers(1000) == b.spawn(1)[0].integers(1000)
    np.True_
    >>> c, d = np.random.default_rng(s), np.random.default_rng(s)  # the trap: shared spawn counter
    >>> c.spawn(1)[0].integers(1000) == d.spawn(1)[0].integers(1000)
    np.False_
    """
    return np.random.default_rng(np.random.SeedSequence(stream.entropy, spawn_key=stream.spawn_key,
                                                        pool_size=stream.pool_size))


def run_grid(
    jobs: Sequence[Job],
    sites: Sequence[Site],
    config: GridConfig,
    *,
    rng: np.random.Generator,
    links: Mapping[tuple[str, str], tuple[float, float]] | None = None,
) -> GridResult:
    """Simulate the grid under one metascheduling strategy.

    Parameters
    ----------
    jobs : sequence of Job
        Sorted by ``(submit, id)``; ``site`` is the origin system's name;
        ``procs`` and ``estimate`` as requested there.
    sites : sequence of Site
    config : GridConfig
    rng : numpy.random.Generator
        Draws, in this order: the routing trial per job, the power factor per
        job, and the wait perturbations; the warm-up histories come from
        ``rng.spawn`` (runs to be compared on one seed stream: :func:`stream_rng`).
    links : mapping, optional
        ``(origin, target) -> (latency_s, bandwidth_bytes_per_s)``; for a job
        with ``data_bytes`` placed away from its origin the predicted response
        is ``max(comm, wait) + run`` with ``comm = latency + bytes / bandwidth``
        (eq. 10: the transfer overlaps the queue wait). Only the prediction
        uses it; the local scheduler sees the job at dispatch.

    Returns
    -------
    GridResult

    Raises
    ------
    InvalidInput
        Bad config, unknown origin system, a job no system can run, jobs out of order, or a job
        ending past its system's prices (and their ``continuation``, `Site`).
    """
    config.check()
    if not isinstance(rng, np.random.Generator):
        raise InvalidInput(f"rng must be a numpy.random.Generator, got {rng!r}")
    if config.lead_in >= len(jobs) and config.lead_in:
        raise InvalidInput(f"lead_in {config.lead_in} leaves none of the {len(jobs)} jobs to measure")
    states = {s.system.name: _SiteState(s, config) for s in sites}
    if len(states) != len(sites):
        raise InvalidInput("two sites share a system name")
    names = list(states)
    systems = [states[n].system for n in names]
    last = (-1, -1)
    for index, job in enumerate(jobs):
        if job.site not in states:
            raise InvalidInput(f"job {job.id} comes from unknown system {job.site!r}; systems are {names}")
        if (job.submit, job.id) < last:
            raise InvalidInput(f"job {job.id} (submit {job.submit}) is out of submit order")
        last = (job.submit, job.id)
        origin = states[job.site].system
        if (config.strategy == "bs" or index < config.lead_in) and job.procs > origin.cores:
            raise InvalidInput(f"job {job.id} needs {job.procs} cores; its origin {origin.name!r} has {origin.cores}")
    if config.warmup and config.strategy != "bs":
        # child streams of rng: the draws listed above stay the same
        for state, child in zip(states.values(), rng.spawn(len(states)), strict=True):
            warm_predictor(state.predictor, config.warmup, procs=state.system.cores, policy=config.local_policy,
                           rng=child)
    routed = _route(jobs, config.grid_fraction, rng) if config.strategy != "bs" else np.zeros(len(jobs), bool)
    routed[:config.lead_in] = False  # history jobs run where they were submitted (the draws above stay the same)
    factors = power_factors(len(jobs), config.power_model, rng=rng)
    factor_of = {job.id: f for job, f in zip(jobs, factors)}
    placed: dict[int, tuple[str, int, float]] = {}  # job id -> (system, dispatch, predicted wait)
    twoprice = {n: two_price(states[n].site.prices) for n in names} if config.strategy == "twoprice" else None

    pending: list[Job] = []
    k, n_jobs, now = 0, len(jobs), 0
    cycle = config.cycle
    while k < n_jobs or pending:
        window_end = now + cycle
        # local submissions of this window go straight to their origin
        while k < n_jobs and jobs[k].submit < window_end:
            job = jobs[k]
            if routed[k]:
                pending.append(job)
            else:
                states[job.site].arrive(job)  # type: ignore[index]  # not routed: it has an origin site
                placed[job.id] = (job.site, job.submit, float("nan"))  # type: ignore[assignment]  # as above
            k += 1
        for state in states.values():
            state.sim.run_until(window_end - 1)
            state.observe()
        now = window_end
        ready = [j for j in pending if j.submit < now]
        if ready:
            assignment, predicted = _clear_cycle(ready, states, names, systems, config, now, twoprice, links, rng)
            dispatched = sorted(assignment.items(), key=lambda kv: kv[0])
            for job_id, name in dispatched:
                job = next(j for j in ready if j.id == job_id)
                state = states[name]
                state.arrive(_scaled(job, states[job.site].system, state.system, now))  # type: ignore[index]  # routed jobs have an origin
                placed[job_id] = (name, now, predicted[job_id])
            done = set(assignment)
            pending = [j for j in pending if j.id not in done]
    for state in states.values():
        state.sim.run_until(None)
    return _result(jobs[config.lead_in:], routed[config.lead_in:], placed, states, factor_of, config)


def _clear_cycle(ready, states, names, systems, config, now, twoprice, links, rng):
    m, n = len(ready), len(names)
    response = np.full((m, n), np.nan)
    energy = np.full((m, n), np.nan)
    waits = np.full((m, n), np.nan)
    reasons = {}
    for col, name in enumerate(names):
        state = states[name]
        target = state.system
        prices = twoprice[name] if twoprice is not None else state.site.view(now)
        rows, feats, est, watts = [], [], [], []
        queue_part = None  # the queue's and running jobs' features: the same for every job at this instant
        for row, job in enumerate(ready):
            origin = states[job.site].system
            if job.procs > target.cores:
                continue
            estimate = _scaled_estimate(job, origin, target)
            if estimate > target.max_walltime:
                continue
            rows.append(row)
            est.append(estimate)
            if config.strategy != "inst":  # INST feeds zero waits: no features needed
                if queue_part is None:
                    queue_part = state.totals.features(0, 0, now)
                features = queue_part.copy()
                features[0], features[1] = job.procs, estimate
                feats.append(features)
            watts.append(job.procs * target.watts_per_core)
        if not rows:
            continue
        rows_a = np.array(rows)
        wait = np.zeros(len(rows)) if config.strategy == "inst" else state.predictor.predict_many(np.array(feats))
        if config.perturbation_hours:
            wait = perturb_waits(wait, config.perturbation_hours, rng=rng)
        wait = np.rint(wait)
        est_a = np.array(est)
        reach = wait.copy()
        if links is not None:
            for r, row in enumerate(rows):
                job = ready[row]
                if job.data_bytes and job.site != name:
                    latency, bandwidth = links[(job.site, name)]
                    reach[r] = max(wait[r], latency + job.data_bytes / bandwidth)  # eq. (10)
        start = now + reach
        end = np.minimum(start + est_a, prices.end_time)
        start = np.minimum(start, end)
        response[rows_a, col] = (end - np.array([ready[r].submit for r in rows]))
        energy[rows_a, col] = np.array(watts) * prices.integral(start.astype(np.int64), end.astype(np.int64)) / WH_PER_MWH
        waits[rows_a, col] = wait
    for row, job in enumerate(ready):
        if np.isnan(response[row]).all():
            biggest = max(systems, key=lambda s: s.cores)
            reasons[job.id] = (
                f"job {job.id} ({job.procs} cores, estimate {job.estimate} s) fits no system: "
                f"largest has {biggest.cores} cores; wall-time limits up to {max(s.max_walltime for s in systems)} s"
            )
    if reasons:
        raise InvalidInput("; ".join(list(reasons.values())[:3]))
    ids = [j.id for j in ready]
    caps = [config.maxq] * n
    if config.strategy.startswith("stable"):
        problem = ClearingProblem(ids, names, response, caps)
        result = stable_match(problem, proposing=config.strategy.split("-")[1], system_cost=energy)
    else:
        problem = ClearingProblem(ids, names, combined_cost(response, energy, config.w_t), caps)
        result = clear_mcmf(problem, backend=config.backend)
    col_of = {name: c for c, name in enumerate(names)}
    row_of = {job_id: r for r, job_id in enumerate(ids)}
    predicted = {j: float(waits[row_of[j], col_of[s]]) for j, s in result.assignment.items()}
    return result.assignment, predicted


def _result(jobs, routed, placed, states, factor_of, config) -> GridResult:
    rows = []
    for job, is_routed in zip(jobs, routed):
        name, dispatch, predicted = placed[job.id]
        state = states[name]
        start, end = state.sim.start[job.id], state.sim.end[job.id]
        ran = _scaled(job, states[job.site].system, state.system, dispatch)
        watts = job.procs * state.system.watts_per_core * factor_of[job.id]
        try:
            price_hours = state.site.price_hours(start, end)
        except InvalidInput as err:
            raise InvalidInput(f"job {job.id} {err}") from None
        rows.append(
            (job.id, job.site, name, bool(is_routed), job.submit, dispatch, start, end, job.procs,
             ran.runtime, ran.estimate, watts, watts * price_hours / WH_PER_MWH, predicted)
        )  # fmt: skip
    records = pd.DataFrame(
        rows,
        columns=["job_id", "origin", "system", "routed", "submit", "dispatch", "start", "end", "procs",
                 "runtime", "estimate", "power_watts", "energy_cost", "predicted_wait"],
    )  # fmt: skip
    response = records["end"] - records["submit"]
    actual_wait = records["start"] - records["dispatch"]
    has_pred = records["predicted_wait"].notna()
    ppe = (np.abs(records.loc[has_pred, "predicted_wait"] - actual_wait[has_pred]) / np.maximum(actual_wait[has_pred], 60)) * 100
    summary = {
        "run": config.name,
        "jobs": int(len(records)),
        "mean_response": float(response.mean()),
        "mean_wait": float((records["start"] - records["submit"]).mean()),
        "mean_bsld": float(bounded_slowdown(records).mean()),
        "total_energy_cost": float(records["energy_cost"].sum()),
        "total_energy_mwh": float((records["power_watts"] * (records["end"] - records["start"])).sum() / 3.6e9),
        "migrated": int((records["origin"] != records["system"]).sum()),
        "mean_wait_ppe": float(ppe.mean()) if has_pred.any() else float("nan"),
    }
    per = []
    span = int(records["end"].max() - records["submit"].min())
    for name, state in states.items():
        mine = records[records["system"] == name]
        core_hours = float(((mine["end"] - mine["start"]) * mine["procs"]).sum() / 3600.0)
        per.append(
            {
                "system": name,
                "jobs": int(len(mine)),
                "core_hours": core_hours,
                "utilization": core_hours * 3600.0 / (state.system.cores * span) if span else 0.0,
                "energy_cost": float(mine["energy_cost"].sum()),
                "mean_response": float((mine["end"] - mine["submit"]).mean()) if len(mine) else float("nan"),
            }
        )
    return GridResult(records, summary, pd.DataFrame(per).set_index("system"), config)
