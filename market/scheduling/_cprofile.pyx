# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False, cdivision=True
"""Compiled availability profile: the same class as ``gridmarket.scheduling.profile.ReferenceProfile``.

Built at install time from this file by Cython (``setup.py``); where it could
not be built, ``gridmarket.scheduling.profile`` falls back to the pure-Python
reference and says so once. Every method has the reference's semantics, tie
rules and errors (``tests/market/scheduling/test_kernel.py`` checks them
against each other); only the loops run in C. Times are integer seconds from
simulation start, as in the reference.

``times`` and ``free`` stay Python lists, so code that reads the steps keeps
working; the scans read them through typed indices.
"""

from itertools import accumulate

from cpython.list cimport PyList_GET_ITEM
from cpython.mem cimport PyMem_Free, PyMem_Malloc, PyMem_Realloc
from cpython.ref cimport PyObject, Py_INCREF, Py_XDECREF

include "../_csearch.pxi"
from libc.string cimport memmove

from gridmarket.errors import Infeasible, InvalidInput

cdef class Profile:
    """Free processors over ``[origin, +inf)`` on a machine of ``procs`` processors (compiled).

    See :class:`gridmarket.scheduling.profile.ReferenceProfile` for the documentation
    of every method; this class is its drop-in twin.
    """

    cdef public object procs
    cdef public list times
    cdef public list free

    def __init__(self, procs, origin=0):
        if not isinstance(procs, int) or procs < 1:
            raise InvalidInput(f"profile: procs must be a positive int, got {procs!r}")
        self.procs = procs
        self.times = [origin]
        self.free = [procs]

    def __reduce__(self):
        return (_rebuild, (self.procs, self.times, self.free))

    # ---------------------------------------------------------------- queries
    def steps(self):
        return list(zip(self.times, self.free))

    def free_at(self, i64 t):
        cdef Py_ssize_t i = bisect_right_list(self.times, t, 0, len(self.times)) - 1
        return self.free[i if i > 0 else 0]

    cpdef i64 min_free(self, i64 start, i64 duration):
        cdef list times = self.times, free = self.free
        cdef Py_ssize_t n = len(times)
        cdef Py_ssize_t i = bisect_right_list(times, start, 0, n) - 1
        cdef i64 end = start + duration, low, f
        if i < 0:
            i = 0
        low = <i64>free[i]
        i += 1
        while i < n and <i64>times[i] < end:
            f = <i64>free[i]
            if f < low:
                low = f
            i += 1
        return low

    def running_min(self, i64 start):
        cdef Py_ssize_t i = bisect_right_list(self.times, start, 0, len(self.times)) - 1
        if i < 0:
            i = 0
        return i, list(accumulate(self.free[i:], min))

    def max_free(self, i64 start, i64 duration):
        cdef list times = self.times, free = self.free
        cdef Py_ssize_t n = len(times)
        cdef Py_ssize_t i = bisect_right_list(times, start, 0, n) - 1
        cdef Py_ssize_t j
        if i < 0:
            i = 0
        j = bisect_right_list(times, start + duration - 1, i, n)
        return max(free[i:j])

    cpdef i64 earliest_start(self, i64 procs, i64 duration, object after=None) except? -1:
        cdef list times = self.times, free = self.free
        cdef Py_ssize_t n = len(times), i, j
        cdef i64 start, end, t0
        if procs > self.procs:
            raise Infeasible(f"{procs} processors requested; machine has {self.procs}")
        t0 = <i64>times[0]
        if after is None or after < t0:
            start = t0
        else:
            start = <i64>after
        i = bisect_right_list(times, start, 0, n) - 1
        if i < 0:
            i = 0
        while True:
            while <i64>free[i] < procs:
                i += 1  # the last step is all free after everything, so this ends
                if i >= n:  # a corrupted profile: fail as the reference does, never read past the list
                    raise IndexError("list index out of range")
                start = <i64>times[i]
            end = start + duration
            j = i + 1
            while j < n and <i64>times[j] < end and <i64>free[j] >= procs:
                j += 1
            if j == n or <i64>times[j] >= end:
                return start
            i = j

    cpdef i64 earliest_move(self, i64 procs, i64 duration, i64 after, i64 current) except? -1:
        cdef Py_ssize_t n = len(self.times), k
        cdef i64 *T = <i64 *>PyMem_Malloc(2 * n * sizeof(i64))
        cdef i64 start
        if T == NULL:
            raise MemoryError()
        try:
            for k in range(n):
                T[k] = self.times[k]
                T[n + k] = self.free[k]
            start = _c_earliest_move(T, T + n, n, procs, duration, after, current)
        finally:
            PyMem_Free(T)
        if start < 0:  # wider than the machine: fail as the reference does, never read past the steps
            raise IndexError("list index out of range")
        return start

    # ---------------------------------------------------------------- updates
    cpdef _add(self, i64 start, i64 duration, i64 delta):
        cdef list times = self.times, free = self.free
        cdef i64 end = start + duration
        cdef Py_ssize_t a, b, k, n = len(times)
        a = bisect_right_list(times, start, 0, n) - 1
        if a < 0:
            raise InvalidInput(f"profile: time {start} is before the profile origin {times[0]}")
        if <i64>times[a] != start:
            a += 1
            times.insert(a, start)
            free.insert(a, free[a - 1])
            n += 1
        b = bisect_right_list(times, end, a, n) - 1
        if <i64>times[b] != end:
            b += 1
            times.insert(b, end)
            free.insert(b, free[b - 1])
            n += 1
        for k in range(a, b):
            free[k] = <i64>free[k] + delta
        if b < n and <i64>free[b] == <i64>free[b - 1]:
            del times[b]
            del free[b]
        if a > 0 and <i64>free[a] == <i64>free[a - 1]:
            del times[a]
            del free[a]

    def reserve(self, i64 start, i64 duration, i64 procs):
        if duration <= 0:
            raise InvalidInput(f"profile: duration must be > 0, got {duration}")
        if self.min_free(start, duration) < procs:
            raise Infeasible(
                f"{procs} processors are not free over [{start}, {start + duration})"
            )
        self._add(start, duration, -procs)
        return start

    def release(self, i64 start, i64 duration, i64 procs):
        if duration <= 0:
            raise InvalidInput(f"profile: duration must be > 0, got {duration}")
        if self.max_free(start, duration) + procs > self.procs:
            raise InvalidInput(
                f"profile: releasing {procs} processors over [{start}, {start + duration}) "
                f"exceeds the machine's {self.procs}"
            )
        self._add(start, duration, procs)

    cpdef advance(self, i64 now):
        cdef list times = self.times
        cdef Py_ssize_t i = bisect_right_list(times, now, 0, len(times)) - 1
        if i > 0:
            del times[:i]
            del self.free[:i]
        if <i64>times[0] < now:
            times[0] = now

    def copy(self):
        cdef Profile other = Profile.__new__(Profile)
        other.procs = self.procs
        other.times = self.times.copy()
        other.free = self.free.copy()
        return other

    # ---------------------------------------------------------------- plans
    def compress(self, list jobs, dict planned, i64 now):
        """Move each of ``jobs`` (in order) to its earliest start no later than ``planned[job.id]``.

        Conservative backfilling's compression after an early end (the loop of
        ``ReferenceProfile.compress``): each job is taken out and put back at
        its earliest start in ``[now, old]``; ``planned`` is updated in place.
        Runs as :meth:`QueuePlan.compress` on a mirror of ``jobs`` made here
        (a scheduler that compresses often keeps its own mirror). Returns the
        earliest planned start of ``jobs`` afterwards (None for no jobs).
        """
        cdef QueuePlan mirror = QueuePlan()
        mirror.load(jobs, planned)
        return mirror.compress(self, jobs, planned, now)


    def release_jobs(self, list jobs, dict planned):
        """Give back each of ``jobs``' processors over ``[planned[job.id], + estimate)`` (``ReferenceProfile.release_jobs``).

        The releases run on C arrays (one copy in, one out), each checked as
        :meth:`release` checks it; on a failing one the releases before it stay
        done and the error is the reference's.
        """
        cdef Py_ssize_t n = len(self.times), cap = n + 2 * len(jobs) + 4, k, a, b
        cdef i64 *T
        cdef i64 *F
        cdef i64 start, duration, procs, high, machine = self.procs
        error = None
        _steps_in(self, cap, &T, &F)
        try:
            for job in jobs:
                start = planned[job.id]
                duration = job.estimate
                procs = job.procs
                if duration <= 0:
                    error = InvalidInput(f"profile: duration must be > 0, got {duration}")
                    break
                # max_free over the window, as release checks it first
                a = bisect_right_array(T, start, 0, n) - 1
                if a < 0:
                    a = 0
                b = bisect_right_array(T, start + duration - 1, a, n)
                if b <= a:
                    error = ValueError("max() iterable argument is empty")
                    break
                high = F[a]
                for k in range(a + 1, b):
                    if F[k] > high:
                        high = F[k]
                if high + procs > machine:
                    error = InvalidInput(
                        f"profile: releasing {procs} processors over [{start}, {start + duration}) "
                        f"exceeds the machine's {self.procs}"
                    )
                    break
                if start < T[0]:
                    error = InvalidInput(f"profile: time {start} is before the profile origin {T[0]}")
                    break
                n = _c_add(T, F, n, start, duration, procs)
            self.times = [T[k] for k in range(n)]
            self.free = [F[k] for k in range(n)]
        finally:
            PyMem_Free(T)
            PyMem_Free(F)
        if error is not None:
            raise error

    def replan(self, list jobs, dict planned, i64 now):
        """Plan each of ``jobs`` (in order, none of them in the profile) at its earliest start from ``now``.

        The loop of ``ReferenceProfile.replan`` on C arrays (one copy in, one
        out); ``planned`` is updated in place. Returns the earliest start
        planned (None for no jobs).
        """
        cdef Py_ssize_t n = len(self.times), cap = n + 2 * len(jobs) + 4, k, i, j
        cdef i64 *T
        cdef i64 *F
        cdef i64 procs, estimate, start, end, first = 0
        cdef bint any_job = False
        for job in jobs:
            if job.procs > self.procs:
                raise Infeasible(f"{job.procs} processors requested; machine has {self.procs}")
        _steps_in(self, cap, &T, &F)
        try:
            for job in jobs:
                procs = job.procs
                estimate = job.estimate
                # earliest_start(procs, estimate, now): the last step is all free, so the scans end
                start = now if now > T[0] else T[0]
                i = bisect_right_array(T, start, 0, n) - 1
                if i < 0:
                    i = 0
                while True:
                    while F[i] < procs:
                        i += 1
                        start = T[i]
                    end = start + estimate
                    j = i + 1
                    while j < n and T[j] < end and F[j] >= procs:
                        j += 1
                    if j == n or T[j] >= end:
                        break
                    i = j
                n = _c_add(T, F, n, start, estimate, -procs)
                planned[job.id] = start
                if not any_job or start < first:
                    first = start
                    any_job = True
            self.times = [T[k] for k in range(n)]
            self.free = [F[k] for k in range(n)]
        finally:
            PyMem_Free(T)
            PyMem_Free(F)
        return first if any_job else None


