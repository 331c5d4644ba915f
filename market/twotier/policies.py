"""KEASY, REASY and MEASY: EASY backfilling over two-tier processors (Liu et al. 2012, sec. 2, Algs. 1-3).

One scheduling pass (:meth:`TwoTierPolicy.schedule`) over a :class:`~gridmarket.twotier.vm.TwoTierMachine`:

* Step 1 (Alg. 1, lines 2-10): FCFS over the merged list ``L`` of queued jobs and jobs running in
  the bg tier, by arrival: while the first job's processes fit the idle fg VMs, ``Deploy`` it to
  the fg tier.
* Step 2 (Alg. 1, lines 13-32; Alg. 3 for REASY): EASY reservation for the head of ``L`` — its
  *shadow time*, the expected termination (by estimate, sec. 2.2.1 (4)) of the fg job whose end
  frees enough fg VMs, and the *extra* fg VMs then left over — and one backfilling scan over the
  rest of ``L``: a job whose processes fit the idle fg VMs is deployed if it ends (by estimate)
  by the shadow time, or if it fits in the extra VMs, which it then consumes.
* Step 3 (Alg. 1, lines 33-38): SJF over the queued jobs (by estimate) into the bg VMs whose fg
  VM uses less than 96 % of its processor (sec. 2.2.1 (3)); Dispatch matches high-usage bg
  processes with low-usage fg ones (Alg. 2, lines 23-26).

``Deploy`` (Alg. 2) moves a job to the fg tier. A queued job is dispatched to idle fg VMs. A job
running in the bg tier whose own processors all have an idle fg VM swaps the priorities of its
VMs and carries on (no kill, no migration). Otherwise KEASY (``"K"``) kills it and restarts it
from the beginning on idle fg VMs; MEASY (``"M"``, sec. 2.3.2) migrates it there, keeping its
progress but frozen for ``migration_cost`` seconds; REASY (``"R"``, sec. 2.3.1) cannot deploy it
(its run is pinned to its processors until their fg VMs are all idle).

REASY's reservation for a head pinned in the bg tier (Alg. 3, lines 13-17): the shadow time is the
last expected termination of the fg jobs on its processors, and the extra VMs are
``idle + (their sizes) - (head's size)``. So that the reservation holds, a backfilled job that
would still run at the shadow time is dispatched away from the head's processors (the paper
leaves this implicit: the head can only start on its own processors).

Times are integer seconds from simulation start. Readings of the pseudocode (whose symbols the
seed lost) are noted where made:

* In step 1 a job that fits but cannot be deployed (REASY only) ends the FCFS scan, as a job that
  does not fit does: it becomes the head that step 2 reserves for.
* The shadow scan counts every fg job that is expected to end at the shadow time (the project's
  EASY, :mod:`gridmarket.scheduling.easy`, does the same), so that with one tier the pass is EASY.
* A running job expected to have ended already (estimates are not inflated by the fg loss)
  counts as ending now.
* The "runtime" of a backfill candidate (Alg. 1, line 27) is its estimate; for a job running in
  the bg tier, what is left of it (estimate minus progress) when it swaps or migrates — plus
  the migration cost — or its whole estimate when it is killed.
* The pass runs at every time a job arrives or ends, in either tier (the paper calls Steps 1-2
  on fg events and Step 3 on bg departures; running all three each time only adds chances).
  ``bg_step="arrival-or-bg-departure"`` is the other reading of sec. 2.2.2 (1), "SJF is called to
  schedule jobs to run in background VMs when job departs the background tier": Step 3 runs only in
  a pass where a job arrived (the example of sec. 2.2.2 fills the bg VMs at time 0, when the jobs
  arrive; without it the bg tier would never receive a first job) or left the bg tier (it ended
  there, or Steps 1-2 of this pass moved it to the fg tier), not when only fg jobs ended.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from operator import attrgetter

from gridmarket.errors import InvalidInput
from gridmarket.plugins import InstanceContract, Registry
from gridmarket.twotier.vm import EMPTY, Run, TwoTierMachine

__all__ = ["BG_STEPS", "DEPLOY_MODES", "EASY_ONE_TIER", "KEASY", "MEASY", "REASY", "TWO_TIER_POLICIES", "TwoTierPolicy"]

#: K: kill and restart (KEASY); R: reservation, no kill (REASY); M: migrate (MEASY).
DEPLOY_MODES = ("K", "R", "M")
#: When Step 3 (SJF into the bg tier) runs: in every pass, or only in a pass where a job arrived or left
#: the bg tier (sec. 2.2.2 (1); module notes).
BG_STEPS = ("every-event", "arrival-or-bg-departure")


_arrival = attrgetter("order")  # (submit, id) of a Run
_sjf = attrgetter("sjf")  # (estimate, submit, id) of a Run

@dataclass(frozen=True, slots=True)
class TwoTierPolicy:
    """A scheduling policy of the two-tier machine.

    Parameters
    ----------
    name : str
        ``keasy``, ``reasy``, ``measy`` (or ``easy1``: the same pass on a one-tier machine).
    deploy : {"K", "R", "M"}
        What ``Deploy`` does with a job running in the bg tier that cannot swap (Alg. 2).
    background : bool
        Run Step 3 (SJF into the bg tier). False, with a one-tier machine, is plain EASY.
    two_tier : bool
        Whether the machine has two tiers (fg loss applies) or is a plain machine.
    bg_step : {"every-event", "arrival-or-bg-departure"}
        When Step 3 runs (:data:`BG_STEPS`, module notes); the compiled engine runs ``"every-event"`` only.
    """

    name: str
    deploy: str
    background: bool = True
    two_tier: bool = True
    bg_step: str = "every-event"

    def __post_init__(self) -> None:
        if self.deploy not in DEPLOY_MODES:
            raise InvalidInput(f"policy {self.name!r}: deploy must be one of {DEPLOY_MODES}, got {self.deploy!r}")
        if self.bg_step not in BG_STEPS:
            raise InvalidInput(f"policy {self.name!r}: bg_step must be one of {BG_STEPS}, got {self.bg_step!r}")

    @property
    def migrates(self) -> bool:
        """Whether a bg job that cannot swap is migrated into the fg tier (MEASY), paying the migration cost."""
        return self.deploy == "M"

    # ------------------------------------------------------------- Deploy (Alg. 2)
    def _duration(self, machine: TwoTierMachine, run: Run, migration_cost: int) -> int | None:
        """Seconds the scheduler expects ``run`` to occupy fg VMs if deployed now; None: it cannot be."""
        estimate = run.job.estimate
        if run.tier != "bg":
            return estimate
        left = max(0, math.ceil(estimate - run.progress_at(machine.now) - 1e-9))
        if machine.can_swap(run):
            return left
        if self.deploy == "K":
            return estimate
        if self.deploy == "M":
            return left + migration_cost
        return None

    def _deploy(self, machine: TwoTierMachine, run: Run, duration: int, migration_cost: int,
                avoid: frozenset[int] | set[int] = frozenset()) -> bool:
        """Move ``run`` into the fg tier now (Alg. 2, lines 1-16); False if REASY cannot."""
        now = machine.now
        if run.tier == "bg":
            if machine.can_swap(run):
                machine.swap(run)
            elif self.deploy == "K":
                machine.kill(run)
                machine.dispatch_fg(run, avoid)
                run.last_start = now
            elif self.deploy == "M":
                machine.snapshot(run)
                machine.vacate(run)
                machine.dispatch_fg(run, avoid)
                run.frozen_until = now + migration_cost
                run.migrations += 1
            else:
                return False
        else:
            machine.dispatch_fg(run, avoid)
            if run.start is None:
                run.start = now
            run.last_start = now
        run.fg_start = now
        run.expected_end = now + duration
        return True

    # ------------------------------------------------------------- one pass (Alg. 1 / Alg. 3)
    def schedule(self, machine: TwoTierMachine, queue: list[Run], *, migration_cost: int = 0,
                 arrived: bool = True, bg_departed: bool = True) -> None:
        """One scheduling pass at ``machine.now``; mutates ``machine`` and ``queue``.

        ``queue`` holds the waiting jobs in arrival order; jobs that start (in either tier)
        are removed from it. ``arrived`` and ``bg_departed`` say what triggered the pass (a job
        arrived; a job ended in the bg tier): with ``bg_step="arrival-or-bg-departure"`` Step 3
        runs only after one of them or when Steps 1-2 move a job out of the bg tier.
        """
        now = machine.now
        merged = sorted(queue + list(machine.bg_runs.values()), key=_arrival)
        started: set[int] = set()
        in_bg = {r.id for r in merged if r.tier == "bg"}  # a deployed one has left the bg tier
        # ---- Step 1: FCFS into the fg tier
        k = 0
        while k < len(merged):
            run = merged[k]
            if run.job.procs > machine.n_idle_fg:
                break
            duration = self._duration(machine, run, migration_cost)
            if duration is None or not self._deploy(machine, run, duration, migration_cost):
                break
            started.add(run.id)
            k += 1
        rest = merged[k:]
        if rest and machine.n_idle_fg:  # with no idle fg VM nothing can backfill: skip the pass
            # ---- Step 2: reservation for the head, then backfilling
            head = rest[0]
            shadow, extra, reserved = self._reservation(machine, head)
            for run in rest[1:]:
                if not machine.n_idle_fg:
                    break  # every later job needs at least one idle fg VM
                n = run.job.procs
                if n > machine.n_idle_fg:
                    continue
                duration = self._duration(machine, run, migration_cost)
                if duration is None:
                    continue
                ends_before = now + duration <= shadow
                if not ends_before:
                    if n > extra:
                        continue
                    if reserved and run.tier != "bg":
                        idle_reserved = sum(1 for p in reserved if machine.fg[p] == EMPTY)
                        if n > machine.n_idle_fg - idle_reserved:
                            continue
                avoid = frozenset() if ends_before else reserved
                if self._deploy(machine, run, duration, migration_cost, avoid):
                    started.add(run.id)
                    if not ends_before:
                        extra -= n
        # ---- Step 3: SJF into the bg tier
        triggered = (self.bg_step == "every-event" or arrived or bg_departed
                     or not in_bg.isdisjoint(started))
        if self.background and machine.two_tier and triggered:
            waiting = [r for r in queue if r.id not in started]
            available = len(machine.idle_bg()) if waiting else 0
            if available:
                waiting.sort(key=_sjf)
                for run in waiting:
                    if not available:
                        break  # every job needs at least one bg VM
                    if run.job.procs <= available:
                        machine.dispatch_bg(run)
                        available -= run.job.procs
                        if run.start is None:
                            run.start = now
                        run.last_start = now
                        started.add(run.id)
        if started:
            queue[:] = [r for r in queue if r.id not in started]

    def _reservation(self, machine: TwoTierMachine, head: Run) -> tuple[float, int, frozenset[int]]:
        """Shadow time, extra fg VMs and the processors the head holds (Alg. 1 lines 14-21; Alg. 3 lines 3-17)."""
        now = machine.now
        need, idle = head.job.procs, machine.n_idle_fg
        if self.deploy == "R" and head.tier == "bg" and not machine.can_swap(head):
            own = head.on
            blockers = {machine.fg[p] for p in own if machine.fg[p] != EMPTY}
            runs = [machine.fg_runs[j] for j in blockers]
            shadow = max(max(r.expected_end, now) for r in runs)
            size = sum(r.job.procs for r in runs)
            return shadow, idle + size - need, frozenset(own)
        if idle >= need:  # only when the head could not be deployed for another reason
            return now, idle - need, frozenset()
        ends = sorted((max(r.expected_end, now), r.job.procs) for r in machine.fg_runs.values())
        free = idle
        for i, (end, procs) in enumerate(ends):
            free += procs
            if free >= need:
                for later_end, later_procs in ends[i + 1:]:
                    if later_end != end:
                        break
                    free += later_procs
                return end, free - need, frozenset()
        return math.inf, 0, frozenset()  # unreachable: jobs never need more than the machine


KEASY = TwoTierPolicy("keasy", "K")
REASY = TwoTierPolicy("reasy", "R")
MEASY = TwoTierPolicy("measy", "M")
#: The same pass on a one-tier machine without Step 3: EASY backfilling (used as an oracle).
EASY_ONE_TIER = TwoTierPolicy("easy1", "K", background=False, two_tier=False)
TWO_TIER_POLICIES: Registry[TwoTierPolicy] = Registry(
    "two-tier policy", InstanceContract(TwoTierPolicy, accepts_plugins=False),
    {"keasy": KEASY, "reasy": REASY, "measy": MEASY})
"""The two-tier policies selectable by name (a machine's policy name is resolved by
:func:`gridmarket.scheduling.resolve_machine_policy`)."""
