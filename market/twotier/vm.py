"""The two-tier machine: a foreground and a background VM on every processor (Liu et al. 2012, sec. 2.1, Alg. 2).

State of one machine of ``procs`` processors, each partitioned into a fg VM (highest CPU priority)
and a bg VM (lowest), and the placement operations the policies of
:mod:`gridmarket.twotier.policies` use: ``Dispatch`` of Algorithm 2 (:meth:`TwoTierMachine.dispatch_fg`,
:meth:`TwoTierMachine.dispatch_bg`), priority swap, kill and migration. Every job runs entirely in
one tier: Dispatch places all of its processes in fg VMs, or all in bg VMs, one process per VM.

Progress accounting: each running job keeps ``(progress, t_at, rate)`` and its progress at time
``t`` is ``progress + rate * (t - t_at)`` (dedicated seconds, :mod:`gridmarket.twotier.progress`).
Placements change only at event times; an operation marks the jobs whose rate it changes as
*dirty*, and :meth:`TwoTierMachine.refresh_rates` brings their progress up to ``now`` with the old
rate and sets the new one. So rates are recomputed only where a placement changed: a fg job's
rate is constant, a bg job's rate changes only when a fg VM on one of its processors fills or
empties. Times are integer seconds from simulation start.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gridmarket.errors import MarketError
from gridmarket.job import Job
from gridmarket.twotier.progress import DEFAULT_BG_MODEL, USAGE_THRESHOLD, JobTraits, bg_rate

__all__ = ["EMPTY", "Run", "TwoTierMachine"]

#: Marker of an empty VM.
EMPTY = -1


@dataclass(slots=True, eq=False)
class Run:
    """Mutable state of one job in a two-tier simulation.

    ``tier`` is ``None`` (queued or done), ``"fg"`` or ``"bg"``; ``on`` lists the processors of
    its processes (process ``i`` on ``on[i]``). ``expected_end`` is the scheduler's termination
    time of a fg job, from the estimate (sec. 2.2.1 (4)). ``work`` is the dedicated seconds the
    job must progress: ``min(runtime, estimate)`` (a job is killed at its estimate).
    """

    job: Job
    traits: JobTraits
    work: float
    tier: str | None = None
    on: list[int] = field(default_factory=list)
    progress: float = 0.0
    t_at: int = 0
    rate: float = 0.0
    frozen_until: int = 0
    expected_end: int = 0
    start: int | None = None  # first start, in any tier
    last_start: int | None = None  # start of the incarnation that completes (after the last kill)
    fg_start: int | None = None  # last entry into the fg tier
    end: int | None = None
    finished_in: str | None = None  # tier the job completed in
    kills: int = 0
    migrations: int = 0
    swaps: int = 0
    wasted: float = 0.0  # progress thrown away by kills
    version: int = 0  # bumped whenever the rate changes: stale completion events are skipped
    id: int = field(init=False)  # the job's id (read in every pass: a slot, not a property)
    order: tuple[int, int] = field(init=False)  # (submit, id): arrival order
    sjf: tuple[int, int, int] = field(init=False)  # (estimate, submit, id): Step 3's SJF order
    by_usage: list[int] | None = None  # process indices by descending seen usage (Dispatch's order), cached

    def __post_init__(self) -> None:
        job = self.job
        self.id = job.id
        self.order = (job.submit, job.id)
        self.sjf = (job.estimate, job.submit, job.id)

    def progress_at(self, t: int | float) -> float:
        """Dedicated seconds done by time ``t`` (``t`` not before the last rate change)."""
        return self.progress + self.rate * (t - self.t_at)


class TwoTierMachine:
    """Processors with a fg and a bg VM each, the jobs on them, and the Dispatch operations.

    Parameters
    ----------
    procs : int
        Number of processors.
    two_tier : bool
        False runs a one-tier machine (no loss, no bg VMs): plain EASY's machine.
    bg_model : {"product", "ratio"}
        Form of the bg progress equation (:func:`gridmarket.twotier.progress.bg_rate`).
    threshold : float
        A bg VM takes a process only while its fg VM's (seen) usage is below this.
    """

    def __init__(self, procs: int, *, two_tier: bool = True, bg_model: str = DEFAULT_BG_MODEL,
                 threshold: float = USAGE_THRESHOLD) -> None:
        self.procs = procs
        self.two_tier = two_tier
        self.bg_model = bg_model
        self.threshold = threshold
        self.fg = [EMPTY] * procs  # job id in each fg VM
        self.bg = [EMPTY] * procs
        self.fg_use = [0.0] * procs  # actual usage of the process in each fg VM (0 if empty)
        self.fg_seen = [0.0] * procs  # usage the scheduler sees (unknown counts as 0)
        self.bg_seen = [0.0] * procs
        self.fg_unknown = [False] * procs
        self.n_idle_fg = procs
        self.fg_runs: dict[int, Run] = {}
        self.bg_runs: dict[int, Run] = {}
        self.now = 0
        self.dirty: set[int] = set()
        self.runs: dict[int, Run] = {}

    # ------------------------------------------------------------- queries
    def idle_fg(self, avoid: frozenset[int] | set[int] = frozenset()) -> list[int]:
        """Processors whose fg VM is empty, leaving out ``avoid``."""
        fg = self.fg
        return [p for p in range(self.procs) if fg[p] == EMPTY and p not in avoid]

    def idle_bg(self) -> list[int]:
        """Processors whose bg VM may take a process: empty, fg usage below the threshold.

        A fg process whose usage the scheduler does not know cannot be checked against the
        threshold (sec. 3.5.1): its bg VM counts as available.
        """
        fg, bg, seen, unknown, th = self.fg, self.bg, self.fg_seen, self.fg_unknown, self.threshold
        return [
            p for p in range(self.procs)
            if bg[p] == EMPTY and (fg[p] == EMPTY or unknown[p] or seen[p] < th)
        ]  # fmt: skip

    def can_swap(self, run: Run) -> bool:
        """Whether a bg job's own processors all have an empty fg VM (Alg. 2, line 4)."""
        fg = self.fg
        return run.tier == "bg" and all(fg[p] == EMPTY for p in run.on)

    # ------------------------------------------------------------- Dispatch (Alg. 2, lines 17-26)
    def _processes_by_usage(self, run: Run) -> list[int]:
        """Process indices in descending order of seen usage (Alg. 2, line 18); ties by index."""
        order = run.by_usage
        if order is None:
            seen = run.traits.seen
            order = run.by_usage = sorted(range(run.job.procs), key=lambda i: -(seen[i] or 0.0))
        return order

    def dispatch_fg(self, run: Run, avoid: frozenset[int] | set[int] = frozenset()) -> None:
        """Place every process of ``run`` in an empty fg VM (Alg. 2, lines 19-22).

        Idle processors are taken in ascending order of their (seen) utilization, which with an
        empty fg VM is the usage of the bg process on it (0 if none); ties by processor index.
        The caller has checked that enough processors outside ``avoid`` are idle.
        """
        bg_seen = self.bg_seen
        idle = sorted(self.idle_fg(avoid), key=lambda p: bg_seen[p])
        order = self._processes_by_usage(run)
        if len(idle) < len(order):
            raise MarketError(f"job {run.id}: {len(order)} fg VMs needed, {len(idle)} idle")
        on = [0] * len(order)
        usage, seen = run.traits.usage, run.traits.seen
        for i, p in zip(order, idle):
            on[i] = p
            self.fg[p] = run.id
            self.fg_use[p] = usage[i]
            self.fg_seen[p] = seen[i] or 0.0
            self.fg_unknown[p] = seen[i] is None
            if self.bg[p] != EMPTY:
                self.dirty.add(self.bg[p])
        self.n_idle_fg -= len(order)
        run.on, run.tier = on, "fg"
        self.fg_runs[run.id] = run
        self.dirty.add(run.id)

    def dispatch_bg(self, run: Run) -> None:
        """Place every process of ``run`` in an available bg VM (Alg. 2, lines 23-26).

        The process with the highest usage goes to the processor whose fg VM has the lowest:
        high-usage bg processes are matched to low-usage fg ones (sec. 2.2.2).
        """
        fg_seen = self.fg_seen
        idle = sorted(self.idle_bg(), key=lambda p: fg_seen[p])
        order = self._processes_by_usage(run)
        if len(idle) < len(order):
            raise MarketError(f"job {run.id}: {len(order)} bg VMs needed, {len(idle)} available")
        on = [0] * len(order)
        seen = run.traits.seen
        for i, p in zip(order, idle):
            on[i] = p
            self.bg[p] = run.id
            self.bg_seen[p] = seen[i] or 0.0
        run.on, run.tier = on, "bg"
        self.bg_runs[run.id] = run
        self.dirty.add(run.id)

    # ------------------------------------------------------------- moves
    def vacate(self, run: Run) -> None:
        """Take ``run``'s processes off their VMs (job ended, killed or migrating)."""
        if run.tier == "fg":
            for p in run.on:
                self.fg[p] = EMPTY
                self.fg_use[p] = 0.0
                self.fg_seen[p] = 0.0
                self.fg_unknown[p] = False
                if self.bg[p] != EMPTY:
                    self.dirty.add(self.bg[p])
            self.n_idle_fg += len(run.on)
            del self.fg_runs[run.id]
        elif run.tier == "bg":
            for p in run.on:
                self.bg[p] = EMPTY
                self.bg_seen[p] = 0.0
            del self.bg_runs[run.id]
        run.on, run.tier = [], None
        self.dirty.discard(run.id)

    def swap(self, run: Run) -> None:
        """Swap the CPU priorities of a bg job's VMs: it becomes fg on the same processors (Alg. 2, line 5)."""
        procs = list(run.on)
        self.vacate(run)
        usage, seen = run.traits.usage, run.traits.seen
        for i, p in enumerate(procs):
            self.fg[p] = run.id
            self.fg_use[p] = usage[i]
            self.fg_seen[p] = seen[i] or 0.0
            self.fg_unknown[p] = seen[i] is None
        self.n_idle_fg -= len(procs)
        run.on, run.tier = procs, "fg"
        self.fg_runs[run.id] = run
        run.swaps += 1
        self.dirty.add(run.id)

    def kill(self, run: Run) -> None:
        """Kill a running job: its progress is lost; it must restart from the beginning (KEASY)."""
        self.snapshot(run)
        self.vacate(run)
        run.wasted += run.progress
        run.progress = 0.0
        run.rate = 0.0
        run.kills += 1
        run.version += 1

    # ------------------------------------------------------------- rates
    def snapshot(self, run: Run) -> None:
        """Bring ``run``'s progress up to ``now`` at its current rate."""
        now = self.now
        if run.t_at != now:
            run.progress += run.rate * (now - run.t_at)
            run.t_at = now

    def rate_of(self, run: Run) -> float:
        """Current progress rate of a running job (the slowest of its processes, sec. 3.2)."""
        if run.tier == "fg":
            if self.now < run.frozen_until:
                return 0.0
            return run.traits.fg_rate if self.two_tier else 1.0
        if run.tier == "bg":
            beta, usage, fg_use = run.traits.beta, run.traits.usage, self.fg_use
            # bg_rate() inlined, the same expressions in the same order (identical floats)
            if self.bg_model == "product":
                return min([beta * u * (1.0 - fg_use[p]) for u, p in zip(usage, run.on)])
            if self.bg_model == "ratio":
                return min([1.0 if u <= 0.0 else min(1.0, beta * (1.0 - fg_use[p]) / u)
                            for u, p in zip(usage, run.on)])
            return min(bg_rate(beta, usage[i], fg_use[p], self.bg_model) for i, p in enumerate(run.on))
        return 0.0

    def refresh_rates(self) -> list[Run]:
        """Recompute the rate of every dirty running job and return them (in id order).

        Each returned job's ``version`` is bumped, so completion events computed from its old
        rate are recognised as stale.
        """
        changed = []
        for job_id in sorted(self.dirty):
            run = self.runs[job_id]
            if run.tier is None:
                continue
            self.snapshot(run)
            run.rate = self.rate_of(run)
            run.version += 1
            changed.append(run)
        self.dirty.clear()
        return changed

    # ------------------------------------------------------------- checks
    def assert_consistent(self) -> None:
        """Raise ``MarketError`` if a VM holds two processes or a job's placement disagrees.

        Checked: every fg and bg VM holds at most one process; each running job has one process
        per processor it names, all in its tier; the idle-fg count matches.
        """
        seen_fg: dict[int, int] = {}
        for run in self.fg_runs.values():
            if run.tier != "fg" or len(run.on) != run.job.procs or len(set(run.on)) != len(run.on):
                raise MarketError(f"job {run.id}: inconsistent fg placement {run.on}")
            for p in run.on:
                if p in seen_fg or self.fg[p] != run.id:
                    raise MarketError(f"fg VM of processor {p} over-committed (job {run.id})")
                seen_fg[p] = run.id
        for run in self.bg_runs.values():
            if run.tier != "bg" or len(run.on) != run.job.procs or len(set(run.on)) != len(run.on):
                raise MarketError(f"job {run.id}: inconsistent bg placement {run.on}")
            for p in run.on:
                if self.bg[p] != run.id:
                    raise MarketError(f"bg VM of processor {p} does not hold job {run.id}")
        if sum(1 for p in self.fg if p != EMPTY) != len(seen_fg):
            raise MarketError("a fg VM holds a job that is not running in the fg tier")
        if sum(1 for p in self.bg if p != EMPTY) != sum(r.job.procs for r in self.bg_runs.values()):
            raise MarketError("a bg VM holds a job that is not running in the bg tier")
        if self.n_idle_fg != self.procs - len(seen_fg):
            raise MarketError(f"idle fg count {self.n_idle_fg} != {self.procs - len(seen_fg)}")