cdef class QueuePlan:
    """A conservative plan's queue as C arrays: each queued job's processors, estimate and planned start.

    Twin of :class:`gridmarket.scheduling.profile.ReferenceQueuePlan`. The
    scheduler's ``queue`` (list of jobs) and ``planned`` (job id -> start)
    stay the public truth; this mirror holds the same jobs in the same order
    so that compression and the due-split read machine integers instead of
    Python attributes and dictionary entries. Every method that is handed
    the queue checks that it still has the mirror's length.
    """

    cdef i64 *procs
    cdef i64 *est
    cdef i64 *start
    cdef Py_ssize_t n, cap

    def __cinit__(self):
        self.n = 0
        self.cap = 64
        self.procs = <i64 *>PyMem_Malloc(self.cap * sizeof(i64))
        self.est = <i64 *>PyMem_Malloc(self.cap * sizeof(i64))
        self.start = <i64 *>PyMem_Malloc(self.cap * sizeof(i64))
        if self.procs == NULL or self.est == NULL or self.start == NULL:
            raise MemoryError()

    def __dealloc__(self):
        PyMem_Free(self.procs)
        PyMem_Free(self.est)
        PyMem_Free(self.start)

    def __reduce__(self):
        return (_rebuild_queue_plan, (self.entries(),))

    def __len__(self):
        return self.n

    def entries(self):
        """``(procs, estimate, start)`` of each mirrored job, in queue order."""
        return [(self.procs[k], self.est[k], self.start[k]) for k in range(self.n)]

    cdef int _reserve(self, Py_ssize_t need) except -1:
        cdef Py_ssize_t cap = self.cap
        if need <= cap:
            return 0
        while cap < need:
            cap *= 2
        self.procs = _grown(self.procs, self.n, cap)
        self.est = _grown(self.est, self.n, cap)
        self.start = _grown(self.start, self.n, cap)
        self.cap = cap
        return 0

    cdef int _check(self, list jobs) except -1:
        if len(jobs) != self.n:
            raise RuntimeError(f"QueuePlan: the queue has {len(jobs)} jobs, the plan mirrors {self.n}")
        return 0

    def append(self, job, i64 start):
        """``job`` joined the end of the queue, planned at ``start`` (seconds)."""
        self._reserve(self.n + 1)
        self.procs[self.n] = job.procs
        self.est[self.n] = job.estimate
        self.start[self.n] = start
        self.n += 1

    def load(self, list jobs, dict planned):
        """Mirror ``jobs`` (queue order) at ``planned`` afresh, after the plan changed elsewhere."""
        cdef Py_ssize_t k, m = len(jobs)
        self._reserve(m)
        for k in range(m):
            job = jobs[k]
            self.procs[k] = job.procs
            self.est[k] = job.estimate
            self.start[k] = planned[job.id]
        self.n = m

    def compress(self, Profile profile, list jobs, dict planned, i64 now):
        """``profile.compress(jobs, planned, now)`` read from the mirror: same moves, same result."""
        cdef Py_ssize_t n = len(profile.times), cap, k, m = self.n
        cdef i64 *T
        cdef i64 *F
        cdef i64 old, new, procs, estimate, first = 0
        cdef bint moved = False, wide = False
        self._check(jobs)
        if m == 0:
            return None
        cap = n + 4 * m + 4
        _steps_in(profile, cap, &T, &F)
        try:
            first = self.start[0]
            for k in range(m):
                old = self.start[k]
                if old < first:
                    first = old
                if old == now:
                    continue
                procs = self.procs[k]
                estimate = self.est[k]
                new = _c_earliest_move(T, F, n, procs, estimate, now, old)
                if new < 0:  # wider than the machine: fail as the reference does, after the moves so far
                    wide = True
                    break
                if new == old:
                    continue
                if new < first:
                    first = new
                n = _c_add(T, F, n, old, estimate, procs)
                n = _c_add(T, F, n, new, estimate, -procs)
                self.start[k] = new
                planned[jobs[k].id] = new
                moved = True
            if moved:
                _store(profile, T, F, n)
            if wide:
                raise IndexError("list index out of range")
        finally:
            PyMem_Free(T)
            PyMem_Free(F)
        return first

    def split_due(self, list jobs, dict planned, i64 now):
        """``split_due(jobs, planned, now)`` read from the mirror, which keeps only the jobs left."""
        cdef list started = [], kept = []
        cdef Py_ssize_t k, m = self.n, w = 0
        cdef i64 t, first = 0
        cdef bint any_kept = False
        self._check(jobs)
        for k in range(m):
            t = self.start[k]
            job = jobs[k]
            if t == now:
                del planned[job.id]
                started.append(job)
            else:
                kept.append(job)
                self.procs[w] = self.procs[k]
                self.est[w] = self.est[k]
                self.start[w] = t
                w += 1
                if not any_kept or t < first:
                    first = t
                    any_kept = True
        self.n = w
        return started, kept, (first if any_kept else None)


