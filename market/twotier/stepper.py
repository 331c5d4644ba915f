"""One two-tier machine (KEASY, REASY, MEASY; Liu et al. 2012) steppable by an outer clock, jobs added as they come.

The same event loop as :func:`gridmarket.twotier.simulation.reference_run_events` (same rates, same
same-timestamp rule: completions, then arrivals in id order, then ONE scheduling pass, then the new
rates), kept between calls so that a provider agent can submit jobs at the instant they arrive and
run the machine up to the market's clock: the interface of :class:`gridmarket.simulation.MachineSimulation`
that a provider drives (``submit``, ``run_until``, ``advance``, ``next_time``, ``start``, ``end``,
``jobs``, ``upcoming``, and a read-only ``scheduler`` view with ``queue``, ``running`` and ``n_free``).
Times are integer seconds from simulation start; progress is in dedicated seconds.

What it does not do: reservations, cancellations and kills from outside (the paper's machine takes
jobs, not plans), so it cannot price or advertise slots either (a job's progress rate changes with
every placement on its processors: there is no plan to price).
"""

from __future__ import annotations

import bisect
import heapq
import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from gridmarket.errors import InvalidInput, MarketError
from gridmarket.job import Job
from gridmarket.twotier.policies import TwoTierPolicy
from gridmarket.twotier.progress import (
    BETA_MULTI_MEAN,
    BETA_MULTI_SD,
    BG_MODELS,
    DEFAULT_BG_MODEL,
    USAGE_THRESHOLD,
    JobTraits,
    draw_traits,
)
from gridmarket.twotier.simulation import (
    DEFAULT_MIGRATION_COST,
    TWO_TIER_POLICIES,
    end_events,
    push_rate_events,
    trigger,
)
from gridmarket.twotier.vm import Run, TwoTierMachine

__all__ = ["TwoTierMachineSimulation"]



