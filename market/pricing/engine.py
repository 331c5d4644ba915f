"""The pricing engine of one provider state: profiles, candidate starts, externality re-plans (Singh 2008, ch. 5).

Times are integer seconds from simulation start; prices here are exact
integers in processor-seconds (:class:`~gridmarket.pricing.externality.ExternalityPricer`
turns them into SU).

An engine holds what Fig. 22 needs to price many slots on one state:

- the *base* profile: free processors counting running jobs (to their
  planned ends) and reservations, what a slot must not conflict with (step 3);
- the *plan* profile: the base minus every queued job at its current
  planned start ``v_q`` (a slot that fits in it delays nobody);
- the candidate starts of query form (18): now and every instant at which
  the plan's availability changes (ch. 5.2);
- for conservative backfilling, the incremental re-plan of the queue around
  a slot (the notes of :class:`~gridmarket.pricing.externality.ExternalityPricer`):
  the greedy plan ``G`` of the queue from the state, the profile before each
  job (the compiled twin keeps it before every 16th job and lays the jobs
  after that one on it), the first job a slot collides with, and the re-plan
  from that job on.

:class:`ReferenceEngine` is the pure-Python implementation, on the pure-Python availability
profile (:class:`~gridmarket.scheduling.profile.ReferenceProfile`: its searches and updates, and
:func:`~gridmarket.scheduling.profile.held_profile` to build one); :data:`Engine` is its compiled
twin (``market/pricing/_creplan.pyx``, the same steps in C loops) where the extension was built
(see :mod:`gridmarket.kernel`). Both take plain lists of ints and give the same results to the
last digit (``tests/market/pricing/test_replan_kernel.py``).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from typing import cast

from gridmarket.errors import InvalidInput
from gridmarket.job import Job
from gridmarket.kernel import compiled_module
from gridmarket.reservation import Reservation
from gridmarket.scheduling.easy import EASYScheduler
from gridmarket.scheduling.fcfs import FCFSScheduler
from gridmarket.scheduling.profile import ReferenceProfile, add_free, held_profile, short_until, window_min
from gridmarket.scheduling.state import ProviderState

__all__ = ["ENGINE_FORWARD", "Engine", "ReferenceEngine", "reference_replan"]

_NEVER = 1 << 62  # a time after every plan (an int, so comparisons stay integer)

#: The policies whose forward plan an engine runs itself (:meth:`ReferenceEngine.forward`), by exact
#: class (a subclass may change the rule), with whether they backfill.
ENGINE_FORWARD: dict[type, bool] = {EASYScheduler: True, FCFSScheduler: False}


def reference_replan(
    before: ReferenceProfile, start: int, procs: int, duration: int, k: int, G: list, V: list, P: list,
    E: list, keep_owes: list, owed_k: int, now: int, collect: bool,
) -> tuple[int, list[int] | None]:
    """Re-plan queued jobs ``k..`` around a slot; return ``(total delay, new starts or None)``.

    Singh 2008, ch. 5 (Fig. 22): the slot ``[start, start + duration)`` of
    ``procs`` processors is taken from ``before`` (the profile before
    job ``k``: base and jobs ``0..k-1`` at their greedy starts ``G``), then
    jobs ``k..`` are placed again in arrival order; the delay past each job's
    current start ``V[i]`` is summed (processor-seconds). ``keep_owes[i]`` is
    what job ``i`` owes if it keeps ``G[i]``, ``owed_k`` what jobs before
    ``k`` owe. The inputs are not changed.
    """
    profile = before.copy()
    earliest = profile.earliest_start
    times, free = profile.times, profile.free  # read in place: the updates below edit these lists
    add_free(times, free, start, start + duration, -procs)
    n = len(G)
    vacated = _NEVER  # first instant a re-planned job moved away from
    total = owed_k
    new = list(G[:k]) if collect else None
    for i in range(k, n):
        p, e, g = P[i], E[i], G[i]
        if g <= vacated:
            after = g
        else:
            # an earlier window needs a vacated instant in it: it starts after vacated - e,
            # and after the last instant before vacated with too few processors
            top = vacated if vacated < g else g
            after = vacated - e + 1
            if after < now:
                after = now
            if after < top:
                bad_end = short_until(times, free, p, top)
                if bad_end is not None:
                    if bad_end > top:
                        bad_end = top
                    if bad_end > after:
                        after = bad_end
            if after > g:
                after = g
        w = earliest(p, e, after)
        add_free(times, free, w, w + e, -p)
        if w != g:
            if g < vacated:
                vacated = g
            v = V[i]
            if w > v:
                total += (w - v) * p
        else:
            total += keep_owes[i]
        if collect:
            new.append(w)  # type: ignore[union-attr]  # a list when collecting
    return total, new


class ReferenceEngine:
    """Pricing engine of one state (module notes), pure Python.

    Parameters
    ----------
    now, procs : int
        Current time (seconds) and processors of the machine.
    run_ends, run_procs : list of int
        Planned end (> now) and processors of every running job.
    res_starts, res_ends, res_procs : list of int
        Start (at least ``now``: a reservation under way is held from now),
        end (> now) and processors of every reservation.

    Raises
    ------
    InvalidInput
        Running jobs and reservations hold more processors than the machine has.

    Notes
    -----
    Call :meth:`plan` with the queue before any other query but the base's.

    Examples
    --------
    Thesis Fig. 21 (hours; see :class:`~gridmarket.pricing.externality.ExternalityPricer`):

    >>> h = 3600
    >>> e = ReferenceEngine(0, 5, [2*h, 3*h], [1, 3], [5*h], [8*h], [2])
    >>> e.plan([2, 2], [2*h, 3*h], [2*h, 3*h])
    >>> e.prices(2, 3*h, [0, 2*h, 6*h])
    [None, 21600, 0]
    """

    def __init__(self, now: int, procs: int, run_ends: list, run_procs: list, res_starts: list, res_ends: list,
                 res_procs: list) -> None:
        self.now, self.procs = now, procs
        self._held = [(now, end, p) for end, p in zip(run_ends, run_procs)]
        self._held += list(zip(res_starts, res_ends, res_procs))
        self.base = cast(ReferenceProfile, held_profile(procs, now, self._held, cls=ReferenceProfile))
        self._marks = {now, *run_ends, *res_starts, *res_ends}
        self._greedy_ready = False

    @classmethod
    def of_jobs(cls, now: int, procs: int, running, reservations) -> ReferenceEngine:
        """The engine of running ``(job, start)`` pairs (held to ``start + estimate``) and reservations.

        Those that end by ``now`` are left out; a reservation under way is held from now.
        """
        run = [(start + job.estimate, job.procs) for job, start in running if start + job.estimate > now]
        res = [r for r in reservations if r.start + r.duration > now]
        return cls(now, procs, [end for end, _ in run], [p for _, p in run], [max(r.start, now) for r in res],
                   [r.start + r.duration for r in res], [r.procs for r in res])

    def plan_jobs(self, queue, planned) -> None:
        """:meth:`plan` with the queued jobs (arrival order) and their planned starts by job id.

        Raises ``KeyError`` for a job missing from ``planned`` and
        ``InvalidInput`` for a start before now.
        """
        V = [planned[job.id] for job in queue]
        for job, v in zip(queue, V):
            if v < self.now:
                raise InvalidInput(f"queued job {job.id} is planned at {v}, before now ({self.now})")
        self.plan([job.procs for job in queue], [job.estimate for job in queue], V)

    def planned_starts(self) -> list[int]:
        """The planned starts ``V`` of the queue (a copy)."""
        return list(self.V)

    def plan(self, P: list, E: list, V: list) -> None:
        """Set the queue: processors ``P``, estimates ``E`` and current planned starts ``V`` (all >= now)."""
        self.P, self.E, self.V = P, E, V
        held = self._held + [(v, v + e, p) for p, e, v in zip(P, E, V)]
        self.full = cast(ReferenceProfile, held_profile(self.procs, self.now, held, check=False, cls=ReferenceProfile))
        if min(self.full.free) < 0:
            raise InvalidInput("planned starts overlap: the plan needs more processors than the machine has")
        found = set(self._marks)
        found.update(self.base.times)
        found.update(self.full.times)
        for e, v in zip(E, V):
            found.add(v)
            found.add(v + e)
        now = self.now
        self._instants = sorted(t for t in found if t >= now)
        self._greedy_ready = False

    # ---------------------------------------------------------------- queries
    def base_steps(self) -> tuple[list[int], list[int]]:
        """``(times, free)`` of the base profile (copies)."""
        return self.base.times.copy(), self.base.free.copy()

    def full_steps(self) -> tuple[list[int], list[int]]:
        """``(times, free)`` of the plan profile (copies)."""
        return self.full.times.copy(), self.full.free.copy()

    def base_min_free(self, start: int, duration: int) -> int:
        """Fewest processors free over ``[start, start + duration)`` in the base profile."""
        return self.base.min_free(start, duration)

    def full_min_free(self, start: int, duration: int) -> int:
        """Fewest processors free over ``[start, start + duration)`` in the plan profile."""
        return self.full.min_free(start, duration)

    def instants(self) -> list[int]:
        """Candidate starts of form (18), in time order (a copy)."""
        return self._instants.copy()

    def prices(self, procs: int, duration: int, starts: Sequence[int]) -> list[int | None]:
        """Conservative-backfilling ``f`` (processor-seconds) at each start; None where the base conflicts."""
        out: list[int | None] = []
        for start in starts:
            if self.base_min_free(start, duration) < procs:
                out.append(None)
            elif self.full_min_free(start, duration) >= procs:
                out.append(0)
            else:
                out.append(self._replan(start, procs, duration, False)[0])
        return out

    def feasible(self, procs: int, duration: int) -> tuple[list[int], list[int]]:
        """Form (18) under conservative backfilling: the candidate starts the base allows and their ``f``."""
        starts = self._instants
        prices = self.prices(procs, duration, starts)
        kept = [(s, f) for s, f in zip(starts, prices) if f is not None]
        return [s for s, _ in kept], [f for _, f in kept]

    def starts_with(self, start: int, procs: int, duration: int) -> list[int]:
        """Planned starts of the queue (in order) with the slot held; the slot must fit the base."""
        if self.full_min_free(start, duration) >= procs:
            return list(self.V)
        return self._replan(start, procs, duration, True)[1]  # type: ignore[return-value]  # collected: a list

    def forward(self, P: list, E: list, backfill: bool, start: int = 0, procs: int = 0, duration: int = 0) -> list[int]:
        """Planned starts of the queue ``P``/``E`` under EASY (``backfill``) or FCFS, a slot of ``procs`` held.

        The policy itself run forward (its planner, :class:`~gridmarket.scheduling.planner.ForwardPlanner`),
        with every held block of the base (running jobs to their planned ends, reservations) as a
        reservation; ``procs`` 0: no slot. The slot must fit the base.
        """
        now = self.now
        held = tuple(Reservation(f"held{i}", a, p, b - a) for i, (a, b, p) in enumerate(self._held))
        queue = tuple(Job(i, now, p, e, e) for i, (p, e) in enumerate(zip(P, E)))
        slot = Reservation("slot", start, procs, duration) if procs else None
        planner = (EASYScheduler if backfill else FCFSScheduler).planner
        plan = planner.plan(ProviderState(now, self.procs, queue=queue, reservations=held), slot, base=self.base)
        return [plan[i] for i in range(len(queue))]

    def plan_forward(self, P: list, E: list, backfill: bool) -> None:
        """Set the queue ``P``/``E`` planned by EASY (``backfill``) or FCFS run forward (:meth:`forward`)."""
        self.plan(P, E, self.forward(P, E, backfill))

    def forward_price(self, backfill: bool, start: int, procs: int, duration: int) -> int:
        """``f`` (processor-seconds) of a slot under EASY or FCFS: the delays past the planned starts, summed.

        The queue and its planned starts are the engine's (:meth:`plan`); the slot must fit the base.
        """
        if self.full_min_free(start, duration) >= procs:
            return 0
        after = self.forward(self.P, self.E, backfill, start, procs, duration)
        return sum((a - v) * p for a, v, p in zip(after, self.V, self.P) if a > v)

    def greedy(self) -> list[int]:
        """The greedy (conservative) plan ``G`` of the queue from the state."""
        self._ready()
        return list(self.G)

    def first_collision(self, start: int, procs: int, duration: int) -> int | None:
        """Index of the first job (arrival order) whose greedy interval collides with the slot.

        The profile after jobs ``0..k`` only loses processors as ``k`` grows, so the first ``k`` whose
        profile has fewer than ``procs`` free over the slot's window (:func:`window_min`) is found by
        bisection, as the compiled twin does.
        """
        self._ready()
        after, end = self.after, start + duration
        k = bisect_left(range(len(after)), True, key=lambda i: window_min(after[i].times, after[i].free, start, end) < procs)
        return k if k < len(after) else None

    # ---------------------------------------------------------------- internals
    def _ready(self) -> None:
        """Greedy plan, the profile before each job, and the collision table (once per plan)."""
        if self._greedy_ready:
            return
        now, P, E, V = self.now, self.P, self.E, self.V
        profile = self.base.copy()
        prefixes = []
        G = []
        for p, e in zip(P, E):
            prefixes.append(profile.copy())
            g = profile.earliest_start(p, e, now)
            add_free(profile.times, profile.free, g, g + e, -p)
            G.append(g)
        self.G = G
        self.prefixes = prefixes
        self.after = prefixes[1:] + [profile] if prefixes else []  # the profile after jobs 0..k
        # delay owed by a job that keeps its greedy start (0 unless the plan is not the greedy one)
        self.keep_owes = [(g - v) * p if g > v else 0 for g, v, p in zip(G, V, P)]
        owed = [0]
        for x in self.keep_owes:
            owed.append(owed[-1] + x)
        self.owed = owed
        self._greedy_ready = True

    def _replan(self, start: int, procs: int, duration: int, collect: bool) -> tuple[int, list[int] | None]:
        k = self.first_collision(start, procs, duration)
        G = self.G
        if k is None:
            return self.owed[len(G)], (list(G) if collect else None)
        return reference_replan(self.prefixes[k], start, procs, duration, k, G, self.V, self.P, self.E,
                                self.keep_owes, self.owed[k], self.now, collect)


_compiled = compiled_module("gridmarket.pricing._creplan")

#: The engine pricing runs: the Cython build of ``_creplan.pyx`` (same methods and
#: results as :class:`ReferenceEngine`) unless ``GRIDMARKET_KERNEL=reference`` or it
#: was not built (:data:`gridmarket.kernel.KERNEL` says which runs).
Engine = ReferenceEngine if _compiled is None else _compiled.Engine