cdef void _store(Profile profile, i64 *T, i64 *F, Py_ssize_t n) except *:
    """Write the steps ``T``/``F`` back into ``profile``'s lists, reusing the int objects of unchanged steps.

    After a compression most breakpoints and levels are the ones already in
    the lists; handing those objects back instead of making new ones is
    about half the cost of the write-back on full CTC-SP2.
    """
    cdef list ot = profile.times, of = profile.free, nt = [], nf = []
    cdef Py_ssize_t k, p = 0, on = len(ot)
    cdef i64 t
    for k in range(n):
        t = T[k]
        while p < on and <i64>ot[p] < t:
            p += 1
        if p < on and <i64>ot[p] == t:
            nt.append(ot[p])
            nf.append(of[p] if <i64>of[p] == F[k] else F[k])
        else:
            nt.append(t)
            nf.append(F[k])
    profile.times = nt
    profile.free = nf


cdef int _steps_in(Profile profile, Py_ssize_t cap, i64 **T, i64 **F) except -1:
    """Copy ``profile``'s steps into two fresh arrays of ``cap`` (>= its length) at ``*T``, ``*F``; free them after."""
    cdef Py_ssize_t k, n = len(profile.times)
    T[0] = <i64 *>PyMem_Malloc(cap * sizeof(i64))
    F[0] = <i64 *>PyMem_Malloc(cap * sizeof(i64))
    if T[0] == NULL or F[0] == NULL:
        PyMem_Free(T[0])
        PyMem_Free(F[0])
        raise MemoryError()
    try:
        for k in range(n):
            T[0][k] = profile.times[k]
            F[0][k] = profile.free[k]
    except BaseException:
        PyMem_Free(T[0])
        PyMem_Free(F[0])
        raise
    return 0