class _SchedulerView:
    """What readers of a provider's scheduler see of a two-tier machine (read only).

    ``queue``: the waiting jobs in arrival order; ``running``: job id -> (job, first start) of the
    jobs holding a fg or bg VM (a processor may hold one of each); ``tiers``: job id -> (tier,
    processors) of the same jobs; ``tier_spans``: job id -> (entry into its tier, expected end, from
    its estimate); ``n_free``: processors whose fg VM is idle; ``procs``; ``policy`` (its name);
    ``reservations`` (always empty).
    """

    name = ""  # not a registered LocalScheduler: readers that run a policy forward fall back to queue order

    def __init__(self, sim: TwoTierMachineSimulation) -> None:
        self._sim = sim
        self.procs = sim.procs
        self.policy = sim.policy.name
        self.reservations: dict = {}  # a two-tier machine takes none

    @property
    def queue(self) -> list[Job]:
        return [run.job for run in self._sim._queue]

    @property
    def running(self) -> dict[int, tuple[Job, int]]:
        m = self._sim.machine
        return {run.id: (run.job, run.start) for run in (*m.fg_runs.values(), *m.bg_runs.values())}  # type: ignore[misc]  # a run in a tier has started

    @property
    def tiers(self) -> dict[int, tuple[str, tuple[int, ...]]]:
        """Job id -> (``"fg"`` or ``"bg"``, the processor indices its processes are on, ascending), per running job.

        Each processor holds at most one fg and one bg process (sec. 2.1), so the fg jobs' processors
        are disjoint, and so are the bg jobs'. Example: :attr:`tier_spans`.
        """
        m = self._sim.machine
        return {run.id: (run.tier, tuple(sorted(run.on))) for run in (*m.fg_runs.values(), *m.bg_runs.values())}  # type: ignore[misc]  # a run in a tier has started

    @property
    def tier_spans(self) -> dict[int, tuple[int, float]]:
        """Job id -> (when it entered its current tier, when it is expected to end), seconds, per running job.

        Entry: a fg job's last entry into the fg tier (``Run.fg_start``: it may have waited in a bg
        VM before, sec. 2.2.1), a bg job's start (a job leaves the bg tier only for the fg tier or
        the queue). Expected end, from the job's estimate, never its runtime: a fg job's the
        scheduler's own termination time (``Run.expected_end``, sec. 2.2.1 (4)) or, once that has
        passed (fg loss slows a fg job), now plus its estimated work left at its current rate; a bg
        job's now plus its estimated work left at its current rate (which changes when the fg VMs on
        its processors fill or empty, or it swaps to the fg tier), ``inf`` while it makes no
        progress. Ends are at least now + 1.

        Examples
        --------
        The example of :class:`TwoTierMachineSimulation` at 50 s: job 1 holds processors 0 and 1 in
        the fg tier, job 2 processor 0 in the bg tier (:attr:`tiers`). Job 1 (fg since 0) ends at
        0 + its 100 s estimate; job 2 (bg since 0) has done 22.5 of its 60 s at 0.9 x 1.0 x
        (1 - 0.5) = 0.45 s/s, so 37.5 / 0.45 s more at that rate. In fact it swaps to the fg tier
        at 100 s (job 1 ends) with 15 s left, and ends at 115 s (the doctest of
        :class:`TwoTierMachineSimulation` runs both instants).
        """
        sim = self._sim
        m, now = sim.machine, sim.now
        out: dict[int, tuple[int, float]] = {}
        for run in (*m.fg_runs.values(), *m.bg_runs.values()):
            since = run.fg_start if run.tier == "fg" else run.last_start
            if run.tier == "fg" and run.expected_end > now:
                out[run.id] = (since, run.expected_end)  # type: ignore[assignment]  # a run in a tier has started
                continue
            left = max(0.0, run.job.estimate - run.progress_at(now))
            if run.rate > 0.0:  # (a frozen fg job's expected end is after its freeze: not here)
                out[run.id] = (since, max(now + 1, math.ceil(now + left / run.rate - 1e-9)))  # type: ignore[assignment]  # a run in a tier has started
            else:
                out[run.id] = (since, math.inf)  # type: ignore[assignment]  # a run in a tier has started
        return out

    @property
    def n_free(self) -> int:
        return self._sim.machine.n_idle_fg


