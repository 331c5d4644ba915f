"""Availability profile: free processors of one machine as a step function of time.

The core data structure of the schedulers (DESIGN.md, "Availability profile"):
conservative backfilling plans every queued job into it, EASY computes its
shadow time from it, the slot scheduler and slot pricing read it. Times are
integer seconds from simulation start; the last step extends to infinity.

Representation: two parallel Python lists, ``times`` (strictly increasing
breakpoints) and ``free`` (processors free on ``[times[i], times[i+1])``).
Adjacent steps with equal values are merged, so the list length stays at most
about twice the number of planned intervals. ``bisect`` finds a breakpoint in
O(log n); an update inserts at most two breakpoints and touches the steps in
between, O(n) in the worst case but a C-level ``memmove`` in practice.

The step-function primitives on those two lists (:func:`step_at`, :func:`split_at`,
:func:`add_free`, :func:`window_min`, :func:`rises`, :func:`first_short`,
:func:`short_until`) are the one Python copy: :class:`ReferenceProfile` is built on
them, and so are the other holders of a step function (a slot's left-over capacity in
the provisioning plan evaluator, the pricing engine's re-plan), whose compiled twins
are tested against them.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Iterable
from itertools import accumulate
from typing import Protocol, runtime_checkable

from gridmarket.errors import Infeasible, InvalidInput
from gridmarket.kernel import compiled_module

__all__ = [
    "AvailabilityProfile",
    "Profile",
    "QueueKeys",
    "QueuePlan",
    "ReferenceProfile",
    "ReferenceQueuePlan",
    "add_free",
    "backfill_by_counting",
    "shadow_by_counting",
    "block_steps",
    "first_short",
    "held_profile",
    "reference_backfill_by_counting",
    "reference_shadow_by_counting",
    "reference_split_due",
    "rises",
    "short_until",
    "split_at",
    "split_due",
    "step_at",
    "window_min",
]


# ---------------------------------------------------------------------------- step-function primitives
def step_at(times: list[int], t: int) -> int:
    """Index of the step holding instant ``t`` (the first step for ``t`` before ``times[0]``).

    >>> step_at([0, 10, 20], 15), step_at([0, 10, 20], 10), step_at([5, 10], 0)
    (1, 1, 0)
    """
    return max(bisect_right(times, t) - 1, 0)


def split_at(times: list[int], free: list[int], t: int, lo: int = 0) -> int:
    """Index of the step that begins at ``t``, inserting a breakpoint there if there is none.

    ``t >= times[0]``; ``lo``: a step index known to begin at or before ``t`` (a bisection bound).
    The step function is unchanged (the new step repeats its left neighbour's value).

    >>> times, free = [0, 10], [4, 2]
    >>> split_at(times, free, 5), times, free
    (1, [0, 5, 10], [4, 4, 2])
    """
    i = bisect_right(times, t, lo) - 1
    if i < 0:
        raise InvalidInput(f"profile: time {t} is before the profile origin {times[0]}")
    if times[i] == t:
        return i
    times.insert(i + 1, t)
    free.insert(i + 1, free[i])
    return i + 1


def add_free(times: list[int], free: list[int], start: int, end: int, delta: int) -> None:
    """Add ``delta`` free processors over ``[start, end)`` (``times[0] <= start < end``), in place; no checks.

    At most two breakpoints are inserted, and equal neighbours at both edges of
    the changed range are merged again, so a step function with no equal
    neighbours keeps none. The first step is never removed.

    >>> times, free = [0], [4]
    >>> add_free(times, free, 10, 20, -3); times, free
    ([0, 10, 20], [4, 1, 4])
    >>> add_free(times, free, 10, 20, 3); times, free
    ([0], [4])
    """
    a = split_at(times, free, start)
    b = split_at(times, free, end, a)
    for k in range(a, b):
        free[k] += delta
    if b < len(times) and free[b] == free[b - 1]:
        del times[b]
        del free[b]
    if a > 0 and free[a] == free[a - 1]:
        del times[a]
        del free[a]


def window_min(times: list[int], free: list[int], start: int, end: int | float) -> int:
    """Fewest processors free at any instant of ``[start, end)`` (``start < end``; ``end`` may be ``inf``).

    >>> window_min([0, 10, 20], [4, 1, 4], 0, 10), window_min([0, 10, 20], [4, 1, 4], 5, 11)
    (4, 1)
    """
    i = step_at(times, start)
    low = free[i]
    n = len(times)
    i += 1
    while i < n and times[i] < end:
        if free[i] < low:
            low = free[i]
        i += 1
    return low


def rises(times: list[int], free: list[int], after: int, last: int | float) -> list[int]:
    """The breakpoints in ``(after, last]`` where the free processors rise, in time order.

    Before ``times[0]`` nothing counts as free (a slot's capacity begins at its
    start), so ``times[0]`` is a rise when it is in the range and has any free.
    These are the only instants after ``after`` at which a window that does not
    fit can start to fit (Singh 2008, ch. 4.5: the earliest start in a bin).

    >>> rises([0, 10, 20, 30], [2, 1, 3, 3], -1, 30)
    [0, 20]
    >>> rises([0, 10, 20, 30], [2, 1, 3, 3], 0, 19)
    []
    """
    i = bisect_right(times, after)
    prev = free[i - 1] if i > 0 else 0
    out = []
    for j in range(i, len(times)):
        t = times[j]
        if t > last:
            break
        f = free[j]
        if f > prev:
            out.append(t)
        prev = f
    return out


def first_short(times: list[int], free: list[int], procs: int, start: int) -> tuple[int, int] | None:
    """The first instant from ``start`` with fewer than ``procs`` free, and how many are free then.

    None when there is none (``procs`` are free from ``start`` on).

    >>> first_short([0, 10, 20], [4, 1, 4], 2, 0), first_short([0, 10, 20], [4, 1, 4], 2, 20)
    ((10, 1), None)
    """
    i = step_at(times, start)
    if free[i] < procs:
        return max(start, times[i]), free[i]
    for j in range(i + 1, len(times)):
        if free[j] < procs:
            return times[j], free[j]
    return None


def short_until(times: list[int], free: list[int], procs: int, before: int) -> int | None:
    """End of the last step that begins before ``before`` and has fewer than ``procs`` free.

    From then on ``procs`` are free without a break up to ``before``; None when no step
    before ``before`` is short (a short last step never ends: the answer is ``before``).

    >>> short_until([0, 10, 20, 30], [4, 1, 3, 4], 2, 25), short_until([0, 10, 20, 30], [4, 1, 3, 4], 2, 10)
    (20, None)
    """
    x = bisect_right(times, before - 1) - 1
    while x >= 0 and free[x] >= procs:
        x -= 1
    if x < 0:
        return None
    return times[x + 1] if x + 1 < len(times) else before



@runtime_checkable
class AvailabilityProfile(Protocol):
    """What an availability profile offers: :class:`ReferenceProfile` and the compiled ``Profile`` both do.

    :data:`Profile` is one of the two classes, chosen at import time, so code
    that holds a profile is annotated with this protocol and calls
    ``Profile(...)`` to make one. Type checkers cannot read the compiled
    class (``_cprofile.pyx``); tests check that it has every member here, with
    the same parameters (``tests/market/scheduling/test_kernel.py``).
    """

    procs: int
    times: list[int]
    free: list[int]

    def __init__(self, procs: int, origin: int = 0) -> None: ...
    def steps(self) -> list[tuple[int, int]]: ...
    def free_at(self, t: int) -> int: ...
    def min_free(self, start: int, duration: int) -> int: ...
    def running_min(self, start: int) -> tuple[int, list[int]]: ...
    def max_free(self, start: int, duration: int) -> int: ...
    def earliest_start(self, procs: int, duration: int, after: int | None = None) -> int: ...
    def earliest_move(self, procs: int, duration: int, after: int, current: int) -> int: ...
    def reserve(self, start: int, duration: int, procs: int) -> int: ...
    def release(self, start: int, duration: int, procs: int) -> None: ...
    def advance(self, now: int) -> None: ...
    def _add(self, start: int, duration: int, delta: int) -> None: ...  # unchecked update, for the schedulers
    def copy(self) -> AvailabilityProfile: ...
    def compress(self, jobs: list, planned: dict[int, int], now: int) -> int | None: ...
    def release_jobs(self, jobs: list, planned: dict[int, int]) -> None: ...
    def replan(self, jobs: list, planned: dict[int, int], now: int) -> int | None: ...


class ReferenceProfile:
    """Free processors over ``[origin, +inf)`` on a machine of ``procs`` processors (pure Python).

    The reference implementation; :data:`Profile` is its compiled twin where
    the extension was built (see the module notes at the end).

    Parameters
    ----------
    procs : int
        Processors of the machine; the profile starts fully free.
    origin : int
        First instant the profile describes (seconds).

    Examples
    --------
    Thesis Fig. 1 (Singh 2008, ch. 3): 5 processors, tasks A (2 procs x 3 h),
    B (4 x 1 h), C (1 x 2 h), D (3 x 2 h) planned by conservative backfilling.

    >>> h = 3600
    >>> p = Profile(5)
    >>> [p.reserve(p.earliest_start(n, d), d, n) for n, d in [(2, 3*h), (4, h), (1, 2*h), (3, 2*h)]]
    [0, 10800, 0, 14400]
    >>> [(t // h, f) for t, f in p.steps()]
    [(0, 2), (2, 3), (3, 1), (4, 2), (6, 5)]
    """

    __slots__ = ("procs", "times", "free")

    def __init__(self, procs: int, origin: int = 0) -> None:
        if not isinstance(procs, int) or procs < 1:
            raise InvalidInput(f"profile: procs must be a positive int, got {procs!r}")
        self.procs = procs
        self.times: list[int] = [origin]
        self.free: list[int] = [procs]

    # ---------------------------------------------------------------- queries
    def steps(self) -> list[tuple[int, int]]:
        """``(time, free)`` pairs of every step, in time order."""
        return list(zip(self.times, self.free))

    def free_at(self, t: int) -> int:
        """Processors free at instant ``t`` (``t`` >= origin)."""
        return self.free[step_at(self.times, t)]

    def min_free(self, start: int, duration: int) -> int:
        """Fewest processors free at any instant of ``[start, start + duration)``."""
        return window_min(self.times, self.free, start, start + duration)

    def running_min(self, start: int) -> tuple[int, list[int]]:
        """Prefix minima of the free processors from ``start``: ``(i, lows)``.

        ``lows[c]`` is the fewest processors free over ``[start, times[i + c + 1])``
        (``i`` is the step holding ``start``), so ``min_free(start, d)`` equals
        ``lows[bisect_left(times, start + d, i + 1) - i - 1]``: a whole scan of
        windows that all begin at ``start`` costs one pass plus a bisection each.
        Valid until the profile changes.

        >>> p = Profile(4); _ = p.reserve(10, 5, 3), p.reserve(30, 5, 1)
        >>> p.running_min(0)
        (0, [4, 1, 1, 1, 1])
        """
        i = step_at(self.times, start)
        return i, list(accumulate(self.free[i:], min))

    def max_free(self, start: int, duration: int) -> int:
        """Most processors free at any instant of ``[start, start + duration)``."""
        i = step_at(self.times, start)
        j = bisect_right(self.times, start + duration - 1, i)
        return max(self.free[i:j])

    def earliest_start(self, procs: int, duration: int, after: int | None = None) -> int:
        """First instant >= ``after`` with ``procs`` free for ``duration`` seconds.

        Raises ``Infeasible`` when ``procs`` exceeds the machine (it would never fit).
        The candidate instants are ``after`` and every later breakpoint, the only
        places a feasible window can begin; a failed window at step ``j`` makes
        every candidate before ``j`` fail too, so the scan is linear.
        """
        if procs > self.procs:
            raise Infeasible(f"{procs} processors requested; machine has {self.procs}")
        times, free = self.times, self.free
        n = len(times)
        if after is None or after < times[0]:
            after = times[0]
        i = step_at(times, after)
        start = after
        while True:
            # advance to the first step with enough processors
            while free[i] < procs:
                i += 1  # the last step is always all-free-after-everything, so this ends
                start = times[i]
            end = start + duration
            j = i + 1
            while j < n and times[j] < end and free[j] >= procs:
                j += 1
            if j == n or times[j] >= end:
                return start
            i = j  # free[j] < procs: no window can start before times[j + 1]

    def earliest_move(self, procs: int, duration: int, after: int, current: int) -> int:
        """Earliest start in ``[after, current]`` for a block already planned at ``current``.

        The block's own processors count as free over ``[current, current +
        duration)``, as if it were taken out first; ``current`` itself is
        always feasible, so the answer never exceeds it. Nothing is changed:
        callers move the block only when the answer is earlier.

        >>> p = Profile(4)
        >>> p.reserve(0, 10, 2)
        0
        >>> p.reserve(10, 10, 4)  # a 4-wide block at 10; could it move to 0? no, 2 are taken
        10
        >>> p.earliest_move(4, 10, 0, current=10), p.earliest_move(2, 10, 0, current=10)
        (10, 0)
        """
        times, free = self.times, self.free
        n = len(times)
        i = step_at(times, after)
        start = max(after, times[0])
        own_end = current + duration
        while start < current:
            while free[i] + (procs if current <= times[i] < own_end else 0) < procs:
                i += 1
                start = times[i]
                if start >= current:
                    return current
            end = start + duration
            j = i + 1
            while j < n and times[j] < end:
                f = free[j] + (procs if current <= times[j] < own_end else 0)
                if f < procs:
                    break
                j += 1
            else:
                return start
            i = j
            start = times[i]
        return current

    # ---------------------------------------------------------------- updates
    def _add(self, start: int, duration: int, delta: int) -> None:
        """Add ``delta`` free processors over ``[start, start + duration)``; no checks (:func:`add_free`)."""
        add_free(self.times, self.free, start, start + duration, delta)

    def reserve(self, start: int, duration: int, procs: int) -> int:
        """Take ``procs`` processors over ``[start, start + duration)``; return ``start``.

        Raises ``Infeasible`` (and leaves the profile unchanged) if fewer than
        ``procs`` are free at some instant of the interval.
        """
        if duration <= 0:
            raise InvalidInput(f"profile: duration must be > 0, got {duration}")
        if self.min_free(start, duration) < procs:
            raise Infeasible(
                f"{procs} processors are not free over [{start}, {start + duration})"
            )
        self._add(start, duration, -procs)
        return start

    def release(self, start: int, duration: int, procs: int) -> None:
        """Give back ``procs`` processors over ``[start, start + duration)``.

        Raises ``InvalidInput`` (profile unchanged) if that would free more
        processors than the machine has at some instant.
        """
        if duration <= 0:
            raise InvalidInput(f"profile: duration must be > 0, got {duration}")
        if self.max_free(start, duration) + procs > self.procs:
            raise InvalidInput(
                f"profile: releasing {procs} processors over [{start}, {start + duration}) "
                f"exceeds the machine's {self.procs}"
            )
        self._add(start, duration, procs)

    def advance(self, now: int) -> None:
        """Forget the past: make ``now`` the profile's origin."""
        times = self.times
        i = step_at(times, now)
        if i > 0:
            del times[:i]
            del self.free[:i]
        if times[0] < now:
            times[0] = now

    def copy(self) -> ReferenceProfile:
        """An independent copy (for what-if planning such as pricing)."""
        other = ReferenceProfile.__new__(ReferenceProfile)
        other.procs = self.procs
        other.times = self.times.copy()
        other.free = self.free.copy()
        return other

    # ---------------------------------------------------------------- plans
    def compress(self, jobs: list, planned: dict[int, int], now: int) -> int | None:
        """Move each of ``jobs`` (in order) to its earliest start no later than ``planned[job.id]``.

        Conservative backfilling's compression after an early end (Mu'alem &
        Feitelson 2001): each queued job is taken out of the profile and put
        back at its earliest start in ``[now, old]``, so it never moves later.
        ``planned`` (job id -> start, seconds) is updated in place. Returns the
        earliest planned start of ``jobs`` afterwards (None for no jobs), which
        the scheduler keeps as its next wake-up.

        >>> p = Profile(2)
        >>> p.reserve(0, 10, 2), p.reserve(10, 5, 1)  # a running job to 10, a queued one planned at 10
        (0, 10)
        >>> p.release(0, 10, 2)  # the running job ended at 0
        >>> class J: id, procs, estimate = 7, 1, 5
        >>> planned = {7: 10}; p.compress([J], planned, 0), planned
        (0, {7: 0})
        """
        move, add = self.earliest_move, self._add
        first = None
        for job in jobs:
            old = planned[job.id]
            if old != now:  # else it cannot move earlier
                new = move(job.procs, job.estimate, now, old)
                if new != old:
                    # unchecked updates: earliest_move only returns windows that are free
                    add(old, job.estimate, job.procs)
                    add(new, job.estimate, -job.procs)
                    planned[job.id] = old = new
            if first is None or old < first:
                first = old
        return first

    def release_jobs(self, jobs: list, planned: dict[int, int]) -> None:
        """Give back each of ``jobs``' processors over ``[planned[job.id], planned[job.id] + job.estimate)``.

        :meth:`release` for every job in order (a conservative scheduler
        taking its queue out of its plan); raises as :meth:`release` does.

        >>> p = Profile(2)
        >>> class J: id, procs, estimate = 7, 1, 15
        >>> planned = {7: p.reserve(5, 15, 1)}; p.release_jobs([J], planned); p.steps()
        [(0, 2)]
        """
        for job in jobs:
            self.release(planned[job.id], job.estimate, job.procs)

    def replan(self, jobs: list, planned: dict[int, int], now: int) -> int | None:
        """Plan each of ``jobs`` (in order, none of them in the profile) at its earliest start from ``now``.

        Conservative backfilling's planning of a queue (Mu'alem & Feitelson
        2001), as after a reservation that displaced it: each job is reserved
        at its earliest start; ``planned`` (job id -> start, seconds) is
        updated in place. Returns the earliest start planned (None for no jobs).

        >>> p = Profile(2)
        >>> _ = p.reserve(10, 20, 2)  # a reservation over [10, 30)
        >>> class J: id, procs, estimate = 7, 1, 15
        >>> planned = {}; p.replan([J], planned, 0), planned
        (30, {7: 30})
        """
        first = None
        for job in jobs:
            start = self.reserve(self.earliest_start(job.procs, job.estimate, now), job.estimate, job.procs)
            planned[job.id] = start
            if first is None or start < first:
                first = start
        return first


def reference_split_due(queue: list, planned: dict[int, int], now: int) -> tuple[list, list, int | None]:
    """Jobs of ``queue`` planned to start at ``now`` (dropped from ``planned``), the rest, and the rest's first start.

    A conservative pass (Singh 2008, ch. 3): the plan already holds every
    queued job's processors, so starting is only finding the jobs due now.
    Both lists keep queue order; the third value (None when nothing is left)
    is the scheduler's next wake-up.

    >>> class J:
    ...     def __init__(self, i): self.id = i
    >>> planned = {1: 5, 2: 0, 3: 0}
    >>> due, rest, first = split_due([J(1), J(2), J(3)], planned, 0)
    >>> [j.id for j in due], [j.id for j in rest], first, planned
    ([2, 3], [1], 5, {1: 5})
    """
    started, kept, first = [], [], None
    for job in queue:
        t = planned[job.id]
        if t == now:
            del planned[job.id]
            started.append(job)
        else:
            kept.append(job)
            if first is None or t < first:
                first = t
    return started, kept, first


class ReferenceQueuePlan:
    """How a conservative scheduler compresses its plan and finds the jobs due (pure Python).

    The scheduler's ``queue`` (jobs in arrival order) and ``planned`` (job id
    -> planned start, seconds) are the plan; the compiled twin
    (:data:`QueuePlan`) mirrors them as C arrays, kept in step through
    :meth:`append` and :meth:`load`, so that :meth:`compress` and
    :meth:`split_due` read machine integers. This reference keeps nothing:
    its two methods are :meth:`ReferenceProfile.compress` and
    :func:`reference_split_due`, which the compiled twin is tested against.

    >>> p, q, planned = Profile(2), QueuePlan(), {}
    >>> _ = p.reserve(0, 10, 2)  # a running job to 10
    >>> class J: id, procs, estimate = 7, 1, 5
    >>> planned[7] = p.reserve(10, 5, 1); q.append(J, 10)
    >>> p.release(0, 10, 2)  # it ended at 0
    >>> q.compress(p, [J], planned, 0), planned
    (0, {7: 0})
    >>> started, kept, first = q.split_due([J], planned, 0); [j.id for j in started], kept, first
    ([7], [], None)
    """

    __slots__ = ()

    def __len__(self) -> int:  # the scheduler's queue is the plan; nothing is mirrored
        return 0

    def append(self, job, start: int) -> None:
        """``job`` joined the end of the queue, planned at ``start`` (nothing to mirror here)."""

    def load(self, jobs: list, planned: dict[int, int]) -> None:
        """The plan changed elsewhere (nothing to mirror here)."""

    def compress(self, profile, jobs: list, planned: dict[int, int], now: int) -> int | None:
        """:meth:`ReferenceProfile.compress` of ``jobs`` in ``profile``."""
        return profile.compress(jobs, planned, now)

    def split_due(self, jobs: list, planned: dict[int, int], now: int) -> tuple[list, list, int | None]:
        """:func:`reference_split_due` of ``jobs``."""
        return reference_split_due(jobs, planned, now)


def reference_shadow_by_counting(ends: list, free: int, need: int, now: int) -> tuple[int, int]:
    """EASY's shadow time by counting (no reservations ahead): when the blocked head can start, and the extra.

    ``ends`` holds ``(planned end, id, procs)`` of the running jobs in time order, ``free`` the
    processors free now, ``need`` the head's. The shadow time is the earliest planned end at which
    the free processors cover ``need`` (Mu'alem & Feitelson 2001); the extra counts every job
    ending by then, ties included, minus ``need``. Times in seconds.

    >>> reference_shadow_by_counting([(50, 1, 2), (80, 2, 2), (80, 3, 1)], 1, 4, 10)  # both ends at 80 count
    (80, 2)
    """
    shadow = now
    for end, _, procs in ends:
        if free >= need and end > shadow:
            break
        free += procs
        shadow = end if end > now else now
    return shadow, free - need


def reference_backfill_by_counting(jobs: list, first: int, now: int, free_now: int, extra: int,
                                   shadow: int, keys=None) -> tuple[list[int], int]:
    """EASY's backfill scan by counting (no reservations ahead): which of ``jobs[first:]`` start now.

    Mu'alem & Feitelson 2001: behind the blocked head, whose reservation is
    at ``shadow`` with ``extra`` processors to spare then, a job starts now
    if it fits the ``free_now`` processors and either ends by ``shadow`` or
    fits in ``extra`` (which it then uses up). In order, one pass, stopping
    when nothing is free. EASY scans its queue behind the head (``first``
    1) after a pass, or only the new arrivals (``first`` 0) while the head
    is unchanged. ``keys``: the compiled twin's cache of the jobs' numbers
    (:data:`QueueKeys`); the reference reads the jobs and ignores it.

    Returns
    -------
    (list of int, int)
        Indices into ``jobs`` of the jobs to start, in order, and the extra processors left.
    """
    picked: list[int] = []
    if free_now <= 0:
        return picked, extra
    for i in range(first, len(jobs)):
        job = jobs[i]
        procs = job.procs
        if procs > free_now:
            continue
        if now + job.estimate > shadow:
            if procs > extra:
                continue
            extra -= procs
        picked.append(i)
        free_now -= procs
        if free_now == 0:
            break
    return picked, extra


def block_steps(blocks: Iterable[tuple[int, int | float, int]], *, base: int = 0,
                origin: int | None = None) -> tuple[list[int], list[int]]:
    """The step function ``base`` plus each ``(start, end, delta)`` block's ``delta`` over ``[start, end)``.

    The one sweep that sums blocks into a step function (a machine's held processors, a provider's
    committed ones, a slot set's free capacity, the processors placed tasks use): the blocks'
    changes summed per instant, then accumulated in time order, O(k log k) for k blocks. An ``end``
    of ``math.inf`` never ends (an extensible slot). Returns ``(times, values)``: strictly
    increasing breakpoints and the value from each on, equal neighbours merged; the value before
    ``times[0]`` is ``base``. ``origin``: the first breakpoint (the blocks start at or after it;
    without it, the earliest change; no blocks and no origin give two empty lists).

    >>> block_steps([(10, 50, 3), (40, 60, 1)], origin=0)
    ([0, 10, 40, 50, 60], [0, 3, 4, 1, 0])
    >>> block_steps([(0, 20, 2), (20, float("inf"), 2)])
    ([0], [2])
    """
    change: dict[int, int] = {} if origin is None else {origin: 0}
    for start, end, delta in blocks:
        change[start] = change.get(start, 0) + delta
        if end != math.inf:
            change[end] = change.get(end, 0) - delta  # type: ignore[index, arg-type]  # finite: an int
    times: list[int] = []
    values: list[int] = []
    value = base
    for t in sorted(change):
        value += change[t]
        if values and values[-1] == value:
            continue
        times.append(t)
        values.append(value)
    return times, values


def held_profile(procs: int, now: int, held: Iterable[tuple[int, int, int]], *, check: bool = True,
                 cls: type[AvailabilityProfile] | None = None) -> AvailabilityProfile:
    """Free processors from ``now`` on, with each ``(start, end, procs)`` block held over ``[start, end)``.

    The one builder of a profile from held blocks (running jobs to their planned ends,
    reservations, planned queued jobs): :func:`block_steps` of the blocks from ``now``, O(k log k)
    for k blocks. Every ``start`` is at least ``now`` (a block under way is passed from ``now``).
    ``cls`` is the profile class (default :data:`Profile`).

    Raises
    ------
    InvalidInput
        With ``check``, the blocks hold more processors than the machine has at some instant
        (the message names it). Without, the profile keeps the negative count, for a caller that
        names the fault itself.

    Examples
    --------
    >>> held_profile(4, 10, [(10, 50, 3), (40, 60, 1)]).steps()
    [(10, 1), (40, 0), (50, 3), (60, 4)]
    >>> held_profile(4, 10, [(10, 50, 3), (40, 60, 2)])
    Traceback (most recent call last):
    ...
    gridmarket.errors.InvalidInput: running jobs and reservations hold 5 processors at 40; machine has 4
    """
    times, free = block_steps(((start, end, -n) for start, end, n in held), base=procs, origin=now)
    if check and min(free) < 0:
        i = next(i for i, value in enumerate(free) if value < 0)
        raise InvalidInput(
            f"running jobs and reservations hold {procs - free[i]} processors at {times[i]}; machine has {procs}"
        )
    profile = (Profile if cls is None else cls)(procs, now)
    profile.times, profile.free = times, free  # both profile classes keep the two lists
    return profile


_compiled = compiled_module("gridmarket.scheduling._cprofile")

#: The availability profile every scheduler, pricer and planner uses: the
#: Cython build of ``_cprofile.pyx`` (same methods, results and errors as
#: :class:`ReferenceProfile`) unless ``GRIDMARKET_KERNEL=reference`` or it was
#: not built (:data:`gridmarket.kernel.KERNEL` says which runs). Either is an
#: :class:`AvailabilityProfile`, the type to annotate with.
Profile: type[AvailabilityProfile] = ReferenceProfile if _compiled is None else _compiled.Profile
split_due = reference_split_due if _compiled is None else _compiled.split_due
QueuePlan = ReferenceQueuePlan if _compiled is None else _compiled.QueuePlan
backfill_by_counting = reference_backfill_by_counting if _compiled is None else _compiled.backfill_by_counting
shadow_by_counting = reference_shadow_by_counting if _compiled is None else _compiled.shadow_by_counting
#: The compiled cache of a queue's processors and estimates that ``backfill_by_counting(..., keys=)``
#: scans (re-read only for jobs that joined since the last scan); None with the reference kernel.
QueueKeys = None if _compiled is None else _compiled.QueueKeys