cdef i64 *_grown(i64 *old, Py_ssize_t n, Py_ssize_t cap) except NULL:
    """A fresh array of ``cap`` holding ``old``'s first ``n`` values; ``old`` is freed."""
    cdef i64 *p = <i64 *>PyMem_Malloc(cap * sizeof(i64))
    if p == NULL:
        raise MemoryError()
    memmove(p, old, n * sizeof(i64))
    PyMem_Free(old)
    return p


def _rebuild_queue_plan(entries):
    cdef QueuePlan q = QueuePlan()
    cdef Py_ssize_t k
    q._reserve(len(entries))
    for k, (p, e, s) in enumerate(entries):
        q.procs[k] = p
        q.est[k] = e
        q.start[k] = s
    q.n = len(entries)
    return q


cdef i64 _c_earliest_move(i64 *T, i64 *F, Py_ssize_t n, i64 procs, i64 duration, i64 after,
                          i64 current) noexcept nogil:
    """``Profile.earliest_move`` on C arrays; -1 where the reference raises (wider than the machine)."""
    cdef Py_ssize_t i, j
    cdef i64 start, end, t, f, own_end = current + duration
    cdef bint ok
    i = bisect_right_array(T, after, 0, n) - 1
    if i < 0:
        i = 0
    start = T[0]
    if after > start:
        start = after
    while start < current:
        while True:
            t = T[i]
            f = F[i]
            if current <= t < own_end:
                f += procs
            if f >= procs:
                break
            i += 1
            if i >= n:
                return -1
            start = T[i]
            if start >= current:
                return current
        end = start + duration
        j = i + 1
        ok = True
        while j < n:
            t = T[j]
            if t >= end:
                break
            f = F[j]
            if current <= t < own_end:
                f += procs
            if f < procs:
                ok = False
                break
            j += 1
        if ok:
            return start
        i = j
        start = T[i]
    return current


