# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False, cdivision=True
"""Compiled twin of the externality re-plan loop (``externality.reference_replan``).

Singh 2008, ch. 5 (Fig. 22): to price a slot, the conservative queue is
re-planned around it from the first job it collides with, and every job's
delay past its current plan is summed (processor-seconds). The loop works on
C copies of the profile's step lists (times in seconds, free processors);
inputs and results are the reference's, to the last digit
(``tests/market/pricing/test_replan_kernel.py``).
"""

from libc.stdlib cimport free as c_free, malloc
from libc.string cimport memmove

from market._csearch cimport bisect_right_array as _bisect_right
from market._csearch cimport i64

cdef i64 NEVER = 1LL << 62


cdef struct Steps:
    i64* t
    i64* f
    Py_ssize_t n


cdef inline void _insert(Steps* s, Py_ssize_t i, i64 t, i64 f) noexcept nogil:
    memmove(&s.t[i + 1], &s.t[i], (s.n - i) * sizeof(i64))
    memmove(&s.f[i + 1], &s.f[i], (s.n - i) * sizeof(i64))
    s.t[i] = t
    s.f[i] = f
    s.n += 1


cdef inline void _delete(Steps* s, Py_ssize_t i) noexcept nogil:
    memmove(&s.t[i], &s.t[i + 1], (s.n - i - 1) * sizeof(i64))
    memmove(&s.f[i], &s.f[i + 1], (s.n - i - 1) * sizeof(i64))
    s.n -= 1


cdef void _take_range(Steps* s, Py_ssize_t i, Py_ssize_t j, i64 a, i64 b, i64 procs) noexcept nogil:
    """Split at ``a`` (step ``i`` holds it) and ``b`` (``j``: first step at or after ``b``), take, merge."""
    cdef Py_ssize_t k
    if s.t[i] != a:
        i += 1
        j += 1
        _insert(s, i, a, s.f[i - 1])
    if j == s.n or s.t[j] != b:
        _insert(s, j, b, s.f[j - 1])
    for k in range(i, j):
        s.f[k] -= procs
    if j < s.n and s.f[j] == s.f[j - 1]:
        _delete(s, j)
    if i > 0 and s.f[i] == s.f[i - 1]:
        _delete(s, i)


cdef void _take(Steps* s, i64 a, i64 b, i64 procs) noexcept nogil:
    """Take ``procs`` processors over ``[a, b)`` (no check), splitting and merging steps."""
    cdef Py_ssize_t i = _bisect_right(s.t, a, 0, s.n) - 1
    cdef Py_ssize_t j = _bisect_right(s.t, b, i, s.n)  # first step after b
    if j > 0 and s.t[j - 1] == b:
        j -= 1  # b is a breakpoint: the first step at or after b
    _take_range(s, i, j, a, b, procs)


cdef i64 _place(Steps* s, i64 procs, i64 duration, i64 after) except -1 nogil:
    """Earliest start at or after ``after`` with ``procs`` free for ``duration``; take it."""
    cdef Py_ssize_t n = s.n, i, j
    cdef i64 start = after, end
    i = _bisect_right(s.t, after, 0, n) - 1
    while True:
        while s.f[i] < procs:
            i += 1
            if i >= n:
                with gil:
                    raise IndexError("list index out of range")
            start = s.t[i]
        end = start + duration
        j = i + 1
        while j < n and s.t[j] < end and s.f[j] >= procs:
            j += 1
        if j == n or s.t[j] >= end:
            break
        i = j
    _take_range(s, i, j, start, end, procs)
    return start


def replan(list times, list free, i64 start, i64 procs, i64 duration, Py_ssize_t k,
           list G, list V, list P, list E, list keep_owes, i64 owed_k, i64 now, bint collect):
    """Re-plan jobs ``k..`` of the queue around a slot; return ``(total delay, new starts or None)``.

    ``times``/``free``: the profile before job ``k`` (base and jobs ``0..k-1``
    at their greedy starts ``G``); the slot ``[start, start + duration)`` of
    ``procs`` processors is taken first. ``V``: current planned starts;
    ``P``, ``E``: processors and estimates; ``keep_owes[i]``: the delay owed
    by job ``i`` if it keeps its greedy start; ``owed_k``: the delay owed by
    jobs ``0..k-1``. Same arithmetic as ``externality.reference_replan``.
    """
    cdef Py_ssize_t n_jobs = len(G), m = len(times), cap, i, x
    cdef Steps s
    cdef i64 p, e, g, w, v, after, top, bad_end, vacated = NEVER, total = owed_k
    cap = m + 2 * (n_jobs - k + 2) + 4
    s.t = <i64*>malloc(cap * sizeof(i64))
    s.f = <i64*>malloc(cap * sizeof(i64))
    if s.t == NULL or s.f == NULL:
        c_free(s.t)
        c_free(s.f)
        raise MemoryError()
    new = list(G[:k]) if collect else None
    try:
        for i in range(m):
            s.t[i] = times[i]
            s.f[i] = free[i]
        s.n = m
        _take(&s, start, start + duration, procs)
        for i in range(k, n_jobs):
            p = P[i]
            e = E[i]
            g = G[i]
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
                    x = _bisect_right(s.t, top - 1, 0, s.n) - 1
                    while x >= 0 and s.f[x] >= p:
                        x -= 1
                    if x >= 0:
                        bad_end = s.t[x + 1] if x + 1 < s.n else top
                        if bad_end > top:
                            bad_end = top
                        if bad_end > after:
                            after = bad_end
                if after > g:
                    after = g
            w = _place(&s, p, e, after)
            if w != g:
                if g < vacated:
                    vacated = g
                v = V[i]
                if w > v:
                    total += (w - v) * p
            else:
                total += <i64>keep_owes[i]
            if collect:
                new.append(w)
    finally:
        c_free(s.t)
        c_free(s.f)
    return total, new
