"""Adaptive externality pricing of slots (Singh 2008, ch. 5.1, Fig. 22). Times in seconds, prices in SU.

The fixed cost ``f`` of a slot ``(s, n, d)`` is the delay it causes to the
provider's queued best-effort jobs: plan the queue with the provider's own
policy without the slot and with it at ``s`` (running jobs and existing
reservations fixed), and charge ``f = sum_q max(0, v'_q - v_q) x n_q``
(Fig. 22, step 5), counted in processor-hours (SU). A slot that conflicts
with running jobs or reservations at ``s`` cannot be sold: its price is
infinite (step 3), which this module reports as :class:`Infeasible` with the
reason. The unit part ``c`` of the price is the provider's base rate and is
not computed here.

The plan "without" is the provider's current plan: for conservative
backfilling the scheduler's own planned starts when it has them (a slot that
fits beside them moves no job, exactly as
:meth:`ConservativeScheduler.add_reservation` keeps them), else the policy's
plan of the queue from the state (:func:`market.pricing.forecast.forecast`).
The plan "with" is the policy's plan of the queue around the slot, which is
what ``add_reservation`` does when the slot does not fit beside the plan.

Many prices on one state (the candidate starts of query form 18) share work:
see :class:`ExternalityPricer`.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Mapping

import numpy as np

from market.errors import Infeasible, InvalidInput
from market.kernel import compiled_module
from market.pricing.forecast import BACKFILL_POLICIES, check_policy, forecast
from market.pricing.slot import SECONDS_PER_HOUR
from market.pricing.state import ProviderState, base_profile
from market.reservation import Reservation
from market.scheduling.profile import Profile

__all__ = ["ExternalityPricer", "slot_price"]

INF = math.inf


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _profile(procs: int, now: int, changes: Mapping[int, int]) -> Profile:
    """A profile from ``{time: change of free processors}`` (``now`` starts at ``procs``)."""
    profile = Profile(procs, now)
    times, free = profile.times, profile.free
    times.clear()
    free.clear()
    value = procs
    for t in sorted(changes):
        value += changes[t]
        if free and free[-1] == value:
            continue
        times.append(t)
        free.append(value)
    if not times or times[0] != now:
        times.insert(0, now)
        free.insert(0, procs)
    return profile


class ExternalityPricer:
    """Prices slots on one provider state under one local policy (Fig. 22), reusing the no-slot plan.

    Parameters
    ----------
    state : ProviderState
        Running jobs, reservations and queue at ``state.now``; not modified.
    policy : str
        The provider's local policy: ``conservative``, ``slots``, ``easy`` or ``fcfs``.
    planned : mapping of int to int, optional
        The provider's current planned start of each queued job, when its
        scheduler keeps one (conservative, slots). By default the policy's
        plan of the queue from the state.

    Attributes
    ----------
    planned : dict of int to int
        The plan without a slot (``v_q`` of Fig. 22).
    base : Profile
        Free processors counting running jobs and reservations only.
    full : Profile
        Free processors of the plan: ``base`` minus every queued job at its planned start.

    Notes
    -----
    Fig. 22 costs one planning of the queue per price, O(S) for a planning
    cost S. Pricing the O(n) candidate starts of form 18 that way is
    O(n S), which is what limited the thesis's experiments to 30 days of
    trace (ch. 5.3). Here, under conservative backfilling:

    - a slot that fits in the free capacity of the current plan delays no
      job: f = 0 after one ``min_free`` query (this covers the whole tail of
      the plan, and every advertised slot);
    - otherwise the planning with the slot agrees with the planning without
      it up to the first job, in arrival order, whose interval collides with
      the slot (call it ``k``): jobs before ``k`` keep their starts, so the
      profile after them is reused (one copy per candidate) and only jobs
      ``k..Q`` are re-planned. ``k`` is found for every candidate from one
      table of cumulative free processors (jobs x time steps, numpy);
    - a re-planned job cannot start before its old start unless a window
      that was blocked became free, which needs an instant a job moved away
      from earlier in the pass (none before the first such instant ``u``):
      the search for its new start begins at its old start, or, if it
      starts after ``u``, at the later of ``u - estimate + 1`` and the end of
      the last instant before ``u`` short of processors; the search and the
      update of the profile are one pass over its steps (``_place``).

    Cost: O(C (Q - k) S) for C candidates that do not fit beside the plan,
    Q queued jobs and S steps scanned per job, against O(C Q S) for Fig. 22
    applied C times. On the whole CTC-SP2 trace (77k jobs, 10 % priced
    requests) this is about 18 ms per request; see
    ``benchmarks/RESULTS_pricing.md`` for the figures against the plain replay.

    EASY and FCFS plan only their queue head, so each price runs the policy
    forward over the queue (:func:`~market.pricing.forecast.forecast`),
    except for a slot that fits in the free capacity of the predicted plan:
    with estimates as runtimes and no arrival, each head starts at its
    shadow time and every job the policy starts fits beside the plan at
    every pass, so the slot changes no decision and costs nothing (checked
    against the forward runs by the property tests).

    Examples
    --------
    The state of the thesis's Fig. 21 (reconstructed: the extracted text
    keeps the numbers, not the drawing), in hours: 5 processors; A (1 proc)
    runs until 2, B (3 procs) until 3; slot R (2 procs) is reserved over
    [5, 8); queued C (2 procs x 2) and D (2 procs x 3) are planned at 2 and
    3. Slot X, 2 processors for 3 hours at 2, pushes C to 3 and D to 5:
    delays of 1 and 2 hours for 2-processor jobs, so ``f = 1x2 + 2x2 = 6`` SU.

    >>> from market.job import Job
    >>> from market.pricing.state import RunningJob
    >>> h = 3600
    >>> state = ProviderState(0, 5, running=(RunningJob(1, 1, 0, 2*h), RunningJob(2, 3, 0, 3*h)),
    ...                       queue=(Job(3, 0, 2, 2*h, 2*h), Job(4, 0, 2, 3*h, 3*h)),
    ...                       reservations=(Reservation("R", 5*h, 2, 3*h),))
    >>> pricer = ExternalityPricer(state, "conservative")
    >>> {q: t // h for q, t in pricer.planned.items()}
    {3: 2, 4: 3}
    >>> {q: t // h for q, t in pricer.delays(2*h, 2, 3*h).items()}
    {3: 1, 4: 2}
    >>> pricer.price(2*h, 2, 3*h)
    6.0
    >>> pricer.price(0, 2, 3*h)
    Traceback (most recent call last):
    ...
    market.errors.Infeasible: 2 processors over [0, 10800) conflict with running jobs or reservations (only 1 free at 0)
    """

    def __init__(
        self, state: ProviderState, policy: str = "conservative", *, planned: Mapping[int, int] | None = None
    ) -> None:
        self.state = state
        self.policy = check_policy(policy)
        self.base = base_profile(state)
        if planned is None:
            self.planned = forecast(state, policy, base=self.base)
        else:
            missing = [job.id for job in state.queue if job.id not in planned]
            if missing:
                raise InvalidInput(f"planned starts miss queued job(s) {missing[:5]}")
            self.planned = {job.id: planned[job.id] for job in state.queue}
        now = state.now
        changes: dict[int, int] = {t: f - (self.base.free[i - 1] if i else state.procs)
                                   for i, (t, f) in enumerate(zip(self.base.times, self.base.free))}
        for job in state.queue:
            start = self.planned[job.id]
            if start < now:
                raise InvalidInput(f"queued job {job.id} is planned at {start}, before now ({now})")
            changes[start] = changes.get(start, 0) - job.procs
            end = start + job.estimate
            changes[end] = changes.get(end, 0) + job.procs
        self.full = _profile(state.procs, now, changes)
        if min(self.full.free) < 0:
            raise InvalidInput("planned starts overlap: the plan needs more processors than the machine has")
        self._engine: _BackfillEngine | None = None

    # ---------------------------------------------------------------- queries
    def check(self, start: int, procs: int, duration: int) -> None:
        """Raise ``InvalidInput`` for a malformed slot, ``Infeasible`` for one that conflicts (Fig. 22, step 3)."""
        self.check_size(procs, duration)
        self.check_start(start)
        if self.base.min_free(start, duration) < procs:
            t, free = self._low_point(start, procs)
            raise Infeasible(
                f"{procs} processors over [{start}, {start + duration}) conflict with running jobs or "
                f"reservations (only {free} free at {t})"
            )

    def check_size(self, procs: int, duration: int) -> None:
        """Raise ``InvalidInput`` unless ``procs`` fits the machine and ``duration`` is a positive int."""
        if not _is_int(procs) or procs < 1:
            raise InvalidInput(f"slot: procs must be an int >= 1, got {procs!r}")
        if procs > self.state.procs:
            raise InvalidInput(f"slot needs {procs} processors; machine has {self.state.procs}")
        if not _is_int(duration) or duration < 1:
            raise InvalidInput(f"slot: duration must be an int >= 1 s, got {duration!r}")

    def check_start(self, start: int) -> None:
        """Raise ``InvalidInput`` unless ``start`` is an int not before now."""
        if not _is_int(start):
            raise InvalidInput(f"slot: start must be an int, got {start!r}")
        if start < self.state.now:
            raise InvalidInput(f"slot starts at {start}, before now ({self.state.now})")

    def _low_point(self, start: int, procs: int) -> tuple[int, int]:
        """First instant from ``start`` with fewer than ``procs`` free in the base profile, and its free count."""
        times, free = self.base.times, self.base.free
        i = max(bisect_right(times, start) - 1, 0)
        t = start
        while free[i] >= procs:
            i += 1
            t = times[i]
        return t, free[i]

    def fits_plan(self, start: int, procs: int, duration: int) -> bool:
        """Whether the slot fits in the free capacity of the current plan (then it delays no job)."""
        return self.full.min_free(start, duration) >= procs

    def starts_with(self, start: int, procs: int, duration: int) -> dict[int, int]:
        """Planned starts of the queued jobs with the slot reserved (Fig. 22, step 4)."""
        self.check(start, procs, duration)
        if self.fits_plan(start, procs, duration):
            return dict(self.planned)
        if self.policy in BACKFILL_POLICIES:
            return self._backfill().starts_with(start, procs, duration)
        return forecast(self.state, self.policy, extra=self._slot(start, procs, duration), base=self.base)

    def delays(self, start: int, procs: int, duration: int) -> dict[int, int]:
        """Seconds each queued job is delayed by the slot (jobs not delayed are left out)."""
        after = self.starts_with(start, procs, duration)
        return {q: after[q] - v for q, v in self.planned.items() if after[q] > v}

    def price_ps(self, start: int, procs: int, duration: int) -> int:
        """``f`` in processor-seconds (exact integer); raises as :meth:`check`."""
        self.check(start, procs, duration)
        return self._price_ps(start, procs, duration)

    def price(self, start: int, procs: int, duration: int) -> float:
        """``f`` in SU (processor-hours) for the slot ``(start, procs, duration)`` (Fig. 22).

        Raises ``InvalidInput`` for a malformed slot (non-positive size, more
        processors than the machine, a start before now) and ``Infeasible``
        when running jobs or reservations hold its processors (the thesis's
        infinite price).
        """
        return self.price_ps(start, procs, duration) / SECONDS_PER_HOUR

    def prices_ps(self, procs: int, duration: int, starts: Iterable[int]) -> list[int | None]:
        """``f`` (processor-seconds) at each of ``starts``; None where the slot conflicts.

        The many-candidates entry point of query forms 18 and 19. ``procs``
        and ``duration`` are checked once; each start must be >= now.
        """
        self.check_size(procs, duration)
        out: list[int | None] = []
        base_min = self.base.min_free
        for start in starts:
            self.check_start(start)
            if base_min(start, duration) < procs:
                out.append(None)
            else:
                out.append(self._price_ps(start, procs, duration))
        return out

    def instants(self) -> list[int]:
        """Every instant from now on at which the plan's availability changes, and now (form 18's candidates).

        Starts and ends of running jobs, reservations and planned queued
        jobs, with the steps of the plan's free capacity (Singh 2008, ch. 5.2).
        """
        now = self.state.now
        found = {now}
        found.update(self.base.times)
        found.update(self.full.times)
        for r in self.state.running:
            found.add(r.end)
        for res in self.state.reservations:
            found.add(res.start)
            found.add(res.end)
        for job in self.state.queue:
            v = self.planned[job.id]
            found.add(v)
            found.add(v + job.estimate)
        return sorted(t for t in found if t >= now)

    @property
    def plan_end(self) -> int:
        """First instant from which the whole machine is free in the plan (seconds)."""
        return self.full.times[-1]

    # ---------------------------------------------------------------- internals
    def _slot(self, start: int, procs: int, duration: int) -> Reservation:
        names = {res.id for res in self.state.reservations}
        name = "slot"
        while name in names:
            name += "'"
        return Reservation(name, start, procs, duration)

    def _price_ps(self, start: int, procs: int, duration: int) -> int:
        if self.fits_plan(start, procs, duration):
            return 0
        if self.policy in BACKFILL_POLICIES:
            return self._backfill().price_ps(start, procs, duration)
        after = forecast(self.state, self.policy, extra=self._slot(start, procs, duration), base=self.base)
        total = 0
        for job in self.state.queue:
            delay = after[job.id] - self.planned[job.id]
            if delay > 0:
                total += delay * job.procs
        return total

    def _backfill(self) -> _BackfillEngine:
        if self._engine is None:
            self._engine = _BackfillEngine(self)
        return self._engine


_NEVER = 1 << 62  # a time after every plan (an int, so comparisons stay integer)


def _earliest(times: list, free: list, procs: int, duration: int, after: int) -> int:
    """First ``t >= after`` with ``procs`` free over ``[t, t + duration)`` (``Profile.earliest_start`` on raw lists)."""
    n = len(times)
    i = bisect_right(times, after) - 1
    start = after
    while True:
        while free[i] < procs:  # the last step is the whole machine: this ends
            i += 1
            start = times[i]
        end = start + duration
        j = i + 1
        while j < n and times[j] < end and free[j] >= procs:
            j += 1
        if j == n or times[j] >= end:
            return start
        i = j


def _take(times: list, free: list, a: int, b: int, procs: int) -> None:
    """Take ``procs`` processors over ``[a, b)`` (``Profile`` update on raw lists, no check)."""
    i = bisect_right(times, a) - 1
    if times[i] != a:
        i += 1
        times.insert(i, a)
        free.insert(i, free[i - 1])
    j = bisect_right(times, b, i) - 1
    if times[j] != b:
        j += 1
        times.insert(j, b)
        free.insert(j, free[j - 1])
    for k in range(i, j):
        free[k] -= procs
    if j < len(times) and free[j] == free[j - 1]:
        del times[j]
        del free[j]
    if i > 0 and free[i] == free[i - 1]:
        del times[i]
        del free[i]


def _place(times: list, free: list, procs: int, duration: int, after: int) -> int:
    """:func:`_earliest` then :func:`_take` at the start found, in one pass (the hot path of quoting)."""
    n = len(times)
    i = bisect_right(times, after) - 1
    start = after
    while True:
        while free[i] < procs:
            i += 1
            start = times[i]
        end = start + duration
        j = i + 1
        while j < n and times[j] < end and free[j] >= procs:
            j += 1
        if j == n or times[j] >= end:
            break
        i = j
    # i holds start, j is the first step at or after end (or n): split there and take
    if times[i] != start:
        i += 1
        j += 1
        times.insert(i, start)
        free.insert(i, free[i - 1])
        n += 1
    if j == n or times[j] != end:
        times.insert(j, end)
        free.insert(j, free[j - 1])
        n += 1
    for k in range(i, j):
        free[k] -= procs
    if j < n and free[j] == free[j - 1]:
        del times[j]
        del free[j]
    if i > 0 and free[i] == free[i - 1]:
        del times[i]
        del free[i]
    return start


def reference_replan(
    times: list, free: list, start: int, procs: int, duration: int, k: int, G: list, V: list, P: list,
    E: list, keep_owes: list, owed_k: int, now: int, collect: bool,
) -> tuple[int, list[int] | None]:
    """Re-plan queued jobs ``k..`` around a slot; return ``(total delay, new starts or None)``.

    Singh 2008, ch. 5 (Fig. 22): the slot ``[start, start + duration)`` of
    ``procs`` processors is taken from ``times``/``free`` (the profile before
    job ``k``: base and jobs ``0..k-1`` at their greedy starts ``G``), then
    jobs ``k..`` are placed again in arrival order; the delay past each job's
    current start ``V[i]`` is summed (processor-seconds). ``keep_owes[i]`` is
    what job ``i`` owes if it keeps ``G[i]``, ``owed_k`` what jobs before
    ``k`` owe. The inputs are not changed. ``market/pricing/_creplan.pyx`` is
    the compiled twin.
    """
    times, free = times.copy(), free.copy()
    _take(times, free, start, start + duration, procs)
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
                x = bisect_right(times, top - 1) - 1
                while x >= 0 and free[x] >= p:
                    x -= 1
                if x >= 0:
                    bad_end = times[x + 1]
                    if bad_end > top:
                        bad_end = top
                    if bad_end > after:
                        after = bad_end
            if after > g:
                after = g
        w = _place(times, free, p, e, after)
        if w != g:
            if g < vacated:
                vacated = g
            v = V[i]
            if w > v:
                total += (w - v) * p
        else:
            total += keep_owes[i]
        if collect:
            new.append(w)
    return total, new


_compiled = compiled_module("market.pricing._creplan")
#: the re-plan loop that runs: compiled where built (see :mod:`market.kernel`)
replan = reference_replan if _compiled is None else _compiled.replan


class _BackfillEngine:
    """Incremental re-planning of a conservative-backfilling queue around one slot (class notes above).

    Precomputed once per state: the greedy plan ``G`` of the queue, the
    profile before each job (``prefixes[i]``: base and jobs ``0..i-1`` at
    ``G``), and a table of cumulative free processors to find, for a slot,
    the first job it collides with.
    """

    def __init__(self, pricer: ExternalityPricer) -> None:
        state = pricer.state
        self.now = now = state.now
        queue = state.queue
        self.ids = [job.id for job in queue]
        self.procs = P = [job.procs for job in queue]
        self.est = E = [job.estimate for job in queue]
        self.old = V = [pricer.planned[q] for q in self.ids]
        # greedy plan from the state, with the profile before each job
        times, free = pricer.base.times.copy(), pricer.base.free.copy()
        prefixes = []
        G = []
        for p, e in zip(P, E):
            prefixes.append((times.copy(), free.copy()))
            g = _earliest(times, free, p, e, now)
            _take(times, free, g, g + e, p)
            G.append(g)
        self.greedy = G
        self.prefixes = prefixes
        # delay owed by a job that keeps its greedy start (0 unless the plan is not the greedy one)
        self.keep_owes = [(g - v) * p if g > v else 0 for g, v, p in zip(G, V, P)]
        owed = [0]
        for x in self.keep_owes:
            owed.append(owed[-1] + x)
        self.owed = owed
        # cumulative free processors on the grid of every breakpoint: row t, column k = after jobs 0..k
        base = pricer.base
        grid = sorted(set(base.times) | set(G) | {g + e for g, e in zip(G, E)})
        self.grid = grid
        g_arr = np.asarray(grid, dtype=np.int64)
        free0 = np.asarray(base.free, dtype=np.int64)[
            np.searchsorted(np.asarray(base.times, dtype=np.int64), g_arr, side="right") - 1
        ]
        n, m = len(queue), len(grid)
        if n:
            diff = np.zeros((n, m + 1), dtype=np.int64)
            rows = np.arange(n)
            starts = np.searchsorted(g_arr, np.asarray(G, dtype=np.int64))
            ends = np.searchsorted(g_arr, np.asarray(G, dtype=np.int64) + np.asarray(E, dtype=np.int64))
            diff[rows, starts] = P
            diff[rows, ends] -= np.asarray(P, dtype=np.int64)
            used = np.cumsum(np.cumsum(diff[:, :m], axis=1), axis=0)
            # transposed and contiguous: a slot's window is a block of rows
            self.table = np.ascontiguousarray((free0[None, :] - used).T)
        else:
            self.table = np.zeros((m, 0), dtype=np.int64)

    def first_collision(self, start: int, procs: int, duration: int) -> int | None:
        """Index of the first job (arrival order) whose greedy interval collides with the slot."""
        if not self.table.shape[1]:
            return None
        grid = self.grid
        a = bisect_right(grid, start) - 1
        b = bisect_left(grid, start + duration)
        low = self.table[a:b].min(axis=0) if b - a > 1 else self.table[a]
        k = int(np.argmax(low < procs))
        return k if low[k] < procs else None

    def _replan(self, start: int, procs: int, duration: int, collect: bool) -> tuple[int, list[int] | None]:
        k = self.first_collision(start, procs, duration)
        G = self.greedy
        if k is None:
            return self.owed[len(G)], (list(G) if collect else None)
        times, free = self.prefixes[k]
        return replan(times, free, start, procs, duration, k, G, self.old, self.procs, self.est,
                      self.keep_owes, self.owed[k], self.now, collect)

    def price_ps(self, start: int, procs: int, duration: int) -> int:
        return self._replan(start, procs, duration, False)[0]

    def starts_with(self, start: int, procs: int, duration: int) -> dict[int, int]:
        new = self._replan(start, procs, duration, True)[1]
        return dict(zip(self.ids, new))


def slot_price(
    state: ProviderState, start: int, procs: int, duration: int, *, policy: str = "conservative"
) -> float:
    """The adaptive price ``f`` (SU) of one slot on ``state`` under ``policy`` (Singh 2008, Fig. 22).

    A one-off :class:`ExternalityPricer`; build one pricer to price many slots.

    Raises
    ------
    InvalidInput
        Malformed slot: non-positive size, more processors than the machine, a start before now.
    Infeasible
        Running jobs or reservations hold the processors at ``start`` (the thesis's infinite price).

    Examples
    --------
    An idle machine: no queued job, nothing to delay.

    >>> slot_price(ProviderState(0, 4), 0, 4, 3600)
    0.0
    """
    return ExternalityPricer(state, policy).price(start, procs, duration)