cdef Py_ssize_t _c_add(i64 *T, i64 *F, Py_ssize_t n, i64 start, i64 duration, i64 delta) noexcept nogil:
    """``Profile._add`` on C arrays with room for two more steps; the new length.

    ``start`` is never before ``T[0]`` here (compression moves jobs within ``[now, old]``).
    """
    cdef i64 end = start + duration
    cdef Py_ssize_t a, b, k
    a = bisect_right_array(T, start, 0, n) - 1
    if T[a] != start:
        a += 1
        memmove(&T[a + 1], &T[a], (n - a) * sizeof(i64))
        memmove(&F[a + 1], &F[a], (n - a) * sizeof(i64))
        T[a] = start
        F[a] = F[a - 1]
        n += 1
    b = bisect_right_array(T, end, a, n) - 1
    if T[b] != end:
        b += 1
        memmove(&T[b + 1], &T[b], (n - b) * sizeof(i64))
        memmove(&F[b + 1], &F[b], (n - b) * sizeof(i64))
        T[b] = end
        F[b] = F[b - 1]
        n += 1
    for k in range(a, b):
        F[k] += delta
    if b < n and F[b] == F[b - 1]:
        memmove(&T[b], &T[b + 1], (n - b - 1) * sizeof(i64))
        memmove(&F[b], &F[b + 1], (n - b - 1) * sizeof(i64))
        n -= 1
    if a > 0 and F[a] == F[a - 1]:
        memmove(&T[a], &T[a + 1], (n - a - 1) * sizeof(i64))
        memmove(&F[a], &F[a + 1], (n - a - 1) * sizeof(i64))
        n -= 1
    return n