class TwoTierMachineSimulation:
    """A two-tier machine of ``procs`` processors under ``policy``, jobs submitted one by one.

    Parameters
    ----------
    procs : int
        Processors (each with a fg and a bg VM).
    policy : {"keasy", "reasy", "measy"} or TwoTierPolicy
    rng : numpy.random.Generator
        Draws each job's traits (process usages, bg efficiency beta, fg loss) when it is submitted
        (:func:`gridmarket.twotier.progress.draw_traits`), unless ``traits`` gives them.
    usage, usage_known, beta_multi_mean, beta_multi_sd
        As :func:`gridmarket.twotier.simulation.simulate_twotier`.
    migration_cost : int
        Seconds a MEASY migration freezes the job (sec. 3: 20).
    bg_model, threshold
        As :func:`gridmarket.twotier.simulation.simulate_twotier`.
    traits : mapping of int to JobTraits, optional
        Given traits by job id (nothing is drawn for those jobs).

    Examples
    --------
    The example of :func:`~gridmarket.twotier.simulation.simulate_twotier`, one job at a time: job 2
    waits for job 1's processors in a bg VM, then swaps to the fg tier when job 1 ends at 100 s.

    >>> from gridmarket.twotier.progress import JobTraits
    >>> sim = TwoTierMachineSimulation(2, "measy", rng=np.random.default_rng(1),
    ...                                traits={1: JobTraits((0.5, 0.5), (0.5, 0.5), 0.9, 0.0),
    ...                                        2: JobTraits((1.0,), (1.0,), 0.9, 0.0)})
    >>> sim.submit(Job(1, 0, 2, 100, 100)); sim.submit(Job(2, 0, 1, 60, 60))
    >>> sim.run_until(50)
    >>> sim.start, sorted(sim.scheduler.running), sim.scheduler.n_free
    ({1: 0, 2: 0}, [1, 2], 0)

    Which tier and processors each running job holds, and when it entered the tier and is expected
    to end (``scheduler.tiers``, ``scheduler.tier_spans``), at 50 s and after the swap at 100 s:

    >>> sim.scheduler.tiers, sim.scheduler.tier_spans
    ({1: ('fg', (0, 1)), 2: ('bg', (0,))}, {1: (0, 100), 2: (0, 134)})
    >>> sim.run_until(100)
    >>> sim.scheduler.tiers, sim.scheduler.tier_spans
    ({2: ('fg', (0,))}, {2: (100, 115)})
    >>> sim.run_until(None)
    >>> sim.end[1], 100 < sim.end[2] < 160
    (100, True)
    """

    def __init__(
        self,
        procs: int,
        policy: str | TwoTierPolicy = "measy",
        *,
        rng: np.random.Generator,
        usage: str | Mapping[int, object] = "paper",
        usage_known: bool = True,
        migration_cost: int = DEFAULT_MIGRATION_COST,
        bg_model: str = DEFAULT_BG_MODEL,
        beta_multi_mean: float = BETA_MULTI_MEAN,
        beta_multi_sd: float = BETA_MULTI_SD,
        threshold: float = USAGE_THRESHOLD,
        traits: Mapping[int, JobTraits] | None = None,
    ) -> None:
        if isinstance(policy, str):
            policy = TWO_TIER_POLICIES.resolve(policy)
        if not isinstance(policy, TwoTierPolicy):
            raise InvalidInput(f"policy must be a two-tier policy name or TwoTierPolicy, got {policy!r}")
        if not isinstance(procs, int) or isinstance(procs, bool) or procs < 1:
            raise InvalidInput(f"procs must be a positive int, got {procs!r}")
        if not isinstance(rng, np.random.Generator):
            raise InvalidInput(f"rng must be a numpy.random.Generator, got {rng!r}")
        if isinstance(migration_cost, bool) or not isinstance(migration_cost, int) or migration_cost < 0:
            raise InvalidInput(f"migration_cost must be an int >= 0 s, got {migration_cost!r}")
        if bg_model not in BG_MODELS:
            raise InvalidInput(f"bg_model must be one of {BG_MODELS}, got {bg_model!r}")
        self.procs, self.policy, self.rng = procs, policy, rng
        self.migration_cost = migration_cost
        self._draw: dict[str, Any] = {"usage": usage, "usage_known": usage_known, "beta_multi_mean": beta_multi_mean,
                      "beta_multi_sd": beta_multi_sd}
        self._given = dict(traits or {})
        self.machine = TwoTierMachine(procs, two_tier=policy.two_tier, bg_model=bg_model, threshold=threshold)
        self.runs: dict[int, Run] = {}
        self.machine.runs = self.runs
        self.jobs: list[Job] = []  # every job submitted, by (submit, id)
        self.start: dict[int, int] = {}  # first start, any tier
        self.end: dict[int, int] = {}
        self.killed: set[int] = set()  # never: kept for MachineSimulation's readers
        self.cancelled: set[int] = set()
        self.now = 0
        self._next = 0  # index in jobs of the next arrival
        self._queue: list[Run] = []
        self._heap: list[tuple[int, int, int, int, int]] = []  # (time, seq, kind, job id, version)
        self._seq = 0
        self.scheduler = _SchedulerView(self)

    @property
    def upcoming(self) -> list[Job]:
        """Jobs submitted for a time not yet simulated, by submit time."""
        return self.jobs[self._next:]

    def traits_of(self, job_id: int) -> JobTraits:
        """The traits job ``job_id`` runs with (drawn at its submission, or given)."""
        return self.runs[job_id].traits

    def submit(self, job: Job) -> None:
        """Add an arrival (not before now, not wider than the machine, a new id); draws its traits."""
        if job.procs > self.procs:
            raise InvalidInput(f"job {job.id} needs {job.procs} processors; machine has {self.procs}")
        if job.submit < self.now:
            raise InvalidInput(f"job {job.id} submits at {job.submit}, before now ({self.now})")
        if job.id in self.runs:
            raise InvalidInput(f"job id {job.id} was submitted twice")
        traits = self._given.get(job.id)
        if traits is None:
            traits = draw_traits([job], rng=self.rng, **self._draw)[job.id]
        self.runs[job.id] = Run(job, traits, float(job.effective_runtime))
        key = (job.submit, job.id)
        at = bisect.bisect_right(self.jobs, key, lo=self._next, key=lambda j: (j.submit, j.id))
        self.jobs.insert(at, job)

    def next_time(self) -> int | None:
        """Time of the next event (an arrival, a predicted completion or a migration's end), or None."""
        heap = self._heap
        while heap and self._stale(heap[0]):
            heapq.heappop(heap)
        t = heap[0][0] if heap else None
        if self._next < len(self.jobs):
            submit = self.jobs[self._next].submit
            if t is None or submit < t:
                t = submit
        return t

    def _stale(self, event) -> bool:
        run = self.runs[event[3]]
        return event[4] != run.version or run.tier is None

    def advance(self, t: int) -> None:
        """Process every event before ``t``; the clock then reads ``t``."""
        if t > self.now:
            self.run_until(t - 1)
            self.now = t

    def run_until(self, until: int | None) -> None:
        """Process every event at times <= ``until`` (all of them if None)."""
        machine, runs, jobs, heap, queue = self.machine, self.runs, self.jobs, self._heap, self._queue
        last_t = self.now
        while True:
            t = heap[0][0] if heap else None
            if self._next < len(jobs) and (t is None or jobs[self._next].submit < t):
                t = jobs[self._next].submit
            if t is None or (until is not None and t > until):
                break
            last_t = machine.now = t
            ended = end_events(machine, heap, runs, t)
            for job_id in ended:
                self.end[job_id] = t
            arrived = False
            while self._next < len(jobs) and jobs[self._next].submit == t:
                queue.append(runs[jobs[self._next].id])
                self._next += 1
                arrived = True
            if ended or arrived:
                self.policy.schedule(machine, queue, migration_cost=self.migration_cost,
                                     **trigger(self.policy, runs, ended, arrived))
                for run in machine.fg_runs.values():
                    if run.id not in self.start:
                        self.start[run.id] = run.start  # type: ignore[assignment]  # in a tier: started
                for run in machine.bg_runs.values():
                    if run.id not in self.start:
                        self.start[run.id] = run.start  # type: ignore[assignment]  # in a tier: started
            self._seq = push_rate_events(machine, heap, t, self._seq)
        if until is None:
            self.now = max(self.now, last_t)
            stuck = [r.id for r in runs.values() if r.end is None]
            if stuck:
                raise MarketError(f"two-tier machine stalled with {len(stuck)} unfinished job(s), e.g. {stuck[:5]}")
        else:
            self.now = max(self.now, until)

    # ------------------------------------------------------------- what a plan-based machine offers, refused
    def _refuse(self, what: str):
        raise InvalidInput(f"a two-tier machine ({self.policy.name}) does not take {what}: it runs jobs, not a plan "
                           "(a job's progress rate changes with every placement on its processors)")

    def add_reservation(self, reservation) -> None:
        self._refuse("reservations")

    def cancel(self, job_id: int):
        self._refuse("cancellations")

    def kill(self, job_id: int) -> None:
        self._refuse("kills from outside")

    def wake_at(self, t: int) -> None:
        """A pass at ``t`` changes nothing on a two-tier machine without outside changes: accepted, ignored."""
        if t < self.now:
            raise InvalidInput(f"cannot wake the machine at {t}, before now ({self.now})")