def _rebuild(procs, times, free):
    cdef Profile p = Profile.__new__(Profile)
    p.procs = procs
    p.times = list(times)
    p.free = list(free)
    return p


def split_due(list queue, dict planned, i64 now):
    """Jobs of ``queue`` planned to start at ``now`` (dropped from ``planned``), the rest, and the rest's first start.

    Twin of :func:`gridmarket.scheduling.profile.reference_split_due`; both keep queue order.
    """
    cdef list started = [], kept = []
    cdef i64 t, first = 0
    cdef bint any_kept = False
    for job in queue:
        t = <i64>planned[job.id]
        if t == now:
            del planned[job.id]
            started.append(job)
        else:
            kept.append(job)
            if not any_kept or t < first:
                first = t
                any_kept = True
    return started, kept, (first if any_kept else None)


cdef class QueueKeys:
    """A job list's ``procs`` and ``estimate`` as C arrays, re-read only for the jobs that changed.

    :meth:`sync` walks the list beside the jobs it saw last time (held by strong references, so
    no address is reused while cached): a job still there keeps its numbers, a job gone is
    dropped, a job not seen before (or any job after a reordering) is read. Deleting from and
    appending to a queue -- all EASY does between passes -- costs a pointer comparison per job
    instead of two attribute reads. ``backfill_by_counting(..., keys=)`` scans these arrays.
    """

    cdef PyObject** obj
    cdef i64* procs
    cdef i64* est
    cdef Py_ssize_t n, cap

    def __cinit__(self):
        self.obj = NULL
        self.procs = NULL
        self.est = NULL
        self.n = self.cap = 0

    def __dealloc__(self):
        cdef Py_ssize_t i
        for i in range(self.n):
            Py_XDECREF(self.obj[i])
        PyMem_Free(self.obj)
        PyMem_Free(self.procs)
        PyMem_Free(self.est)

    def __len__(self):
        return self.n

    cdef int _reserve(self, Py_ssize_t m) except -1:
        cdef Py_ssize_t cap = self.cap if self.cap else 64
        cdef void* grown
        if m <= self.cap:
            return 0
        while cap < m:
            cap *= 2
        grown = PyMem_Realloc(self.obj, cap * sizeof(PyObject*))
        if grown == NULL:
            raise MemoryError()
        self.obj = <PyObject**>grown
        grown = PyMem_Realloc(self.procs, cap * sizeof(i64))
        if grown == NULL:
            raise MemoryError()
        self.procs = <i64*>grown
        grown = PyMem_Realloc(self.est, cap * sizeof(i64))
        if grown == NULL:
            raise MemoryError()
        self.est = <i64*>grown
        self.cap = cap
        return 0

    cpdef int sync(self, list jobs) except -1:
        """Make the arrays describe ``jobs`` (same order)."""
        cdef Py_ssize_t m = len(jobs), i = 0, j = 0, t, old = self.n
        cdef PyObject* item
        cdef i64 p, e
        self._reserve(m if m > old else old)
        try:
            while i < m:
                item = PyList_GET_ITEM(jobs, i)
                t = j
                while t < old and self.obj[t] != item:
                    t += 1
                if t < old:  # still queued: drop the jobs before it that left, keep its numbers
                    while j < t:
                        Py_XDECREF(self.obj[j])
                        j += 1
                    self.obj[i] = self.obj[t]
                    self.procs[i] = self.procs[t]
                    self.est[i] = self.est[t]
                    j = t + 1
                    i += 1
                    continue
                p = (<object>item).procs  # (read first: a bad job leaves the cache consistent)
                e = (<object>item).estimate
                while j < old:  # new here, or the list was reordered: every old job not matched yet goes
                    Py_XDECREF(self.obj[j])
                    j += 1
                # no kept job sits at or after position i now, so writing here loses nothing
                Py_INCREF(<object>item)
                self.obj[i] = item
                self.procs[i] = p
                self.est[i] = e
                i += 1
        except BaseException:
            for t in range(i):  # the jobs already placed, then the old ones not consumed
                Py_XDECREF(self.obj[t])
            for t in range(j, old):
                Py_XDECREF(self.obj[t])
            self.n = 0
            raise
        while j < old:
            Py_XDECREF(self.obj[j])
            j += 1
        self.n = m
        return 0

    def numbers(self):
        """``[(procs, estimate), ...]`` of the jobs as last synced (for tests)."""
        cdef Py_ssize_t i
        return [(self.procs[i], self.est[i]) for i in range(self.n)]


def backfill_by_counting(list jobs, Py_ssize_t first, i64 now, i64 free_now, i64 extra, i64 shadow,
                         QueueKeys keys=None):
    """EASY's counting-rule backfill scan over ``jobs[first:]``: the indices it starts, in order, and the extra left.

    Twin of :func:`gridmarket.scheduling.profile.reference_backfill_by_counting` (same indices, same extra).
    The scan reads the jobs' numbers from ``keys`` (a :class:`QueueKeys` kept for this list, synced
    first), or from a throw-away one.
    """
    cdef Py_ssize_t i, n = len(jobs)
    cdef i64 procs
    cdef list picked = []
    if free_now <= 0:
        return picked, extra
    if keys is None:
        keys = QueueKeys()
    keys.sync(jobs)
    for i in range(first, n):
        procs = keys.procs[i]
        if procs > free_now:
            continue
        if now + keys.est[i] > shadow:
            if procs > extra:
                continue
            extra -= procs
        picked.append(i)
        free_now -= procs
        if free_now == 0:
            break
    return picked, extra



def shadow_by_counting(list ends, i64 free, i64 need, i64 now):
    """EASY's shadow time and extra by counting: twin of :func:`gridmarket.scheduling.profile.reference_shadow_by_counting`."""
    cdef Py_ssize_t i, n = len(ends)
    cdef i64 shadow = now, end
    cdef tuple item
    for i in range(n):
        item = <tuple>PyList_GET_ITEM(ends, i)
        end = <i64>item[0]
        if free >= need and end > shadow:
            break
        free += <i64>item[2]
        shadow = end if end > now else now
    return shadow, free - need
